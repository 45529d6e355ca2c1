// `attend node-classify train|evaluate|predict` run in process on a tiny dataset.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attend/core/builtin_layers.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "cli.hpp"
#include "run_attend.hpp"
#include "temp_dir.hpp"
#include "two_cluster_dataset.hpp"

using namespace attend;
namespace fs = std::filesystem;

namespace {
using attend::testing::write_two_cluster_dataset;
using Result = attend::testing::CliResult;

Result run(std::vector<std::string> args) { return attend::testing::run_attend(std::move(args)); }

}  // namespace

TEST_CASE("node-classify trains, saves, predicts and exports attention", "[apps]") {
  attend::testing::TempDir tmp;
  const std::string data = write_two_cluster_dataset(tmp.path() / "tiny").string();
  const std::string ckpt = (tmp.path() / "model.h5").string();
  const std::string json = (tmp.path() / "result.json").string();
  Result r = run({"node-classify", "train", "--data", data, "--model", "gat", "--epochs", "30", "--runs", "2",
                  "--quiet", "--save", ckpt, "--json", json});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("test accuracy") != std::string::npos);
  CHECK(r.out.find(" run   seed   val %   test %   epochs   best   seconds\n   1      0") != std::string::npos);
  CHECK(r.out.find("\n   2      1") != std::string::npos);
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j["runs"].size() == 2);
  CHECK(j["runs"][1]["seed"] == 1);
  CHECK(j["complete"] == true);
  CHECK(j["test_acc_mean"].get<double>() >= 0.0);

  const std::string preds = (tmp.path() / "pred.tsv").string();
  const std::string att = (tmp.path() / "att.h5").string();
  r = run({"node-classify", "predict", "--data", data, "--checkpoint", ckpt, "--out", preds, "--export-attention", att});
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::ifstream p(preds);
  std::string line;
  int lines = 0;
  REQUIRE(std::getline(p, line));
  CHECK(line == "node\tlabel\tprobability");
  while (std::getline(p, line)) ++lines;
  CHECK(lines == 12);
  CHECK(fs::exists(att));
}

TEST_CASE("node-classify evaluate scores the saved model on every split, as train and predict do", "[apps]") {
  attend::testing::TempDir tmp;
  const std::string data = write_two_cluster_dataset(tmp.path() / "tiny").string();
  const std::string ckpt = (tmp.path() / "model.h5").string(), train_json = (tmp.path() / "train.json").string();
  Result r = run({"node-classify", "train", "--data", data, "--model", "gat", "--epochs", "3", "--patience", "0",
                  "--quiet", "--save", ckpt, "--json", train_json});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string eval_json = (tmp.path() / "eval.json").string();
  r = run({"node-classify", "evaluate", "--data", data, "--checkpoint", ckpt, "--json", eval_json});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("split  nodes  accuracy %  loss") != std::string::npos);
  std::ifstream ti(train_json), ei(eval_json);
  const nlohmann::json trained = nlohmann::json::parse(ti), evaluated = nlohmann::json::parse(ei);
  const nlohmann::json& splits = evaluated["splits"];
  CHECK(splits["train"]["nodes"] == 4);
  CHECK(splits["val"]["nodes"] == 2);
  CHECK(splits["test"]["nodes"] == 6);
  // The model train kept is the one evaluate loads.
  CHECK(splits["val"]["accuracy"].get<double>() == Approx(trained["runs"][0]["val_acc"].get<double>()));
  CHECK(splits["test"]["accuracy"].get<double>() == Approx(trained["runs"][0]["test_acc"].get<double>()));

  // Accuracy and loss again from predict's output: the predicted class and its probability.
  const std::string preds = (tmp.path() / "pred.tsv").string();
  REQUIRE(run({"node-classify", "predict", "--data", data, "--checkpoint", ckpt, "--out", preds}).code == 0);
  std::vector<int> predicted;
  std::vector<double> probability;
  std::ifstream p(preds);
  std::string name;
  REQUIRE(std::getline(p, name));  // the header
  int label = 0;
  double prob = 0.0;
  while (p >> name >> label >> prob) {
    predicted.push_back(label);
    probability.push_back(prob);
  }
  REQUIRE(predicted.size() == 12);
  const std::map<std::string, std::vector<int>> rows = {{"train", {0, 1, 6, 7}}, {"val", {2, 8}}, {"test", {3, 4, 5, 9, 10, 11}}};
  for (const auto& [split, nodes] : rows) {
    int correct = 0;
    double loss = 0.0;
    for (int i : nodes) {
      const bool right = predicted[i] == (i < 6 ? 0 : 1);
      correct += right;
      // The probability of the true class: the printed one when right, at most 1 - it when wrong
      // (two classes: exactly 1 - it).
      loss -= std::log(right ? probability[i] : 1.0 - probability[i]);
    }
    INFO(split);
    CHECK(splits[split]["accuracy"].get<double>() == Approx(static_cast<double>(correct) / nodes.size()));
    CHECK(splits[split]["loss"].get<double>() == Approx(loss / nodes.size()).epsilon(1e-4));
  }
}

