#pragma once
/// CommandFiles: the options of one subcommand that name files it reads and files it writes,
/// checked together as soon as the command line has parsed, before any work.
///
/// An output path is refused (exit 2, one line naming the option) when it
///   * names a directory, an existing file that is not a regular file (a device, fifo or
///     socket), or lies in a directory that does not exist (output_path.hpp);
///   * names the same file as an existing input of the command (the same inode: symbolic and
///     hard links count), or an existing file inside an input folder, which writing would
///     destroy;
///   * names the same file as another output of the command (the same inode, or the same
///     resolved path for files that do not exist yet), which one write would overwrite.
/// A prefix option (`contacts predict --out PREFIX`) is checked for each file PREFIX + suffix;
/// a suffix with a `*` (".node*.svg") stands for a family of files (one per node, known only
/// once the command runs): another path of the command is refused when it matches the pattern.
/// The program's own options that name files it reads (`attend --plugin PATH`, before or after
/// the subcommand) are inputs of every command. Inputs named only inside a file the command
/// reads are checked by the command against `output_writing` once it has read them.

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace attend::cli {

/// Options of the program (the root app) that name files every command reads.
inline const std::vector<std::string> kProgramInputs = {"--plugin"};

class CommandFiles {
 public:
  /// The file options of `command`, checked once it has parsed (its final callback). The
  /// program-wide input options (kProgramInputs) of the apps above it, declared before it, are
  /// its inputs too.
  static std::shared_ptr<CommandFiles> of(CLI::App* command);

  /// `option` names files the command reads (a file or a folder; a vector option: each value).
  CLI::Option* input(CLI::Option* option);
  /// `option` names a file the command writes; with `suffixes`, a prefix of the files
  /// PREFIX + suffix.
  CLI::Option* output(CLI::Option* option, std::vector<std::string> suffixes = {""});

  /// Throws CLI::ValidationError naming the first output option whose path is refused.
  void check() const;

  /// The name of the output option that writes `input`, or "" when none does: for inputs the
  /// command finds only once it runs (the files of a family list, the shipped model).
  std::string output_writing(const std::string& input) const;

 private:
  struct Output {
    CLI::Option* option;
    std::vector<std::string> suffixes;
  };
  std::vector<CLI::Option*> inputs_;
  std::vector<Output> outputs_;
};

}  // namespace attend::cli
