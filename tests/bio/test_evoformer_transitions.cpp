// MSA transition (AF2 Alg. 9) and pair transition (Alg. 15) against a plain reference.
#include "attend/bio/evoformer/msa_transition.hpp"
#include "attend/bio/evoformer/pair_transition.hpp"
#include "evoformer_reference.hpp"

using namespace attend;
using namespace attend::evoref;

namespace {

ModuleCase msa_case() {
  ModuleCase mc;
  mc.make = [](int64_t) { return std::make_unique<bio::MsaTransition>(bio::MsaTransitionOptions{5, 3, 23}); };
  mc.run = [](const Module& m, const std::vector<Var>& x) {
    return static_cast<const bio::MsaTransition&>(m).forward(x[0]);
  };
  mc.reference = [](const std::map<std::string, Tensor>& p, const std::vector<Tensor>& x) {
    return transition(to_vec(x[0]), 5, Params{&p, ""});
  };
  mc.input_shapes = {{3, 4, 5}};
  return mc;
}

ModuleCase pair_case() {
  ModuleCase mc;
  mc.make = [](int64_t) { return std::make_unique<bio::PairTransition>(bio::PairTransitionOptions{4, 2, 24}); };
  mc.run = [](const Module& m, const std::vector<Var>& x) {
    return static_cast<const bio::PairTransition&>(m).forward(x[0]);
  };
  mc.reference = [](const std::map<std::string, Tensor>& p, const std::vector<Tensor>& x) {
    return transition(to_vec(x[0]), 4, Params{&p, ""});
  };
  mc.input_shapes = {{4, 4, 4}};
  return mc;
}

}  // namespace

TEST_CASE("msa_transition and pair_transition match AF2 Alg. 9 and 15", "[bio]") {
  check_forward(msa_case());
  check_forward(pair_case());
}

TEST_CASE("msa_transition and pair_transition gradients", "[bio][grad]") {
  check_module_grads(msa_case());
  check_module_grads(pair_case());
}

TEST_CASE("msa_transition and pair_transition registry round trip", "[bio]") {
  check_round_trip(msa_case());
  check_round_trip(pair_case());
}
