#include "attend/graph/explain/explained_quantity.hpp"

#include "attend/core/error.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/ops/reduction.hpp"
#include "attend/core/ops/softmax.hpp"

namespace attend::graph {

namespace {
// The first class of the largest logit of `logits` [1, C].
int64_t arg_max(const Tensor& logits) {
  int64_t best = 0;
  for (int64_t k = 1; k < logits.dim(1); ++k) best = logits[k] > logits[best] ? k : best;
  return best;
}
}  // namespace

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
  return class_log_probability(pass.logits(model, x, edge_mask), cls);
}

Var class_log_probability(const Var& logits, int64_t cls) {
  const int64_t copies = logits.dim(0), c = logits.dim(1);  // logits [copies, C]
  ATTEND_CHECK(cls >= 0 && cls < c, "class " << cls << " of a model with " << c << " classes");
  Tensor pick({copies, c}, 0.0f);  // [copies, C] one-hot of cls
  for (int64_t k = 0; k < copies; ++k) pick[k * c + cls] = 1.0f;
  return ops::sum(ops::mul(ops::log_softmax(logits), Var(pick)));
}

std::vector<double> per_copy_log_probability(const Tensor& logits, int64_t cls) {
  const int64_t copies = logits.dim(0), c = logits.dim(1);
  ATTEND_CHECK(cls >= 0 && cls < c, "class " << cls << " of a model with " << c << " classes");
  const Tensor log_p = ops::log_softmax(Var(logits)).value();  // [copies, C]
  std::vector<double> f(static_cast<std::size_t>(copies));
  for (int64_t k = 0; k < copies; ++k) f[static_cast<std::size_t>(k)] = log_p[k * c + cls];
  return f;
}

double input_log_probability(TargetForwards& passes, int64_t cls) {
  NoGradGuard no_grad;
  return static_cast<double>(class_log_probability(Var(passes.input_logits()), cls).value().item());
}

int64_t predicted_class(const NodeClassifier& model, const TargetForward& pass) {
  ATTEND_CHECK(pass.copies() == 1, "the predicted class of a pass over " << pass.copies() << " copies");
  NoGradGuard no_grad;
  return arg_max(pass.logits(model, pass.features(), Var()).value());
}

int64_t predicted_class(TargetForwards& passes) { return arg_max(passes.input_logits()); }

int64_t predicted_class(const NodeClassifier& model, const PreparedNodeData& data, int64_t row) {
  NoGradGuard no_grad;
  const Tensor logits = model.forward(data.features, data.graph, 0).value();  // [N, C]
  const int64_t c = logits.dim(1);
  int64_t best = 0;
  for (int64_t k = 1; k < c; ++k) best = logits[row * c + k] > logits[row * c + best] ? k : best;
  return best;
}

}  // namespace attend::graph
