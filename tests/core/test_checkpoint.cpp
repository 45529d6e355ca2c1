#include <catch2/catch.hpp>

#include <limits>

#include "attend/core/checkpoint.hpp"
#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "grad_check.hpp"
#include "temp_dir.hpp"

using namespace attend;
using attend::testing::random_tensor;
using attend::testing::TempDir;
using Catch::Matchers::Contains;

namespace {

CheckpointData example_checkpoint() {
  CheckpointData data;
  data.model = Json::array({
      {{"name", "layers.0"}, {"type", "gat"}, {"config", {{"heads", 8}, {"dropout", 0.6}}}},
      {{"name", "head"}, {"type", "linear"}, {"config", {{"in", 64}, {"out", 7}}}},
  });
  // Not in name order, so the round trip shows that the order is kept.
  data.parameters = {
      {"layers.0.weight", random_tensor({16, 64}, 11)},
      {"layers.0.att_src", random_tensor({8, 8}, 12)},
      {"head.bias", random_tensor({7}, 13)},
      {"head.weight", random_tensor({64, 7}, 14)},
      {"layers.10.bias", random_tensor({300, 20}, 15)},  // large enough to be compressed
      {"scale", Tensor::scalar(0.125f)},
  };
  data.optimizer_type = "adam";
  data.optimizer_config = {{"lr", 0.005}, {"betas", {0.9, 0.999}}, {"weight_decay", 5e-4}};
  data.optimizer_state = {
      {"step", Tensor::scalar(120.0f)},
      {"m.layers.0.weight", random_tensor({16, 64}, 21)},
      {"v.layers.0.weight", random_tensor({16, 64}, 22, 0.0f, 1e-3f)},
  };
  data.epoch = 120;
  data.trainer_state = {{"best_val_acc", 0.8123456789012345}, {"patience_left", 37},
                        {"rng", {1234567890123ULL, 42}}};
  return data;
}

void check_same_tensors(const std::vector<std::pair<std::string, Tensor>>& a,
                        const std::vector<std::pair<std::string, Tensor>>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO(a[i].first);
    CHECK(a[i].first == b[i].first);
    CHECK(bitwise_equal(a[i].second, b[i].second));
  }
}

}  // namespace

TEST_CASE("checkpoint round-trips bit-exactly", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("model.ckpt.h5");
  const CheckpointData saved = example_checkpoint();
  save_checkpoint(path, saved);
  CHECK(dir.entries() == std::vector<std::string>{"model.ckpt.h5"});

  const CheckpointData loaded = load_checkpoint(path);
  CHECK(loaded.model == saved.model);
  check_same_tensors(loaded.parameters, saved.parameters);
  CHECK(loaded.optimizer_type == "adam");
  CHECK(loaded.optimizer_config == saved.optimizer_config);
  check_same_tensors(loaded.optimizer_state, saved.optimizer_state);
  CHECK(loaded.epoch == 120);
  CHECK(loaded.trainer_state == saved.trainer_state);
  CHECK(loaded.trainer_state["best_val_acc"].get<double>() == 0.8123456789012345);
}

TEST_CASE("checkpoint keeps dotted names as dataset names", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("c.h5");
  save_checkpoint(path, example_checkpoint());
  const Hdf5File file = Hdf5File::open(path);
  CHECK(file.schema() == "attend.checkpoint");
  CHECK(file.schema_version() == 1);
  CHECK(file.list("/parameters") ==
        std::vector<std::string>{"head.bias", "head.weight", "layers.0.att_src", "layers.0.weight",
                                 "layers.10.bias", "scale"});
  CHECK_FALSE(file.exists("/parameters/layers"));
  CHECK(file.dataset_shape("/parameters/layers.0.weight") == Shape{16, 64});
  CHECK(file.get_attr_string("/optimizer", "type") == "adam");
  CHECK(file.get_attr_int64("/trainer", "epoch") == 120);
}

