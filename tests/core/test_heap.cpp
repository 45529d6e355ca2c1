// The large-block cache behind tensor storage (heap.hpp).
#include <catch2/catch.hpp>

#include <algorithm>

#include "attend/core/heap.hpp"
#include "attend/core/tensor.hpp"

using namespace attend;

TEST_CASE("large tensor blocks are reused by size class once keep_freed_memory is on", "[core]") {
  keep_freed_memory();
  const int64_t large = static_cast<int64_t>(detail::kLargeBlock / sizeof(float)) + 1000;
  const float* first = nullptr;
  {
    Tensor a = Tensor::uninitialized({large});
    std::fill(a.begin(), a.end(), 7.0f);
    first = a.data();
  }
  Tensor zeros({large}, 0.0f);  // same size: the freed block, filled anew
  CHECK(zeros.data() == first);
  CHECK(std::all_of(zeros.begin(), zeros.end(), [](float v) { return v == 0.0f; }));
  const float* zeros_block = zeros.data();
  zeros = Tensor();
  // A few floats more, as a mini-batch's next sample: the same size class, the same block.
  Tensor near = Tensor::uninitialized({large + 1000});
  CHECK(near.data() == zeros_block);
  // A quarter more: past the 12.5 % of a class, another block.
  Tensor other = Tensor::uninitialized({large + large / 4});
  CHECK(other.data() != zeros_block);
  Tensor small({16}, 1.0f);  // small blocks go to malloc as before
  CHECK(std::all_of(small.begin(), small.end(), [](float v) { return v == 1.0f; }));
}
