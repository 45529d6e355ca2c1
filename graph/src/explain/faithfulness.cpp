#include "attend/graph/explain/faithfulness.hpp"

#include <cmath>
#include <map>

#include "attend/core/error.hpp"
#include "attend/core/ops/softmax.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/eraser_aopc.hpp"
#include "attend/graph/explain/gradient_attribution.hpp"

namespace attend::graph {

namespace {
enum class Kind { kEdges, kFeatures };

// Class probabilities [C] of the target of `cg` with a hard mask: `keep` over the scored
// items (the explanation's edges, in its order, or the feature columns; local_edge -1: an edge
// outside the computation graph); every other edge of the computation graph keeps its message.
std::vector<double> masked_probabilities(const NodeClassifier& model, const ComputationGraph& cg, Kind kind,
                                         const std::vector<int64_t>& local_edge, const std::vector<char>& keep) {
  NoGradGuard no_grad;
  Tensor p;  // [n, C]
  if (kind == Kind::kFeatures) {
    Tensor x = dense_features(cg);  // [n, F]
    const int64_t f = x.dim(1);
    for (int64_t i = 0; i < x.numel(); ++i) x[i] = keep[i % f] ? x[i] : 0.0f;
    p = ops::softmax(model.forward(NodeFeatures(Var(x)), cg.data.graph, 0)).value();
  } else {
    Tensor mask({cg.data.graph.plain().num_edges()}, 1.0f);  // [E_sub]
    for (std::size_t k = 0; k < keep.size(); ++k) {
      if (local_edge[k] >= 0) mask[local_edge[k]] = keep[k] ? 1.0f : 0.0f;
    }
    p = ops::softmax(model.forward(cg.data.features, cg.data.graph.with_edge_mask(Var(mask)), 0)).value();
  }
  const int64_t c = p.dim(1);
  return {p.data() + cg.target * c, p.data() + (cg.target + 1) * c};
}

int64_t arg_max(const std::vector<double>& p) {
  int64_t best = 0;
  for (std::size_t k = 1; k < p.size(); ++k) best = p[k] > p[best] ? static_cast<int64_t>(k) : best;
  return best;
}

std::vector<char> complement(std::vector<char> keep) {
  for (char& k : keep) k = !k;
  return keep;
}

FaithfulnessResult evaluate_kind(NodeClassifier& model, const PreparedNodeData& data, const ExplanationSet& set,
                                 int64_t top_k, Kind kind) {
  FaithfulnessResult r;
  r.kind = kind == Kind::kEdges ? "edges" : "features";
  r.top_k = top_k;
  std::vector<int64_t> predicted, without, only;
  double comprehensiveness = 0.0, sufficiency = 0.0;
  for (const NodeExplanation& x : set.explanations) {
    const std::vector<float>& scores = kind == Kind::kEdges ? x.edge_score : x.feature_score;
    if (scores.empty()) continue;  // a node without edges in its computation graph
    const ComputationGraph cg = computation_graph(data, x.node, model.message_passing_hops());
    std::vector<int64_t> local_edge;  // local plain edge id of each explained edge
    if (kind == Kind::kEdges) {
      std::map<int64_t, int64_t> local;
      for (int64_t e = 0; e < static_cast<int64_t>(cg.plain_edge.size()); ++e) local[cg.plain_edge[e]] = e;
      for (int64_t id : x.edge_id) {
        // -1: an edge outside the computation graph (pgexplainer's khop edges join two nodes L
        // hops away), which carries nothing to the target, so masking it changes nothing.
        const auto found = local.find(id);
        local_edge.push_back(found != local.end() ? found->second : -1);
      }
    }
    auto probabilities = [&](const std::vector<char>& keep) { return masked_probabilities(model, cg, kind, local_edge, keep); };
    const auto n = static_cast<int64_t>(scores.size());
    const std::vector<double> p = probabilities(std::vector<char>(scores.size(), 1));
    const std::vector<char> top = top_k_mask(scores, top_k);
    predicted.push_back(arg_max(p));
    without.push_back(arg_max(probabilities(complement(top))));
    only.push_back(arg_max(probabilities(top)));
    std::vector<double> p_without, p_only;
    for (int percent : aopc_percentages()) {
      const std::vector<char> bin = top_k_mask(scores, top_count(percent, n));
      p_without.push_back(probabilities(complement(bin))[x.explained_class]);
      p_only.push_back(probabilities(bin)[x.explained_class]);
    }
    comprehensiveness += aopc(p[x.explained_class], p_without);
    sufficiency += aopc(p[x.explained_class], p_only);
  }
  r.targets = static_cast<int64_t>(predicted.size());
  if (r.targets == 0) return r;
  r.fidelity = fidelity(predicted, without, only);
  r.characterization = characterization_score(r.fidelity);
  r.comprehensiveness = comprehensiveness / static_cast<double>(r.targets);
  r.sufficiency = sufficiency / static_cast<double>(r.targets);
  return r;
}
}  // namespace

std::vector<FaithfulnessResult> evaluate_faithfulness(NodeClassifier& model, const PreparedNodeData& data,
                                                      const ExplanationSet& set, int64_t top_k) {
  ATTEND_CHECK(top_k >= 1, "top-k " << top_k);
  model.eval();
  std::vector<FaithfulnessResult> results;
  for (Kind kind : {Kind::kEdges, Kind::kFeatures}) {
    FaithfulnessResult r = evaluate_kind(model, data, set, top_k, kind);
    if (r.targets > 0) results.push_back(r);
  }
  return results;
}

}  // namespace attend::graph
