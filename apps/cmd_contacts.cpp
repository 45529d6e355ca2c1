// `attend contacts`: listed so that --help shows the whole program; not implemented yet.
#include "commands.hpp"

namespace attend::cli {

Command add_contacts_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand("contacts", "Predict protein residue contacts from an alignment (not yet available)");
  return {app, not_yet_available("contacts", context)};
}

}  // namespace attend::cli
