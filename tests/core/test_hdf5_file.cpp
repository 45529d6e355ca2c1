#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>

#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "grad_check.hpp"
#include "temp_dir.hpp"

using namespace attend;
using attend::testing::random_tensor;
using attend::testing::TempDir;
using Catch::Matchers::Contains;

namespace {

// Run `f` with stderr sent to a file and return what was printed there.
template <class F>
std::string captured_stderr(const TempDir& dir, F f) {
  const std::string log = dir.file("stderr.log");
  std::fflush(stderr);
  const int saved = ::dup(2);
  FILE* sink = std::fopen(log.c_str(), "w");
  ::dup2(::fileno(sink), 2);
  f();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::fclose(sink);
  const std::string text = attend::testing::read_text_file(log);
  std::filesystem::remove(log);
  return text;
}

std::string error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no InputError)";
}

}  // namespace

TEST_CASE("hdf5 file carries its schema", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("a.h5");
  Hdf5File::create(path, "attend.test", 3).close();
  const Hdf5File file = Hdf5File::open(path);
  CHECK(file.schema() == "attend.test");
  CHECK(file.schema_version() == 3);
  file.require_schema("attend.test", 3);
  CHECK_THROWS_WITH(file.require_schema("attend.test", 2),
                    Contains(path) && Contains("version 3") && Contains("1 to 2"));
  CHECK_THROWS_WITH(file.require_schema("attend.graph", 3),
                    Contains("'attend.graph'") && Contains("'attend.test'"));
}

TEST_CASE("hdf5 tensors round-trip bit-exactly", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("t.h5");
  std::vector<std::pair<std::string, Tensor>> tensors = {
      {"/scalar", Tensor::scalar(-2.5f)},
      {"/empty", Tensor({0})},
      {"/empty_rows", Tensor({0, 4})},
      {"/vector", random_tensor({7}, 1)},
      {"/matrix", random_tensor({3, 4}, 2)},
      {"/deep/rank6", random_tensor({2, 1, 3, 2, 2, 3}, 3)},
      {"/big", random_tensor({300, 50}, 4)},           // compressed, several rows per chunk
      {"/wide", random_tensor({3, 200000}, 5)},        // one row is larger than a chunk
  };
  // Finite extremes (NaN and infinity are refused on reading: see below).
  Tensor special({4}, {-0.0f, std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(), 1e-38f});
  tensors.emplace_back("/special", special);
  {
    Hdf5File file = Hdf5File::create(path, "attend.test", 1);
    for (const auto& [name, tensor] : tensors) file.write_tensor(name, tensor);
    file.write_tensor("/uncompressed", tensors[6].second, false);
    CHECK(file.open_object_count() == 0);
  }
  const Hdf5File file = Hdf5File::open(path);
  for (const auto& [name, tensor] : tensors) {
    INFO(name);
    CHECK(file.dataset_shape(name) == tensor.shape());
    CHECK(bitwise_equal(file.read_tensor(name), tensor));
  }
  CHECK(bitwise_equal(file.read_tensor("uncompressed"), tensors[6].second));
  CHECK(file.open_object_count() == 0);
}

TEST_CASE("hdf5 compresses large datasets", "[core][io]") {
  TempDir dir;
  const Tensor zeros({512, 512});  // 1 MiB of zeros
  {
    Hdf5File file = Hdf5File::create(dir.file("c.h5"), "attend.test", 1);
    file.write_tensor("/zeros", zeros);
  }
  {
    Hdf5File file = Hdf5File::create(dir.file("u.h5"), "attend.test", 1);
    file.write_tensor("/zeros", zeros, false);
  }
  CHECK(std::filesystem::file_size(dir.file("c.h5")) < 64 * 1024);
  CHECK(std::filesystem::file_size(dir.file("u.h5")) > 1024 * 1024);
  CHECK(bitwise_equal(Hdf5File::open(dir.file("c.h5")).read_tensor("/zeros"), zeros));
}

