#include "attend/graph/explain/occlusion.hpp"

#include <algorithm>

#include "attend/graph/explain/batched_values.hpp"
#include "attend/graph/explain/edge_groups.hpp"
#include "attend/graph/explain/explained_quantity.hpp"
#include "attend/graph/explain/gradient_attribution.hpp"

namespace attend::graph {

std::vector<float> occlusion_edges(TargetForwards& passes, int64_t cls, const std::vector<int64_t>& edges,
                                   bool symmetric, int64_t batch_values) {
  const ComputationGraph& cg = passes.graph();
  const GraphView& plain = cg.data.graph.plain();
  const int64_t n = cg.num_nodes(), e_count = plain.num_edges();
  // The local edges each occlusion zeroes: one edge, or (symmetric) every edge joining its
  // endpoints in either direction with its relation; edges of one group share one forward.
  const EdgeGroups grouped = edge_groups(plain, edges, symmetric);
  const std::vector<std::vector<int64_t>>& groups = grouped.groups;
  const int64_t per_batch = std::max<int64_t>(batch_values / (n + e_count), 1);
  const std::vector<double> occluded = batched_values(
      static_cast<int64_t>(groups.size()), per_batch, [&](int64_t first, int64_t size, int64_t copies) {
        NoGradGuard no_grad;
        Tensor mask({copies * e_count}, 1.0f);  // [copies E]
        for (int64_t k = 0; k < size; ++k) {
          for (int64_t e : groups[static_cast<std::size_t>(first + k)]) mask[k * e_count + e] = 0.0f;
        }
        const TargetForward& pass = passes.copies(copies, TargetForward::Input::kShared);
        return per_copy_log_probability(pass.logits(passes.model(), pass.features(), Var(mask)).value(), cls);
      });
  const double full = input_log_probability(passes, cls);
  std::vector<float> score;
  for (std::size_t k = 0; k < edges.size(); ++k) score.push_back(static_cast<float>(full - occluded[grouped.group_of[k]]));
  return score;
}

std::vector<float> occlusion_features(TargetForwards& passes, int64_t cls, int64_t batch_values) {
  const Tensor x = dense_features(passes.graph());  // [n, F]
  const int64_t n = x.dim(0), f_count = x.dim(1);
  const int64_t per_batch = std::max<int64_t>(batch_values / std::max<int64_t>(x.numel(), 1), 1);
  const std::vector<double> occluded =
      batched_values(f_count, per_batch, [&](int64_t first, int64_t size, int64_t copies) {
        NoGradGuard no_grad;
        Tensor batch({copies * n, f_count});  // [copies n, F]: copy k without column first + k
        for (int64_t k = 0; k < copies; ++k) {
          std::copy(x.data(), x.data() + x.numel(), batch.data() + k * x.numel());
          if (k >= size) continue;
          for (int64_t v = 0; v < n; ++v) batch[(k * n + v) * f_count + first + k] = 0.0f;
        }
        const TargetForward& pass = passes.copies(copies);
        return per_copy_log_probability(pass.logits(passes.model(), NodeFeatures(Var(batch)), Var()).value(), cls);
      });
  const double full = input_log_probability(passes, cls);
  std::vector<float> score;
  for (double f : occluded) score.push_back(static_cast<float>(full - f));
  return score;
}

}  // namespace attend::graph
