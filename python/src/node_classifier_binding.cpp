// attend.NodeClassifier: train, apply, save and load a node classifier, the same model and
// checkpoints as `attend node-classify` (same seed, same bits).
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "attend/core/checkpoint.hpp"
#include "attend/core/error.hpp"
#include "attend/core/json_reader.hpp"
#include "attend/core/ops/softmax.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/node_runs.hpp"
#include "attend/graph/node_training.hpp"
#include "attend/graph/trained_node_model.hpp"
#include "bindings.hpp"
#include "numpy_arrays.hpp"
#include "python_json.hpp"
#include "python_graph.hpp"
#include "thread_count.hpp"

namespace py = pybind11;

namespace attend::python {

namespace {

/// What attend.NodeClassifier holds: the model description and, once trained or loaded, the
/// checkpoint and the model built from it.
struct PythonNodeClassifier {
  std::optional<graph::NodeModelSpec> spec;
  std::optional<CheckpointData> checkpoint;
  graph::LoadedNodeModel loaded;
  std::string source;  ///< names the model in errors

  graph::NodeClassifier& model() {
    if (!loaded.model) throw InputError("the model is not trained: call fit() or NodeClassifier.load()");
    return *loaded.model;
  }
  std::shared_ptr<const graph::PreparedNodeData> prepare(const PythonGraph& g) const {
    return g.prepared(loaded.normalize_features);
  }
};

py::dict run_dict(const graph::NodeRunResult& r) {
  return py::dict(py::arg("seed") = r.seed, py::arg("val_acc") = r.val_acc, py::arg("test_acc") = r.test_acc,
                  py::arg("epochs") = r.epochs, py::arg("best_epoch") = r.best_epoch, py::arg("seconds") = r.seconds);
}

}  // namespace

void bind_node_classifier(py::module_& m) {
  py::class_<PythonNodeClassifier>(m, "NodeClassifier",
                                   "A stack of node layers (any registered layer) classifying the nodes of a graph.")
      .def(py::init([](const py::object& model) {
             PythonNodeClassifier c;
             if (py::isinstance<py::str>(model)) {
               c.source = model.cast<std::string>();
               c.spec = graph::NodeModelSpec::load(c.source);
             } else {
               c.source = "model dict";
               c.spec = graph::NodeModelSpec::from_json(to_json(model, c.source), c.source);
             }
             return c;
           }),
           py::arg("model") = "gat",
           "model: a preset name ('gat-cora', ...), a model JSON file, or the same as a dict.")
      .def(
          "fit",
          [](PythonNodeClassifier& c, const PythonGraph& g, std::optional<int> epochs, std::optional<int> patience,
             uint64_t seed, std::optional<int> threads, bool progress) {
            if (!c.spec) throw InputError("a loaded model cannot be trained again; build a new NodeClassifier");
            graph::NodeRunsOptions o;  // one run, as `node-classify train` without --runs
            o.run.seed = seed;
            o.run.epochs = epochs.value_or(-1);
            o.run.patience = patience.value_or(-1);
            o.run.progress.mode = progress ? ProgressMode::kAuto : ProgressMode::kSilent;
            CheckpointData checkpoint;
            o.run.checkpoint_out = &checkpoint;
            graph::NodeRunsResult result;
            {
              py::gil_scoped_release release;
              const ScopedThreadCount thread_count(threads);
              result = graph::train_node_runs(*g.prepared(c.spec->normalize_features), *c.spec, Registry::global(), o);
              c.loaded = graph::node_model_from_checkpoint(checkpoint, Registry::global(), c.source);
            }
            c.checkpoint = std::move(checkpoint);
            return run_dict(result.runs.front());
          },
          py::arg("graph"), py::kw_only(), py::arg("epochs") = py::none(), py::arg("patience") = py::none(),
          py::arg("seed") = 0, py::arg("threads") = py::none(), py::arg("progress") = false,
          "Train on the graph's training split (early stopping on its validation split, as `node-classify "
          "train`); returns {seed, val_acc, test_acc, epochs, best_epoch, seconds}.")
      .def(
          "predict",
          [](PythonNodeClassifier& c, const PythonGraph& g, std::optional<int> threads) {
            Tensor probabilities;
            {
              py::gil_scoped_release release;
              const ScopedThreadCount thread_count(threads);
              probabilities = ops::softmax(Var(graph::class_logits(c.model(), *c.prepare(g), c.source))).value();
            }
            return to_numpy(probabilities);
          },
          py::arg("graph"), py::kw_only(), py::arg("threads") = py::none(),
          "Class probabilities [N, C] of every node.")
      .def(
          "evaluate",
          [](PythonNodeClassifier& c, const PythonGraph& g) {
            std::vector<graph::SplitScore> scores;
            {
              py::gil_scoped_release release;
              const std::shared_ptr<const graph::PreparedNodeData> data = c.prepare(g);
              scores = graph::score_splits(graph::class_logits(c.model(), *data, c.source), data->dataset);
            }
            py::dict out;
            for (const graph::SplitScore& s : scores) {
              out[py::str(s.split)] =
                  py::dict(py::arg("nodes") = s.nodes, py::arg("accuracy") = s.accuracy, py::arg("loss") = s.loss);
            }
            return out;
          },
          py::arg("graph"), "Accuracy and mean cross-entropy on each split the graph has.")
      .def(
          "attention",
          [](PythonNodeClassifier& c, const PythonGraph& g) {
            std::shared_ptr<const graph::PreparedNodeData> data;
            std::vector<graph::AttentionExport> attention;
            {
              py::gil_scoped_release release;
              data = c.prepare(g);
              graph::class_logits(c.model(), *data, c.source, &attention);
            }
            py::list out;
            for (const graph::AttentionExport& a : attention) {
              if (a.view == nullptr) {
                out.append(py::none());
                continue;
              }
              out.append(py::dict(py::arg("weights") = to_numpy(a.weights), py::arg("src") = to_numpy(a.view->src),
                                  py::arg("dst") = to_numpy(a.view->dst),
                                  py::arg("relation") = to_numpy(a.view->relation)));
            }
            return out;
          },
          py::arg("graph"),
          "Per layer, the attention weights {'weights' [E, H], 'src', 'dst', 'relation' [E]} over the edges the "
          "layer attended (self-loops included), or None for a layer that does not attend.")
      .def(
          "save",
          [](const PythonNodeClassifier& c, const std::string& path) {
            if (!c.checkpoint) throw InputError("the model is not trained: nothing to save");
            save_checkpoint(path, *c.checkpoint);
          },
          py::arg("path"), "Write the model as `node-classify train --save` does (HDF5, atomically).")
      .def_static(
          "load",
          [](const std::string& path) {
            PythonNodeClassifier c;
            c.source = path;
            c.checkpoint = load_checkpoint(path);
            c.loaded = graph::node_model_from_checkpoint(*c.checkpoint, Registry::global(), path);
            return c;
          },
          py::arg("path"), "A model saved by save() or by `node-classify train --save`.")
      .def_property_readonly("config", [](PythonNodeClassifier& c) { return to_python(c.model().config()); });
}

}  // namespace attend::python
