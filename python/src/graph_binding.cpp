// attend.Graph: a node-classification dataset from numpy arrays (PyTorch Geometric's
// edge_index convention) or from any file layout the command line reads (attend.load_graph).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "attend/core/error.hpp"
#include "attend/graph/dataset_arrays.hpp"
#include "attend/graph/load_dataset.hpp"
#include "attend/graph/node_attribute_files.hpp"
#include "attend/graph/node_dataset.hpp"
#include "bindings.hpp"
#include "numpy_arrays.hpp"
#include "python_graph.hpp"

namespace py = pybind11;

namespace attend::python {

namespace {

/// A split given as a boolean mask [N] or as an index array (none: empty).
graph::NodeSelection selection(const py::object& split, const std::string& name) {
  graph::NodeSelection s;
  if (split.is_none()) return s;
  const py::array array = py::array::ensure(split);
  if (!array) throw InputError(name + " must be a boolean mask or an index array");
  if (array.dtype().kind() != 'b') {
    s.ids = to_index_vector(IndexArray::ensure(array), name);
    return s;
  }
  const auto mask = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(array);
  if (mask.ndim() != 1) throw InputError(name + " as a mask must be one-dimensional");
  s.mask.assign(mask.data(), mask.data() + mask.size());
  return s;
}

/// Features [N, F]: a dense float array, or anything with tocsr() (a scipy.sparse matrix).
std::optional<SparseMatrix> feature_matrix(const py::object& x) {
  if (x.is_none()) return std::nullopt;
  if (!py::hasattr(x, "tocsr")) return SparseMatrix::from_dense(to_tensor(FloatArray::ensure(x), "x", 2));
  const py::object csr = x.attr("tocsr")();
  const py::tuple shape = csr.attr("shape");
  const auto rows = shape[0].cast<int64_t>(), cols = shape[1].cast<int64_t>();
  const std::vector<int64_t> indptr = to_index_vector(IndexArray::ensure(csr.attr("indptr")), "x.indptr");
  const std::vector<int64_t> indices = to_index_vector(IndexArray::ensure(csr.attr("indices")), "x.indices");
  const FloatArray data = FloatArray::ensure(csr.attr("data"));
  if (static_cast<int64_t>(indptr.size()) != rows + 1) throw InputError("x.indptr must have rows + 1 entries");
  std::vector<int64_t> row;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k) row.push_back(r);
  return SparseMatrix::from_triplets(rows, cols, row, indices, std::vector<float>(data.data(), data.data() + data.size()));
}

/// The arguments of attend.Graph as graph::DatasetArrays, and the dataset they describe.
graph::NodeDataset dataset_from_python(const IndexArray& edge_index, const py::object& x, const py::object& y,
                                       const py::object& train, const py::object& val, const py::object& test,
                                       const py::object& edge_type, const py::object& edge_attr,
                                       std::optional<int64_t> num_nodes,
                                       std::optional<int64_t> num_classes, bool directed, const std::string& name) {
  if (edge_index.ndim() != 2 || edge_index.shape(0) != 2) throw InputError("edge_index must have shape [2, E]");
  graph::DatasetArrays a;
  a.name = name;
  const int64_t e = edge_index.shape(1);
  a.edge_src.assign(edge_index.data(), edge_index.data() + e);
  a.edge_dst.assign(edge_index.data() + e, edge_index.data() + 2 * e);
  if (!edge_type.is_none()) a.edge_type = to_index_vector(IndexArray::ensure(edge_type), "edge_type");
  if (!edge_attr.is_none()) {
    const FloatArray attr = FloatArray::ensure(edge_attr);
    if (!attr || attr.ndim() < 1 || attr.ndim() > 2) throw InputError("edge_attr must have shape [E] or [E, D]");
    a.edge_feature_dim = attr.ndim() == 2 ? attr.shape(1) : 1;
    a.edge_features.assign(attr.data(), attr.data() + attr.size());
  }
  a.directed = directed;
  a.features = feature_matrix(x);
  if (!y.is_none()) a.labels = to_index_vector(IndexArray::ensure(y), "y");
  a.train = selection(train, "train");
  a.val = selection(val, "val");
  a.test = selection(test, "test");
  a.num_nodes = num_nodes;
  a.num_classes = num_classes;
  return graph::dataset_from_arrays(std::move(a));
}

}  // namespace

std::shared_ptr<const graph::PreparedNodeData> PythonGraph::prepared(bool normalize_features) const {
  const std::lock_guard<std::mutex> lock(cache->mutex);
  std::shared_ptr<const graph::PreparedNodeData>& slot = normalize_features ? cache->normalized : cache->raw;
  if (!slot) {
    slot = std::make_shared<const graph::PreparedNodeData>(graph::prepare_node_data(*dataset, normalize_features));
  }
  return slot;
}

