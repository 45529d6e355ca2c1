#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "attend/bio/builtin_layers.hpp"
#include "attend/bio/evoformer/evoformer_block.hpp"
#include "attend/bio/evoformer/msa_row_attention.hpp"
#include "attend/bio/evoformer/triangle_attention.hpp"
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

TEST_CASE("the Evoformer attentions share c_hidden, n_heads, chunk_size and seed, each with its default heads", "[bio]") {
  Registry registry;
  bio::register_evoformer_layers(registry);
  const auto docs_of = [&](const std::string& name) {
    for (const Registry::Entry& e : registry.list()) {
      if (e.name == name) return e.options;
    }
    FAIL("no layer " << name);
    return std::vector<OptionDoc>{};
  };
  const auto tail = [](std::vector<OptionDoc> docs, std::size_t widths) {  // the rows after the widths
    docs.erase(docs.begin(), docs.begin() + static_cast<std::ptrdiff_t>(widths));
    std::vector<std::string> rows;
    for (const OptionDoc& d : docs) rows.push_back(d.key + " " + d.type + " " + d.default_value + " " + d.allowed + " " + d.meaning);
    return rows;
  };
  const std::vector<std::string> row = tail(docs_of("msa_row_attention"), 2);
  CHECK(row == std::vector<std::string>{"c_hidden integer 32 > 0 channels per head", "n_heads integer 8 > 0 attention heads",
                                        "chunk_size integer 0 >= 0 query rows per dense-attention work item; 0: automatic",
                                        "seed integer 0 any seeds the initialisation"});
  CHECK(tail(docs_of("msa_column_attention"), 1) == row);
  std::vector<std::string> pair = row;
  pair[1] = "n_heads integer 4 > 0 attention heads";  // the pair's default
  CHECK(tail(docs_of("triangle_attention_starting_node"), 1) == pair);
  CHECK(tail(docs_of("triangle_attention_ending_node"), 1) == pair);
  CHECK(bio::TriangleAttentionOptions::from_json({{"c_z", 8}}, false).n_heads == 4);
  CHECK(bio::MsaRowAttentionOptions::from_json({{"c_m", 8}, {"c_z", 4}, {"n_heads", 2}}).n_heads == 2);
}
