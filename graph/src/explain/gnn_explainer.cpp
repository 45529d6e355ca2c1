#include "attend/graph/explain/gnn_explainer.hpp"

#include <algorithm>
#include <cmath>

#include "attend/core/adam.hpp"
#include "attend/core/error.hpp"
#include "attend/core/frozen_parameters.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/core/random.hpp"
#include "attend/graph/explain/explained_quantity.hpp"
#include "binary_entropy.hpp"

namespace attend::graph {

Var mask_penalty(const Var& logits, const std::vector<int64_t>& hard, double size, bool sum_over, double entropy,
                 double eps) {
  const Tensor& p = logits.value();  // [K]
  ATTEND_CHECK(p.rank() == 1, "mask_penalty of logits " << shape_to_string(p.shape()));
  const auto k = static_cast<double>(hard.size());
  const double size_factor = sum_over ? size : size / k, entropy_factor = entropy / k;
  double value = 0.0;
  for (int64_t i : hard) {
    ATTEND_CHECK(i >= 0 && i < p.numel(), "mask_penalty entry " << i << " of " << p.numel());
    const double m = 1.0 / (1.0 + std::exp(-static_cast<double>(p[i])));
    value += size_factor * m + entropy_factor * detail::binary_entropy(m, eps);
  }
  Tensor out(Shape{}, static_cast<float>(value));
  return Var::from_op(std::move(out), {logits},
                      [logits, hard, size_factor, entropy_factor, eps](const Tensor&, const Tensor& gy) {
                        const Tensor& p = logits.value();
                        Tensor& g = logits.grad_mut();
                        const double dy = gy.item();
                        for (int64_t i : hard) {
                          const double m = 1.0 / (1.0 + std::exp(-static_cast<double>(p[i])));
                          const double d_entropy = detail::binary_entropy_derivative(m, eps);
                          g[i] += static_cast<float>(dy * (size_factor + entropy_factor * d_entropy) * m * (1.0 - m));
                        }
                      });
}

namespace {

/// Logits of a mask: `n` draws of N(0, std^2) in order from `rng`.
Tensor normal_logits(int64_t n, double std, Rng& rng) {
  Tensor t({n});
  for (int64_t i = 0; i < n; ++i) t[i] = static_cast<float>(std * rng.normal());
  return t;
}

/// The entries of a gradient that are not zero.
std::vector<int64_t> nonzero_entries(const Tensor& grad) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < grad.numel(); ++i) {
    if (grad[i] != 0.0f) out.push_back(i);
  }
  return out;
}

float sigmoid(float x) { return static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x)))); }

}  // namespace

