#include "attend/graph/explain/pg_explainer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "attend/core/adam.hpp"
#include "attend/core/error.hpp"
#include "attend/core/frozen_parameters.hpp"
#include "attend/core/init.hpp"
#include "attend/core/quoted_input.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/random.hpp"
#include "attend/graph/explain/explained_quantity.hpp"
#include "attend/graph/explain/target_forward.hpp"
#include "binary_entropy.hpp"

namespace attend::graph {

const OptionList<PgExplainerOptions>& PgExplainerOptions::option_list() {
  using O = PgExplainerOptions;
  static const OptionList<O> list =
      OptionList<O>("pgexplainer")
          .add("epochs", &O::epochs, "passes over the training nodes", OptionRange::at_least(1))
          .add("lr", &O::lr, "Adam's learning rate", OptionRange::positive())
          .add("hidden", &O::hidden, "width of the mask MLP's hidden layer", OptionRange::at_least(1))
          .add("edge_size", &O::edge_size, "times the sum of the sampled edge mask", OptionRange::at_least(0.0))
          .add("edge_entropy", &O::edge_entropy, "times the mean entropy of the sampled edge mask",
               OptionRange::at_least(0.0))
          .add("temperature_start", &O::temperature_start, "binary concrete temperature at the first epoch",
               OptionRange::positive())
          .add("temperature_end", &O::temperature_end, "binary concrete temperature after the last epoch",
               OptionRange::positive())
          .add("sample_bias", &O::sample_bias,
               "the concrete's uniforms are drawn from [b, 1 - b); 0.5: no noise (the authors' BA-Community notebook)",
               OptionRange{0.0, 0.5, false, false})
          .add("restarts", &O::restarts,
               "train this many MLPs (seeds seed, seed + 1, ...), combined by restart_combine (attend's addition)",
               OptionRange::at_least(1))
          .choice("restart_combine", &O::restart_combine,
                  {{"best", PgRestartCombine::kBest}, {"mean", PgRestartCombine::kMean}},
                  "how the restarts make one explainer: the MLP with the lowest objective (best), or every MLP, "
                  "scoring an edge by the mean of their masks (mean; attend's addition)")
          .add("initial_mask", &O::initial_mask,
               "the noise-free mask sample every edge starts at (the MLP's output bias); 0.5: bias 0 (the authors')",
               OptionRange{0.0, 1.0, true, true})
          .add("entropy_margin", &O::entropy_margin,
               "the entropy term reads (1 - 2c) m + c; 0.01: the authors' loss, 0: PyG's",
               OptionRange{0.0, 0.5, false, true})
          .add("symmetric_mask", &O::symmetric_mask,
               "mask both directions of an edge by the mean of their samples in training (the authors')")
          .choice("training_nodes", &O::training_nodes,
                  {{"train", PgTrainingNodes::kTrainSplit}, {"explained", PgTrainingNodes::kExplained}},
                  "the nodes the MLP is trained on: the training split or the explained nodes")
          .choice("training_label", &O::training_label,
                  {{"predicted", PgTrainingLabel::kPredicted}, {"true", PgTrainingLabel::kTrue}},
                  "the class the training loss explains: the model's prediction or the node's label (the authors')")
          .choice("update", &O::update, {{"node", PgUpdate::kPerNode}, {"epoch", PgUpdate::kPerEpoch}},
                  "one Adam step per training node, or one per epoch on the summed loss (the authors')")
          .add("gradient_clip", &O::gradient_clip, "clamp each gradient entry to [-g, g] before a step; 0: none",
               OptionRange::at_least(0.0))
          .choice("scored_edges", &O::scored_edges,
                  {{"explained", PgScoredEdges::kExplained},
                   {"subgraph", PgScoredEdges::kSubgraph},
                   {"khop", PgScoredEdges::kKhop}},
                  "the computation graph's explained edges, every edge of its subgraph, or every edge of the "
                  "k-hop induced subgraph (the authors')")
          .add("seed", &O::seed, "MLP initialisation, node order and concrete noise");
  return list;
}

Tensor explainer_embeddings(const NodeClassifier& model, const PreparedNodeData& data) {
  ATTEND_CHECK(!model.is_training(), "explainer_embeddings of a model in evaluation mode");
  NoGradGuard no_grad;
  const std::size_t last = model.layers().size() - 1;
  if (last == 0) return to_dense(data.features);
  // NodeClassifier::forward up to the head's input.
  NodeFeatures h = data.features;
  std::vector<Var> hidden;  // [N, C_i] each: the hidden layers the head reads under "cat"
  for (std::size_t i = 0; i < last; ++i) {
    Var out = model.layer_forward(i, h, data.graph, 0);
    if (model.joins_head_input(i)) hidden.push_back(out);
    h = NodeFeatures(out);
  }
  return model.concatenates_hidden() ? ops::concat(hidden).value() : h.dense.value();  // [N, D]
}

Var edge_mask_mlp(const Var& x, const Var& w1, const Var& b1, const Var& w2, const Var& b2) {
  const Var h = ops::relu(ops::linear(x, w1, b1));                     // [K, H]
  return ops::reshape(ops::linear(h, w2, b2), Shape{x.value().dim(0)});  // [K]
}

Var concrete_sample(const Var& logits, const Tensor& noise, double temperature) {
  return ops::sigmoid(ops::scale(ops::add(logits, Var(noise)), static_cast<float>(1.0 / temperature)));
}

Var mask_size_entropy(const Var& mask, double size, double entropy, double eps, double margin) {
  const Tensor& m = mask.value();  // [K]
  ATTEND_CHECK(m.rank() == 1, "mask_size_entropy of a mask " << shape_to_string(m.shape()));
  const int64_t k = m.numel();
  const double entropy_factor = k > 0 ? entropy / static_cast<double>(k) : 0.0;
  const double squeeze = 1.0 - 2.0 * margin;  // m' = squeeze m + margin
  double value = 0.0;
  for (int64_t i = 0; i < k; ++i) {
    const double v = m[i];
    value += size * v + entropy_factor * detail::binary_entropy(squeeze * v + margin, eps);
  }
  return Var::from_op(Tensor(Shape{}, static_cast<float>(value)), {mask},
                      [mask, size, entropy_factor, eps, squeeze, margin](const Tensor&, const Tensor& gy) {
                        const Tensor& m = mask.value();
                        Tensor& g = mask.grad_mut();
                        const double dy = gy.item();
                        for (int64_t i = 0; i < m.numel(); ++i) {
                          const double v = squeeze * m[i] + margin;
                          const double d_entropy = squeeze * detail::binary_entropy_derivative(v, eps);
                          g[i] += static_cast<float>(dy * (size + entropy_factor * d_entropy));
                        }
                      });
}

struct PgExplainer::TrainingNode {
  ComputationGraph cg;
  std::unique_ptr<TargetForward> pass;
  std::vector<int64_t> scored;  ///< local plain edges the MLP scores
  /// [K] position in `scored` of each scored edge's reverse, itself when its reverse is not scored
  std::vector<int64_t> reverse;
  int64_t explained_class = -1;
};

namespace {

/// The position in `scored` (local plain edges of `cg`) of each one's reverse edge, its own
/// where the reverse is not among them.
std::vector<int64_t> reverse_positions(const ComputationGraph& cg, const std::vector<int64_t>& scored) {
  const GraphView& plain = cg.data.graph.plain();
  std::map<std::pair<int64_t, int64_t>, int64_t> position;  // (src, dst) -> position in scored
  for (std::size_t k = 0; k < scored.size(); ++k) position[{plain.src[scored[k]], plain.dst[scored[k]]}] = static_cast<int64_t>(k);
  std::vector<int64_t> reverse(scored.size());
  for (std::size_t k = 0; k < scored.size(); ++k) {
    const auto it = position.find({plain.dst[scored[k]], plain.src[scored[k]]});
    reverse[k] = it == position.end() ? static_cast<int64_t>(k) : it->second;
  }
  return reverse;
}

}  // namespace

PgExplainer::PgExplainer(const NodeClassifier& model, const PreparedNodeData& data, const PgExplainerOptions& options)
    : model_(model), data_(data), options_(options), embeddings_(explainer_embeddings(model, data)), last_loss_(NAN),
      objective_(NAN) {
  PgExplainerOptions::option_list().check(options_);
  for (const NodeLayer* layer : model.layers()) {
    if (!layer->reads_in_neighbors_only()) {
      throw InputError(quoted_input(layer->type_name()) +
                       " reads more than a node's in-neighbours, so a node has no computation graph to explain");
    }
  }
  parameters_ = initial_parameters(options_.seed);
  arena_ = ParameterArena(parameters_);
}

std::vector<std::pair<std::string, Var>> PgExplainer::initial_parameters(uint64_t seed) const {
  const int64_t d = embeddings_.dim(1), h = options_.hidden;
  // sigmoid(b2 / t0) = initial_mask: where the first samples sit before the noise
  const double m0 = options_.initial_mask;
  const auto b2 = static_cast<float>(options_.temperature_start * std::log(m0 / (1.0 - m0)));
  Rng rng(mix64(seed));
  return {{"w1", Var(init::glorot_uniform({3 * d, h}, 3 * d, h, rng), true)},
          {"b1", Var(Tensor({h}), true)},
          {"w2", Var(init::glorot_uniform({h, 1}, h, 1, rng), true)},
          {"b2", Var(Tensor({1}, b2), true)}};
}

std::vector<int64_t> PgExplainer::scored_edges(const ComputationGraph& cg) const {
  if (options_.scored_edges == PgScoredEdges::kExplained) return cg.explained;
  const GraphView& plain = cg.data.graph.plain();
  std::vector<int64_t> edges;
  for (int64_t e = 0; e < plain.num_edges(); ++e) {
    if (plain.src[e] != plain.dst[e]) edges.push_back(e);
  }
  return edges;
}

Var PgExplainer::edge_logits(const ComputationGraph& cg, const std::vector<int64_t>& edges) const {
  const GraphView& plain = cg.data.graph.plain();
  std::vector<int64_t> src, dst;  // dataset node ids
  for (int64_t e : edges) {
    src.push_back(cg.nodes[plain.src[e]]);
    dst.push_back(cg.nodes[plain.dst[e]]);
  }
  return pair_logits(parameters_, src, dst, cg.nodes[cg.target]);
}

Var PgExplainer::pair_logits(const std::vector<std::pair<std::string, Var>>& mlp, const std::vector<int64_t>& src,
                             const std::vector<int64_t>& dst, int64_t target) const {
  const int64_t d = embeddings_.dim(1), k = static_cast<int64_t>(src.size());
  Tensor x({k, 3 * d});  // [K, 3D]: [z_src, z_dst, z_target] per edge
  const float* z = embeddings_.data();
  for (int64_t r = 0; r < k; ++r) {
    float* row = x.data() + r * 3 * d;
    std::copy(z + src[r] * d, z + (src[r] + 1) * d, row);
    std::copy(z + dst[r] * d, z + (dst[r] + 1) * d, row + d);
    std::copy(z + target * d, z + (target + 1) * d, row + 2 * d);
  }
  return edge_mask_mlp(Var(x), mlp[0].second, mlp[1].second, mlp[2].second, mlp[3].second);
}

namespace {

/// -log(1 - sigmoid(l)) = softplus(l), in double.
double softplus(double l) { return l > 30.0 ? l : std::log1p(std::exp(l)); }

}  // namespace

std::vector<float> PgExplainer::pair_scores(const std::vector<int64_t>& src, const std::vector<int64_t>& dst,
                                            int64_t target) const {
  NoGradGuard no_grad;
  std::vector<float> scores(src.size());
  if (ensemble_.empty()) {
    const Tensor logits = pair_logits(parameters_, src, dst, target).value();  // [K]
    for (std::size_t k = 0; k < src.size(); ++k) scores[k] = static_cast<float>(softplus(logits[k]));
    return scores;
  }
  // -log(1 - m), m = mean_r m_r, each m_r = -expm1(-softplus(logit_r)), in restart order, by the
  // form that keeps the ranking at either end: -log1p(-m) for m <= 1/2 (masks near 0, where 1 - m
  // rounds to 1), else -log mean_r exp(a_r), a_r = log(1 - m_r) = -softplus(logit_r), a
  // log-mean-exp (masks near 1, where m rounds to 1).
  std::vector<Tensor> logits;  // [R] of [K]
  for (const auto& mlp : ensemble_) logits.push_back(pair_logits(mlp, src, dst, target).value());
  const double r = static_cast<double>(ensemble_.size());
  for (std::size_t k = 0; k < src.size(); ++k) {
    double m = 0.0;
    for (const Tensor& l : logits) m -= std::expm1(-softplus(l[k]));
    m /= r;
    if (m <= 0.5) {
      scores[k] = static_cast<float>(-std::log1p(-m));
      continue;
    }
    double top = -std::numeric_limits<double>::infinity();
    for (const Tensor& l : logits) top = std::max(top, -softplus(l[k]));
    double sum = 0.0;
    for (const Tensor& l : logits) sum += std::exp(-softplus(l[k]) - top);
    scores[k] = static_cast<float>(-(top + std::log(sum) - std::log(r)));
  }
  return scores;
}

std::pair<std::vector<int64_t>, std::vector<float>> PgExplainer::outer_edge_scores(const ComputationGraph& cg) const {
  std::pair<std::vector<int64_t>, std::vector<float>> out;
  if (options_.scored_edges != PgScoredEdges::kKhop) return out;
  NoGradGuard no_grad;
  auto outer = [&](int64_t node) {  // whether a dataset node lies cg.hops away
    const auto it = std::lower_bound(cg.nodes.begin(), cg.nodes.end(), node);
    return it != cg.nodes.end() && *it == node && cg.distance[it - cg.nodes.begin()] == cg.hops;
  };
  const GraphView& plain = data_.graph.plain();
  const InEdgeIndex& in_edges = data_.graph.in_edges();  // the plain edges by destination
  std::vector<int64_t>& edges = out.first;
  for (std::size_t u = 0; u < cg.nodes.size(); ++u) {
    if (cg.distance[u] != cg.hops) continue;
    const int64_t v = cg.nodes[u];
    for (int64_t p = in_edges.indptr()[v]; p < in_edges.indptr()[v + 1]; ++p) {
      if (in_edges.source(p) != v && outer(in_edges.source(p))) edges.push_back(in_edges.edge_id(p));
    }
  }
  std::sort(edges.begin(), edges.end());
  std::vector<int64_t> src, dst;
  for (int64_t e : edges) {
    src.push_back(plain.src[e]);
    dst.push_back(plain.dst[e]);
  }
  out.second = pair_scores(src, dst, cg.nodes[cg.target]);
  return out;
}

Tensor PgExplainer::edge_scores(const ComputationGraph& cg) const {
  const std::vector<int64_t> edges = scored_edges(cg);
  const GraphView& plain = cg.data.graph.plain();
  std::vector<int64_t> src, dst;  // dataset node ids
  for (int64_t e : edges) {
    src.push_back(cg.nodes[plain.src[e]]);
    dst.push_back(cg.nodes[plain.dst[e]]);
  }
  const std::vector<float> scored = pair_scores(src, dst, cg.nodes[cg.target]);  // [K]
  Tensor scores({plain.num_edges()});                                            // [E_sub]
  for (std::size_t r = 0; r < edges.size(); ++r) scores[edges[r]] = scored[r];
  return scores;
}

void PgExplainer::train(const std::vector<int64_t>& nodes, const std::function<void(int, double)>& after_epoch) {
  ATTEND_CHECK(!model_.is_training(), "PGExplainer trains on a model in evaluation mode");
  const FrozenParameters frozen(model_);
  const int hops = model_.message_passing_hops();
  std::vector<TrainingNode> training;
  training.reserve(nodes.size());  // no reallocation: each pass keeps the address of its node's cg
  for (int64_t v : nodes) {
    ComputationGraph cg = computation_graph(data_, v, hops);
    if (cg.explained.empty()) continue;
    TrainingNode& t = training.emplace_back();
    t.cg = std::move(cg);
    t.pass = std::make_unique<TargetForward>(model_, t.cg, 1);
    t.scored = scored_edges(t.cg);
    t.reverse = reverse_positions(t.cg, t.scored);
    const int64_t label = data_.dataset.labels.empty() ? -1 : data_.dataset.labels[v];
    t.explained_class = options_.training_label == PgTrainingLabel::kTrue && label >= 0
                            ? label
                            : predicted_class(model_, *t.pass);
  }
  if (training.empty()) throw InputError("pgexplainer: none of the " + std::to_string(nodes.size()) +
                                         " training nodes has an edge in its computation graph");

  // Restart r starts from the MLP of seed + r (restart 0: the MLP as it is, the constructor's
  // before any training) and draws its node order and noise from seed + r; "best": the restart
  // with the lowest objective is kept (the first of equals); "mean": every restart is kept.
  const bool mean = options_.restart_combine == PgRestartCombine::kMean;
  ensemble_.clear();
  std::vector<float> best_values;
  double best_loss = NAN, objective_sum = 0.0, loss_sum = 0.0;
  for (int r = 0; r < options_.restarts; ++r) {
    const uint64_t seed = options_.seed + static_cast<uint64_t>(r);
    if (r > 0) {
      const std::vector<std::pair<std::string, Var>> fresh = initial_parameters(seed);
      for (std::size_t i = 0; i < fresh.size(); ++i) {
        const Tensor& v = fresh[i].second.value();
        std::copy(v.data(), v.data() + v.numel(), arena_.values().data() + arena_.slots()[i].offset);
      }
    }
    train_from(training, seed, r * options_.epochs, after_epoch);
    const double objective = training_objective(training);
    if (mean && options_.restarts > 1) {  // one restart: its MLP stays in the arena, scored as "best"
      std::vector<std::pair<std::string, Var>>& mlp = ensemble_.emplace_back();
      for (const auto& [name, v] : parameters_) mlp.emplace_back(name, Var(Tensor(v.value())));  // an owning copy
    }
    if (mean) {
      objective_sum += objective;
      loss_sum += last_loss_;
    } else if (r == 0 || objective < objective_) {
      objective_ = objective;
      best_loss = last_loss_;
      best_values.assign(arena_.values().begin(), arena_.values().end());
    }
  }
  if (mean) {
    objective_ = objective_sum / options_.restarts;
    last_loss_ = loss_sum / options_.restarts;
    return;
  }
  std::copy(best_values.begin(), best_values.end(), arena_.values().begin());
  last_loss_ = best_loss;
}

void PgExplainer::train_from(const std::vector<TrainingNode>& training, uint64_t seed, int epochs_before,
                             const std::function<void(int, double)>& after_epoch) {
  AdamOptions adam_options;
  adam_options.lr = options_.lr;
  Adam adam(adam_options);
  Rng rng(mix64(seed ^ 0x9e3779b97f4a7c15ULL));  // order and noise; the MLP drew from mix64(seed)
  std::vector<std::size_t> order(training.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const double b = options_.sample_bias;
  for (int epoch = 0; epoch < options_.epochs; ++epoch) {
    const double temperature =
        options_.temperature_start *
        std::pow(options_.temperature_end / options_.temperature_start, static_cast<double>(epoch) / options_.epochs);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);  // Fisher-Yates
    double total = 0.0;
    const bool per_node = options_.update == PgUpdate::kPerNode;
    if (!per_node) arena_.zero_grad();
    for (std::size_t i : order) {
      const TrainingNode& t = training[i];
      const auto k = static_cast<int64_t>(t.scored.size());
      Tensor noise({k});  // [K] log u - log(1 - u), u ~ U(b, 1 - b)
      for (int64_t r = 0; r < k; ++r) {
        const double u = b + (1.0 - 2.0 * b) * rng.uniform();
        noise[r] = static_cast<float>(std::log(u) - std::log1p(-u));
      }
      if (per_node) arena_.zero_grad();
      Var loss = node_loss(t, noise, temperature);
      loss.backward();  // per epoch: the gradients of every node's loss add up in the arena
      if (per_node) step(adam);
      total += loss.value().item();
    }
    if (!per_node) step(adam);
    last_loss_ = total / static_cast<double>(training.size());
    if (after_epoch) after_epoch(epochs_before + epoch + 1, last_loss_);
  }
}

Var PgExplainer::node_loss(const TrainingNode& t, const Tensor& noise, double temperature) const {
  const Var sample = concrete_sample(edge_logits(t.cg, t.scored), noise, temperature);  // [K]
  // [K] what the scored edges pass: the sample, or the mean of an edge's and its reverse's
  const Var passed = options_.symmetric_mask
                         ? ops::scale(ops::add(sample, ops::gather_rows(sample, t.reverse)), 0.5f)
                         : sample;
  // [E_sub]: `passed` on the scored edges, 1 on the others
  Tensor others({t.pass->num_edges()}, 1.0f);
  for (int64_t e : t.scored) others[e] = 0.0f;
  const Var mask = ops::add(Var(others), ops::scatter_add_rows(passed, t.scored, t.pass->num_edges()));
  const Var log_p = target_log_probability(model_, *t.pass, t.pass->features(), mask, t.explained_class);
  return ops::add(ops::scale(log_p, -1.0f),
                  mask_size_entropy(sample, options_.edge_size, options_.edge_entropy, options_.eps,
                                    options_.entropy_margin));
}

double PgExplainer::training_objective(const std::vector<TrainingNode>& training) const {
  NoGradGuard no_grad;
  double total = 0.0;
  for (const TrainingNode& t : training) {
    const Tensor no_noise({static_cast<int64_t>(t.scored.size())});  // u = 1/2
    total += node_loss(t, no_noise, options_.temperature_end).value().item();
  }
  return total / static_cast<double>(training.size());
}

void PgExplainer::step(Adam& adam) {
  const auto g = static_cast<float>(options_.gradient_clip);
  if (g > 0.0f) {
    for (float& x : arena_.grads()) x = std::clamp(x, -g, g);
  }
  adam.step(arena_);
}

std::vector<int64_t> pg_training_nodes(const PreparedNodeData& data, const std::vector<int64_t>& explained,
                                       const PgExplainerOptions& options) {
  if (options.training_nodes == PgTrainingNodes::kExplained) return explained;
  if (data.dataset.train.empty()) {
    throw InputError("pgexplainer trains on the training split, which the dataset lacks (training_nodes "
                     "\"explained\" trains on the explained nodes)");
  }
  return data.dataset.train;
}

}  // namespace attend::graph
