#pragma once
/// The native-contact options shared by `contacts predict|eval` and `explain contacts`:
/// --pdb FILE [--chain C] or --truth FILE.tsv, and reading the truth they name.

#include <optional>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "attend/bio/contact_map.hpp"
#include "attend/bio/contact_truth.hpp"
#include "command_files.hpp"

namespace attend::cli {

/// Add --pdb, --chain and --truth to `app`, filling `truth`; the files are inputs of `files`.
void add_truth_options(CLI::App* app, bio::ContactTruthSource& truth, CommandFiles& files);

/// The truth named by `t` (bio::load_contact_truth for `query` of `L` residues; `scored`
/// names the scored file in messages), its warnings printed on `err`; none when no option was given.
std::optional<bio::ContactMap> load_truth(const bio::ContactTruthSource& t, const std::string& query, int64_t L,
                                          const std::string& scored, std::ostream& err);

}  // namespace attend::cli
