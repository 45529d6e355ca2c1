// The plugin loader: a working plugin's layers arrive with their origin; each broken plugin
// is refused with a one-line reason and leaves the registry unchanged; the library outlives
// the registry while a module built from it lives.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "attend/core/builtin_layers.hpp"
#include "attend/core/error.hpp"
#include "attend/core/plugin_loader.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/node_layer.hpp"
#include "attend/plugin_abi.h"
#include "temp_dir.hpp"

using namespace attend;
namespace fs = std::filesystem;

namespace {
// Not returned by value: "node_classifier" keeps a reference to the registry it is in.
void add_builtins(Registry& registry) {
  register_core_layers(registry);
  graph::register_graph_layers(registry);
}

std::string broken(const std::string& name) { return std::string(ATTEND_BROKEN_PLUGIN_DIR) + "/" + name + ".so"; }

/// The loader's message for `path`, which must be a refusal (InputError) on one line that
/// leaves the registry's entries as they were.
std::string refusal(const std::string& path) {
  Registry registry;
  add_builtins(registry);
  const std::size_t before = registry.list().size();
  std::string message;
  try {
    load_plugin(path, registry);
  } catch (const InputError& e) {
    message = e.what();
  }
  CHECK(registry.list().size() == before);
  CHECK(message.find('\n') == std::string::npos);
  CHECK(message.find(path) != std::string::npos);
  return message;
}
}  // namespace

TEST_CASE("a plugin's layers join the registry with the plugin's path as origin", "[plugin]") {
  Registry registry;
  add_builtins(registry);
  const PluginInfo info = load_plugin(ATTEND_AGNN_PLUGIN, registry);
  CHECK(info.name == "agnn");
  CHECK(info.version == "1.0.0");
  CHECK(info.path == fs::canonical(ATTEND_AGNN_PLUGIN).string());
  CHECK(info.layers == std::vector<std::string>{"agnn"});
  bool found = false;
  for (const Registry::Entry& e : registry.list()) {
    if (e.name == "agnn") {
      found = true;
      CHECK(e.origin == info.path);
    }
    if (e.name == "gat") CHECK(e.origin == "built-in");
  }
  CHECK(found);
  const auto layer = registry.create("AGNN", {{"in_channels", 5}, {"out_channels", 3}});
  REQUIRE(dynamic_cast<const graph::NodeLayer*>(layer.get()) != nullptr);
  CHECK(layer->type_name() == "agnn");
}

TEST_CASE("the loader refuses each broken plugin with a one-line reason", "[plugin]") {
  attend::testing::TempDir tmp;
  CHECK_THAT(refusal(tmp.file("missing.so")), Catch::Matchers::Contains("no such file"));
  std::ofstream(tmp.file("text.so")) << "not a shared library\n";
  CHECK_THAT(refusal(tmp.file("text.so")), Catch::Matchers::Contains("is not a loadable shared library"));
  CHECK_THAT(refusal(broken("not_a_plugin")), Catch::Matchers::Contains("is not an attend plugin"));
  CHECK_THAT(refusal(broken("no_register")), Catch::Matchers::Contains("lacks the symbol attend_plugin_register"));
  CHECK_THAT(refusal(broken("abi_mismatch")), Catch::Matchers::Contains("has plugin ABI version 1001, this attend needs 1"));
  CHECK_THAT(refusal(broken("fingerprint_mismatch")),
             Catch::Matchers::Contains("was built as 'othercc-1.0 otherlib-1 attend-0.0.0' but this attend is '" +
                                       std::string(attend_plugin_build_fingerprint()) + "'"));
  CHECK_THAT(refusal(broken("register_throws")),
             Catch::Matchers::Contains("failed to register its layers: the plugin could not set itself up"));
}

TEST_CASE("a plugin with a layer name that exists registers none of its layers", "[plugin]") {
  Registry registry;
  add_builtins(registry);
  REQUIRE_THROWS_WITH(load_plugin(broken("duplicate_layer"), registry),
                      Catch::Matchers::Contains("registers layer 'gat', which built-in already registers"));
  CHECK_FALSE(registry.contains("dup_probe"));
  // Loading the same plugin twice is a clash with itself.
  load_plugin(ATTEND_AGNN_PLUGIN, registry);
  CHECK_THROWS_WITH(load_plugin(ATTEND_AGNN_PLUGIN, registry),
                    Catch::Matchers::Contains("registers layer 'agnn', which " + fs::canonical(ATTEND_AGNN_PLUGIN).string()));
}

TEST_CASE("a plugin library stays loaded while a module built from it lives", "[plugin]") {
  close_unused_plugins();
  std::unique_ptr<Module> layer;
  {
    Registry registry;
    load_plugin(ATTEND_GATED_GAT_PLUGIN, registry);
    layer = registry.create("gated_gat", {{"in_channels", 4}, {"out_channels", 2}, {"heads", 2}});
  }
  // The registry is gone; the module still holds the library.
  CHECK(close_unused_plugins() == 0);
  CHECK(layer->config()["heads"] == 2);  // runs the plugin's code
  layer.reset();
  CHECK(close_unused_plugins() == 1);
  // A refused plugin is closed too.
  Registry registry;
  CHECK_THROWS(load_plugin(broken("abi_mismatch"), registry));
  CHECK(close_unused_plugins() == 1);
}

TEST_CASE("plugin_files_in lists the .so files of each existing directory in order", "[plugin]") {
  attend::testing::TempDir a, b;
  for (const char* name : {"z.so", "a.so", "notes.txt"}) std::ofstream(a.file(name)) << "x";
  std::ofstream(b.file("m.so")) << "x";
  const std::vector<std::string> files =
      plugin_files_in(":" + b.path().string() + ":/nonexistent/attend:" + a.path().string() + ":");
  CHECK(files == std::vector<std::string>{b.file("m.so"), a.file("a.so"), a.file("z.so")});
  CHECK(plugin_files_in("").empty());
}
