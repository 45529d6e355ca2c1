// `attend bench`: listed so that --help shows the whole program; not implemented yet.
#include "commands.hpp"

namespace attend::cli {

Command add_bench_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand("bench", "Benchmark the attention kernels and layers (not yet available)");
  return {app, not_yet_available("bench", context)};
}

}  // namespace attend::cli
