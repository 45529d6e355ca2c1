#pragma once
// The pieces of the Python module `attend._attend`, one file each; module.cpp calls them in
// order. Bindings only convert arguments and results and call the library.

#include <pybind11/pybind11.h>

namespace attend::python {

void bind_errors(pybind11::module_& m);
void bind_registry(pybind11::module_& m);
void bind_graph(pybind11::module_& m);
void bind_node_classifier(pybind11::module_& m);
void bind_contacts(pybind11::module_& m);
void bind_ops(pybind11::module_& m);

}  // namespace attend::python
