#include "command_files.hpp"

#include <algorithm>
#include <filesystem>

#include "attend/core/output_path.hpp"

namespace attend::cli {

namespace {

// Whether `path` names an existing file inside the folder `folder`, at any depth (symbolic
// links resolved): a file of a dataset folder is an input even when the command line names
// only the folder.
bool inside_folder(const std::string& path, const std::string& folder) {
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error) || !std::filesystem::exists(path, error)) return false;
  const std::filesystem::path root = std::filesystem::canonical(folder, error);
  if (error) return false;
  const std::filesystem::path file = std::filesystem::canonical(path, error);
  if (error) return false;
  return std::mismatch(root.begin(), root.end(), file.begin(), file.end()).first == root.end();
}

/// Whether `path` is one of the files PREFIX + `suffix` names when the suffix holds a `*`
/// (".node*.svg": one file per node), compared as absolute, normalised paths.
bool in_family(const std::string& prefix, const std::string& suffix, const std::string& path) {
  const std::size_t star = suffix.find('*');
  const auto absolute = [](const std::string& p) { return std::filesystem::absolute(p).lexically_normal().string(); };
  const std::string head = absolute(prefix + suffix.substr(0, star)), tail = suffix.substr(star + 1);
  const std::string candidate = absolute(path);
  return candidate.size() >= head.size() + tail.size() && candidate.compare(0, head.size(), head) == 0 &&
         candidate.compare(candidate.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_family(const std::string& suffix) { return suffix.find('*') != std::string::npos; }

}  // namespace

std::shared_ptr<CommandFiles> CommandFiles::of(CLI::App* command) {
  auto files = std::make_shared<CommandFiles>();
  for (CLI::App* app = command->get_parent(); app != nullptr; app = app->get_parent()) {
    for (const std::string& name : kProgramInputs) {
      if (CLI::Option* option = app->get_option_no_throw(name)) files->input(option);
    }
  }
  command->final_callback([files] { files->check(); });
  return files;
}

CLI::Option* CommandFiles::input(CLI::Option* option) {
  inputs_.push_back(option);
  return option;
}

CLI::Option* CommandFiles::output(CLI::Option* option, std::vector<std::string> suffixes) {
  outputs_.push_back({option, std::move(suffixes)});
  return option;
}

void CommandFiles::check() const {
  struct Written {
    std::string path;  ///< PREFIX + suffix, a family of files when the suffix holds a '*'
    std::string prefix, suffix;
    const CLI::Option* option;
  };
  std::vector<Written> written;  // the outputs checked so far
  const auto overlaps = [](const Written& a, const Written& b) {
    if (is_family(a.suffix) && is_family(b.suffix)) return a.path == b.path;
    if (is_family(a.suffix)) return in_family(a.prefix, a.suffix, b.path);
    if (is_family(b.suffix)) return in_family(b.prefix, b.suffix, a.path);
    return same_file(a.path, b.path);
  };
  for (const Output& output : outputs_) {
    if (output.option->count() == 0) continue;
    const std::string& given = output.option->results().front();
    for (const std::string& suffix : output.suffixes) {
      const Written file{given + suffix, given, suffix, output.option};
      const std::string& path = file.path;
      const std::string name = output.option->get_name();
      const std::string what = "cannot write " + path + (suffix.empty() ? "" : " (from the prefix " + given + ")");
      const std::string problem = is_family(suffix) ? "" : output_path_problem(path);
      if (!problem.empty()) throw CLI::ValidationError(name, what + ": " + problem);
      for (const CLI::Option* input : inputs_) {
        for (const std::string& read : input->results()) {
          // An input that does not exist fails when it is read, and a preset name is no file.
          std::error_code error;
          const bool clash = is_family(suffix) ? in_family(given, suffix, read)
                                               : std::filesystem::exists(read, error) && same_file(path, read);
          if (clash) {
            throw CLI::ValidationError(name, what + ": it is the input " + input->get_name() + " " + read +
                                                 " (an output may not replace an input)");
          }
          if (!is_family(suffix) && inside_folder(path, read)) {
            throw CLI::ValidationError(name, what + ": it is a file of the input folder " + input->get_name() +
                                                 " " + read + " (an output may not replace an input)");
          }
        }
      }
      for (const Written& other : written) {
        if (overlaps(file, other)) {
          throw CLI::ValidationError(name, what + ": " + other.option->get_name() + " writes " + other.path +
                                               " too (each output needs its own file)");
        }
      }
      written.push_back(file);
    }
  }
}

std::string CommandFiles::output_writing(const std::string& input) const {
  for (const Output& output : outputs_) {
    if (output.option->count() == 0) continue;
    const std::string& given = output.option->results().front();
    for (const std::string& suffix : output.suffixes) {
      if (is_family(suffix) ? in_family(given, suffix, input) : same_file(given + suffix, input)) {
        return output.option->get_name();
      }
    }
  }
  return "";
}

}  // namespace attend::cli