TEST_CASE("node-classify --validation-fraction scores held-out training nodes, not the test split", "[apps]") {
  attend::testing::TempDir tmp;
  const fs::path dir = write_two_cluster_dataset(tmp.path() / "noval");
  std::ofstream(dir / "split_val.txt", std::ios::trunc) << "";
  std::ofstream(dir / "split_train.txt", std::ios::trunc) << "0\n1\n2\n6\n7\n8\n";
  const std::string json = (tmp.path() / "result.json").string();
  Result r = run({"node-classify", "train", "--data", dir.string(), "--model", "gat", "--epochs", "5", "--patience", "0",
                  "--quiet", "--validation-fraction", "0.34", "--json", json});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("split 4/2/0") != std::string::npos);
  CHECK(r.out.find("validation accuracy") != std::string::npos);
  CHECK(r.out.find("test accuracy") == std::string::npos);
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j["val_acc_mean"].get<double>() >= 0.0);
  CHECK(j["test_acc_mean"].is_null());
  CHECK(j["validation_fraction"].get<double>() == 0.34);
  // A dataset with its own validation split keeps it: holding out another one is an error.
  r = run({"node-classify", "train", "--data", write_two_cluster_dataset(tmp.path() / "val").string(), "--epochs", "2", "--quiet",
           "--validation-fraction", "0.5"});
  CHECK(r.code != 0);
  CHECK(r.err.find("already has a validation split") != std::string::npos);
}