TEST_CASE("checkpoint without optimizer or trainer state round-trips", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("bare.h5");
  CheckpointData data;
  data.model = Json::object();
  data.parameters = {{"w", Tensor({0, 3})}};
  save_checkpoint(path, data);
  const CheckpointData loaded = load_checkpoint(path);
  CHECK(loaded.model == Json::object());
  check_same_tensors(loaded.parameters, data.parameters);
  CHECK(loaded.optimizer_type.empty());
  CHECK(loaded.optimizer_config.is_null());
  CHECK(loaded.optimizer_state.empty());
  CHECK(loaded.epoch == 0);
  CHECK(loaded.trainer_state.is_null());
}

TEST_CASE("a failed checkpoint write leaves no file behind", "[core][io]") {
  TempDir dir;
  const std::string path = dir.file("model.h5");
  CheckpointData broken = example_checkpoint();
  // The duplicate fails while the temporary file is half written.
  broken.parameters.push_back({"head.bias", Tensor({7})});

  SECTION("no previous checkpoint") {
    CHECK_THROWS_WITH(save_checkpoint(path, broken),
                      Contains(path) && Contains("'/parameters/head.bias'") &&
                          Contains("already exists"));
    CHECK(dir.entries().empty());
  }
  SECTION("the previous checkpoint survives") {
    CheckpointData previous = example_checkpoint();
    previous.epoch = 7;
    save_checkpoint(path, previous);
    CHECK_THROWS_AS(save_checkpoint(path, broken), InputError);
    CHECK(dir.entries() == std::vector<std::string>{"model.h5"});
    CHECK(load_checkpoint(path).epoch == 7);
  }
  SECTION("a name that would become a group") {
    CheckpointData slashed = example_checkpoint();
    slashed.optimizer_state.push_back({"m/weight", Tensor({1})});
    CHECK_THROWS_AS(save_checkpoint(path, slashed), Error);
    CHECK(dir.entries().empty());
  }
}

TEST_CASE("load_checkpoint explains what is wrong with a file", "[core][io]") {
  TempDir dir;
  CHECK_THROWS_WITH(load_checkpoint(dir.file("absent.h5")),
                    Contains("absent.h5") && Contains("does not exist"));

  const std::string graph = dir.file("graph.h5");
  Hdf5File::create(graph, "attend.graph", 1).close();
  CHECK_THROWS_WITH(load_checkpoint(graph),
                    Contains(graph) && Contains("'attend.checkpoint'") && Contains("'attend.graph'"));

  const std::string future = dir.file("future.h5");
  Hdf5File::create(future, "attend.checkpoint", 2).close();
  CHECK_THROWS_WITH(load_checkpoint(future), Contains("version 2") && Contains("1 to 1"));

  const std::string incomplete = dir.file("incomplete.h5");
  {
    Hdf5File file = Hdf5File::create(incomplete, "attend.checkpoint", 1);
    file.write_string("/model", "[]");
  }
  CHECK_THROWS_WITH(load_checkpoint(incomplete),
                    Contains(incomplete) && Contains("'/parameters'") && Contains("does not exist"));

  const std::string bad_json = dir.file("bad_json.h5");
  {
    Hdf5File file = Hdf5File::create(bad_json, "attend.checkpoint", 1);
    file.write_string("/model", "{not json");
  }
  CHECK_THROWS_WITH(load_checkpoint(bad_json), Contains("'/model'") && Contains("not valid JSON"));

  // Found by scripts/fuzz_inputs.py: a damaged contact model with an infinite weight predicted
  // non-finite scores, which failed later as an internal error in the writers.
  const std::string damaged = dir.file("damaged.h5");
  CheckpointData data = example_checkpoint();
  data.parameters[2].second[3] = std::numeric_limits<float>::infinity();
  save_checkpoint(damaged, data);
  CHECK_THROWS_WITH(load_checkpoint(damaged),
                    Contains(damaged) && Contains("'/parameters/head.bias': a non-finite value"));
}
