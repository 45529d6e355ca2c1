#include <catch2/catch.hpp>

#include "attend/core/options_json.hpp"

using namespace attend;

TEST_CASE("option keys are checked and typed values read", "[core]") {
  const Json config = {{"heads", 4}, {"dropout", 0.5}};
  CHECK_NOTHROW(check_option_keys(config, {"heads", "dropout"}, "gat"));
  CHECK_THROWS_WITH(check_option_keys(config, {"heads"}, "gat"), Catch::Matchers::Contains("unknown option 'dropout'"));
  CHECK(option_or<int64_t>(config, "heads", 1, "gat") == 4);
  CHECK(option_or<int64_t>(config, "missing", 7, "gat") == 7);
  CHECK_THROWS_WITH(option_or<int64_t>(config, "dropout", 1, "gat"), Catch::Matchers::Contains("whole number"));
  CHECK_THROWS_WITH(option_required<int64_t>(config, "in_channels", "gat"), Catch::Matchers::Contains("missing"));
  // Found by scripts/fuzz_inputs.py: heads * out_channels overflowed int64 in the layers.
  const Json big = {{"a", 9223372036854775807LL}, {"b", -2147483648LL}, {"c", 2147483647}, {"d", 18446744073709551615ULL}};
  CHECK_THROWS_WITH(option_or<int64_t>(big, "a", 1, "gat"), Catch::Matchers::Contains("gat: option 'a' must be within"));
  CHECK_THROWS_AS(option_or<int64_t>(big, "b", 1, "gat"), InputError);
  CHECK(option_or<int64_t>(big, "c", 1, "gat") == 2147483647);
  CHECK_THROWS_AS(option_or<int>(big, "d", 1, "gat"), InputError);
  CHECK(option_or<uint64_t>(big, "d", 1, "gat") == 18446744073709551615ULL);  // seeds: unsigned, unbounded
}

TEST_CASE("floats held as float print as their shortest decimal", "[core]") {
  const Json config = {{"negative_slope", 0.2f},
                       {"lr", 0.005},  // a double: left alone
                       {"nested", {{"p", 0.6f}, {"list", {0.1f, 3, "text"}}}},
                       {"half", 0.5f}};
  CHECK(Json(0.2f).dump() == "0.20000000298023224");  // what nlohmann writes for a float
  const Json tidy = with_short_floats(config);
  CHECK(tidy["negative_slope"].dump() == "0.2");
  CHECK(tidy["lr"] == config["lr"]);
  CHECK(tidy["nested"]["p"].dump() == "0.6");
  CHECK(tidy["nested"]["list"].dump() == "[0.1,3,\"text\"]");
  CHECK(tidy["half"].dump() == "0.5");
  // Reading back gives the same float bits.
  CHECK(tidy["negative_slope"].get<float>() == 0.2f);
  CHECK(tidy["nested"]["p"].get<float>() == 0.6f);
}
