// The HDF5 guard (hdf5_guard.hpp): the three files of tests/data/libhdf5-defects/, on which
// libhdf5 1.10.8 crashes or loops, are refused by Hdf5File::open with an InputError; a valid
// file opens; a child stopped at the time limit is reaped; the guard off opens without a walk.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>

#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/core/hdf5_guard.hpp"
#include "temp_dir.hpp"

using namespace attend;

namespace {

std::string defect(const std::string& name) {
  return std::string(ATTEND_TEST_DATA_DIR) + "/libhdf5-defects/" + name;
}

// The InputError message Hdf5File::open(path) throws ("" when it opens).
std::string open_error(const std::string& path) {
  try {
    Hdf5File::open(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// True when this process has no child process left, exited or not.
bool no_children_left() {
  int status = 0;
  return waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD;
}

// Chosen settings for one test, the environment again afterwards.
struct ScopedGuardSettings {
  explicit ScopedGuardSettings(const Hdf5GuardSettings& settings) { set_hdf5_guard_settings(settings); }
  ~ScopedGuardSettings() { reset_hdf5_guard_settings(); }
};

}  // namespace

TEST_CASE("hdf5 guard: a crash of libhdf5 in the child is an InputError naming the file and the signal", "[hdf5_guard]") {
  const ScopedGuardSettings settings({true, 20});
  for (const char* name : {"h5g-link-release-table-bad-free.h5", "h5hg-read-memcpy-overlap.h5"}) {
    INFO(name);
    const std::string error = open_error(defect(name));
    CHECK(error.find(defect(name)) != std::string::npos);
    CHECK(error.find("damaged HDF5 file: the HDF5 library crashed (") != std::string::npos);
    CHECK(error.find(") reading it") != std::string::npos);
  }
  CHECK(no_children_left());
}

TEST_CASE("hdf5 guard: a loop in libhdf5 is stopped at the time limit and its child reaped", "[hdf5_guard]") {
  const ScopedGuardSettings settings({true, 1});
  const auto start = std::chrono::steady_clock::now();
  const std::string error = open_error(defect("h5hg-read-endless-loop.h5"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(error.find("damaged HDF5 file: the HDF5 library did not finish within 1 s reading it") != std::string::npos);
  CHECK(seconds >= 1.0);
  CHECK(seconds < 10.0);
  CHECK(no_children_left());
}

TEST_CASE("hdf5 guard: a valid file with groups and string attributes and datasets opens and reads", "[hdf5_guard]") {
  const ScopedGuardSettings settings({true, 20});
  attend::testing::TempDir dir;
  const std::string path = dir.file("valid.h5");
  {
    Hdf5File file = Hdf5File::create(path, "attend.test", 1);
    file.write_strings("/names", {"a", "bb", "ccc"});
    file.write_tensor("/parameters/layer/w", Tensor({2, 3}));
    file.set_attr("/parameters", "note", "a variable-length string");
    file.set_attr("/parameters/layer/w", "scale", 0.5);
    file.close();
  }
  REQUIRE(open_error(path).empty());
  const Hdf5File file = Hdf5File::open(path);
  CHECK(file.schema() == "attend.test");
  CHECK(file.read_strings("/names") == std::vector<std::string>{"a", "bb", "ccc"});
  CHECK(file.list("/parameters", ListOrder::kCreation) == std::vector<std::string>{"layer"});
  CHECK(no_children_left());
}

TEST_CASE("hdf5 guard: off, a file libhdf5 survives opening is opened without a walk", "[hdf5_guard]") {
  // Opening the bad-free file is harmless; only listing its parameters crashes. With the guard
  // on, the walk lists them and refuses the file; off, the open succeeds.
  const std::string path = defect("h5g-link-release-table-bad-free.h5");
  {
    const ScopedGuardSettings settings({false, 20});
    CHECK(open_error(path).empty());
  }
  {
    const ScopedGuardSettings settings({true, 20});
    CHECK(open_error(path).find("damaged HDF5 file") != std::string::npos);
  }
}

TEST_CASE("hdf5 guard: the environment switches it off and sets the time limit", "[hdf5_guard]") {
  reset_hdf5_guard_settings();
  setenv("ATTEND_HDF5_GUARD", "0", 1);
  setenv("ATTEND_HDF5_GUARD_SECONDS", "2.5", 1);
  Hdf5GuardSettings found = hdf5_guard_settings();
  CHECK_FALSE(found.enabled);
  CHECK(found.time_limit_s == 2.5);
  setenv("ATTEND_HDF5_GUARD", "1", 1);
  unsetenv("ATTEND_HDF5_GUARD_SECONDS");
  found = hdf5_guard_settings();
  CHECK(found.enabled);
  CHECK(found.time_limit_s == 60);
  setenv("ATTEND_HDF5_GUARD", "yes", 1);
  CHECK_THROWS_WITH(hdf5_guard_settings(), Catch::Contains("ATTEND_HDF5_GUARD") && Catch::Contains("expected 0 (off) or 1 (on)"));
  unsetenv("ATTEND_HDF5_GUARD");
  setenv("ATTEND_HDF5_GUARD_SECONDS", "-1", 1);
  CHECK_THROWS_AS(hdf5_guard_settings(), InputError);
  unsetenv("ATTEND_HDF5_GUARD_SECONDS");
}