TEST_CASE("hdf5 integer datasets round-trip with their shape", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("i.h5");
  std::vector<int64_t> big(5000);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<int64_t>(i * i) - 7;
  const std::vector<int64_t> wide = {std::numeric_limits<int64_t>::min(), -1, 0,
                                     std::numeric_limits<int64_t>::max(), 1LL << 40, 3};
  const std::vector<int32_t> narrow = {std::numeric_limits<int32_t>::min(), -5, 0, 9,
                                       std::numeric_limits<int32_t>::max(), 1};
  {
    Hdf5File file = Hdf5File::create(path, "attend.test", 1);
    file.write_int64("/wide", wide, {2, 3});
    file.write_int64("/big", big);
    file.write_int32("/narrow", narrow, {3, 2});
    file.write_int64("/none", {});
    CHECK_THROWS_AS(file.write_int64("/bad", wide, {4, 2}), Error);
  }
  const Hdf5File file = Hdf5File::open(path);
  Shape shape;
  CHECK(file.read_int64("/wide", &shape) == wide);
  CHECK(shape == Shape{2, 3});
  CHECK(file.read_int64("/big", &shape) == big);
  CHECK(shape == Shape{5000});
  CHECK(file.read_int32("/narrow", &shape) == narrow);
  CHECK(shape == Shape{3, 2});
  CHECK(file.read_int64("/narrow") == std::vector<int64_t>(narrow.begin(), narrow.end()));
  CHECK(file.read_int64("/none").empty());
  CHECK_THROWS_WITH(file.read_int32("/wide"), Contains("/wide") && Contains("int32"));
}

TEST_CASE("hdf5 strings round-trip as UTF-8", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("s.h5");
  const std::vector<std::string> names = {"alpha", "", "\xce\xb1-helix", "a much longer name"};
  {
    Hdf5File file = Hdf5File::create(path, "attend.test", 1);
    file.write_strings("/names", names);
    file.write_strings("/nothing", {});
    file.write_string("/doc", "{\"a\": 1}");
  }
  const Hdf5File file = Hdf5File::open(path);
  CHECK(file.read_strings("/names") == names);
  CHECK(file.read_strings("/nothing").empty());
  CHECK(file.read_string("/doc") == "{\"a\": 1}");
  CHECK_THROWS_WITH(file.read_string("/names"), Contains("expected one string, found 4"));
}

TEST_CASE("hdf5 groups: create_group, exists and list", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("g.h5");
  Hdf5File file = Hdf5File::create(path, "attend.test", 1);
  file.create_group("/a/b/c");
  file.create_group("a/b");  // already there: kept
  CHECK(file.exists("/"));
  CHECK(file.exists("/a/b/c"));
  CHECK(file.exists("a/b/"));
  CHECK_FALSE(file.exists("/a/x/c"));
  CHECK_FALSE(file.exists("/missing/deeper"));
  file.create_group("/order");
  for (const char* name : {"zeta", "alpha", "mid.dle", "beta"}) {
    file.write_tensor(std::string("/order/") + name, Tensor({1}));
  }
  CHECK(file.list("/order") == std::vector<std::string>{"alpha", "beta", "mid.dle", "zeta"});
  CHECK(file.list("/order", ListOrder::kCreation) ==
        std::vector<std::string>{"zeta", "alpha", "mid.dle", "beta"});
  CHECK(file.list("/") == std::vector<std::string>{"a", "order"});
  CHECK_FALSE(file.exists("/order/alpha/x"));
  CHECK_THROWS_WITH(file.create_group("/order/alpha/x"),
                    Contains("/order/alpha") && Contains("expected a group"));
  CHECK_THROWS_WITH(file.list("/order/zeta"), Contains("expected a group"));
  CHECK_THROWS_WITH(file.list("/nope"), Contains("'/nope'") && Contains("does not exist"));
  CHECK(file.open_object_count() == 0);
}

