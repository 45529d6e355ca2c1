#include <catch2/catch.hpp>

#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/layers/linear.hpp"
#include "attend/core/registry.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::random_tensor;

TEST_CASE("linear computes x W + b with Glorot-initialised weights", "[core]") {
  Linear layer(LinearOptions{6, 4});
  const auto params = layer.named_parameters();
  REQUIRE(params.size() == 2);
  CHECK(params[0].first == "weight");
  CHECK(params[0].second.shape() == Shape{6, 4});
  CHECK(params[1].first == "bias");
  const double a = std::sqrt(6.0 / 10);
  for (float w : layer.weight().value()) CHECK(std::abs(w) <= a);
  for (float b : layer.bias().value()) CHECK(b == 0.0f);

  Var bias = layer.bias();  // a handle: writes reach the layer
  bias.value()[2] = 0.5f;   // a non-zero bias is added too
  const Tensor x = random_tensor({3, 6}, 1);
  const Tensor y = layer.forward(Var(x)).value();
  REQUIRE(y.shape() == Shape{3, 4});
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t j = 0; j < 4; ++j) {
      double s = layer.bias().value()[j];
      for (int64_t k = 0; k < 6; ++k) s += double(x[r * 6 + k]) * layer.weight().value()[k * 4 + j];
      CHECK(y[r * 4 + j] == Approx(s).margin(1e-5));
    }
  CHECK_THROWS_AS(layer.forward(Var(Tensor({3, 5}))), Error);
}

TEST_CASE("linear's initialisation depends only on its seed", "[core]") {
  Linear a(LinearOptions{5, 3, true, 1}), b(LinearOptions{5, 3, true, 1}),
      c(LinearOptions{5, 3, true, 2});
  CHECK(bitwise_equal(a.weight().value(), b.weight().value()));
  CHECK_FALSE(bitwise_equal(a.weight().value(), c.weight().value()));
  Linear no_bias(LinearOptions{5, 3, false});
  CHECK(no_bias.named_parameters().size() == 1);
  CHECK_FALSE(no_bias.bias().defined());
  CHECK(no_bias.forward(Var(Tensor({2, 5}, 1.0f))).shape() == Shape{2, 3});
}

TEST_CASE("linear registers and rebuilds itself from its config", "[core]") {
  Registry registry;
  Linear::register_into(registry);
  CHECK(registry.contains("Linear"));
  auto module = registry.create("linear", Json{{"in", 4}, {"out", 2}, {"seed", 9}});
  CHECK(module->type_name() == "linear");
  CHECK(module->config() == Json{{"in", 4}, {"out", 2}, {"bias", true}, {"seed", 9}});
  auto again = registry.create(module->type_name(), module->config());
  CHECK(bitwise_equal(module->named_parameters()[0].second.value(),
                      again->named_parameters()[0].second.value()));

  CHECK_THROWS_WITH(registry.create("linear", Json{{"out", 2}}),
                    Catch::Contains("missing required option 'in'"));
  CHECK_THROWS_WITH(registry.create("linear", Json{{"in", 2}, {"out", 2}, {"bais", false}}),
                    Catch::Contains("unknown option 'bais'"));
  CHECK_THROWS_AS(registry.create("linear", Json{{"in", 2.5}, {"out", 2}}), InputError);
  CHECK_THROWS_AS(registry.create("linear", Json{{"in", 0}, {"out", 2}}), InputError);
  CHECK_THROWS_AS(Linear::register_into(registry), Error);  // a second registration
}