GnnExplanation gnn_explainer(const NodeClassifier& model, const PreparedNodeData& data, const ComputationGraph& cg,
                             int64_t explained_class, const GnnExplainerOptions& options) {
  ATTEND_CHECK(!model.is_training(), "gnn_explainer explains a model in evaluation mode");
  ATTEND_CHECK(explained_class >= 0 && explained_class < data.dataset.num_classes,
               "class " << explained_class << " of " << data.dataset.num_classes);
  ATTEND_CHECK(options.epochs >= 1 && options.lr > 0.0, "gnn_explainer: " << options.epochs << " epochs, lr " << options.lr);
  ATTEND_CHECK(options.initial_mask >= 0.0 && options.initial_mask < 1.0,
               "gnn_explainer: initial mask " << options.initial_mask << " (0: random, else in (0, 1))");
  const FrozenParameters frozen(model);
  const TargetForward pass(model, cg, 1);  // each layer only where the target reads it
  const int64_t n = cg.num_nodes(), n_edges = cg.data.graph.plain().num_edges();
  const bool features = options.learn_feature_mask && cg.data.features.cols() > 0;

  // Initialisation (PyG's _initialize_masks): edge logits N(0, (sqrt(2) sqrt(2 / 2N))^2),
  // feature logits N(0, 0.1^2), drawn in that order. With an initial mask M0 the edge logits
  // are replaced by log(M0 / (1 - M0)) after their draws, so the feature logits stay the same.
  Rng rng(mix64(options.seed ^ static_cast<uint64_t>(cg.nodes[cg.target])));
  Tensor edge_start = normal_logits(n_edges, std::sqrt(2.0) * std::sqrt(2.0 / (2.0 * static_cast<double>(n))), rng);  // [E]
  const double m0 = options.initial_mask;
  if (m0 > 0.0) edge_start.fill(static_cast<float>(std::log(m0 / (1.0 - m0))));
  Var edge_logits(std::move(edge_start), true);  // [E]
  Var feature_logits;  // [F]
  std::vector<std::pair<std::string, Var>> masks{{"edge_mask", edge_logits}};
  Tensor x;  // [n, F] the computation graph's input features, densified
  if (features) {
    feature_logits = Var(normal_logits(cg.data.features.cols(), 0.1, rng), true);
    masks.emplace_back("feature_mask", feature_logits);
    x = to_dense(cg.data.features);
  }
  ParameterArena arena(masks);
  AdamOptions adam_options;
  adam_options.lr = options.lr;
  Adam adam(adam_options);

  GnnExplanation out;
  std::vector<int64_t> hard_edges, hard_features;
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    arena.zero_grad();
    const NodeFeatures input = features ? NodeFeatures(ops::mul(Var(x), ops::sigmoid(feature_logits))) : cg.data.features;
    Var loss = ops::scale(target_log_probability(model, pass, input, ops::sigmoid(edge_logits), explained_class), -1.0f);
    if (epoch > 0) {
      loss = ops::add(loss, mask_penalty(edge_logits, hard_edges, options.edge_size, true, options.edge_entropy, options.eps));
      if (features) {
        loss = ops::add(loss, mask_penalty(feature_logits, hard_features, options.feature_size, false,
                                           options.feature_entropy, options.eps));
      }
    }
    loss.backward();
    if (epoch == 0) {  // the entries the prediction depends on (PyG: gradient != 0 without penalties)
      hard_edges = nonzero_entries(edge_logits.grad());
      if (features) hard_features = nonzero_entries(feature_logits.grad());
    }
    adam.step(arena);
    out.loss = loss.value().item();
  }

  out.node = cg.nodes[cg.target];
  out.explained_class = explained_class;
  std::vector<float> edge_mask(n_edges, 0.0f);  // [E] sigmoid of the logits on the hard entries, else 0
  for (int64_t e : hard_edges) edge_mask[e] = sigmoid(edge_logits.value()[e]);
  std::vector<int64_t> order(cg.explained);  // explained local edges by full-graph plain edge id
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cg.plain_edge[a] < cg.plain_edge[b]; });
  for (int64_t e : order) {
    const int64_t id = cg.plain_edge[e];
    out.edge_id.push_back(id);
    out.edge_src.push_back(data.graph.plain().src[id]);
    out.edge_dst.push_back(data.graph.plain().dst[id]);
    out.edge_score.push_back(edge_mask[e]);
  }
  if (features) {
    out.feature_score.assign(feature_logits.value().numel(), 0.0f);
    for (int64_t f : hard_features) out.feature_score[f] = sigmoid(feature_logits.value()[f]);
  }
  return out;
}

std::vector<GnnExplanation> gnn_explain_nodes(NodeClassifier& model, const PreparedNodeData& data,
                                              const std::vector<int64_t>& nodes, const std::vector<int64_t>& classes,
                                              const GnnExplainerOptions& options) {
  ATTEND_CHECK(classes.empty() || classes.size() == nodes.size(),
               nodes.size() << " nodes and " << classes.size() << " classes");
  model.eval();
  std::vector<GnnExplanation> out;
  for (std::size_t t = 0; t < nodes.size(); ++t) {
    const ComputationGraph cg = computation_graph(data, nodes[t], model.message_passing_hops());
    const int64_t c = classes.empty() || classes[t] < 0 ? predicted_class(model, cg.data, cg.target) : classes[t];
    out.push_back(gnn_explainer(model, data, cg, c, options));
  }
  return out;
}

}  // namespace attend::graph
