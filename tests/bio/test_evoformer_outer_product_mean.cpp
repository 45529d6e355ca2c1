// Outer product mean (AF2 Alg. 10) against a plain reference; the fused projection op alone.
#include "attend/bio/evoformer/outer_product_mean.hpp"
#include "attend/core/parallel.hpp"
#include "evoformer_reference.hpp"

using namespace attend;
using namespace attend::evoref;

namespace {

constexpr int64_t kCm = 5, kCz = 4, kC = 3;

ModuleCase opm_case() {
  ModuleCase mc;
  mc.make = [](int64_t) {
    return std::make_unique<bio::OuterProductMean>(bio::OuterProductMeanOptions{kCm, kCz, kC, 25});
  };
  mc.run = [](const Module& m, const std::vector<Var>& x) {
    return static_cast<const bio::OuterProductMean&>(m).forward(x[0]);
  };
  mc.reference = [](const std::map<std::string, Tensor>& p, const std::vector<Tensor>& x) {
    return outer_product_mean(to_vec(x[0]), x[0].dim(0), x[0].dim(1), kCm, kC, Params{&p, ""});
  };
  mc.input_shapes = {{4, 5, kCm}};
  return mc;
}

}  // namespace

TEST_CASE("outer_product_mean matches AF2 Alg. 10", "[bio]") { check_forward(opm_case()); }

TEST_CASE("outer_product_mean gradients: inputs and parameters", "[bio][grad]") { check_module_grads(opm_case()); }

TEST_CASE("outer_product_mean_projection: gradients of a, b, w and the bias", "[bio][grad]") {
  // 70 rows: the backward sums the partials of three fixed 32-row blocks, the last one 6 rows,
  // and its products run over 8-row pieces with a short last piece.
  const std::vector<Tensor> inputs = {testing::random_tensor({3, 70, 2}, 1), testing::random_tensor({3, 70, 2}, 2),
                                      testing::random_tensor({4, 3}, 3), testing::random_tensor({3}, 4)};
  const auto r = testing::check_gradients(
      [](const std::vector<Var>& x) { return bio::outer_product_mean_projection(x[0], x[1], x[2], x[3]); }, inputs);
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("outer_product_mean: 1 and 2 threads give the same bits, registry round trip", "[bio]") {
  const ModuleCase mc = opm_case();
  auto module = mc.make(0);
  randomize_parameters(*module, 4);
  const std::vector<Shape> shapes = {{6, 70, kCm}};  // three 32-row blocks in the backward
  set_num_threads(1);
  const RunResult one = run_with_grads(mc, *module, shapes);
  set_num_threads(2);
  const RunResult two = run_with_grads(mc, *module, shapes);
  require_bitwise_equal(one, two);
  check_round_trip(mc);
}

TEST_CASE("outer_product_mean_projection: each gradient alone equals the one computed with all", "[bio][grad]") {
  // The backward skips b's swapped copy when a needs no gradient and db's partials when b
  // needs none: each input's gradient must not depend on which others are asked for.
  const std::vector<Tensor> values = {testing::random_tensor({3, 70, 2}, 11), testing::random_tensor({3, 70, 2}, 12),
                                      testing::random_tensor({4, 3}, 13), testing::random_tensor({3}, 14)};
  const Tensor seed = testing::random_tensor({70, 70, 3}, 15);
  auto gradients = [&](const std::vector<bool>& wanted) {
    std::vector<Var> x;
    for (std::size_t i = 0; i < values.size(); ++i) x.emplace_back(values[i], static_cast<bool>(wanted[i]));
    bio::outer_product_mean_projection(x[0], x[1], x[2], x[3]).backward(seed);
    return x;
  };
  const std::vector<Var> all = gradients({true, true, true, true});
  for (std::size_t only = 0; only < values.size(); ++only) {
    std::vector<bool> wanted(values.size(), false);
    wanted[only] = true;
    const std::vector<Var> one = gradients(wanted);
    INFO("input " << only);
    REQUIRE(one[only].has_grad());
    const Tensor& g = one[only].grad();
    const Tensor& expected = all[only].grad();
    for (int64_t e = 0; e < g.numel(); ++e) REQUIRE(g.data()[e] == expected.data()[e]);
  }
}
