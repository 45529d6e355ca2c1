// `attend node-classify`: listed so that --help shows the whole program; not implemented yet.
#include "commands.hpp"

namespace attend::cli {

Command add_node_classify_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand("node-classify", "Train, evaluate and apply graph node classifiers (not yet available)");
  return {app, not_yet_available("node-classify", context)};
}

}  // namespace attend::cli
