#pragma once
/// Run the `attend` command line in process, with every built-in layer registered in a
/// fresh registry, and capture what it prints (tests only).

#include <sstream>
#include <string>
#include <vector>

#include "attend/bio/builtin_layers.hpp"
#include "attend/core/builtin_layers.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "cli.hpp"

namespace attend::testing {

struct CliResult {
  int code;
  std::string out, err;
};

/// `args` without the program name, e.g. {"node-classify", "train", "--data", dir}.
inline CliResult run_attend(std::vector<std::string> args) {
  Registry registry;
  register_core_layers(registry);
  graph::register_graph_layers(registry);
  bio::register_bio_layers(registry);
  args.insert(args.begin(), "attend");
  std::ostringstream out, err;
  const int code = cli::run_cli(args, registry, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace attend::testing
