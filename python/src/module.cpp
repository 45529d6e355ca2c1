// The compiled part of the Python package `attend` (python/attend/__init__.py re-exports it).
#include <pybind11/pybind11.h>

#include "attend/core/heap.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "attend/version.h"
#include "bindings.hpp"

PYBIND11_MODULE(_attend, m) {
  m.doc() = "attend: attention on graphs and proteins (the compiled core)";
  m.attr("__version__") = ATTEND_VERSION_STRING;
  // What attend's programs give libgomp as GOMP_SPINCOUNT (attend/__init__.py sets the same).
  m.attr("bounded_spin_count") = attend::kBoundedSpinCount;
  // As the attend program does: freed pages and large tensor blocks are kept for the next
  // training step instead of going back to the system (glibc's thresholds, heap.hpp), which
  // halved the Cora run's training time in this process (docs/performance.md).
  attend::keep_freed_memory();
  attend::python::bind_errors(m);
  attend::python::bind_registry(m);
  attend::python::bind_graph(m);
  attend::python::bind_node_classifier(m);
  attend::python::bind_contacts(m);
  attend::python::bind_ops(m);
}
