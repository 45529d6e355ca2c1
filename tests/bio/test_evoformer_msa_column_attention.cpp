// MSA column attention (AF2 Alg. 8) against a plain reference.
#include "attend/bio/evoformer/msa_column_attention.hpp"
#include "evoformer_reference.hpp"

using namespace attend;
using namespace attend::evoref;

namespace {

constexpr int64_t kS = 4, kN = 3, kCm = 6, kHeads = 2, kCh = 3;

ModuleCase column_case() {
  ModuleCase mc;
  mc.make = [](int64_t chunk) {
    return std::make_unique<bio::MsaColumnAttention>(bio::MsaColumnAttentionOptions{{kCh, kHeads, chunk, 22}, kCm});
  };
  mc.run = [](const Module& m, const std::vector<Var>& x) {
    return static_cast<const bio::MsaColumnAttention&>(m).forward(x[0]);
  };
  mc.reference = [](const std::map<std::string, Tensor>& p, const std::vector<Tensor>& x) {
    return msa_column_attention(to_vec(x[0]), x[0].dim(0), x[0].dim(1), kCm, kHeads, kCh, Params{&p, ""});
  };
  mc.input_shapes = {{kS, kN, kCm}};
  return mc;
}

}  // namespace

TEST_CASE("msa_column_attention matches AF2 Alg. 8", "[bio]") { check_forward(column_case()); }

TEST_CASE("msa_column_attention gradients: inputs and parameters", "[bio][grad]") {
  check_module_grads(column_case());
}

TEST_CASE("msa_column_attention: chunked == unchunked, registry round trip", "[bio]") {
  check_chunking(column_case(), {{130, 2, kCm}});
  check_round_trip(column_case());
}
