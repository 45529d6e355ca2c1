#include "attend/graph/explain/attention_rollout.hpp"

#include <algorithm>

#include "attend/core/error.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::graph {

AttentionRollout attention_rollout(int64_t num_nodes, const std::vector<LayerAttention>& layers, int64_t target) {
  ATTEND_CHECK(target >= 0 && target < num_nodes, "rollout target " << target << " of " << num_nodes << " nodes");
  AttentionRollout out;
  out.edge.resize(layers.size());
  std::vector<double> r(static_cast<std::size_t>(num_nodes), 0.0);
  r[target] = 1.0;
  for (std::size_t l = layers.size(); l-- > 0;) {
    const LayerAttention& layer = layers[l];
    ATTEND_CHECK(layer.src.size() == layer.dst.size() && layer.src.size() == layer.weight.size(),
                 "layer " << l << " attention arrays of different lengths");
    std::vector<double> next(static_cast<std::size_t>(num_nodes), 0.0);
    std::vector<double>& flow = out.edge[l];
    flow.resize(layer.src.size());
    for (std::size_t e = 0; e < layer.src.size(); ++e) {
      flow[e] = r[layer.dst[e]] * static_cast<double>(layer.weight[e]);
      next[layer.src[e]] += flow[e];
    }
    r = std::move(next);
  }
  out.node = std::move(r);
  return out;
}

HeadReduction head_reduction_from_name(const std::string& name) {
  if (name == "mean") return HeadReduction::kMean;
  if (name == "max") return HeadReduction::kMax;
  throw InputError("heads are reduced by mean or max, not " + quoted_input(name));
}

std::vector<float> reduce_heads(const Tensor& weights, HeadReduction reduction) {
  ATTEND_CHECK(weights.rank() == 2, "attention weights of rank " << weights.rank() << ", expected [E, H]");
  const int64_t e_count = weights.dim(0), h = weights.dim(1);
  std::vector<float> out(static_cast<std::size_t>(e_count));
  for (int64_t e = 0; e < e_count; ++e) {
    const float* row = weights.data() + e * h;
    if (reduction == HeadReduction::kMax) {
      out[e] = *std::max_element(row, row + h);
    } else {
      double sum = 0.0;
      for (int64_t k = 0; k < h; ++k) sum += row[k];
      out[e] = static_cast<float>(sum / static_cast<double>(h));
    }
  }
  return out;
}

}  // namespace attend::graph
