#include <catch2/catch.hpp>

#include "attend/core/error.hpp"
#include "attend/core/tensor.hpp"

using namespace attend;

TEST_CASE("tensor shape, fill and indexing", "[core]") {
  Tensor t({2, 3}, 1.5f);
  CHECK(t.rank() == 2);
  CHECK(t.numel() == 6);
  CHECK(t.dim(-1) == 3);
  CHECK(t.at({1, 2}) == 1.5f);
  t.at({1, 2}) = 4.0f;
  CHECK(t[5] == 4.0f);
  CHECK_THROWS_AS(t.at({2, 0}), Error);
  CHECK_THROWS_AS(Tensor({1, 1, 1, 1, 1, 1, 1}), Error);
  CHECK(Tensor::scalar(3.0f).item() == 3.0f);
}

TEST_CASE("tensor copies own their values, and views write through", "[core]") {
  std::vector<float> arena(6, 0.0f);
  Tensor v = Tensor::view(arena.data(), {2, 3});
  CHECK(v.is_view());
  Tensor values({2, 3}, {1, 2, 3, 4, 5, 6});
  v = values;  // copies into the arena
  CHECK(arena[4] == 5.0f);
  Tensor copy = v;
  CHECK_FALSE(copy.is_view());
  copy[0] = 9.0f;
  CHECK(arena[0] == 1.0f);
  Tensor moved = std::move(v);
  CHECK(moved.is_view());
  CHECK(moved.data() == arena.data());
  CHECK_THROWS_AS(moved = Tensor({4}), Error);
}

TEST_CASE("tensor reshape keeps the element count", "[core]") {
  Tensor t({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor r = t.reshaped({3, 2});
  CHECK(r.at({2, 1}) == 6.0f);
  CHECK_THROWS_AS(t.reshape({4}), Error);
  CHECK(bitwise_equal(t, Tensor({2, 3}, {1, 2, 3, 4, 5, 6})));
  CHECK(max_abs_diff(t, Tensor({2, 3}, {1, 2, 3, 4, 5, 7})) == 1.0f);
}
