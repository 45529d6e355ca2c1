// `attend convert`: listed so that --help shows the whole program; not implemented yet.
#include "commands.hpp"

namespace attend::cli {

Command add_convert_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand("convert", "Convert graph and alignment datasets to HDF5 (not yet available)");
  return {app, not_yet_available("convert", context)};
}

}  // namespace attend::cli
