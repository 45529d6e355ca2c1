#include "attend/bio/pseudo_likelihood.hpp"

#include <memory>
#include <vector>

#include "attend/bio/alphabet.hpp"
#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend::bio {

Var potts_pseudo_likelihood(PottsObjective& objective, const Var& fields, const Var& couplings,
                            double* value_out) {
  const int64_t L = objective.length();
  constexpr int kF = PottsObjective::kFieldStates;
  constexpr int kS = kNumStates;
  ATTEND_CHECK(fields.shape() == (Shape{L, kF}),
               "fields must be [" << L << ", " << kF << "], got " << shape_to_string(fields.shape()));
  ATTEND_CHECK(couplings.shape() == (Shape{L, L, kS, kS}),
               "couplings must be [" << L << ", " << L << ", 21, 21], got "
                                     << shape_to_string(couplings.shape()));
  const float* h = fields.value().data();  // [L, 20]
  const float* w = couplings.value().data();  // [L, L, 21, 21]
  std::vector<float> x(static_cast<std::size_t>(objective.num_parameters()));
  parallel_for(0, L, [&](int64_t i) {
    for (int a = 0; a < kF; ++a) x[objective.field_index(i, a)] = h[i * kF + a];
    for (int64_t j = i + 1; j < L; ++j) {
      const float* w_ij = w + (i * L + j) * kS * kS;
      const float* w_ji = w + (j * L + i) * kS * kS;
      float* J = x.data() + objective.coupling_index(i, j, 0, 0);
      for (int a = 0; a < kS; ++a)
        for (int b = 0; b < kS; ++b) J[a * kS + b] = 0.5f * (w_ij[a * kS + b] + w_ji[b * kS + a]);
    }
  });
  auto grad = std::make_shared<std::vector<float>>(x.size());
  const double f = objective.evaluate(x.data(), grad->data());
  if (value_out != nullptr) *value_out = f;
  Tensor value({1}, static_cast<float>(f));
  return Var::from_op(std::move(value), {fields, couplings},
                      [fields, couplings, grad, &objective, L](const Tensor&, const Tensor& gy) {
    const float s = gy[0];
    const float* g = grad->data();
    if (fields.requires_grad()) {
      float* gh = fields.grad_mut().data();
      for (int64_t i = 0; i < L; ++i)
        for (int a = 0; a < kF; ++a) gh[i * kF + a] += s * g[objective.field_index(i, a)];
    }
    if (couplings.requires_grad()) {
      float* gw = couplings.grad_mut().data();
      // Row i of dW owns the blocks (i, j): dW_ij = dJ_ij / 2 for j > i, dJ_ji^T / 2 for j < i.
      parallel_for(0, L, [&](int64_t i) {
        for (int64_t j = 0; j < L; ++j) {
          if (j == i) continue;
          float* out = gw + (i * L + j) * kS * kS;
          const bool upper = i < j;
          const float* gj = g + (upper ? objective.coupling_index(i, j, 0, 0) : objective.coupling_index(j, i, 0, 0));
          for (int a = 0; a < kS; ++a)
            for (int b = 0; b < kS; ++b)
              out[a * kS + b] += 0.5f * s * (upper ? gj[a * kS + b] : gj[b * kS + a]);
        }
      });
    }
  });
}

}  // namespace attend::bio
