#include <catch2/catch.hpp>

#include <string>

#include "attend/bio/builtin_layers.hpp"
#include "attend/bio/evoformer/evoformer_block.hpp"
#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"

using namespace attend;

TEST_CASE("every Evoformer layer documents its options, and its option list reads what it writes", "[bio]") {
  Registry registry;
  bio::register_evoformer_layers(registry);
  REQUIRE(registry.list().size() >= 10);
  for (const Registry::Entry& e : registry.list()) {
    INFO(e.name);
    CHECK_FALSE(e.options.empty());
    CHECK(e.options.front().default_value == "required");  // c_m or c_z
  }
  const bio::EvoformerBlockOptions o = bio::EvoformerBlockOptions::from_json({{"c_m", 16}, {"c_z", 8}, {"msa_dropout", 0.1}});
  CHECK(bio::EvoformerBlockOptions::from_json(o.to_json()).to_json() == o.to_json());
}

TEST_CASE("Evoformer options out of range name the layer, the option and the range", "[bio]") {
  auto error_of = [](const std::string& layer, const Json& config) {
    Registry registry;
    bio::register_evoformer_layers(registry);
    try {
      registry.create(layer, config);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("msa_row_attention", {{"c_m", 8}, {"c_z", 0}}) == "msa_row_attention: option 'c_z' must be > 0, got '0'");
  CHECK(error_of("triangle_attention_ending_node", {{"c_z", 8}, {"chunk_size", -1}}) ==
        "triangle_attention_ending_node: option 'chunk_size' must be >= 0, got '-1'");
  CHECK(error_of("triangle_multiplication_outgoing", {{"c_z", 8}, {"c_hiden", 4}}).find("unknown option 'c_hiden'") !=
        std::string::npos);
  CHECK(error_of("evoformer_block", {{"c_m", 8}, {"c_z", 8}, {"pair_dropout", 1.0}}) ==
        "evoformer_block: option 'pair_dropout' must be [0, 1), got '1.0'");
}
