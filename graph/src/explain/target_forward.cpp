#include "attend/graph/explain/target_forward.hpp"

#include <algorithm>

#include "attend/core/error.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/ops/shape.hpp"

namespace attend::graph {

namespace {

// The rows of one layer: the (copy, local node) of each row, and the row of each
// (copy, node) it holds ([copies n], -1 where none).
struct RowLayout {
  std::vector<int64_t> copy, node;
  std::vector<int64_t> row;
};

// The nodes with d(v) <= reach of every copy, copy by copy in ascending local order; with
// `shared_outer`, the nodes at d(v) = L appear once, after the copies, and every copy reads
// that row.
RowLayout row_layout(const ComputationGraph& cg, int reach, int64_t copies, bool shared_outer) {
  const int64_t n = cg.num_nodes();
  RowLayout out;
  out.row.assign(static_cast<std::size_t>(copies * n), -1);
  auto add = [&](int64_t k, int64_t v) {
    out.row[k * n + v] = static_cast<int64_t>(out.node.size());
    out.copy.push_back(k);
    out.node.push_back(v);
  };
  for (int64_t k = 0; k < copies; ++k) {
    for (int64_t v = 0; v < n; ++v) {
      if (cg.distance[v] <= reach && !(shared_outer && cg.distance[v] == cg.hops)) add(k, v);
    }
  }
  if (shared_outer) {
    for (int64_t v = 0; v < n; ++v) {
      if (cg.distance[v] > reach || cg.distance[v] != cg.hops) continue;
      add(0, v);
      for (int64_t k = 1; k < copies; ++k) out.row[k * n + v] = out.row[v];
    }
  }
  return out;
}

// For each row of `to`, the row of `from` holding the same (copy, node).
std::vector<int64_t> rows_in(const RowLayout& to, const RowLayout& from, int64_t n) {
  std::vector<int64_t> out;
  for (std::size_t r = 0; r < to.node.size(); ++r) {
    const int64_t source = from.row[to.copy[r] * n + to.node[r]];
    ATTEND_CHECK(source >= 0, "node " << to.node[r] << " is not among the previous layer's rows");
    out.push_back(source);
  }
  return out;
}

// Entries `index` of the 1-D Var `x` [index.size()], for an `index` without repeats (a
// layer's mask positions): the backward adds each entry's gradient to its one source, with
// none of the grouping by destination that ops::gather_rows' backward does for repeats.
Var gather_distinct_entries(const Var& x, std::shared_ptr<const std::vector<int64_t>> index) {
  const float* from = x.value().data();
  Tensor out({static_cast<int64_t>(index->size())});  // [M]
  for (std::size_t m = 0; m < index->size(); ++m) out[static_cast<int64_t>(m)] = from[(*index)[m]];
  return Var::from_op(std::move(out), {x}, [x, index](const Tensor&, const Tensor& gy) {
    if (!x.requires_grad()) return;
    float* gx = x.grad_mut().data();
    for (std::size_t m = 0; m < index->size(); ++m) gx[(*index)[m]] += gy[static_cast<int64_t>(m)];
  });
}

}  // namespace

TargetForward::TargetForward(const NodeClassifier& model, const ComputationGraph& cg, int64_t copies, Input input,
                             const TargetForward* same_copies, const TargetForward* one_copy)
    : copies_(copies), target_(cg.target), cg_(&cg) {
  ATTEND_CHECK(copies >= 1, "a pass over " << copies << " copies");
  ATTEND_CHECK(same_copies == nullptr || (same_copies->cg_ == &cg && same_copies->copies_ == copies &&
                                          same_copies->layers_.size() == model.layers().size()),
               "a pass shares layers with a pass over other copies");
  ATTEND_CHECK(one_copy == nullptr || (one_copy->cg_ == &cg && one_copy->copies_ == 1 &&
                                       one_copy->layers_.size() == model.layers().size()),
               "a pass copies its layers from a pass that is not one copy of the same graph");
  const std::vector<const NodeLayer*>& layers = model.layers();
  ATTEND_CHECK(model.message_passing_hops() == cg.hops,
               "a computation graph of " << cg.hops << " hops for a model of " << model.message_passing_hops());
  const GraphView& plain = cg.data.graph.plain();
  const int64_t n = cg.num_nodes();
  num_edges_ = plain.num_edges();
  const bool shared = input == Input::kShared && copies > 1;
  std::vector<int64_t> node_plain_degree(n), node_looped_degree(n);  // [n] in the whole graph
  for (int64_t v = 0; v < n; ++v) {
    node_plain_degree[v] = cg.data.graph.normalization_degree(v, false);
    node_looped_degree[v] = cg.data.graph.normalization_degree(v, true);
  }

  int after = cg.hops;  // message-passing layers after the current one
  std::vector<RowLayout> layouts;  // per layer, its input (and output) rows
  for (std::size_t i = 0; i < layers.size(); ++i) {
    ATTEND_CHECK(layers[i]->reads_in_neighbors_only(),
                 "layer " << i << " (" << layers[i]->type_name() << ") reads more than its in-neighbours");
    if (layers[i]->passes_messages()) --after;
    const int reach = after + (layers[i]->passes_messages() ? 1 : 0);
    const bool shared_rows = shared && reach == cg.hops;
    const RowLayout& rows = layouts.emplace_back(row_layout(cg, reach, copies, shared_rows));
    Layer& layer = layers_.emplace_back();
    layer.shared_rows = shared_rows;
    const bool last = i + 1 == layers.size();
    if (i == 0) {
      ATTEND_CHECK(reach == cg.hops, "the first layer reads every node");
      input_nodes_ = rows.node;
    } else if (rows.node != layouts[i - 1].node || rows.copy != layouts[i - 1].copy) {
      layers_[i - 1].output_rows = rows_in(rows, layouts[i - 1], n);  // kept in this layer's order
    }
    if (i > 0 && last && model.concatenates_hidden()) {  // hidden layer j is kept in layer j + 1's rows
      for (std::size_t j = 0; j < i; ++j) {
        if (!model.joins_head_input(j)) continue;
        const bool same = rows.node == layouts[j + 1].node && rows.copy == layouts[j + 1].copy;
        head_rows_.push_back(same ? std::vector<int64_t>{} : rows_in(rows, layouts[j + 1], n));
      }
    }

    if (same_copies != nullptr && same_copies->layers_[i].shared_rows == shared_rows) {  // the same rows and edges
      layer.graph = same_copies->layers_[i].graph;
      layer.mask_index = same_copies->layers_[i].mask_index;
      continue;
    }
    if (one_copy != nullptr && !shared_rows) {  // copy k's rows and edges are copy 0's, shifted
      const Layer& first = one_copy->layers_[i];
      layer.graph = first.graph.disjoint_copies(copies);
      const auto per_copy = static_cast<int64_t>(first.mask_index->size());
      std::vector<int64_t> mask_index(static_cast<std::size_t>(copies * per_copy));  // [copies E_layer]
      for (int64_t k = 0; k < copies; ++k) {
        for (int64_t j = 0; j < per_copy; ++j) mask_index[k * per_copy + j] = k * num_edges_ + (*first.mask_index)[j];
      }
      layer.mask_index = std::make_shared<const std::vector<int64_t>>(std::move(mask_index));
      continue;
    }
    // Plain edges into a node whose output is read, from a node of this layer, ordered by
    // (destination row, source row) of copy 0. Copy k's rows are copy 0's shifted by the same
    // offset, or a shared row, after every copy's, so every copy keeps that order and the
    // layer's edges come in (row, column) order: the adjacency is stored as given.
    std::vector<int64_t> one;
    for (int64_t e = 0; e < num_edges_; ++e) {
      if (cg.distance[plain.dst[e]] <= after && cg.distance[plain.src[e]] <= reach) one.push_back(e);
    }
    std::stable_sort(one.begin(), one.end(), [&](int64_t a, int64_t b) {
      const int64_t da = rows.row[plain.dst[a]], db = rows.row[plain.dst[b]];
      return da != db ? da < db : rows.row[plain.src[a]] < rows.row[plain.src[b]];
    });
    const auto per_copy = static_cast<int64_t>(one.size());
    const auto count = static_cast<std::size_t>(copies * per_copy);
    std::vector<int64_t> src(count), dst(count), relation(count);  // [copies E_layer]
    std::vector<int64_t> mask_index(count);
    for (int64_t k = 0; k < copies; ++k) {
      const int64_t* row = rows.row.data() + k * n;
      const int64_t first = k * per_copy;
      for (int64_t j = 0; j < per_copy; ++j) {
        const int64_t e = one[j];
        src[first + j] = row[plain.src[e]];
        dst[first + j] = row[plain.dst[e]];
        relation[first + j] = plain.relation[e];
        mask_index[first + j] = k * num_edges_ + e;
      }
    }
    layer.mask_index = std::make_shared<const std::vector<int64_t>>(std::move(mask_index));
    std::vector<int64_t> plain_degree, looped_degree;  // of each row's node in the whole graph
    plain_degree.reserve(rows.node.size());
    looped_degree.reserve(rows.node.size());
    for (int64_t v : rows.node) {
      plain_degree.push_back(node_plain_degree[v]);
      looped_degree.push_back(node_looped_degree[v]);
    }
    layer.graph = GraphContext::from_edges(static_cast<int64_t>(rows.node.size()), cg.data.graph.num_relations(),
                                           std::move(src), std::move(dst), std::move(relation));
    layer.graph.set_normalization_degrees(std::move(plain_degree), std::move(looped_degree));
    if (plain.has_edge_features()) {
      const int64_t width = plain.edge_features.dim(1);
      Tensor rows_of_edges({static_cast<int64_t>(count), width});  // [copies E_layer, D]
      float* out = rows_of_edges.data();
      for (int64_t k = 0; k < copies; ++k) {
        for (int64_t e : one) out = std::copy_n(plain.edge_features.data() + e * width, width, out);
      }
      layer.graph.set_edge_features(rows_of_edges);
    }
  }
  for (int64_t k = 0; k < copies; ++k) target_rows_.push_back(layouts.back().row[k * n + cg.target]);
}

const NodeFeatures& TargetForward::features() const {
  std::call_once(features_built_, [&] {
    features_ = copies_ == 1 ? cg_->data.features : select_rows(cg_->data.features, input_nodes_);
  });
  return features_;
}

Var TargetForward::logits(const NodeClassifier& model, const NodeFeatures& x, const Var& edge_mask) const {
  ATTEND_CHECK(model.layers().size() == layers_.size(), "a pass built for " << layers_.size() << " layers");
  ATTEND_CHECK(!edge_mask.defined() || edge_mask.value().numel() == copies_ * num_edges_,
               "edge mask of " << edge_mask.value().numel() << " entries for " << copies_ << " x " << num_edges_ << " edges");
  NodeFeatures h = x;
  std::vector<Var> hidden;  // jumping_knowledge "cat": each hidden layer's kept output
  Var out;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const Layer& layer = layers_[i];
    const bool last = i + 1 == layers_.size();
    if (last && model.concatenates_hidden()) {
      std::vector<Var> parts;
      for (std::size_t j = 0; j < hidden.size(); ++j) {
        parts.push_back(head_rows_[j].empty() ? hidden[j] : ops::gather_rows(hidden[j], head_rows_[j]));
      }
      h = NodeFeatures(ops::concat(parts));
    } else if (i > 0) {
      h = NodeFeatures(out);
    }
    const bool masked = edge_mask.defined() && !layer.mask_index->empty();
    out = model.unfinished_layer_forward(
        i, h, masked ? layer.graph.with_edge_mask(gather_distinct_entries(edge_mask, layer.mask_index)) : layer.graph,
        0);
    if (!layer.output_rows.empty()) out = ops::gather_rows(out, layer.output_rows);
    out = model.finish_layer(i, out);
    if (model.joins_head_input(i)) hidden.push_back(out);
  }
  return ops::gather_rows(out, target_rows_);
}

const TargetForward& TargetForwards::copies(int64_t copies, TargetForward::Input input) {
  if (copies == 1) input = TargetForward::Input::kPerCopy;  // one copy: the same rows either way
  std::unique_ptr<TargetForward>& pass = built_[{copies, input}];
  if (!pass) {
    const TargetForward::Input other =
        input == TargetForward::Input::kShared ? TargetForward::Input::kPerCopy : TargetForward::Input::kShared;
    const auto built = built_.find({copies, other});
    const TargetForward* one = copies == 1 ? nullptr : &this->copies(1);
    pass = std::make_unique<TargetForward>(model_, cg_, copies, input,
                                           built == built_.end() ? nullptr : built->second.get(), one);
  }
  return *pass;
}

const Tensor& TargetForwards::input_logits() {
  if (input_logits_.numel() == 0) {
    NoGradGuard no_grad;
    const TargetForward& one = copies(1);
    input_logits_ = one.logits(model_, one.features(), Var()).value();
  }
  return input_logits_;
}

}  // namespace attend::graph
