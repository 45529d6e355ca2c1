#include "attend/graph/explain/node_explanation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include "attend/core/error.hpp"
#include "attend/core/quoted_input.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/degree_baseline.hpp"
#include "attend/graph/explain/explained_quantity.hpp"
#include "attend/graph/explain/gnn_explainer.hpp"
#include "attend/graph/explain/gradient_attribution.hpp"
#include "attend/graph/explain/integrated_gradients.hpp"
#include "attend/graph/explain/occlusion.hpp"
#include "attend/graph/explain/pg_explainer.hpp"
#include "attend/graph/explain/shapley_sampling.hpp"

namespace attend::graph {

namespace {

// Rollout score of each explained edge of `cg` (attention_rollout.hpp), from the weights the
// layers export on the computation graph; `per_layer` receives each layer's weights [E_c, H_l]
// of the explained edges (0 where the layer does not attend over the edge).
std::vector<float> attention_edge_scores(const NodeClassifier& model, const ComputationGraph& cg, HeadReduction heads,
                                         std::vector<Tensor>& per_layer) {
  std::vector<AttentionExport> exported;
  {
    NoGradGuard no_grad;
    model.forward(cg.data.features, cg.data.graph, 0, &exported);
  }
  std::vector<LayerAttention> layers;
  for (std::size_t l = 0; l < exported.size(); ++l) {
    const AttentionExport& a = exported[l];
    if (a.view == nullptr || a.weights.rank() != 2) {
      throw InputError("the attention method needs attention weights from every layer; layer " + std::to_string(l) +
                       " (" + quoted_input(model.layers()[l]->type_name()) + ") exports none");
    }
    layers.push_back({a.view->src, a.view->dst, reduce_heads(a.weights, heads)});
  }
  const AttentionRollout rollout = attention_rollout(cg.num_nodes(), layers, cg.target);

  // A view edge is the plain edge with the same endpoints and relation (the looped view
  // keeps every plain edge but self-loops, in order); self-loops are not explained edges.
  const GraphView& plain = cg.data.graph.plain();
  using Key = std::tuple<int64_t, int64_t, int64_t>;
  std::map<Key, std::vector<int64_t>> plain_ids;
  for (int64_t e = 0; e < plain.num_edges(); ++e) plain_ids[{plain.src[e], plain.dst[e], plain.relation[e]}].push_back(e);
  std::vector<double> score(static_cast<std::size_t>(plain.num_edges()), 0.0);
  std::vector<int64_t> row_of(static_cast<std::size_t>(plain.num_edges()), -1);  // local plain edge -> row of E_c
  for (std::size_t k = 0; k < cg.explained.size(); ++k) row_of[cg.explained[k]] = static_cast<int64_t>(k);
  per_layer.clear();
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const GraphView& view = *exported[l].view;
    const Tensor& w = exported[l].weights;  // [E_view, H]
    const int64_t h = w.dim(1);
    Tensor& kept = per_layer.emplace_back(Shape{static_cast<int64_t>(cg.explained.size()), h});  // [E_c, H]
    std::map<Key, std::size_t> taken;
    for (int64_t e = 0; e < view.num_edges(); ++e) {
      if (view.src[e] == view.dst[e]) continue;
      const Key key{view.src[e], view.dst[e], view.relation[e]};
      const auto found = plain_ids.find(key);
      std::size_t& used = taken[key];
      ATTEND_CHECK(found != plain_ids.end() && used < found->second.size(),
                   "layer " << l << " attends over edge " << view.src[e] << " -> " << view.dst[e] << " of no plain edge");
      const int64_t local = found->second[used++];
      score[local] += rollout.edge[l][e];
      if (row_of[local] >= 0) std::copy(w.data() + e * h, w.data() + (e + 1) * h, kept.data() + row_of[local] * h);
    }
  }
  std::vector<float> out;
  for (int64_t e : cg.explained) out.push_back(static_cast<float>(score[e]));
  return out;
}

void check_model(const NodeClassifier& model) {
  for (const NodeLayer* layer : model.layers()) {
    if (layer->type_name() == "graphormer") {
      throw InputError("graphormer attends over every node, so a node has no computation graph to explain");
    }
  }
}

}  // namespace

