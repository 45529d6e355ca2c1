#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <optional>

#include "attend/core/error.hpp"
#include "attend/core/memory_budget.hpp"
#include "attend/core/tensor.hpp"
#include "temp_dir.hpp"

using namespace attend;
using Catch::Contains;

TEST_CASE("the memory budget refuses what the machine cannot hold, naming what asked", "[core]") {
  CHECK(memory_budget_bytes() > (std::size_t{64} << 20));
  CHECK_NOTHROW(require_memory(1024.0, "a small thing"));
  CHECK_THROWS_WITH(require_memory(1e30, "a Potts model of 4000000 columns"),
                    Contains("a Potts model of 4000000 columns needs ") && Contains("this process may use"));
  // Issue #18: sizes from user settings (heads x out_channels of 1e9) surfaced as
  // std::bad_alloc; a tensor is checked against the budget before it is allocated.
  CHECK_THROWS_AS(Tensor({int64_t{1} << 20, int64_t{1} << 20}), InputError);
}

TEST_CASE("the memory budget takes the control group's limit when it is below the machine's memory", "[core]") {
  // Gap left by issue #18: inside a container or a batch job the physical memory is not what
  // the process may use; the cgroup files say. A fake /sys/fs/cgroup and /proc/self/cgroup:
  attend::testing::TempDir root;
  const std::string self = root.file("self_cgroup");
  const auto write = [&](const std::string& name, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(root.file(name)).parent_path());
    attend::testing::write_text_file(root.file(name), text);
  };
  const std::string top = root.path().string();
  SECTION("no cgroup files: no limit") { CHECK(!cgroup_memory_limit(top, self).has_value()); }
  SECTION("cgroup v2 without a limit, v1 with one") {
    write("memory.max", "max\n");
    write("memory/memory.limit_in_bytes", "1073741824\n");
    CHECK(cgroup_memory_limit(top, self) == std::optional<std::size_t>(std::size_t{1} << 30));
  }
  SECTION("the process's own group below the mount, the smaller limit wins") {
    write("self_cgroup", "12:cpu,cpuacct:/other\n4:memory:/job7\n0::/job7\n");
    write("memory.max", "8589934592\n");
    write("job7/memory.max", "536870912\n");
    write("memory/job7/memory.limit_in_bytes", "9223372036854771712\n");  // v1's "unlimited"
    CHECK(cgroup_memory_limit(top, self) == std::optional<std::size_t>(std::size_t{512} << 20));
  }
  SECTION("unreadable values set no limit") {
    write("memory.max", "lots\n");
    write("memory/memory.limit_in_bytes", "99999999999999999999999\n");
    CHECK(!cgroup_memory_limit(top, self).has_value());
  }
  // The budget itself: never above the physical memory nor above this process's group limit.
  const long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGE_SIZE);
  CHECK(memory_budget_bytes() <= static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_bytes));
  if (const auto limit = cgroup_memory_limit("/sys/fs/cgroup", "/proc/self/cgroup")) CHECK(memory_budget_bytes() <= *limit);
}
