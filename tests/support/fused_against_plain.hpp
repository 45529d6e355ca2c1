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
