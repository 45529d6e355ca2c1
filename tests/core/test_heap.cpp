// The large-block cache behind tensor storage (heap.hpp).
#include <catch2/catch.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <random>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/heap.hpp"
#include "attend/core/large_block_stats.hpp"
#include "attend/core/memory_budget.hpp"
#include "attend/core/tensor.hpp"

using namespace attend;
using Catch::Contains;

namespace {

constexpr int64_t kFloatsPerMiB = (int64_t{1} << 20) / static_cast<int64_t>(sizeof(float));

// Writes `stamp` into one float of every 4 KiB page of `t` (enough to see two tensors share pages).
void stamp_pages(Tensor& t, float stamp) {
  for (int64_t i = 0; i < t.numel(); i += 1024) t.data()[i] = stamp;
}

bool pages_hold(const Tensor& t, float stamp) {
  for (int64_t i = 0; i < t.numel(); i += 1024) {
    if (t.data()[i] != stamp) return false;
  }
  return true;
}

}  // namespace

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

TEST_CASE("a miss of the large-block cache hands cached blocks back: no more held than ever in use", "[core]") {
  keep_freed_memory();
  const detail::LargeBlockStats before = detail::large_block_stats();
  std::size_t most_live = before.live;
  std::mt19937 rng(17);
  std::uniform_int_distribution<int64_t> mib(32, 160);
  std::vector<Tensor> live;  // at most four at once
  for (int step = 0; step < 60; ++step) {
    if (live.size() == 4 || (!live.empty() && rng() % 3 == 0)) {
      const std::size_t gone = rng() % live.size();
      CHECK(pages_hold(live[gone], static_cast<float>(gone + 1)));
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(gone));
      for (std::size_t i = 0; i < live.size(); ++i) stamp_pages(live[i], static_cast<float>(i + 1));
    } else {
      live.push_back(Tensor::uninitialized({mib(rng) * kFloatsPerMiB}));
      stamp_pages(live.back(), static_cast<float>(live.size()));
    }
    // No two tensors in use share a block.
    for (std::size_t i = 0; i < live.size(); ++i) CHECK(pages_hold(live[i], static_cast<float>(i + 1)));
    const detail::LargeBlockStats now = detail::large_block_stats();
    most_live = std::max(most_live, now.live);
    // Blocks in use and cached never hold more than the most ever in use at once (or than
    // what was held when the test began).
    CHECK(now.live + now.cached <= std::max(most_live, before.live + before.cached));
  }
  live.clear();
  const std::size_t fresh_before = detail::large_block_stats().fresh;
  {
    Tensor t = Tensor::uninitialized({90 * kFloatsPerMiB});  // a 96 MiB block, cached or new
    stamp_pages(t, 1.0f);
  }
  const std::size_t fresh = detail::large_block_stats().fresh;
  CHECK(fresh - fresh_before <= (std::size_t{96} << 20));
  for (int i = 0; i < 3; ++i) {
    Tensor t = Tensor::uninitialized({90 * kFloatsPerMiB});  // the block just freed, every time
    stamp_pages(t, 1.0f);
  }
  CHECK(detail::large_block_stats().fresh == fresh);
  CHECK(detail::large_block_stats().live == before.live);
}

TEST_CASE("a large block the kernel refuses is attend::InputError and leaves the heap usable", "[core]") {
  keep_freed_memory();
  if (memory_budget_bytes() < (std::size_t{2} << 30)) return;  // the budget would refuse 1 GiB first
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's operator new reports a refused allocation and aborts instead of
  // throwing std::bad_alloc, so this path can only be tested without it.
  return;
#endif
  // As under `ulimit -v` on a shared machine: the address space limited to what is mapped now
  // plus 256 MiB; a 1 GiB tensor (within the memory budget) cannot be had.
  long pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  REQUIRE(pages > 0);
  rlimit saved{};
  REQUIRE(getrlimit(RLIMIT_AS, &saved) == 0);
  struct RestoreLimit {
    rlimit limit;
    ~RestoreLimit() { setrlimit(RLIMIT_AS, &limit); }
  } restore{saved};
  rlimit tight = saved;
  tight.rlim_cur = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGE_SIZE)) + (rlim_t{256} << 20);
  if (saved.rlim_cur != RLIM_INFINITY) tight.rlim_cur = std::min(tight.rlim_cur, saved.rlim_cur);
  REQUIRE(setrlimit(RLIMIT_AS, &tight) == 0);
  const std::size_t live = detail::large_block_stats().live;
  CHECK_THROWS_WITH(Tensor::uninitialized({1024 * kFloatsPerMiB}), Contains("out of memory: cannot allocate 1 GiB"));
  CHECK(detail::large_block_stats().live == live);
  Tensor fits = Tensor::uninitialized({40 * kFloatsPerMiB});  // the heap still serves what fits
  std::fill(fits.begin(), fits.end(), 3.0f);
  CHECK(fits.data()[fits.numel() - 1] == 3.0f);
}
