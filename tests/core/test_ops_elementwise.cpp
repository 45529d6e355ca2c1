#include <catch2/catch.hpp>

#include "attend/core/error.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/parallel.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

namespace {
/// Naive broadcast reference: b repeats over the rows of a.
Tensor naive_binary(const Tensor& a, const Tensor& b, char op) {
  Tensor out(a.shape());
  const int64_t cols = b.numel();
  for (int64_t i = 0; i < a.numel(); ++i) {
    const float bj = b[i % cols];
    out[i] = op == '+' ? a[i] + bj : op == '-' ? a[i] - bj : a[i] * bj;
  }
  return out;
}

void check_all_gradients(const Tensor& a, const Tensor& b) {
  for (auto op : {ops::add, ops::sub, ops::mul}) {
    auto r = check_gradients([op](const std::vector<Var>& v) { return op(v[0], v[1]); }, {a, b});
    INFO(shape_to_string(a.shape()) << " with " << shape_to_string(b.shape()) << "\n" << r.report);
    CHECK(r.ok);
  }
}
}  // namespace

TEST_CASE("add, sub and mul forward with and without broadcasting", "[core]") {
  const Tensor a = random_tensor({4, 3, 5}, 1);
  for (const Shape& bs : {Shape{4, 3, 5}, Shape{3, 5}, Shape{5}, Shape{}}) {
    const Tensor b = random_tensor(bs, 2);
    INFO("b " << shape_to_string(bs));
    CHECK(bitwise_equal(ops::add(Var(a), Var(b)).value(), naive_binary(a, b, '+')));
    CHECK(bitwise_equal(ops::sub(Var(a), Var(b)).value(), naive_binary(a, b, '-')));
    CHECK(bitwise_equal(ops::mul(Var(a), Var(b)).value(), naive_binary(a, b, '*')));
  }
  // Over more than one block of elements (support.hpp's kBlock, 2^14), whose edges fall inside
  // a row: each block starts its column count mid-row.
  const Tensor wide = random_tensor({40, 700}, 3), row = random_tensor({700}, 4);
  CHECK(bitwise_equal(ops::add(Var(wide), Var(row)).value(), naive_binary(wide, row, '+')));
  CHECK(bitwise_equal(ops::mul(Var(wide), Var(row)).value(), naive_binary(wide, row, '*')));
  // A broadcasting mul by hand: rows of [[1, 2], [3, 4]] times [10, -1].
  const Tensor y = ops::mul(Var(Tensor({2, 2}, {1, 2, 3, 4})), Var(Tensor({2}, {10, -1}))).value();
  CHECK(bitwise_equal(y, Tensor({2, 2}, {10, -2, 30, -4})));
}

TEST_CASE("elementwise ops reject shapes that do not broadcast", "[core]") {
  const Var a(Tensor({4, 3}));
  CHECK_THROWS_AS(ops::add(a, Var(Tensor({4}))), Error);
  CHECK_THROWS_AS(ops::mul(a, Var(Tensor({2, 4, 3}))), Error);
  CHECK_THROWS_AS(ops::sub(Var(Tensor({3})), a), Error);
}

TEST_CASE("add, sub and mul gradients", "[core][grad]") {
  check_all_gradients(random_tensor({3, 4}, 3), random_tensor({3, 4}, 4));
  check_all_gradients(random_tensor({6, 5}, 5), random_tensor({5}, 6));
  check_all_gradients(random_tensor({3, 2, 4}, 7), random_tensor({2, 4}, 8));
  check_all_gradients(random_tensor({2, 3}, 9), random_tensor({}, 10));
}

TEST_CASE("scale forward and gradient", "[core][grad]") {
  const Tensor a = random_tensor({3, 5}, 11);
  const Tensor y = ops::scale(Var(a), -2.5f).value();
  for (int64_t i = 0; i < a.numel(); ++i) CHECK(y[i] == a[i] * -2.5f);
  auto r = check_gradients([](const std::vector<Var>& v) { return ops::scale(v[0], -2.5f); }, {a});
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("linear adds its bias through add", "[core][grad]") {
  const Tensor x = random_tensor({5, 3}, 12), w = random_tensor({3, 4}, 13),
               b = random_tensor({4}, 14);
  Var vx(x), vw(w), vb(b, true);
  Var y = ops::linear(vx, vw, vb);
  const Tensor plain = ops::matmul(vx, vw).value();
  CHECK(bitwise_equal(y.value(), naive_binary(plain, b, '+')));
  const Tensor g = random_tensor({5, 4}, 15);
  y.backward(g);
  for (int64_t j = 0; j < 4; ++j) {
    double s = 0;
    for (int64_t r = 0; r < 5; ++r) s += g[r * 4 + j];
    CHECK(vb.grad()[j] == Approx(s).margin(1e-6));
  }
  CHECK_THROWS_AS(ops::linear(vx, vw, Var(Tensor({3}))), Error);
}

TEST_CASE("the broadcast gradient of add is bit-identical for 1 and 2 threads", "[core]") {
  // Narrow rows (chunked over rows) and wide rows (split over columns).
  for (const Shape& as : {Shape{40000, 6}, Shape{300, 700}}) {
    const Tensor a = random_tensor(as, 16), b = random_tensor({as[1]}, 17),
                 g = random_tensor(as, 18);
    auto run = [&](int threads) {
      set_num_threads(threads);
      Var va(a, true), vb(b, true);
      Var y = ops::add(va, vb);
      y.backward(g);
      return vb.grad();
    };
    const int before = num_threads();
    const Tensor one = run(1), two = run(2);
    set_num_threads(before);
    CHECK(bitwise_equal(one, two));
    double s0 = 0;
    for (int64_t r = 0; r < as[0]; ++r) s0 += g[r * as[1]];
    CHECK(one[0] == Approx(s0).margin(1e-3));
  }
}
