#pragma once
/// TargetForward: a NodeClassifier's forward pass over copies of a computation graph
/// (computation_graph.hpp) that computes each layer only on the rows the targets' outputs
/// read, the layer-wise receptive field of Ying et al. 2019's computation graph.
///
/// With r_i the message-passing layers after layer i, the target's output reads layer i's
/// output only at the nodes with d(v) <= r_i. Layer i therefore runs on the nodes with
/// d(v) <= r_i + 1 (message passing) or d(v) <= r_i (a node-local layer, passes_messages()
/// false) and on the plain edges of the computation graph that end at a node with
/// d(v) <= r_i, in the computation graph's edge order, with its normalisation degrees and
/// edge features. Every in-edge of such a node is kept, so for any layer that reads only
/// in-edges and in-degrees (NodeLayer::reads_in_neighbors_only) its rows there are those of
/// the whole computation graph; the rows beyond are computed by the layer but dropped at
/// once: the rows the next layer reads are gathered (ops::gather_rows) from the layer's own
/// output before its L2 normalisation and activation (NodeClassifier::finish_layer, row by
/// row), so those run only where they are read; with jumping_knowledge "cat" the head reads
/// each hidden layer's rows of its own input nodes. The first layer reads every
/// node of the computation graph (d(v) <= L), so the input is the computation graph's.
///
/// For the BA-Shapes preset (3 GCN layers and a node_linear head, about 50 nodes) the second
/// and third layers and the head run on a few nodes instead of all: the same target logits
/// (up to float summation order) for a fraction of the work.
///
/// `copies` disjoint copies run in one pass (copy k's rows follow copy k - 1's; its edge e
/// of the computation graph is mask entry k E + e), so a batch of integration steps is one
/// forward and one backward. When every copy reads the same input and only the edge mask
/// differs (Input::kShared: integrated gradients on edges), the nodes at d(v) = L, which only
/// feed their input row to the first message-passing layer, are held once for all copies:
/// each copy's edges from them read the one row (the in-edges of every node whose output is
/// read, and their mask entries, stay each copy's own). On BA-Shapes that is 40 of the 50
/// rows of the first layer.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "attend/core/autodiff.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/node_classifier.hpp"

namespace attend::graph {

class TargetForward {
 public:
  /// Whether each copy has an input of its own or all read features() (see above).
  enum class Input { kPerCopy, kShared };

  /// The pass of `model` over `copies` copies of `cg` (built for this model: cg.hops is its
  /// message-passing layer count; `cg` must outlive the pass). Throws attend::Error for a layer that reads more than its
  /// in-neighbours. `same_copies`, when given, is a pass of the same model over the same
  /// copies of `cg` (with the other Input): each layer whose rows are the same in both (every
  /// layer but a first one that holds shared rows) shares its graph, edge mask positions and
  /// built adjacency instead of building them again. `one_copy`, when given, is the pass
  /// of the same model over one copy of `cg`: each other layer without shared rows is its
  /// layer's graph in `copies` disjoint copies (GraphContext::disjoint_copies, carrying the
  /// adjacency that pass has built), the same graph as building it here, without the sorts.
  TargetForward(const NodeClassifier& model, const ComputationGraph& cg, int64_t copies,
                Input input = Input::kPerCopy, const TargetForward* same_copies = nullptr,
                const TargetForward* one_copy = nullptr);

  int64_t copies() const { return copies_; }
  /// Local target node of each copy in the rows of the input.
  int64_t target() const { return target_; }
  /// Plain edges of the computation graph, per copy (the mask holds copies x this many).
  int64_t num_edges() const { return num_edges_; }
  /// Rows of the input: copies n, or with Input::kShared fewer.
  int64_t input_rows() const { return static_cast<int64_t>(input_nodes_.size()); }
  /// The computation graph's input features in the rows of the pass (sparse): [input_rows(), F],
  /// gathered on first use (a pass whose input is given never builds them).
  const NodeFeatures& features() const;

  /// The target's logits in each copy [copies, C] for the input `x` ([copies n, F]; with
  /// Input::kShared it must be features()) and, when
  /// defined, the soft edge mask `edge_mask` [copies E] over the computation graph's plain
  /// edges (copy k's edge e at k E + e; GraphContext::with_edge_mask). `model` is the one the
  /// pass was built for, in evaluation mode.
  Var logits(const NodeClassifier& model, const NodeFeatures& x, const Var& edge_mask) const;

 private:
  struct Layer {
    GraphContext graph;               ///< the layer's nodes and edges, for all copies
    /// [copies E_layer] position of each edge's mask entry (no repeats)
    std::shared_ptr<const std::vector<int64_t>> mask_index;
    /// The rows of the layer's own output that later layers read, in the next layer's row
    /// order, kept before NodeClassifier::finish_layer; empty: all of them.
    std::vector<int64_t> output_rows;
    bool shared_rows = false;  ///< holds the nodes at d(v) = L once for all copies (Input::kShared)
  };
  int64_t copies_ = 1;
  int64_t target_ = -1;
  int64_t num_edges_ = 0;
  const ComputationGraph* cg_ = nullptr;
  std::vector<int64_t> input_nodes_;  ///< [input_rows()] local node of each input row
  mutable std::once_flag features_built_;
  mutable NodeFeatures features_;
  std::vector<Layer> layers_;
  /// jumping_knowledge "cat": per hidden layer joining the head's input
  /// (NodeClassifier::joins_head_input), the rows of its kept output the head reads (empty:
  /// all of them, in order).
  std::vector<std::vector<int64_t>> head_rows_;
  std::vector<int64_t> target_rows_;  ///< [copies] the target's row in the last layer's output
};

/// The TargetForward passes of one computation graph, each built on first use per copy count
/// (an explanation runs one copy for f(input) and f(baseline) and a batch for the steps).
class TargetForwards {
 public:
  /// Keeps references to `model` and `cg`, which must outlive it.
  TargetForwards(const NodeClassifier& model, const ComputationGraph& cg) : model_(model), cg_(cg) {}
  const NodeClassifier& model() const { return model_; }
  const ComputationGraph& graph() const { return cg_; }
  /// The pass over `copies` copies; one built later with the other Input shares the layers
  /// whose rows are the same (TargetForward's `same_copies`), and the others are copies of
  /// the one-copy pass's layers (`one_copy`) where they hold no shared rows.
  const TargetForward& copies(int64_t copies, TargetForward::Input input = TargetForward::Input::kPerCopy);
  /// The target's logits [1, C] at the computation graph's own input (no mask, nothing
  /// recorded), computed on first use: the predicted class, the explained value and
  /// integrated gradients' f(input) all read this one forward.
  const Tensor& input_logits();

 private:
  const NodeClassifier& model_;
  const ComputationGraph& cg_;
  Tensor input_logits_;  ///< [1, C], empty until computed
  std::map<std::pair<int64_t, TargetForward::Input>, std::unique_ptr<TargetForward>> built_;
};

}  // namespace attend::graph
