#include <catch2/catch.hpp>

#include "attend/core/error.hpp"
#include "attend/core/memory_budget.hpp"
#include "attend/core/tensor.hpp"

using namespace attend;
using Catch::Contains;

TEST_CASE("the memory budget refuses what the machine cannot hold, naming what asked", "[core]") {
  CHECK(memory_budget_bytes() > (std::size_t{64} << 20));
  CHECK_NOTHROW(require_memory(1024.0, "a small thing"));
  CHECK_THROWS_WITH(require_memory(1e30, "a Potts model of 4000000 columns"),
                    Contains("a Potts model of 4000000 columns needs ") && Contains("more than this machine's"));
  // Issue #18: sizes from user settings (heads x out_channels of 1e9) surfaced as
  // std::bad_alloc; a tensor is checked against the budget before it is allocated.
  CHECK_THROWS_AS(Tensor({int64_t{1} << 20, int64_t{1} << 20}), InputError);
}
