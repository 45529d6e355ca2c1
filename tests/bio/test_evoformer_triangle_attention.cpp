// Triangle attention around the starting (AF2 Alg. 13) and ending node (Alg. 14); the
// reference writes Alg. 14 out directly, not as Alg. 13 on the transpose.
#include "attend/bio/evoformer/triangle_attention.hpp"
#include "evoformer_reference.hpp"

using namespace attend;
using namespace attend::evoref;

namespace {

constexpr int64_t kCz = 5, kHeads = 2, kCh = 3;

ModuleCase att_case(bool starting) {
  ModuleCase mc;
  mc.make = [starting](int64_t chunk) {
    return std::make_unique<bio::TriangleAttention>(bio::TriangleAttentionOptions{{kCh, kHeads, chunk, 27}, kCz},
                                                    starting);
  };
  mc.run = [](const Module& m, const std::vector<Var>& x) {
    return static_cast<const bio::TriangleAttention&>(m).forward(x[0]);
  };
  mc.reference = [starting](const std::map<std::string, Tensor>& p, const std::vector<Tensor>& x) {
    return triangle_attention(to_vec(x[0]), x[0].dim(0), kCz, kHeads, kCh, starting, Params{&p, ""});
  };
  mc.input_shapes = {{5, 5, kCz}};
  return mc;
}

}  // namespace

TEST_CASE("triangle_attention matches AF2 Alg. 13 and 14", "[bio]") {
  check_forward(att_case(true));
  check_forward(att_case(false));
}

TEST_CASE("triangle_attention gradients: inputs and parameters", "[bio][grad]") {
  check_module_grads(att_case(true));
  check_module_grads(att_case(false));
}

TEST_CASE("triangle_attention: chunked == unchunked, registry round trip", "[bio]") {
  check_chunking(att_case(true), {{70, 70, kCz}});
  check_chunking(att_case(false), {{70, 70, kCz}});
  check_round_trip(att_case(true));
  check_round_trip(att_case(false));
}