void bind_graph(py::module_& m) {
  py::class_<PythonGraph>(m, "Graph", "A node-classification graph: edges, features, labels and splits.")
      .def(py::init([](const IndexArray& edge_index, const py::object& x, const py::object& y, const py::object& train,
                       const py::object& val, const py::object& test, const py::object& edge_type,
                       const py::object& edge_attr, std::optional<int64_t> num_nodes,
                       std::optional<int64_t> num_classes, bool directed, const std::string& name) {
             return PythonGraph{std::make_shared<const graph::NodeDataset>(dataset_from_python(
                 edge_index, x, y, train, val, test, edge_type, edge_attr, num_nodes, num_classes, directed, name))};
           }),
           py::arg("edge_index"), py::kw_only(), py::arg("x") = py::none(), py::arg("y") = py::none(),
           py::arg("train") = py::none(), py::arg("val") = py::none(), py::arg("test") = py::none(),
           py::arg("edge_type") = py::none(), py::arg("edge_attr") = py::none(), py::arg("num_nodes") = py::none(),
           py::arg("num_classes") = py::none(),
           py::arg("directed") = false, py::arg("name") = "arrays",
           "edge_index [2, E] int64 (row 0 sources, row 1 targets); x [N, F] float32 or a scipy.sparse matrix "
           "(none: featureless nodes); y [N] int64 (-1: unlabelled); train / val / test as boolean masks [N] or "
           "index arrays; edge_type [E] (relation ids); edge_attr [E] or [E, D] edge features (graph_transformer's "
           "edge_dim); directed=False: each pair means both ways.")
      .def_property_readonly("name", [](const PythonGraph& g) { return g.dataset->name; })
      .def_property_readonly("num_nodes", [](const PythonGraph& g) { return g.dataset->num_nodes; })
      .def_property_readonly("num_edges", [](const PythonGraph& g) { return g.dataset->num_edges(); })
      .def_property_readonly("num_features", [](const PythonGraph& g) { return g.dataset->num_features(); })
      .def_property_readonly("num_classes", [](const PythonGraph& g) { return g.dataset->num_classes; })
      .def_property_readonly("edge_index",
                             [](const PythonGraph& g) {
                               const graph::NodeDataset& d = *g.dataset;
                               py::array_t<int64_t> out({int64_t{2}, d.num_edges()});
                               std::copy(d.edge_src.begin(), d.edge_src.end(), out.mutable_data());
                               std::copy(d.edge_dst.begin(), d.edge_dst.end(), out.mutable_data() + d.num_edges());
                               return out;
                             })
      .def_property_readonly("x", [](const PythonGraph& g) { return to_numpy(g.dataset->features.to_dense()); })
      .def_property_readonly("y", [](const PythonGraph& g) { return to_numpy(g.dataset->labels); })
      .def_property_readonly("edge_attr",
                             [](const PythonGraph& g) -> py::object {
                               const graph::NodeDataset& d = *g.dataset;
                               if (!d.has_edge_features()) return py::none();
                               py::array_t<float> out({d.num_edges(), d.edge_feature_dim});
                               std::copy(d.edge_features.begin(), d.edge_features.end(), out.mutable_data());
                               return out;
                             })
      .def_property_readonly("edge_type",
                             [](const PythonGraph& g) -> py::object {
                               if (g.dataset->edge_type.empty()) return py::none();  // untyped
                               return to_numpy(g.dataset->edge_type);
                             })
      .def_property_readonly("train", [](const PythonGraph& g) { return to_numpy(g.dataset->train); })
      .def_property_readonly("val", [](const PythonGraph& g) { return to_numpy(g.dataset->val); })
      .def_property_readonly("test", [](const PythonGraph& g) { return to_numpy(g.dataset->test); })
      .def_property_readonly("node_names", [](const PythonGraph& g) {
        std::vector<std::string> names;
        for (int64_t i = 0; i < g.dataset->num_nodes; ++i) names.push_back(g.dataset->node_name(i));
        return names;
      })
      .def(
          "to_numpy",
          [](const py::object& self) {
            py::dict arrays;
            for (const char* name : {"edge_index", "x", "y", "train", "val", "test", "edge_type", "edge_attr", "num_nodes"}) {
              arrays[name] = self.attr(name);
            }
            const graph::NodeDataset& d = *self.cast<const PythonGraph&>().dataset;
            if (d.num_features() == 0) arrays["x"] = py::none();  // featureless nodes, as Graph takes them
            arrays["directed"] = d.directed;
            return arrays;
          },
          "The graph as the keyword arguments of attend.Graph: {edge_index, x, y, train, val, test (index arrays), "
          "edge_type, edge_attr, num_nodes, directed}, x, edge_type and edge_attr None when absent; "
          "attend.Graph(**graph.to_numpy()) is the same graph.")
      .def("__repr__", [](const PythonGraph& g) {
        const graph::NodeDataset& d = *g.dataset;
        return "<attend.Graph " + d.name + ": " + std::to_string(d.num_nodes) + " nodes, " +
               std::to_string(d.num_edges()) + " edges, " + std::to_string(d.num_features()) + " features, " +
               std::to_string(d.num_classes) + " classes>";
      });
  m.def(
      "load_graph",
      [](const std::string& path, const std::string& labels, const std::string& features) {
        graph::NodeDataset d;
        {
          py::gil_scoped_release release;
          d = graph::load_node_dataset(path, graph::DatasetAdditions{{labels, features}, {}});
        }
        return PythonGraph{std::make_shared<const graph::NodeDataset>(std::move(d))};
      },
      py::arg("path"), py::kw_only(), py::arg("labels") = "", py::arg("features") = "",
      "A graph from any layout `attend node-classify --data` reads (folder or .h5 file); labels and features: "
      "files that replace the graph's, as `attend convert --labels --features` reads them.");
}

}  // namespace attend::python
