#include "attend/graph/explain/target_forward.hpp"

#include <algorithm>

#include "attend/core/error.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/ops/shape.hpp"

namespace attend::graph {

namespace {

// `copies` copies of the rows of `m` one after the other [copies rows, cols].
SparseMatrix tile_rows(const SparseMatrix& m, int64_t copies) {
  std::vector<int64_t> r, c;
  std::vector<float> v;
  for (int64_t k = 0; k < copies; ++k) {
    for (int64_t i = 0; i < m.rows(); ++i) {
      for (int64_t p = m.indptr()[i]; p < m.indptr()[i + 1]; ++p) {
        r.push_back(k * m.rows() + i);
        c.push_back(m.indices()[p]);
        v.push_back(m.values()[p]);
      }
    }
  }
  return SparseMatrix::from_triplets(copies * m.rows(), m.cols(), r, c, v);
}

// Local nodes with d(v) <= reach, ascending.
std::vector<int64_t> nodes_within(const ComputationGraph& cg, int reach) {
  std::vector<int64_t> out;
  for (int64_t v = 0; v < cg.num_nodes(); ++v) {
    if (cg.distance[v] <= reach) out.push_back(v);
  }
  return out;
}

// [copies |rows|] the position of each of `rows` in `among` (a superset, both ascending),
// copy k's rows offset by k |rows| in the output and by k |among| in the positions.
std::vector<int64_t> positions_in(const std::vector<int64_t>& rows, const std::vector<int64_t>& among, int64_t copies) {
  std::vector<int64_t> one;
  for (int64_t v : rows) {
    const auto it = std::lower_bound(among.begin(), among.end(), v);
    ATTEND_CHECK(it != among.end() && *it == v, "node " << v << " is not among the previous layer's rows");
    one.push_back(it - among.begin());
  }
  std::vector<int64_t> out;
  const auto m = static_cast<int64_t>(among.size());
  for (int64_t k = 0; k < copies; ++k) {
    for (int64_t p : one) out.push_back(k * m + p);
  }
  return out;
}

// Entries `index` of the 1-D Var `x`.
Var gather_entries(const Var& x, const std::vector<int64_t>& index) {
  const auto count = static_cast<int64_t>(index.size());
  return ops::reshape(ops::gather_rows(ops::reshape(x, {x.value().numel(), 1}), index), {count});
}

}  // namespace

TargetForward::TargetForward(const NodeClassifier& model, const ComputationGraph& cg, int64_t copies)
    : copies_(copies), target_(cg.target) {
  ATTEND_CHECK(copies >= 1, "a pass over " << copies << " copies");
  ATTEND_CHECK(cg.data.features.is_sparse(), "TargetForward expects the sparse features of computation_graph");
  const std::vector<const NodeLayer*>& layers = model.layers();
  ATTEND_CHECK(message_passing_hops(model) == cg.hops,
               "a computation graph of " << cg.hops << " hops for a model of " << message_passing_hops(model));
  const GraphView& plain = cg.data.graph.plain();
  num_edges_ = plain.num_edges();
  features_ = copies == 1 ? cg.data.features
                          : NodeFeatures(std::make_shared<const SparseMatrix>(tile_rows(*cg.data.features.sparse, copies)));

  int after = cg.hops;  // message-passing layers after the current one
  std::vector<std::vector<int64_t>> rows_of;  // per layer, its input (and output) nodes
  for (std::size_t i = 0; i < layers.size(); ++i) {
    ATTEND_CHECK(layers[i]->reads_in_neighbors_only(),
                 "layer " << i << " (" << layers[i]->type_name() << ") reads more than its in-neighbours");
    if (layers[i]->passes_messages()) --after;
    const int reach = after + (layers[i]->passes_messages() ? 1 : 0);
    const std::vector<int64_t>& rows = rows_of.emplace_back(nodes_within(cg, reach));
    if (i == 0) ATTEND_CHECK(static_cast<int64_t>(rows.size()) == cg.num_nodes(), "the first layer reads every node");

    Layer& layer = layers_.emplace_back();
    const bool last = i + 1 == layers.size();
    if (last && model.concatenates_hidden()) {
      for (std::size_t j = 0; j < i; ++j) head_rows_.push_back(positions_in(rows, rows_of[j], copies));
    } else if (i > 0 && rows.size() != rows_of[i - 1].size()) {
      layer.input_rows = positions_in(rows, rows_of[i - 1], copies);
    }

    std::vector<int64_t> position(static_cast<std::size_t>(cg.num_nodes()), -1);
    for (std::size_t p = 0; p < rows.size(); ++p) position[rows[p]] = static_cast<int64_t>(p);
    std::vector<int64_t> kept;  // plain edges into a node whose output is read, from a row of this layer
    for (int64_t e = 0; e < num_edges_; ++e) {
      if (cg.distance[plain.dst[e]] <= after && position[plain.src[e]] >= 0) kept.push_back(e);
    }
    const auto n = static_cast<int64_t>(rows.size());
    std::vector<int64_t> src, dst, relation, plain_degree, looped_degree;
    for (int64_t k = 0; k < copies; ++k) {
      for (int64_t e : kept) {
        src.push_back(k * n + position[plain.src[e]]);
        dst.push_back(k * n + position[plain.dst[e]]);
        relation.push_back(plain.relation[e]);
        layer.mask_index.push_back(k * num_edges_ + e);
      }
      for (int64_t v : rows) {
        plain_degree.push_back(cg.data.graph.normalization_degree(v, false));
        looped_degree.push_back(cg.data.graph.normalization_degree(v, true));
      }
    }
    layer.graph = GraphContext::from_edges(copies * n, cg.data.graph.num_relations(), std::move(src), std::move(dst),
                                           std::move(relation));
    layer.graph.set_normalization_degrees(std::move(plain_degree), std::move(looped_degree));
    if (plain.has_edge_features()) {
      const int64_t width = plain.edge_features.dim(1);
      Tensor tiled({copies * static_cast<int64_t>(kept.size()), width});  // [copies E_layer, D]
      float* out = tiled.data();
      for (int64_t k = 0; k < copies; ++k) {
        for (int64_t e : kept) out = std::copy_n(plain.edge_features.data() + e * width, width, out);
      }
      layer.graph.set_edge_features(tiled);
    }
  }
  target_rows_ = positions_in({cg.target}, rows_of.back(), copies);
}

Var TargetForward::logits(const NodeClassifier& model, const NodeFeatures& x, const Var& edge_mask) const {
  ATTEND_CHECK(model.layers().size() == layers_.size(), "a pass built for " << layers_.size() << " layers");
  ATTEND_CHECK(!edge_mask.defined() || edge_mask.value().numel() == copies_ * num_edges_,
               "edge mask of " << edge_mask.value().numel() << " entries for " << copies_ << " x " << num_edges_ << " edges");
  NodeFeatures h = x;
  std::vector<Var> hidden;  // jumping_knowledge "cat": each hidden layer's output on its rows
  Var out;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const Layer& layer = layers_[i];
    const bool last = i + 1 == layers_.size();
    if (last && model.concatenates_hidden()) {
      std::vector<Var> parts;
      for (std::size_t j = 0; j < hidden.size(); ++j) parts.push_back(ops::gather_rows(hidden[j], head_rows_[j]));
      h = NodeFeatures(ops::concat(parts));
    } else if (!layer.input_rows.empty()) {
      h = NodeFeatures(ops::gather_rows(out, layer.input_rows));
    }
    const bool masked = edge_mask.defined() && !layer.mask_index.empty();
    out = model.layer_forward(i, h, masked ? layer.graph.with_edge_mask(gather_entries(edge_mask, layer.mask_index))
                                           : layer.graph,
                              0);
    if (!last && model.concatenates_hidden()) hidden.push_back(out);
  }
  return ops::gather_rows(out, target_rows_);
}

const TargetForward& TargetForwards::copies(int64_t copies) {
  std::unique_ptr<TargetForward>& pass = built_[copies];
  if (!pass) pass = std::make_unique<TargetForward>(model_, cg_, copies);
  return *pass;
}

}  // namespace attend::graph
