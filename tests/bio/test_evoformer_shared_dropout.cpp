// Row-wise and column-wise dropout (AF2 Alg. 6): one mask shared along an axis.
#include <catch2/catch.hpp>

#include <cmath>

#include "attend/bio/evoformer/shared_dropout.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/parallel.hpp"
#include "grad_check.hpp"

using namespace attend;

TEST_CASE("shared_dropout shares its mask along the chosen axis and keeps about 1 - p", "[bio]") {
  const Tensor x = testing::random_tensor({6, 40, 50}, 1, 0.5f, 1.5f);  // never zero
  const float p = 0.25f;
  for (int axis : {0, 1}) {
    const Tensor y = bio::shared_dropout(Var(x), p, 42, true, axis).value();
    int64_t kept = 0;
    for (int64_t a = 0; a < 6; ++a)
      for (int64_t b = 0; b < 40; ++b)
        for (int64_t c = 0; c < 50; ++c) {
          const float ratio = y.at({a, b, c}) / x.at({a, b, c});
          REQUIRE((ratio == 0.0f || std::abs(ratio - 1.0f / (1.0f - p)) < 1e-6f));
          kept += ratio != 0.0f;
          // the same decision at every index of the shared axis
          const float other = axis == 0 ? y.at({0, b, c}) : y.at({a, 0, c});
          REQUIRE((other != 0.0f) == (ratio != 0.0f));
        }
    CHECK(std::abs(double(kept) / (6 * 40 * 50) - (1.0 - p)) < 0.05);
  }
  // row-wise and column-wise masks are different draws
  CHECK_FALSE(bitwise_equal(bio::shared_dropout(Var(x), p, 42, true, 0).value(),
                            bio::shared_dropout(Var(x), p, 42, true, 1).value()));
}

TEST_CASE("shared_dropout is the identity in evaluation and the same for any thread count", "[bio]") {
  const Tensor x = testing::random_tensor({3, 70, 90}, 2);
  CHECK(bitwise_equal(bio::shared_dropout(Var(x), 0.3f, 7, false, 0).value(), x));
  set_num_threads(1);
  const Tensor one = bio::shared_dropout(Var(x), 0.3f, 7, true, 1).value();
  set_num_threads(2);
  CHECK(bitwise_equal(one, bio::shared_dropout(Var(x), 0.3f, 7, true, 1).value()));
}

TEST_CASE("shared_dropout gradient", "[bio][grad]") {
  for (int axis : {0, 1}) {
    const auto r = testing::check_gradients(
        [axis](const std::vector<Var>& v) { return bio::shared_dropout(v[0], 0.4f, 9, true, axis); },
        {testing::random_tensor({3, 4, 5}, 3)});
    INFO(r.report);
    CHECK(r.ok);
  }
}

// The output to one rounding (residual + x * keep may become one fused multiply-add), the
// gradients bit for bit (the same code runs in both).
TEST_CASE("add_shared_dropout equals add of shared_dropout, gradients bit for bit", "[bio]") {
  const std::vector<Tensor> inputs = {testing::random_tensor({3, 70, 90}, 4), testing::random_tensor({3, 70, 90}, 5)};
  for (int axis : {0, 1})
    for (bool training : {true, false}) {
      const auto fused = [axis, training](const std::vector<Var>& v) {
        return bio::add_shared_dropout(v[0], v[1], 0.3f, 11, training, axis);
      };
      const auto plain = [axis, training](const std::vector<Var>& v) {
        return ops::add(v[0], bio::shared_dropout(v[1], 0.3f, 11, training, axis));
      };
      const testing::OutputAndGradients got = testing::output_and_gradients(fused, inputs);
      const testing::OutputAndGradients want = testing::output_and_gradients(plain, inputs);
      for (int64_t e = 0; e < want.out.numel(); ++e)
        REQUIRE(std::abs(got.out[e] - want.out[e]) <= 3e-7f);  // operands below 2.5 in magnitude
      REQUIRE(bitwise_equal(got.grads[0], want.grads[0]));
      REQUIRE(bitwise_equal(got.grads[1], want.grads[1]));
    }
  set_num_threads(1);
  const Tensor one = bio::add_shared_dropout(Var(inputs[0]), Var(inputs[1]), 0.3f, 7, true, 1).value();
  set_num_threads(2);
  CHECK(bitwise_equal(one, bio::add_shared_dropout(Var(inputs[0]), Var(inputs[1]), 0.3f, 7, true, 1).value()));
  CHECK_THROWS(bio::add_shared_dropout(Var(inputs[0]), Var(testing::random_tensor({3, 70, 89}, 6)), 0.3f, 7, true, 1));
}

TEST_CASE("add_shared_dropout gradient", "[bio][grad]") {
  for (int axis : {0, 1}) {
    const auto r = testing::check_gradients(
        [axis](const std::vector<Var>& v) { return bio::add_shared_dropout(v[0], v[1], 0.4f, 9, true, axis); },
        {testing::random_tensor({3, 4, 5}, 3), testing::random_tensor({3, 4, 5}, 4)});
    INFO(r.report);
    CHECK(r.ok);
  }
}
