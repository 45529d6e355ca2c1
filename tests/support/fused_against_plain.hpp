#pragma once
/// A fused op checked against the plain composition of ops it replaces: the same output and
/// the same gradient for every input, to float rounding (the fused op adds in another order).

#include <cstddef>
#include <vector>

#include <catch2/catch.hpp>

#include "grad_check.hpp"

namespace attend::testing {

/// Every element of `got` within 1e-5 absolute or 1e-4 relative of `want`'s.
inline void require_close(const Tensor& got, const Tensor& want) {
  REQUIRE(got.shape() == want.shape());
  for (int64_t i = 0; i < got.numel(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(1e-5).epsilon(1e-4));
}

/// `fused` and `plain` on the same `inputs`: outputs and all input gradients close.
inline void require_fused_matches_plain(const VarFunction& fused, const VarFunction& plain,
                                        const std::vector<Tensor>& inputs) {
  const OutputAndGradients got = output_and_gradients(fused, inputs), want = output_and_gradients(plain, inputs);
  require_close(got.out, want.out);
  REQUIRE(got.grads.size() == want.grads.size());
  for (std::size_t i = 0; i < got.grads.size(); ++i) require_close(got.grads[i], want.grads[i]);
}

}  // namespace attend::testing
