// The large-block cache behind tensor storage (heap.hpp).
#include <catch2/catch.hpp>

#include <algorithm>

#include "attend/core/heap.hpp"
#include "attend/core/tensor.hpp"

using namespace attend;

TEST_CASE("large tensor blocks are reused by exact size once keep_freed_memory is on", "[core]") {
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
  Tensor other = Tensor::uninitialized({large + 1});  // another size: not that block
  CHECK(other.data() != first);
  Tensor small({16}, 1.0f);  // small blocks go to malloc as before
  CHECK(std::all_of(small.begin(), small.end(), [](float v) { return v == 1.0f; }));
}
