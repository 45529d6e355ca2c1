#include "attend/graph/explain/occlusion.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "attend/core/error.hpp"
#include "attend/core/ops/softmax.hpp"
#include "attend/graph/explain/explained_quantity.hpp"
#include "attend/graph/explain/gradient_attribution.hpp"

namespace attend::graph {

namespace {

/// f of each copy: log softmax(logits)[k, cls] of the target logits [copies, C].
std::vector<double> per_copy_log_probability(const Tensor& logits, int64_t cls) {
  const int64_t copies = logits.dim(0), c = logits.dim(1);
  ATTEND_CHECK(cls >= 0 && cls < c, "class " << cls << " of a model with " << c << " classes");
  const Tensor log_p = ops::log_softmax(Var(logits)).value();  // [copies, C]
  std::vector<double> f(static_cast<std::size_t>(copies));
  for (int64_t k = 0; k < copies; ++k) f[static_cast<std::size_t>(k)] = log_p[k * c + cls];
  return f;
}

/// f with each of `count` inputs occluded, in balanced batches of at most `per_batch` copies
/// (the last copies of a short batch occlude nothing and are dropped): `batch_f(first, size,
/// copies)` returns f of each copy of one pass whose copy k < size occludes input first + k.
std::vector<double> occluded_values(int64_t count, int64_t per_batch,
                                    const std::function<std::vector<double>(int64_t, int64_t, int64_t)>& batch_f) {
  std::vector<double> f;
  if (count == 0) return f;
  const int64_t batches = (count + per_batch - 1) / per_batch;
  const int64_t copies = (count + batches - 1) / batches;  // one pass size for every batch
  for (int64_t first = 0; first < count; first += copies) {
    const int64_t size = std::min(copies, count - first);
    const std::vector<double> batch = batch_f(first, size, copies);
    f.insert(f.end(), batch.begin(), batch.begin() + size);
  }
  return f;
}

}  // namespace

std::vector<float> occlusion_edges(TargetForwards& passes, int64_t cls, const std::vector<int64_t>& edges,
                                   bool symmetric, int64_t batch_values) {
  const ComputationGraph& cg = passes.graph();
  const GraphView& plain = cg.data.graph.plain();
  const int64_t n = cg.num_nodes(), e_count = plain.num_edges();
  // The local edges each occlusion zeroes: one edge, or (symmetric) every edge joining its
  // endpoints in either direction with its relation; edges of one group share one forward.
  using Pair = std::tuple<int64_t, int64_t, int64_t>;  // lower endpoint, higher endpoint, relation
  auto pair_of = [&](int64_t e) {
    return Pair{std::min(plain.src[e], plain.dst[e]), std::max(plain.src[e], plain.dst[e]), plain.relation[e]};
  };
  std::map<Pair, std::vector<int64_t>> joining;
  if (symmetric) {
    for (int64_t e = 0; e < e_count; ++e) joining[pair_of(e)].push_back(e);
  }
  std::vector<std::vector<int64_t>> groups;
  std::vector<std::size_t> group_of(edges.size());
  std::map<Pair, std::size_t> group_of_pair;
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const int64_t e = edges[k];
    ATTEND_CHECK(e >= 0 && e < e_count, "edge " << e << " of a computation graph of " << e_count << " edges");
    if (!symmetric) {
      group_of[k] = groups.size();
      groups.push_back({e});
      continue;
    }
    const auto [at, added] = group_of_pair.emplace(pair_of(e), groups.size());
    if (added) groups.push_back(joining.at(pair_of(e)));
    group_of[k] = at->second;
  }

  const int64_t per_batch = std::max<int64_t>(batch_values / (n + e_count), 1);
  const std::vector<double> occluded = occluded_values(
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
  for (std::size_t k = 0; k < edges.size(); ++k) score.push_back(static_cast<float>(full - occluded[group_of[k]]));
  return score;
}

std::vector<float> occlusion_features(TargetForwards& passes, int64_t cls, int64_t batch_values) {
  const Tensor x = dense_features(passes.graph());  // [n, F]
  const int64_t n = x.dim(0), f_count = x.dim(1);
  const int64_t per_batch = std::max<int64_t>(batch_values / std::max<int64_t>(x.numel(), 1), 1);
  const std::vector<double> occluded =
      occluded_values(f_count, per_batch, [&](int64_t first, int64_t size, int64_t copies) {
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