TEST_CASE("hdf5 attributes of every kind", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("attr.h5");
  {
    Hdf5File file = Hdf5File::create(path, "attend.test", 1);
    file.write_tensor("/x", Tensor({2}));
    file.set_attr("/x", "name", "first");
    file.set_attr("/x", "name", std::string("second"));  // replaces
    file.set_attr("/x", "count", 42);
    file.set_attr("/x", "big", int64_t{1} << 50);
    file.set_attr("/", "rate", 0.1);
    file.set_attr("/", "weights", std::vector<float>{1.5f, -2.0f, 1e-30f});
    file.set_attr("/", "nothing", std::vector<float>{});
    CHECK_THROWS_WITH(file.set_attr("/missing", "a", 1), Contains("'/missing'"));
  }
  Hdf5File file = Hdf5File::open_rw(path);
  CHECK(file.has_attr("/x", "name"));
  CHECK_FALSE(file.has_attr("/x", "other"));
  CHECK_FALSE(file.has_attr("/missing", "name"));
  CHECK(file.get_attr_string("/x", "name") == "second");
  CHECK(file.get_attr_int64("/x", "count") == 42);
  CHECK(file.get_attr_int64("/x", "big") == (int64_t{1} << 50));
  CHECK(file.get_attr_double("/", "rate") == 0.1);
  CHECK(file.get_attr_double("/x", "count") == 42.0);
  CHECK(file.get_attr_floats("/", "weights") == std::vector<float>{1.5f, -2.0f, 1e-30f});
  CHECK(file.get_attr_floats("/", "nothing").empty());
  CHECK_THROWS_WITH(file.get_attr_int64("/x", "name"),
                    Contains(path) && Contains("'name'") &&
                        Contains("expected one integer, found strings"));
  CHECK_THROWS_WITH(file.get_attr_double("/", "weights"), Contains("expected one number, found shape [3]"));
  CHECK_THROWS_WITH(file.get_attr_string("/x", "count"), Contains("expected strings"));
  CHECK_THROWS_WITH(file.get_attr_double("/x", "absent"),
                    Contains("attribute 'absent' of '/x'") && Contains("does not exist"));
  file.set_attr("/x", "count", 7);  // writable when opened read-write
  CHECK(file.get_attr_int64("/x", "count") == 7);
  CHECK(file.open_object_count() == 0);
}

TEST_CASE("hdf5 errors name the file, the object and what was expected", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("e.h5");
  {
    Hdf5File file = Hdf5File::create(path, "attend.test", 1);
    file.write_int64("/ints", {1, 2, 3});
    file.write_tensor("/floats", Tensor({3}));
    file.create_group("/group");
    CHECK_THROWS_WITH(file.write_tensor("/floats", Tensor({1})),
                      Contains("'/floats'") && Contains("already exists"));
  }
  const Hdf5File file = Hdf5File::open(path);
  CHECK_THROWS_WITH(file.read_tensor("/ints"),
                    Contains(path) && Contains("'/ints'") && Contains("expected float32") &&
                        Contains("found int64"));
  CHECK_THROWS_WITH(file.read_int64("/floats"), Contains("expected integer values, found float32"));
  CHECK_THROWS_WITH(file.read_strings("/floats"), Contains("expected strings, found float32"));
  CHECK_THROWS_WITH(file.read_tensor("/group"), Contains("is a group, expected a dataset"));
  CHECK_THROWS_WITH(file.read_tensor("/no/such"),
                    Contains(path) && Contains("dataset '/no/such'") && Contains("does not exist"));
  CHECK_THROWS_AS(file.read_tensor("/no/such"), InputError);
  CHECK(file.open_object_count() == 0);

  const std::string text = dir.file("notes.txt");
  attend::testing::write_text_file(text, "not hdf5 at all\n");
  CHECK_THROWS_WITH(Hdf5File::open(text), Contains(text) && Contains("not an HDF5 file"));
  CHECK_THROWS_WITH(Hdf5File::open(dir.file("absent.h5")), Contains("does not exist"));
  CHECK_THROWS_WITH(Hdf5File::open(dir.path().string()), Contains("is a directory"));
  CHECK_THROWS_AS(Hdf5File::create(dir.file("no/dir/x.h5"), "attend.test", 1), InputError);

  // A plain HDF5 file without the attend root attributes.
  Hdf5File::create(dir.file("plain.h5"), "x", 1).close();
  {
    Hdf5File plain = Hdf5File::open_rw(dir.file("plain.h5"));
    plain.set_attr("/", "schema", 5);
  }
  CHECK_THROWS_WITH(Hdf5File::open(dir.file("plain.h5")).schema(),
                    Contains("'schema'") && Contains("expected strings"));
}

