#include "attend/graph/explain/faithfulness.hpp"

#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/ops/softmax.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/eraser_aopc.hpp"
#include "attend/graph/explain/gradient_attribution.hpp"

namespace attend::graph {

namespace {
// Class probabilities [C] of the target of `cg` with feature column f scaled by keep[f].
std::vector<double> masked_probabilities(const NodeClassifier& model, const ComputationGraph& cg,
                                         const std::vector<char>& keep) {
  NoGradGuard no_grad;
  Tensor x = dense_features(cg);  // [n, F]
  const int64_t f = x.dim(1);
  for (int64_t i = 0; i < x.numel(); ++i) x[i] = keep[i % f] ? x[i] : 0.0f;
  const Tensor p = ops::softmax(model.forward(NodeFeatures(Var(x)), cg.data.graph, 0)).value();  // [n, C]
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
}  // namespace

void check_explanations_fit(const ExplanationSet& set, const PreparedNodeData& data, const std::string& file) {
  const NodeDataset& d = data.dataset;
  const GraphView& plain = data.graph.plain();
  auto bad = [&](const std::string& what) { return InputError(file, 0, what + " (explanations of another dataset?)"); };
  if (!set.explanations.front().feature_score.empty() && set.num_features != d.num_features()) {
    throw bad("the explanations score " + std::to_string(set.num_features) + " features, the dataset has " +
              std::to_string(d.num_features()));
  }
  for (const NodeExplanation& x : set.explanations) {
    if (x.node >= d.num_nodes) throw bad("node " + std::to_string(x.node) + " is not in the dataset");
    if (x.explained_class >= d.num_classes || x.predicted_class >= d.num_classes) throw bad("a class the dataset lacks");
    for (std::size_t e = 0; e < x.edge_id.size(); ++e) {
      const int64_t id = x.edge_id[e];
      if (id >= plain.num_edges() || plain.src[id] != x.edge_src[e] || plain.dst[id] != x.edge_dst[e]) {
        throw bad("edge " + std::to_string(id) + " of node " + std::to_string(x.node) + " is not in the graph");
      }
    }
  }
}

std::vector<FaithfulnessResult> evaluate_faithfulness(NodeClassifier& model, const PreparedNodeData& data,
                                                      const ExplanationSet& set, int64_t top_k) {
  ATTEND_CHECK(top_k >= 1, "top-k " << top_k);
  model.eval();
  std::vector<FaithfulnessResult> results;
  if (set.explanations.front().feature_score.empty()) return results;
  FaithfulnessResult r;
  r.kind = "features";
  r.top_k = top_k;
  std::vector<int64_t> predicted, without, only;
  double comprehensiveness = 0.0, sufficiency = 0.0;
  for (const NodeExplanation& x : set.explanations) {
    const ComputationGraph cg = computation_graph(data, x.node, static_cast<int>(model.layers().size()));
    const std::vector<char> all(x.feature_score.size(), 1);
    const std::vector<double> p = masked_probabilities(model, cg, all);
    const std::vector<char> top = top_k_mask(x.feature_score, top_k);
    predicted.push_back(arg_max(p));
    without.push_back(arg_max(masked_probabilities(model, cg, complement(top))));
    only.push_back(arg_max(masked_probabilities(model, cg, top)));
    std::vector<double> p_without, p_only;
    for (int percent : aopc_percentages()) {
      const std::vector<char> bin = top_k_mask(x.feature_score, top_count(percent, static_cast<int64_t>(all.size())));
      p_without.push_back(masked_probabilities(model, cg, complement(bin))[x.explained_class]);
      p_only.push_back(masked_probabilities(model, cg, bin)[x.explained_class]);
    }
    comprehensiveness += aopc(p[x.explained_class], p_without);
    sufficiency += aopc(p[x.explained_class], p_only);
  }
  r.targets = static_cast<int64_t>(set.explanations.size());
  r.fidelity = fidelity(predicted, without, only);
  r.characterization = characterization_score(r.fidelity);
  r.comprehensiveness = comprehensiveness / static_cast<double>(r.targets);
  r.sufficiency = sufficiency / static_cast<double>(r.targets);
  results.push_back(r);
  return results;
}

}  // namespace attend::graph
