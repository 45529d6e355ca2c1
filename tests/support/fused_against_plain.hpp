#pragma once
/// A fused op checked against the plain composition of ops it replaces: the same output and
/// the same gradient for every input, to float rounding (the fused op adds in another order).

#include <algorithm>
#include <cstddef>
#include <vector>

#include <catch2/catch.hpp>

#include "grad_check.hpp"
#include "scoped_threads.hpp"

namespace attend::testing {

/// How far a fused op's numbers may lie from the plain composition's: an element passes within
/// `margin` absolute or `relative` times the plain value. Both add the same float terms in
/// another order, so the difference grows with the number and size of the terms summed. The
/// default holds sums of up to about 100 terms of size up to about 20 with room to spare: the
/// five Evoformer fused-op tests that use it (session 14) reach at most 8 % of it (largest
/// absolute difference 1.2e-5 on a gradient entry of 16.8, largest relative 1.1e-4 on an entry
/// of 6e-3, inside the margin). Widen it per test, saying why.
struct FusedTolerance {
  double margin = 1e-5;
  double relative = 1e-4;
};

/// Every element of `got` within `tolerance` of `want`'s.
inline void require_close(const Tensor& got, const Tensor& want, FusedTolerance tolerance = {}) {
  REQUIRE(got.shape() == want.shape());
  for (int64_t i = 0; i < got.numel(); ++i)
    REQUIRE(got[i] == Approx(want[i]).margin(tolerance.margin).epsilon(tolerance.relative));
}

/// `fused` and `plain` on the same `inputs`: outputs and all input gradients within `tolerance`.
inline void require_fused_matches_plain(const VarFunction& fused, const VarFunction& plain,
                                        const std::vector<Tensor>& inputs, FusedTolerance tolerance = {}) {
  const OutputAndGradients got = output_and_gradients(fused, inputs), want = output_and_gradients(plain, inputs);
  require_close(got.out, want.out, tolerance);
  REQUIRE(got.grads.size() == want.grads.size());
  for (std::size_t i = 0; i < got.grads.size(); ++i) require_close(got.grads[i], want.grads[i], tolerance);
}

/// `f` on `inputs` with 1 and with 2 threads: the same output and input gradients, bit for bit.
inline void require_same_bits_on_1_and_2_threads(const VarFunction& f, const std::vector<Tensor>& inputs) {
  OutputAndGradients one, two;
  {
    ScopedThreads threads(1);
    one = output_and_gradients(f, inputs);
  }
  {
    ScopedThreads threads(2);
    two = output_and_gradients(f, inputs);
  }
  REQUIRE(std::equal(one.out.begin(), one.out.end(), two.out.begin()));
  REQUIRE(one.grads.size() == two.grads.size());
  for (std::size_t i = 0; i < one.grads.size(); ++i)
    REQUIRE(std::equal(one.grads[i].begin(), one.grads[i].end(), two.grads[i].begin()));
}

}  // namespace attend::testing
