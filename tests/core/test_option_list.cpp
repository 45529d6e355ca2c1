// OptionList: one declaration per option gives the key check, from_json (defaults, ranges,
// names, null as the default), to_json and the documentation table.
#include <catch2/catch.hpp>

#include <limits>
#include <string>

#include "attend/core/error.hpp"
#include "attend/core/option_list.hpp"

using namespace attend;

namespace {

enum class Mode { kFast, kExact };

struct Toy {
  int64_t width = 0;
  int64_t heads = 2;
  float dropout = 0.25f;
  bool bias = true;
  uint64_t seed = 7;
  Mode mode = Mode::kExact;

  static const OptionList<Toy>& option_list() {
    static const OptionList<Toy> list = OptionList<Toy>("toy")
                                            .required("width", &Toy::width, "features", OptionRange::positive())
                                            .add("heads", &Toy::heads, "heads | groups", OptionRange::at_least(1))
                                            .add("dropout", &Toy::dropout, "dropout", OptionRange::fraction())
                                            .add("bias", &Toy::bias, "bias")
                                            .add("seed", &Toy::seed, "seed")
                                            .choice("mode", &Toy::mode, {{"fast", Mode::kFast}, {"exact", Mode::kExact}},
                                                    "how");
    return list;
  }
};

std::string error_of(const Json& config) {
  try {
    Toy::option_list().from_json(config);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("OptionList reads given options over the struct's defaults", "[core]") {
  const Toy t = Toy::option_list().from_json({{"width", 8}, {"dropout", 0.5}, {"mode", "fast"}});
  CHECK(t.width == 8);
  CHECK(t.heads == 2);
  CHECK(t.dropout == 0.5f);
  CHECK(t.bias);
  CHECK(t.seed == 7);
  CHECK(t.mode == Mode::kFast);
  // null is the default (PyTorch Geometric's None), for optional options only.
  const Toy n = Toy::option_list().from_json({{"width", 3}, {"heads", nullptr}, {"mode", nullptr}});
  CHECK(n.heads == 2);
  CHECK(n.mode == Mode::kExact);
  CHECK(error_of({{"width", nullptr}}).find("toy") != std::string::npos);
}

TEST_CASE("OptionList errors name the owner, the option and what was expected", "[core]") {
  CHECK(error_of(Json::object()) == "toy: missing required option 'width'");
  CHECK(error_of({{"width", 0}}) == "toy: option 'width' must be > 0, got '0'");
  CHECK(error_of({{"width", 1}, {"dropout", 1.0}}) == "toy: option 'dropout' must be [0, 1), got '1.0'");
  CHECK(error_of({{"width", 1}, {"heads", 0}}) == "toy: option 'heads' must be >= 1, got '0'");
  CHECK(error_of({{"width", 1}, {"mode", "slow"}}) == "toy: option 'mode' must be one of 'fast', 'exact', got 'slow'");
  CHECK(error_of({{"width", 1}, {"bias", 1}}).find("wrong type") != std::string::npos);
  CHECK(error_of({{"width", 1}, {"head", 1}}) ==
        "toy: unknown option 'head'; valid options: width, heads, dropout, bias, seed, mode");
  CHECK(error_of(Json::array()).find("must be a JSON object") != std::string::npos);
}

TEST_CASE("OptionList writes every option back, and reads its own output unchanged", "[core]") {
  Toy t = Toy::option_list().from_json({{"width", 5}, {"mode", "fast"}, {"dropout", 0.1}});
  const Json j = Toy::option_list().to_json(t);
  CHECK(j.size() == 6);
  CHECK(j.at("mode") == "fast");
  CHECK(j.at("seed") == 7);
  const Toy back = Toy::option_list().from_json(j);
  CHECK(Toy::option_list().to_json(back) == j);
  CHECK(back.dropout == t.dropout);
}

TEST_CASE("OptionList documents each option: type, default, allowed values, meaning", "[core]") {
  const std::string table = option_table_markdown(Toy::option_list().docs());
  CHECK(table.rfind("| option | type | default | allowed | meaning |\n|---|---|---|---|---|\n", 0) == 0);
  CHECK(table.find("| `width` | integer | required | > 0 | features |\n") != std::string::npos);
  CHECK(table.find("| `heads` | integer | 2 | >= 1 | heads \\| groups |\n") != std::string::npos);
  CHECK(table.find("| `dropout` | number | 0.25 | [0, 1) | dropout |\n") != std::string::npos);
  CHECK(table.find("| `bias` | bool | true | true, false | bias |\n") != std::string::npos);
  CHECK(table.find("| `mode` | string | \"exact\" | 'fast', 'exact' | how |\n") != std::string::npos);
}

TEST_CASE("OptionList checks options built in code against the same ranges", "[core]") {
  Toy t = Toy::option_list().from_json({{"width", 5}});
  CHECK_NOTHROW(Toy::option_list().check(t));
  t.dropout = 1.0f;
  CHECK_THROWS_WITH(Toy::option_list().check(t), "toy: option 'dropout' must be [0, 1), got 1");
  t.dropout = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(Toy::option_list().check(t), "toy: option 'dropout' must be [0, 1), got inf");
}

TEST_CASE("OptionRange: open and closed ends", "[core]") {
  CHECK_FALSE(OptionRange::any().contains(std::numeric_limits<double>::quiet_NaN()));
  CHECK_FALSE(OptionRange::at_least(0.0).contains(std::numeric_limits<double>::infinity()));
  CHECK(OptionRange::positive().contains(1e-9));
  CHECK_FALSE(OptionRange::positive().contains(0.0));
  CHECK(OptionRange::fraction().contains(0.0));
  CHECK_FALSE(OptionRange::fraction().contains(1.0));
  CHECK((OptionRange{0.0, 1000.0}).contains(1000.0));
  CHECK((OptionRange{0.0, 1000.0}).to_string() == "[0, 1000]");
  CHECK(OptionRange::any().to_string() == "any");
}

namespace {

struct Shared {
  int64_t heads = 1;
  float dropout = 0.0f;

  static const OptionList<Shared>& option_list() {
    static const OptionList<Shared> list = OptionList<Shared>("shared")
                                               .add("heads", &Shared::heads, "heads", OptionRange::positive())
                                               .add("dropout", &Shared::dropout, "dropout", OptionRange::fraction());
    return list;
  }
};

struct Layer : Shared {
  int64_t width = 4;
  Toy inner = [] {
    Toy t;
    t.heads = 5;  // defaults that differ from Toy{}'s
    t.seed = 9;
    return t;
  }();

  static const OptionList<Layer>& option_list() {
    static const OptionList<Layer> list = OptionList<Layer>("layer")
                                              .add("width", &Layer::width, "width", OptionRange::positive())
                                              .include(Shared::option_list())
                                              .include(&Layer::inner, Toy::option_list(), {"width", "heads", "dropout"});
    return list;
  }
};

}  // namespace

TEST_CASE("OptionList composes: a base class's list and a member's list, as keys of one object", "[core]") {
  const OptionList<Layer>& list = Layer::option_list();
  std::vector<std::string> keys;
  for (const OptionDoc& d : list.docs()) keys.push_back(d.key);
  CHECK(keys == std::vector<std::string>{"width", "heads", "dropout", "bias", "seed", "mode"});
  const Layer l = list.from_json({{"heads", 3}, {"dropout", 0.5}, {"mode", "fast"}, {"seed", 11}});
  CHECK(l.heads == 3);
  CHECK(l.dropout == 0.5f);
  CHECK(l.width == 4);
  CHECK(l.inner.mode == Mode::kFast);
  CHECK(l.inner.seed == 11);
  CHECK(l.inner.heads == 5);  // left out: the member keeps the outer struct's default
  CHECK(l.inner.dropout == 0.25f);
  const Json j = list.to_json(l);
  CHECK(j == Json({{"width", 4}, {"heads", 3}, {"dropout", 0.5}, {"bias", true}, {"seed", 11}, {"mode", "fast"}}));
  CHECK(list.to_json(list.from_json(j)) == j);
  // Errors name the including list; left-out keys are unknown.
  CHECK_THROWS_WITH(list.from_json({{"heads", 0}}), "layer: option 'heads' must be > 0, got '0'");
  CHECK_THROWS_WITH(list.from_json({{"mode", "slow"}}), "layer: option 'mode' must be one of 'fast', 'exact', got 'slow'");
  CHECK_THROWS_WITH(list.from_json({{"head", 1}}),
                    "layer: unknown option 'head'; valid options: width, heads, dropout, bias, seed, mode");
  Layer bad = l;
  bad.dropout = 2.0f;
  CHECK_THROWS_WITH(list.check(bad), "layer: option 'dropout' must be [0, 1), got 2");
  // The documented defaults are the including struct's.
  const std::string table = option_table_markdown(list.docs());
  CHECK(table.find("| `seed` | integer | 9 | any | seed |\n") != std::string::npos);
  CHECK(table.find("| `heads` | integer | 1 | > 0 | heads |\n") != std::string::npos);
  CHECK(list.from_json(Json::object()).inner.seed == 9);
}
