#include "attend/graph/layers/batch_norm.hpp"

#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/batch_norm.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/option_list.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

const OptionList<BatchNormOptions>& BatchNormOptions::option_list() {
  using O = BatchNormOptions;
  static const OptionList<O> list =
      OptionList<O>("batch_norm")
          .required("in_channels", &O::in_channels, "features (the output has as many)", OptionRange::positive())
          .add("momentum", &O::momentum, "weight of each training batch in the running mean and variance",
               OptionRange{0.0, 1.0, true, false})
          .add("eps", &O::eps, "added to the variance before the square root", OptionRange::positive());
  return list;
}

BatchNormOptions BatchNormOptions::from_json(const Json& c) { return option_list().from_json(c); }

Json BatchNormOptions::to_json() const { return option_list().to_json(*this); }

BatchNorm::BatchNorm(BatchNormOptions o) : options_(o) {
  weight_ = add_parameter("weight", Tensor({o.in_channels}, 1.0f));
  bias_ = add_parameter("bias", init::zeros({o.in_channels}));
  running_mean_ = add_parameter("running_mean", init::zeros({o.in_channels}));
  running_var_ = add_parameter("running_var", Tensor({o.in_channels}, 1.0f));
  running_mean_.set_requires_grad(false);
  running_var_.set_requires_grad(false);
}

Var BatchNorm::forward(const NodeFeatures& x, const GraphContext& /*graph*/, uint64_t /*seed*/,
                       AttentionExport* /*attention*/) const {
  // Ioffe & Szegedy 2015: Algorithm 1 in training, the inference transform of Algorithm 2 in evaluation.
  const BatchNormOptions& o = options_;
  ATTEND_CHECK(!x.is_sparse() && x.cols() == o.in_channels,
               "batch_norm expects " << o.in_channels << " dense input features, got " << x.cols());
  const int64_t c = o.in_channels;
  if (is_training()) {
    ops::BatchStatistics batch;
    Var out = ops::batch_norm(x.dense, weight_, bias_, o.eps, &batch);  // [N, C]
    const int64_t n = x.rows();
    const float unbiased = n > 1 ? static_cast<float>(n) / static_cast<float>(n - 1) : 1.0f;
    Var mean = running_mean_, var = running_var_;  // handles: the state is shared, not copied
    for (int64_t j = 0; j < c; ++j) {
      mean.value()[j] = (1.0f - o.momentum) * mean.value()[j] + o.momentum * batch.mean[j];
      var.value()[j] = (1.0f - o.momentum) * var.value()[j] + o.momentum * batch.variance[j] * unbiased;
    }
    return out;
  }
  Tensor rstd({c});  // [C], 1 / sqrt(running_var + eps)
  for (int64_t j = 0; j < c; ++j) {
    rstd[j] = static_cast<float>(1.0 / std::sqrt(static_cast<double>(running_var_.value()[j]) + o.eps));
  }
  const Var centered = ops::sub(x.dense, Var(running_mean_.value()));  // [N, C]
  return ops::add(ops::mul(centered, ops::mul(weight_, Var(rstd))), bias_);  // [N, C]
}

void BatchNorm::register_into(Registry& registry) {
  registry.add("batch_norm", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<BatchNorm>(BatchNormOptions::from_json(config));
  });
  registry.document("batch_norm", BatchNormOptions::option_list().docs());
}

}  // namespace attend::graph