TEST_CASE("hdf5 prints nothing of its own on errors", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("q.h5");
  Hdf5File::create(path, "attend.test", 1).close();
  const std::string printed = captured_stderr(dir, [&] {
    const Hdf5File file = Hdf5File::open(path);
    CHECK_THROWS_AS(file.read_tensor("/missing"), InputError);
    CHECK_THROWS_AS(file.get_attr_string("/", "missing"), InputError);
    CHECK_THROWS_AS(Hdf5File::create(dir.file("no/dir/x.h5"), "attend.test", 1), InputError);
  });
  CHECK(printed.empty());
}

TEST_CASE("hdf5 files are move-only handles and read-only files refuse writes", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("m.h5");
  Hdf5File first = Hdf5File::create(path, "attend.test", 1);
  Hdf5File second = std::move(first);
  CHECK_FALSE(first.is_open());
  CHECK(second.is_open());
  CHECK_THROWS_AS(first.exists("/"), Error);
  second.close();
  CHECK_FALSE(second.is_open());
  second.close();  // closing twice is harmless
  Hdf5File reader = Hdf5File::open(path);
  CHECK_THROWS_AS(reader.write_tensor("/x", Tensor({1})), Error);
  CHECK_THROWS_AS(reader.set_attr("/", "a", 1), Error);
  CHECK_FALSE(reader.exists("/x"));
}

TEST_CASE("hdf5 error message lists the HDF5 reason when a file cannot be created",
          "[core][io]") {
  TempDir dir;
  const std::string message =
      error_message([&] { Hdf5File::create(dir.file("no/dir/x.h5"), "attend.test", 1); });
  CHECK_THAT(message, Contains(dir.file("no/dir/x.h5")) && Contains("cannot create HDF5 file"));
}

TEST_CASE("hdf5 reads refuse NaN and infinity, and shapes other than the expected one", "[core][io]") {
  // Issue #18: NaN scores in a prediction or alignment file, and datasets of the wrong shape,
  // were internal errors (or NaN outputs) far from the read.
  TempDir dir;
  const std::string path = dir.file("values.h5");
  {
    Hdf5File file = Hdf5File::create(path, "attend.test", 1);
    Tensor scores({3, 3}, 0.5f);
    file.write_tensor("/finite", scores);
    scores[4] = std::numeric_limits<float>::quiet_NaN();
    file.write_tensor("/nan", scores);
    scores[4] = -std::numeric_limits<float>::infinity();
    file.write_tensor("/inf", scores);
    file.set_attr("/", "n_eff", std::numeric_limits<double>::quiet_NaN());
    file.set_attr("/", "floats", std::vector<float>{1.0f, std::numeric_limits<float>::infinity()});
  }
  const Hdf5File file = Hdf5File::open(path);
  CHECK_THROWS_WITH(file.read_tensor("/nan"),
                    Contains(path) && Contains("dataset '/nan': a non-finite value (nan) at flat index 4"));
  CHECK_THROWS_WITH(file.read_tensor("/inf"), Contains("a non-finite value (-inf)"));
  CHECK_THROWS_WITH(file.get_attr_double("/", "n_eff"), Contains("attribute 'n_eff' of '/': a non-finite value"));
  CHECK_THROWS_AS(file.get_attr_floats("/", "floats"), InputError);

  CHECK(file.read_tensor("/finite", {3, 3}).numel() == 9);
  CHECK(file.read_tensor("/finite", {-1, 3}).numel() == 9);
  CHECK_THROWS_WITH(file.read_tensor("/finite", {4, 4}),
                    Contains("dataset '/finite': expected shape [4, 4], found [3, 3]"));
  CHECK_THROWS_WITH(file.read_tensor("/finite", {-1}), Contains("expected shape [any], found [3, 3]"));
  CHECK(file.open_object_count() == 0);
}
