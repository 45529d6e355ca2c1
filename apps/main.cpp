// The `attend` program: chooses its OpenMP waiting, registers the built-in layers, then runs
// the command line.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "attend/core/builtin_layers.hpp"
#include "attend/core/heap.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/bio/builtin_layers.hpp"
#include "cli.hpp"

int main(int argc, char** argv) {
  attend::bound_openmp_spinning(argv);
  attend::keep_freed_memory();
  try {
    attend::register_core_layers(attend::Registry::global());
    attend::graph::register_graph_layers(attend::Registry::global());
    attend::bio::register_bio_layers(attend::Registry::global());
  } catch (...) {
    return attend::cli::report_failure(std::current_exception(), std::cerr);
  }
  return attend::cli::run_cli(std::vector<std::string>(argv, argv + argc),
                              attend::Registry::global(), std::cout, std::cerr);
}
