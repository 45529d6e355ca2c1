#include "attend/graph/explain/explained_quantity.hpp"

#include "attend/core/error.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/ops/reduction.hpp"
#include "attend/core/ops/softmax.hpp"

namespace attend::graph {

Var target_log_probability(const NodeClassifier& model, const NodeFeatures& x, const GraphContext& graph,
                           const std::vector<int64_t>& rows, const std::vector<int64_t>& classes) {
  ATTEND_CHECK(rows.size() == classes.size() && !rows.empty(), rows.size() << " target rows, " << classes.size() << " classes");
  const Var logits = model.forward(x, graph, 0);  // [N, C]
  const int64_t c = logits.dim(1);
  Tensor pick({static_cast<int64_t>(rows.size()), c}, 0.0f);  // [T, C] one-hot of c_t
  for (std::size_t t = 0; t < rows.size(); ++t) {
    ATTEND_CHECK(classes[t] >= 0 && classes[t] < c, "class " << classes[t] << " of a model with " << c << " classes");
    pick[static_cast<int64_t>(t) * c + classes[t]] = 1.0f;
  }
  return ops::sum(ops::mul(ops::gather_rows(ops::log_softmax(logits), rows), Var(pick)));
}

Var target_log_probability(const NodeClassifier& model, const TargetForward& pass, const NodeFeatures& x,
                           const Var& edge_mask, int64_t cls) {
  const Var logits = pass.logits(model, x, edge_mask);  // [copies, C]
  const int64_t c = logits.dim(1);
  ATTEND_CHECK(cls >= 0 && cls < c, "class " << cls << " of a model with " << c << " classes");
  Tensor pick({pass.copies(), c}, 0.0f);  // [copies, C] one-hot of cls
  for (int64_t k = 0; k < pass.copies(); ++k) pick[k * c + cls] = 1.0f;
  return ops::sum(ops::mul(ops::log_softmax(logits), Var(pick)));
}

int64_t predicted_class(const NodeClassifier& model, const TargetForward& pass) {
  ATTEND_CHECK(pass.copies() == 1, "the predicted class of a pass over " << pass.copies() << " copies");
  NoGradGuard no_grad;
  const Tensor logits = pass.logits(model, pass.features(), Var()).value();  // [1, C]
  int64_t best = 0;
  for (int64_t k = 1; k < logits.dim(1); ++k) best = logits[k] > logits[best] ? k : best;
  return best;
}

int64_t predicted_class(const NodeClassifier& model, const PreparedNodeData& data, int64_t row) {
  NoGradGuard no_grad;
  const Tensor logits = model.forward(data.features, data.graph, 0).value();  // [N, C]
  const int64_t c = logits.dim(1);
  int64_t best = 0;
  for (int64_t k = 1; k < c; ++k) best = logits[row * c + k] > logits[row * c + best] ? k : best;
  return best;
}

}  // namespace attend::graph