bool scores_features(ExplainMethod method, const NodeDataset& dataset) {
  return dataset.num_features() > 0 && method != ExplainMethod::kAttention && method != ExplainMethod::kDegree &&
         method != ExplainMethod::kPgExplainer;
}

NodeExplanation explain_node(NodeClassifier& model, const PreparedNodeData& data, int64_t node,
                             const ExplainOptions& options) {
  check_model(model);
  model.eval();
  const ComputationGraph cg = computation_graph(data, node, model.message_passing_hops());
  TargetForwards passes(model, cg);
  const TargetForward& one = passes.copies(1);
  NodeExplanation out;
  out.node = node;
  out.predicted_class = predicted_class(passes);
  out.explained_class = options.class_id >= 0 ? options.class_id : out.predicted_class;
  if (out.explained_class >= data.dataset.num_classes) {
    throw InputError("class " + std::to_string(out.explained_class) + " does not exist: the dataset has " +
                     std::to_string(data.dataset.num_classes) + " classes");
  }
  out.value = input_log_probability(passes, out.explained_class);
  const ExplainMethod m = options.method;
  if (m == ExplainMethod::kPgExplainer) {
    ATTEND_CHECK(options.pg_explainer != nullptr, "the pgexplainer method needs a trained PgExplainer");
  }
  // The local plain edges explained: the computation graph's, or those PGExplainer scores.
  const std::vector<int64_t> scored =
      m == ExplainMethod::kPgExplainer ? options.pg_explainer->scored_edges(cg) : cg.explained;
  // In full-graph edge id order.
  std::vector<std::size_t> order(scored.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return cg.plain_edge[scored[a]] < cg.plain_edge[scored[b]]; });
  for (std::size_t k : order) {
    const int64_t id = cg.plain_edge[scored[k]];
    out.edge_id.push_back(id);
    out.edge_src.push_back(data.graph.plain().src[id]);
    out.edge_dst.push_back(data.graph.plain().dst[id]);
  }
  auto in_order = [&](const std::vector<float>& by_explained) {
    std::vector<float> sorted;
    for (std::size_t k : order) sorted.push_back(by_explained[k]);
    return sorted;
  };

  const PathSteps path{options.rule, options.steps, options.max_gap, options.max_steps};
  if (m == ExplainMethod::kAttention) {
    std::vector<Tensor> per_layer;
    out.edge_score = in_order(attention_edge_scores(model, cg, options.heads, per_layer));
    for (const Tensor& w : per_layer) {  // rows in full-graph edge order, as the scores
      const int64_t h = w.dim(1);
      Tensor& sorted = out.attention.emplace_back(w.shape());
      for (std::size_t r = 0; r < order.size(); ++r) {
        std::copy(w.data() + static_cast<int64_t>(order[r]) * h, w.data() + (static_cast<int64_t>(order[r]) + 1) * h,
                  sorted.data() + static_cast<int64_t>(r) * h);
      }
    }
  }
  if (m == ExplainMethod::kDegree) out.edge_score = in_order(degree_edge_scores(cg));
  auto explained_only = [&](const Tensor& by_local_edge) {
    std::vector<float> scores;
    for (int64_t e : scored) scores.push_back(by_local_edge[e]);
    return in_order(scores);
  };
  if (m == ExplainMethod::kPgExplainer) {
    out.edge_score = explained_only(options.pg_explainer->edge_scores(cg));
    // scored_edges "khop": the edges outside the computation graph too, all in edge id order.
    const auto [outer, outer_score] = options.pg_explainer->outer_edge_scores(cg);
    std::vector<std::tuple<int64_t, int64_t, int64_t, float>> rows;  // edge id, source, target, score
    for (std::size_t k = 0; k < out.edge_id.size(); ++k) {
      rows.emplace_back(out.edge_id[k], out.edge_src[k], out.edge_dst[k], out.edge_score[k]);
    }
    for (std::size_t k = 0; k < outer.size(); ++k) {
      rows.emplace_back(outer[k], data.graph.plain().src[outer[k]], data.graph.plain().dst[outer[k]], outer_score[k]);
    }
    std::sort(rows.begin(), rows.end());
    out.edge_id.clear();
    out.edge_src.clear();
    out.edge_dst.clear();
    out.edge_score.clear();
    for (const auto& [id, src, dst, score] : rows) {
      out.edge_id.push_back(id);
      out.edge_src.push_back(src);
      out.edge_dst.push_back(dst);
      out.edge_score.push_back(score);
    }
  }
  if (m == ExplainMethod::kIntegratedGradients) {
    const IntegratedGradients ig = integrated_gradients_edges(passes, out.explained_class, path);
    out.edge_score = explained_only(ig.attribution);
    out.edge_baseline_value = ig.baseline_value;
    out.edge_completeness_gap = ig.completeness_gap;
    out.edge_steps = ig.steps;
  }
  if (m == ExplainMethod::kOcclusion) {
    out.edge_score = in_order(occlusion_edges(passes, out.explained_class, scored, options.symmetric));
  }
  if (m == ExplainMethod::kShapley) {
    const ShapleyAttribution shapley =
        shapley_edges(passes, out.explained_class, scored, options.symmetric, options.samples, options.seed);
    out.edge_score = in_order(shapley.score);
    out.edge_baseline_value = shapley.baseline_value;
    out.edge_completeness_gap = shapley.efficiency_gap;
  }
  if (m == ExplainMethod::kSaliency || m == ExplainMethod::kInputXGradient) {
    const int64_t e_count = cg.data.graph.plain().num_edges();
    Tensor g = edge_gradient(model, one, Tensor({e_count}, 1.0f), out.explained_class).gradient;  // [E]
    if (m == ExplainMethod::kSaliency) {
      for (int64_t e = 0; e < e_count; ++e) g[e] = std::abs(g[e]);
    }
    out.edge_score = explained_only(g);  // input x gradient: the input mask is 1
  }
  if (m == ExplainMethod::kGnnExplainer) {
    GnnExplainerOptions gnn = options.gnn;
    gnn.seed = options.seed;
    gnn.learn_feature_mask = scores_features(m, data.dataset);
    const GnnExplanation learned = gnn_explainer(model, data, cg, out.explained_class, gnn);
    ATTEND_CHECK(learned.edge_id == out.edge_id, "GNNExplainer's edges differ from the computation graph's");
    out.edge_score = learned.edge_score;
    out.feature_score = learned.feature_score;
    return out;
  }
  if (scores_features(m, data.dataset)) {
    if (m == ExplainMethod::kIntegratedGradients) {
      const IntegratedGradients ig = integrated_gradients_features(passes, out.explained_class, path);
      out.feature_score = sum_over_nodes(ig.attribution);
      out.feature_baseline_value = ig.baseline_value;
      out.feature_completeness_gap = ig.completeness_gap;
      out.feature_steps = ig.steps;
    } else if (m == ExplainMethod::kOcclusion) {
      out.feature_score = occlusion_features(passes, out.explained_class);
    } else if (m == ExplainMethod::kShapley) {
      const ShapleyAttribution shapley = shapley_features(passes, out.explained_class, options.samples, options.seed);
      out.feature_score = shapley.score;
      out.feature_baseline_value = shapley.baseline_value;
      out.feature_completeness_gap = shapley.efficiency_gap;
    } else {
      const Tensor x = dense_features(cg);
      Tensor a = feature_gradient(model, one, x, out.explained_class).gradient;  // [n, F]
      for (int64_t i = 0; i < a.numel(); ++i) a[i] = m == ExplainMethod::kSaliency ? std::abs(a[i]) : x[i] * a[i];
      out.feature_score = sum_over_nodes(a);
    }
  }
  return out;
}

}  // namespace attend::graph