TEST_CASE("node-classify reports bad input in one line", "[apps]") {
  attend::testing::TempDir tmp;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"node-classify"}, {"node-classify", "train"},
        {"node-classify", "train", "--data", "/nonexistent/attend"},
        {"node-classify", "train", "--data", write_two_cluster_dataset(tmp.path() / "d").string(), "--model", "no-such-model"},
        {"node-classify", "predict", "--data", (tmp.path() / "d").string(), "--checkpoint", "/nonexistent.h5", "--out",
         (tmp.path() / "p.tsv").string()},
        {"node-classify", "evaluate", "--data", (tmp.path() / "d").string(), "--checkpoint", "/nonexistent.h5"},
        {"node-classify", "evaluate", "--checkpoint", "/nonexistent.h5"}}) {
    const Result r = run(args);
    INFO(args.back() << " -> " << r.err);
    CHECK(r.code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK_FALSE(fs::exists(tmp.path() / "p.tsv"));
}

TEST_CASE("node-classify names the model file in a bad layer or optimizer option", "[apps]") {
  // Found by scripts/fuzz_inputs.py: these messages named the layer but not the file.
  attend::testing::TempDir tmp;
  const std::string data = write_two_cluster_dataset(tmp.path() / "d").string();
  for (const std::string& model :
       {std::string(R"({"layers": [{"type": "gat", "dropout": 1.5}]})"),
        std::string(R"({"layers": [{"type": "gat", "out_channels": 1e308}]})"),
        std::string(R"({"layers": [{"type": "gat"}], "activation": "tanh"})"),
        std::string(R"({"layers": [{"type": "gat"}], "optimizer": {"type": "adam", "weightdecay": 1}})")}) {
    const std::string path = (tmp.path() / "model.json").string();
    { std::ofstream(path) << model; }
    const Result r = run({"node-classify", "train", "--data", data, "--model", path, "--epochs", "1", "--quiet",
                          "--save", (tmp.path() / "m.h5").string()});
    INFO(model << " -> " << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("error: " + path + ": "));
    CHECK_FALSE(fs::exists(tmp.path() / "m.h5"));
  }
}

TEST_CASE("node-classify trains on sampled mini-batches and scores in every inference mode", "[apps]") {
  attend::testing::TempDir tmp;
  const std::string data = write_two_cluster_dataset(tmp.path() / "tiny").string();
  const std::string ckpt = (tmp.path() / "model.h5").string(), json = (tmp.path() / "train.json").string();
  Result r = run({"node-classify", "train", "--data", data, "--model", "gat", "--epochs", "5", "--patience", "0",
                  "--fanouts", "3,-1", "--batch-size", "2", "--inference", "layerwise", "--inference-batch-size", "5",
                  "--quiet", "--save", ckpt, "--json", json});
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j["sampling"]["fanouts"] == nlohmann::json::array({3, -1}));
  CHECK(j["sampling"]["batch_size"] == 2);
  CHECK(j["inference"]["mode"] == "layerwise");
  CHECK(j["inference"]["batch_size"] == 5);
  // The sampled-trained model is an ordinary model: every mode scores it; layerwise and
  // sampled with fan-outs -1 agree with full.
  std::map<std::string, double> test_accuracy;
  for (const std::vector<std::string>& mode :
       {std::vector<std::string>{"--inference", "full"}, {"--inference", "layerwise", "--inference-batch-size", "4"},
        {"--inference", "sampled", "--fanouts", "-1,-1"}}) {
    const std::string eval_json = (tmp.path() / (mode[1] + ".json")).string();
    std::vector<std::string> args{"node-classify", "evaluate", "--data", data, "--checkpoint", ckpt, "--json", eval_json};
    args.insert(args.end(), mode.begin(), mode.end());
    r = run(args);
    INFO(mode[1] << ": " << r.err);
    REQUIRE(r.code == 0);
    std::ifstream e(eval_json);
    const nlohmann::json evaluated = nlohmann::json::parse(e);
    CHECK(evaluated["inference"]["mode"] == mode[1]);
    test_accuracy[mode[1]] = evaluated["splits"]["test"]["accuracy"].get<double>();
  }
  CHECK(test_accuracy["layerwise"] == test_accuracy["full"]);
  CHECK(test_accuracy["sampled"] == test_accuracy["full"]);
  CHECK(j["runs"][0]["test_acc"].get<double>() == test_accuracy["full"]);
  const std::string preds = (tmp.path() / "pred.tsv").string();
  r = run({"node-classify", "predict", "--data", data, "--checkpoint", ckpt, "--out", preds, "--inference", "sampled",
           "--fanouts", "1,1"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(fs::exists(preds));
}

TEST_CASE("node-classify takes one fan-out per message-passing layer and maps an old per-layer list, with a note",
          "[apps]") {
  attend::testing::TempDir tmp;
  const std::string data = write_two_cluster_dataset(tmp.path() / "tiny").string();
  const std::string model = (tmp.path() / "gcn-head.json").string(), ckpt = (tmp.path() / "model.h5").string();
  {  // one hop: a gcn, a batch_norm and a node_linear head
    std::ofstream(model) << R"({"layers": [{"type": "gcn", "out_channels": 4}, {"type": "batch_norm"},
        {"type": "node_linear"}], "activation": "relu", "jumping_knowledge": "none"})";
  }
  Result r = run({"node-classify", "train", "--data", data, "--model", model, "--epochs", "2", "--fanouts", "3",
                  "--batch-size", "4", "--quiet", "--save", ckpt});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto read = [](const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::map<std::string, std::string> predictions;
  for (const std::string fanouts : {"2", "2,4,4"}) {
    const std::string out = (tmp.path() / ("p" + fanouts + ".tsv")).string();
    r = run({"node-classify", "predict", "--data", data, "--checkpoint", ckpt, "--out", out, "--inference", "sampled",
             "--fanouts", fanouts});
    INFO(fanouts << ": " << r.err);
    REQUIRE(r.code == 0);
    CHECK((r.err.find("attend: note: --fanouts 2,4,4 counts every layer") != std::string::npos) == (fanouts != "2"));
    predictions[fanouts] = read(out);
  }
  CHECK(predictions["2"] == predictions["2,4,4"]);
  r = run({"node-classify", "evaluate", "--data", data, "--checkpoint", ckpt, "--inference", "sampled", "--fanouts", "2,2"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("2 fan-outs for a model of 1 message-passing layer (of 3 layers)"));
}

TEST_CASE("node-classify evaluate and predict with features out of core print and write what they do in memory",
          "[apps]") {
  attend::testing::TempDir tmp;
  const std::string folder = write_two_cluster_dataset(tmp.path() / "tiny").string();
  const std::string data = (tmp.path() / "dense.h5").string(), ckpt = (tmp.path() / "model.h5").string();
  REQUIRE(run({"convert", "--graph", folder, "--to", data, "--features-layout", "dense", "--chunk-rows", "5"}).code == 0);
  Result r = run({"node-classify", "train", "--data", data, "--model", "gat", "--epochs", "5", "--quiet", "--save", ckpt});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto read = [](const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  for (const std::vector<std::string>& mode :
       {std::vector<std::string>{"--inference", "layerwise", "--inference-batch-size", "5"},
        {"--inference", "sampled", "--fanouts", "2,1"}}) {
    std::map<bool, std::string> printed, json, predictions;
    for (const bool out_of_core : {false, true}) {
      const std::string tag = mode[1] + (out_of_core ? "-file" : "-memory");
      std::vector<std::string> evaluate{"node-classify", "evaluate", "--data", data, "--checkpoint", ckpt, "--json",
                                        (tmp.path() / (tag + ".json")).string()};
      std::vector<std::string> predict{"node-classify", "predict", "--data", data, "--checkpoint", ckpt, "--out",
                                       (tmp.path() / (tag + ".tsv")).string()};
      for (std::vector<std::string>* args : {&evaluate, &predict}) {
        args->insert(args->end(), mode.begin(), mode.end());
        if (out_of_core) args->insert(args->end(), {"--features-out-of-core", "--feature-cache-mb", "0.0001"});
      }
      r = run(evaluate);
      INFO(tag << ": " << r.err);
      REQUIRE(r.code == 0);
      printed[out_of_core] = r.out;
      REQUIRE(run(predict).code == 0);
      json[out_of_core] = read(tmp.path() / (tag + ".json"));
      predictions[out_of_core] = read(tmp.path() / (tag + ".tsv"));
    }
    CHECK(printed[true] == printed[false]);
    CHECK(json[true] == json[false]);
    CHECK(predictions[true] == predictions[false]);
    CHECK(predictions[true].find("node\tlabel\tprobability") == 0);
  }
  // Full inference reads the whole matrix; a folder has no rows to read: one line, exit 2, no file.
  const std::string out = (tmp.path() / "full.tsv").string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"node-classify", "predict", "--data", data, "--checkpoint", ckpt, "--out", out,
                                 "--features-out-of-core"},
        {"node-classify", "evaluate", "--data", data, "--checkpoint", ckpt, "--features-out-of-core", "--inference",
         "full", "--json", out},
        {"node-classify", "predict", "--data", folder, "--checkpoint", ckpt, "--out", out, "--features-out-of-core",
         "--inference", "layerwise"}}) {
    r = run(args);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find(args[3] == data ? "--inference layerwise or sampled" : "HDF5 graph file") != std::string::npos);
  }
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("node-classify refuses bad sampling options in one line", "[apps]") {
  attend::testing::TempDir tmp;
  const std::string data = write_two_cluster_dataset(tmp.path() / "d").string();
  const std::string ckpt = (tmp.path() / "model.h5").string();
  REQUIRE(run({"node-classify", "train", "--data", data, "--epochs", "1", "--quiet", "--save", ckpt}).code == 0);
  const std::string out = (tmp.path() / "p.tsv").string();
  const std::vector<std::string> train{"node-classify", "train", "--data", data, "--epochs", "1", "--quiet",
                                       "--json", (tmp.path() / "t.json").string()};
  const std::vector<std::string> evaluate{"node-classify", "evaluate", "--data", data, "--checkpoint", ckpt};
  const std::vector<std::string> predict{"node-classify", "predict", "--data", data, "--checkpoint", ckpt, "--out", out};
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
      {train, {"--fanouts", "0,5"}},
      {train, {"--fanouts", "5,-2"}},
      {train, {"--fanouts", "5,x"}},
      {train, {"--fanouts", "5"}},
      {train, {"--fanouts", "5,5", "--batch-size", "0"}},
      {train, {"--batch-size", "8"}},
      {train, {"--replace"}},
      {train, {"--inference", "exact"}},
      {train, {"--inference", "sampled"}},
      {train, {"--inference", "layerwise", "--inference-batch-size", "0"}},
      {evaluate, {"--inference", "sampled", "--fanouts", "5,5,5"}},
      {evaluate, {"--inference", "sampled"}},
      {predict, {"--inference", "layerwise", "--export-attention", (tmp.path() / "a.h5").string()}},
  };
  for (const auto& [command, extra] : cases) {
    std::vector<std::string> args = command;
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run(args);
    INFO(command[1] << " " << extra[0] << " " << extra.back() << " -> " << r.err);
    CHECK(r.code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK_FALSE(fs::exists(tmp.path() / "t.json"));
  CHECK_FALSE(fs::exists(out));
}
