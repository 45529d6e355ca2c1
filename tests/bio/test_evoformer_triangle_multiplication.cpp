// Triangle multiplicative updates, outgoing (AF2 Alg. 11) and incoming (Alg. 12).
#include "attend/bio/evoformer/triangle_multiplication.hpp"
#include "evoformer_reference.hpp"

using namespace attend;
using namespace attend::evoref;

namespace {

constexpr int64_t kCz = 4, kC = 3;

ModuleCase mul_case(bool outgoing) {
  ModuleCase mc;
  mc.make = [outgoing](int64_t) {
    return std::make_unique<bio::TriangleMultiplication>(bio::TriangleMultiplicationOptions{kCz, kC, 26}, outgoing);
  };
  mc.run = [](const Module& m, const std::vector<Var>& x) {
    return static_cast<const bio::TriangleMultiplication&>(m).forward(x[0]);
  };
  mc.reference = [outgoing](const std::map<std::string, Tensor>& p, const std::vector<Tensor>& x) {
    return triangle_multiplication(to_vec(x[0]), x[0].dim(0), kCz, kC, outgoing, Params{&p, ""});
  };
  mc.input_shapes = {{5, 5, kCz}};
  return mc;
}

}  // namespace

TEST_CASE("triangle_multiplication matches AF2 Alg. 11 and 12", "[bio]") {
  check_forward(mul_case(true));
  check_forward(mul_case(false));
}

TEST_CASE("triangle_multiplication gradients: inputs and parameters", "[bio][grad]") {
  check_module_grads(mul_case(true));
  check_module_grads(mul_case(false));
}

TEST_CASE("triangle_multiplication registry round trip", "[bio]") {
  check_round_trip(mul_case(true));
  check_round_trip(mul_case(false));
}
