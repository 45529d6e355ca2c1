#include "attend/graph/node_inference.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <span>
#include <utility>

#include "attend/core/error.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::graph {

namespace {

// Copy rows [0, count) of `batch_out` [n, C] into rows [offset, offset + count) of `out` [M, C].
void copy_rows(const Tensor& batch_out, int64_t count, Tensor& out, int64_t offset) {
  const int64_t c = out.dim(1);
  std::memcpy(out.data() + offset * c, batch_out.data(), static_cast<std::size_t>(count * c) * sizeof(float));
}

// The batches [first, end) of `count` that rank r of K computes: [count r / K, count (r + 1) / K),
// contiguous, so that an all-gather in rank order puts their rows back in order.
std::pair<std::size_t, std::size_t> rank_batches(std::size_t count, const Communicator& comm) {
  const auto ranks = static_cast<std::size_t>(comm.size()), rank = static_cast<std::size_t>(comm.rank());
  return {count * rank / ranks, count * (rank + 1) / ranks};
}

// Every rank's rows `mine` [rows of this rank, C], concatenated in rank order: [rows, C].
Tensor gather_rank_rows(Tensor mine, int64_t rows, const Communicator& comm) {
  if (comm.size() == 1) return mine;
  std::vector<float> all = comm.allgather(std::span<const float>(mine.data(), static_cast<std::size_t>(mine.numel())));
  return Tensor({rows, mine.dim(1)}, std::move(all));
}

// PyG's `inference` loop: layer by layer over all nodes in batches, each batch on the 1-hop
// graph of its nodes. Layer i's output of every node [N, C_i] is kept for layer i + 1 (and,
// under jumping knowledge, for the head); the last layer runs only for `nodes`. Each rank of
// `comm` computes its share of every layer's batches (rank_batches) and the ranks all-gather
// the layer's output before the next: a batch's rows depend only on the layer before, so
// every rank holds the bits one process computes.
Tensor layerwise_logits(const NodeClassifier& model, const GraphContext& graph, const NodeFeatureRows& input_rows,
                        const std::vector<int64_t>& nodes, int64_t batch_size, const Communicator& comm) {
  const auto& layers = model.layers();
  std::vector<int64_t> all(static_cast<std::size_t>(graph.num_nodes()));
  std::iota(all.begin(), all.end(), int64_t{0});
  NeighborSamplerOptions one_hop;
  one_hop.fanouts = {-1};

  Tensor previous;             // [N, C_{i-1}] layer i-1's output of every node
  std::vector<Var> hidden;     // jumping knowledge: every hidden layer's output [N, C_j]
  Tensor head_input;           // jumping knowledge: their concatenation [N, sum C_j]
  Tensor out;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool last = i + 1 == layers.size();
    if (last && model.concatenates_hidden()) head_input = ops::concat(hidden).value();
    const Tensor& stored = last && model.concatenates_hidden() ? head_input : previous;
    const std::vector<int64_t>& targets = last ? nodes : all;
    const std::vector<std::vector<int64_t>> batches = seed_batches(targets, batch_size, false, 0);
    const auto [first, end] = rank_batches(batches.size(), comm);
    int64_t rows = 0;
    for (std::size_t b = first; b < end; ++b) rows += static_cast<int64_t>(batches[b].size());
    Tensor mine({rows, layers[i]->out_features()});  // [rows of this rank's batches, C_i]
    int64_t offset = 0;
    for (std::size_t b = first; b < end; ++b) {
      const SampledSubgraph s = sample_neighbors(graph, batches[b], one_hop);
      const NodeFeatures x = i == 0 ? input_rows(s.node_ids) : NodeFeatures(ops::gather_rows(Var(stored), s.node_ids));
      const Tensor y = model.layer_forward(i, x, s.graph, 0).value();  // [n, C_i], the batch's nodes first
      copy_rows(y, static_cast<int64_t>(batches[b].size()), mine, offset);
      offset += static_cast<int64_t>(batches[b].size());
    }
    out = gather_rank_rows(std::move(mine), static_cast<int64_t>(targets.size()), comm);  // [targets, C_i]
    if (model.joins_head_input(i)) hidden.emplace_back(out);
    previous = out;
  }
  return out;
}

// The whole model on each batch's sampled computation graph (batch number b keys the draws),
// for `nodes`' batches first .. end - 1 (end -1: to the last): the logits of their rows.
Tensor sampled_logits(const NodeClassifier& model, const GraphContext& graph, const NodeFeatureRows& input_rows,
                      const std::vector<int64_t>& nodes, const InferenceOptions& o, std::size_t first = 0,
                      std::ptrdiff_t end = -1) {
  const std::vector<std::vector<int64_t>> batches = seed_batches(nodes, o.batch_size, false, 0);
  const std::size_t last = end < 0 ? batches.size() : static_cast<std::size_t>(end);
  int64_t rows = 0;
  for (std::size_t b = first; b < last; ++b) rows += static_cast<int64_t>(batches[b].size());
  Tensor out({rows, model.layers().back()->out_features()});  // [rows, C]
  int64_t offset = 0;
  for (std::size_t b = first; b < last; ++b) {
    const SampledSubgraph s = sample_neighbors(graph, batches[b], o.sampler, b);
    const Tensor y = model.forward(input_rows(s.node_ids), s.graph, 0).value();  // [n, C], the batch's nodes first
    copy_rows(y, static_cast<int64_t>(batches[b].size()), out, offset);
    offset += static_cast<int64_t>(batches[b].size());
  }
  return out;
}

