// MSA row attention with pair bias (AF2 Alg. 7) against a plain reference.
#include "attend/bio/evoformer/msa_row_attention.hpp"
#include "evoformer_reference.hpp"

using namespace attend;
using namespace attend::evoref;

namespace {

constexpr int64_t kS = 3, kN = 5, kCm = 6, kCz = 5, kHeads = 2, kCh = 3;

ModuleCase row_case() {
  ModuleCase mc;
  mc.make = [](int64_t chunk) {
    return std::make_unique<bio::MsaRowAttention>(bio::MsaRowAttentionOptions{{kCh, kHeads, chunk, 21}, kCm, kCz});
  };
  mc.run = [](const Module& m, const std::vector<Var>& x) {
    return static_cast<const bio::MsaRowAttention&>(m).forward(x[0], x[1]);
  };
  mc.reference = [](const std::map<std::string, Tensor>& p, const std::vector<Tensor>& x) {
    const int64_t s = x[0].dim(0), n = x[0].dim(1);
    return msa_row_attention(to_vec(x[0]), to_vec(x[1]), s, n, kCm, kCz, kHeads, kCh, Params{&p, ""});
  };
  mc.input_shapes = {{kS, kN, kCm}, {kN, kN, kCz}};
  return mc;
}

}  // namespace

TEST_CASE("msa_row_attention matches AF2 Alg. 7", "[bio]") { check_forward(row_case()); }

TEST_CASE("msa_row_attention gradients: inputs and parameters", "[bio][grad]") { check_module_grads(row_case()); }

TEST_CASE("msa_row_attention: chunked == unchunked, registry round trip", "[bio]") {
  check_chunking(row_case(), {{2, 130, kCm}, {130, 130, kCz}});
  check_round_trip(row_case());
}
