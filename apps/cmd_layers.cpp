// `attend layers`: every layer in the registry with where it came from; `--options NAME`: the
// layer's options as a Markdown table (the tables of docs/user-guide.md).
#include <algorithm>
#include <memory>
#include <string>

#include "attend/core/error.hpp"
#include "attend/core/json_writer.hpp"
#include "attend/core/quoted_input.hpp"
#include "commands.hpp"
#include "command_files.hpp"

namespace attend::cli {

namespace {

/// Two left-aligned columns, NAME and ORIGIN, one registry entry per row.
void print_table(const std::vector<Registry::Entry>& entries, std::ostream& out) {
  if (entries.empty()) {
    out << "no layers registered\n";
    return;
  }
  std::size_t width = std::string("NAME").size();
  for (const auto& e : entries) width = std::max(width, e.name.size());
  auto row = [&](const std::string& name, const std::string& origin) {
    out << name << std::string(width - name.size() + 2, ' ') << origin << '\n';
  };
  row("NAME", "ORIGIN");
  for (const auto& e : entries) row(e.name, e.origin);
}

}  // namespace

Command add_layers_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand("layers", "List the registered layers (built-in and plugins)");
  auto json_path = std::make_shared<std::string>();
  auto layer = std::make_shared<std::string>();
  CommandFiles::of(app)->output(
      app->add_option("--json", *json_path, "Also write {\"layers\":[{\"name\",\"origin\"}]} to FILE")
          ->type_name("FILE"));
  app->add_option("--options", *layer, "Print the options of layer NAME as a Markdown table instead")
      ->type_name("NAME");
  auto run = [&context, json_path, layer]() {
    const std::vector<Registry::Entry> entries = context.registry.list();
    if (!layer->empty()) {
      const auto it = std::find_if(entries.begin(), entries.end(), [&](const Registry::Entry& e) {
        return Registry::normalize(e.name) == Registry::normalize(*layer);
      });
      if (it == entries.end()) context.registry.create(*layer, Json());  // the unknown-layer error, listing the known
      if (it->options.empty()) throw InputError("layer " + quoted_input(it->name) + " (" + it->origin + ") documents no options");
      context.out << option_table_markdown(it->options);
      return 0;
    }
    print_table(entries, context.out);
    if (!json_path->empty()) {
      nlohmann::json layers = nlohmann::json::array();
      for (const auto& e : entries) layers.push_back({{"name", e.name}, {"origin", e.origin}});
      write_json_file(*json_path, {{"layers", layers}});
    }
    return 0;
  };
  return {app, run};
}

}  // namespace attend::cli
