#pragma once
/// `attend convert --msa FILE --to OUT.h5`: an alignment to the HDF5 alignment file
/// (bio/alignment_h5.hpp), kept apart from the other conversions of `attend convert`.

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "command_files.hpp"
#include "commands.hpp"

namespace attend::cli {

/// The alignment options of `attend convert`.
struct ConvertMsaArgs {
  std::string msa, format = "auto", query;
  bool with_scores = false;
  int64_t max_sequences = 0;  ///< keep the query and a seeded sample of the others (0: all)
};

/// Add --msa (an input of `files`), --format, --query and --with-scores to `convert`.
std::shared_ptr<ConvertMsaArgs> add_convert_msa_options(CLI::App* convert, CommandFiles& files);

/// Read the alignment, optionally fit the potts predictor on all of it for `/scores`, then
/// keep at most `max_sequences` rows (the query and others drawn by bio::sample_rows with
/// seed 0), weight the kept rows (80 % identity), write `to`. Returns the exit code.
int run_convert_msa(const ConvertMsaArgs& args, const std::string& to, Context& context);

}  // namespace attend::cli
