#pragma once
/// MSA transition (AF2 supplement, Alg. 9): a two-layer ReLU feed-forward on each
/// MSA entry, registered as "msa_transition".

#include <cstdint>

#include "attend/core/layers/linear.hpp"
#include "attend/core/module.hpp"
#include "attend/core/option_list.hpp"

namespace attend {
class Registry;
}

namespace attend::bio {

/// The JSON config, same keys.
struct MsaTransitionOptions {
  int64_t c_m = 0;    ///< channels (required)
  int64_t n = 4;      ///< hidden width factor: the hidden layer has n * c_m channels
  uint64_t seed = 0;  ///< seeds the initialisation

  /// The options declared once: keys, ranges, defaults and meanings (`attend layers --options msa_transition`).
  static const OptionList<MsaTransitionOptions>& option_list();
  static MsaTransitionOptions from_json(const Json& config) { return option_list().from_json(config); }
  Json to_json() const { return option_list().to_json(*this); }
};

/// Parameters: layer_norm (c_m), linear_1 [c_m, n * c_m] (AF2 "relu" init: He normal),
/// linear_2 [n * c_m, c_m] (AF2 "final" init: zeros), both with bias.
class MsaTransition : public Module {
 public:
  explicit MsaTransition(MsaTransitionOptions options);
  std::string type_name() const override { return "msa_transition"; }
  Json config() const override { return options_.to_json(); }

  /// x [n_seq, n_res, c_m] -> the update [n_seq, n_res, c_m]: linear_2(relu(linear_1(layer_norm(x)))), row-parallel as its ops.
  Var forward(const Var& x) const;

  static void register_into(Registry& registry);

 private:
  MsaTransitionOptions options_;
  const Module* layer_norm_;
  const Linear* linear_1_;
  const Linear* linear_2_;
};

}  // namespace attend::bio
