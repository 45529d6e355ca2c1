// The process-wide layer registry: the built-ins are registered when the module is imported;
// plugins come in with attend.load_plugin.
#include <pybind11/stl.h>

#include "attend/bio/builtin_layers.hpp"
#include "attend/core/builtin_layers.hpp"
#include "attend/core/plugin_loader.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "bindings.hpp"

namespace py = pybind11;

namespace attend::python {

void bind_registry(py::module_& m) {
  Registry& registry = Registry::global();
  if (!registry.contains("gat")) {  // a second import of the module in one process registers nothing
    register_core_layers(registry);
    graph::register_graph_layers(registry);
    bio::register_bio_layers(registry);
  }
  m.def(
      "layers",
      [] {
        py::list out;
        for (const Registry::Entry& e : Registry::global().list()) {
          out.append(py::dict(py::arg("name") = e.name, py::arg("origin") = e.origin));
        }
        return out;
      },
      "Every registered layer as {'name', 'origin'} (built-in or the plugin's path).");
  m.def(
      "load_plugin", [](const std::string& path) { return load_plugin(path, Registry::global()).layers; },
      py::arg("path"), "Load a layer plugin (a shared library, docs/plugins.md); returns the layer names it added.");
}

}  // namespace attend::python