// "5,5,-1".
std::string joined(const std::vector<int64_t>& values) {
  std::string s;
  for (int64_t v : values) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

// What check_fanouts_fit and model_fanouts ask of a list of the wrong length, for `model`.
std::string fanouts_wanted(const NodeClassifier& model) {
  const auto hops = static_cast<std::size_t>(model.message_passing_hops());
  std::string s = " for a model of " + std::to_string(hops) + " message-passing layer" + (hops == 1 ? "" : "s");
  if (hops != model.layers().size()) s += " (of " + std::to_string(model.layers().size()) + " layers)";
  return s + ": give one per message-passing layer (-1 = all neighbours)";
}

}  // namespace

InferenceMode inference_mode(const std::string& name) {
  if (name == "full") return InferenceMode::kFull;
  if (name == "layerwise") return InferenceMode::kLayerwise;
  if (name == "sampled") return InferenceMode::kSampled;
  throw InputError("unknown inference mode " + quoted_input(name) + ": full, layerwise or sampled");
}

std::string inference_mode_name(InferenceMode mode) {
  switch (mode) {
    case InferenceMode::kFull: return "full";
    case InferenceMode::kLayerwise: return "layerwise";
    case InferenceMode::kSampled: return "sampled";
  }
  return "full";
}

void check_fanouts_fit(const NodeClassifier& model, const std::vector<int64_t>& fanouts) {
  if (fanouts.size() != static_cast<std::size_t>(model.message_passing_hops())) {
    throw InputError(std::to_string(fanouts.size()) + " fan-outs" + fanouts_wanted(model));
  }
}

ModelFanouts model_fanouts(const NodeClassifier& model, const std::vector<int64_t>& fanouts) {
  const auto hops = static_cast<std::size_t>(model.message_passing_hops());
  if (hops == 0) {
    throw InputError("the model has no message-passing layer, so there are no neighbours to sample: train it "
                     "full-batch (no --fanouts) and score it with --inference full or layerwise");
  }
  if (fanouts.size() == hops) return {fanouts, ""};
  if (fanouts.size() != model.layers().size()) {
    throw InputError(std::to_string(fanouts.size()) + " fan-outs" + fanouts_wanted(model));
  }
  ModelFanouts m;
  m.fanouts.assign(fanouts.begin(), fanouts.begin() + static_cast<std::ptrdiff_t>(hops));
  m.note = "--fanouts " + joined(fanouts) + " counts every layer, as fan-outs were counted before; the model passes " +
           "messages over " + std::to_string(hops) + " hops, so " + joined(m.fanouts) +
           " are used (the same draws for the hops it reads)";
  return m;
}

void check_inference_fits(const NodeClassifier& model, const InferenceOptions& o) {
  if (o.batch_size < 1) throw InputError("the inference batch size must be positive, got " + std::to_string(o.batch_size));
  if (o.mode == InferenceMode::kSampled) check_fanouts_fit(model, o.sampler.fanouts);
  if (o.mode != InferenceMode::kLayerwise) return;
  const auto& layers = model.layers();
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (!layers[i]->reads_in_neighbors_only()) {
      throw InputError("layer-wise inference needs layers that read only their in-neighbours; layer " +
                       std::to_string(i) + " (" + quoted_input(layers[i]->type_name()) +
                       ") attends over all node pairs: use full or sampled inference");
    }
  }
}

Tensor infer_node_logits(NodeClassifier& model, const GraphContext& graph, const NodeFeatures& features,
                         const std::vector<int64_t>& nodes, const InferenceOptions& o) {
  check_inference_fits(model, o);
  NoGradGuard no_grad;
  model.eval();
  if (o.mode == InferenceMode::kFull) return ops::gather_rows(model.forward(features, graph, 0), nodes).value();
  const NodeFeatureRows rows = o.feature_rows ? o.feature_rows : in_memory_rows(features);
  if (o.mode == InferenceMode::kLayerwise) return layerwise_logits(model, graph, rows, nodes, o.batch_size, Communicator::self());
  return sampled_logits(model, graph, rows, nodes, o);
}

Tensor infer_node_logits(NodeClassifier& model, const GraphContext& graph, const NodeFeatures& features,
                         const std::vector<int64_t>& nodes, const InferenceOptions& o, const Communicator& comm) {
  if (o.mode == InferenceMode::kFull || comm.size() == 1) return infer_node_logits(model, graph, features, nodes, o);
  check_inference_fits(model, o);
  NoGradGuard no_grad;
  model.eval();
  const NodeFeatureRows rows = o.feature_rows ? o.feature_rows : in_memory_rows(features);
  if (o.mode == InferenceMode::kLayerwise) return layerwise_logits(model, graph, rows, nodes, o.batch_size, comm);
  const auto count = static_cast<std::size_t>((static_cast<int64_t>(nodes.size()) + o.batch_size - 1) / o.batch_size);
  const auto [first, end] = rank_batches(count, comm);
  Tensor mine = sampled_logits(model, graph, rows, nodes, o, first, static_cast<std::ptrdiff_t>(end));  // [rows of mine, C]
  return gather_rank_rows(std::move(mine), static_cast<int64_t>(nodes.size()), comm);
}

}  // namespace attend::graph
