#include "attend/bio/pseudo_likelihood.hpp"

#include <algorithm>
#include <vector>

#include "attend/bio/alphabet.hpp"
#include "attend/core/error.hpp"
#include "attend/core/gemm.hpp"
#include "attend/core/parallel.hpp"

namespace attend::bio {

namespace {

/// Checks the shapes of `mixture_pseudo_likelihood`'s inputs; returns S.
int value_states(const PottsObjective& objective, const Tensor& fields, const Tensor& mixing, const Tensor& value) {
  const int64_t L = objective.length();
  constexpr int kF = PottsObjective::kFieldStates;
  ATTEND_CHECK(fields.shape() == (Shape{L, kF}),
               "fields must be [" << L << ", " << kF << "], got " << shape_to_string(fields.shape()));
  ATTEND_CHECK(mixing.rank() == 2 && mixing.dim(0) == L * L,
               "mixing must be [" << L * L << ", H], got " << shape_to_string(mixing.shape()));
  const int64_t H = mixing.dim(1);
  ATTEND_CHECK(value.rank() == 3 && value.dim(0) == H && value.dim(1) == value.dim(2) &&
                   (value.dim(1) == kNumStates || value.dim(1) == kNumAminoAcids),
               "value must be [" << H << ", 21, 21] or [" << H << ", 20, 20], got "
                                 << shape_to_string(value.shape()));
  return static_cast<int>(value.dim(1));
}

}  // namespace

void mixture_parameters(const PottsObjective& objective, const Tensor& fields, const Tensor& mixing,
                        const Tensor& value, PseudoLikelihoodWorkspace& workspace) {
  const int64_t L = objective.length();
  constexpr int kF = PottsObjective::kFieldStates;
  constexpr int kS = kNumStates;
  const int S = value_states(objective, fields, mixing, value);
  const int64_t H = mixing.dim(1), m = L * L, n = int64_t{S} * S;
  workspace.couplings.resize(static_cast<std::size_t>(m * n));
  workspace.parameters.resize(static_cast<std::size_t>(objective.num_parameters()));
  float* w = workspace.couplings.data();  // [L * L, S * S], gemm with beta = 0 writes all
  gemm(false, false, m, n, H, 1.0f, mixing.data(), H, value.data(), n, 0.0f, w, n);
  const float* h = fields.data();  // [L, 20]
  float* x = workspace.parameters.data();
  parallel_for(0, L, [&](int64_t i) {
    for (int a = 0; a < kF; ++a) x[objective.field_index(i, a)] = h[i * kF + a];
    for (int64_t j = i + 1; j < L; ++j) {
      const float* w_ij = w + (i * L + j) * n;
      const float* w_ji = w + (j * L + i) * n;
      float* J = x + objective.coupling_index(i, j, 0, 0);
      for (int a = 0; a < kS; ++a)
        for (int b = 0; b < kS; ++b)
          J[a * kS + b] = a < S && b < S ? 0.5f * (w_ij[a * S + b] + w_ji[b * S + a]) : 0.0f;
    }
  });
}

Var mixture_pseudo_likelihood(PottsObjective& objective, const Var& fields, const Var& mixing, const Var& value,
                              PseudoLikelihoodWorkspace& workspace, double* value_out) {
  const int64_t L = objective.length();
  constexpr int kF = PottsObjective::kFieldStates;
  constexpr int kS = kNumStates;
  mixture_parameters(objective, fields.value(), mixing.value(), value.value(), workspace);
  const int S = static_cast<int>(value.dim(1));
  const int64_t H = mixing.dim(1), m = L * L, n = int64_t{S} * S;
  workspace.gradient.resize(workspace.parameters.size());
  const float* x = workspace.parameters.data();
  const double f = objective.evaluate(x, workspace.gradient.data());
  if (value_out != nullptr) *value_out = f;
  Tensor loss({1}, static_cast<float>(f));
  PseudoLikelihoodWorkspace* ws = &workspace;
  return Var::from_op(std::move(loss), {fields, mixing, value},
                      [fields, mixing, value, ws, &objective, L, H, S, m, n](const Tensor&, const Tensor& gy) {
    const float s = gy[0];
    const float* g = ws->gradient.data();
    if (fields.requires_grad()) {
      float* gh = fields.grad_mut().data();
      for (int64_t i = 0; i < L; ++i)
        for (int a = 0; a < kF; ++a) gh[i * kF + a] += s * g[objective.field_index(i, a)];
    }
    if (!mixing.requires_grad() && !value.requires_grad()) return;
    // dW [L * L, S * S] over W's buffer (the forward's W is no longer needed). Row i owns the
    // blocks (i, j): dW_ij = dJ_ij / 2 for j > i, dJ_ji^T / 2 for j < i, 0 for j == i.
    float* dw = ws->couplings.data();
    parallel_for(0, L, [&](int64_t i) {
      for (int64_t j = 0; j < L; ++j) {
        float* out = dw + (i * L + j) * n;
        if (j == i) {
          std::fill(out, out + n, 0.0f);
          continue;
        }
        const bool upper = i < j;
        const float* gj = g + (upper ? objective.coupling_index(i, j, 0, 0) : objective.coupling_index(j, i, 0, 0));
        // 0 + x turns -0 into +0, as accumulating into a zeroed gradient did.
        for (int a = 0; a < S; ++a)
          for (int b = 0; b < S; ++b)
            out[a * S + b] = 0.0f + 0.5f * s * (upper ? gj[a * kS + b] : gj[b * kS + a]);
      }
    });
    if (mixing.requires_grad()) {  // d mixing [L * L, H] += dW V^T
      gemm(false, true, m, H, n, 1.0f, dw, n, value.value().data(), n, 1.0f, mixing.grad_mut().data(), H);
    }
    if (value.requires_grad()) {  // dV [H, S * S] += mixing^T dW
      gemm(true, false, H, n, m, 1.0f, mixing.value().data(), H, dw, n, 1.0f, value.grad_mut().data(), n);
    }
  });
}

}  // namespace attend::bio
