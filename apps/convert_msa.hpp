#pragma once
/// `attend convert --msa FILE --to OUT.h5`: an alignment to the HDF5 alignment file
/// (bio/alignment_h5.hpp), kept apart from the other conversions of `attend convert`.

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.hpp"

namespace attend::cli {

/// The alignment options of `attend convert`.
struct ConvertMsaArgs {
  std::string msa, format = "auto", query;
  bool with_scores = false;
};

/// Add --msa, --format, --query and --with-scores to `convert`.
std::shared_ptr<ConvertMsaArgs> add_convert_msa_options(CLI::App* convert);

/// Read the alignment, weight it (80 % identity), optionally fit the potts predictor for
/// `/scores`, write `to`. Returns the exit code.
int run_convert_msa(const ConvertMsaArgs& args, const std::string& to, Context& context);

}  // namespace attend::cli
