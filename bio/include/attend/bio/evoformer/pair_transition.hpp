#pragma once
/// Pair transition (AF2 supplement, Alg. 15): a two-layer ReLU feed-forward on each
/// pair entry, registered as "pair_transition".

#include <cstdint>

#include "attend/core/layers/linear.hpp"
#include "attend/core/module.hpp"
#include "attend/core/option_list.hpp"

namespace attend {
class Registry;
}

namespace attend::bio {

/// The JSON config, same keys.
struct PairTransitionOptions {
  int64_t c_z = 0;    ///< channels (required)
  int64_t n = 4;      ///< hidden width factor: the hidden layer has n * c_z channels
  uint64_t seed = 0;  ///< seeds the initialisation

  /// The options declared once: keys, ranges, defaults and meanings (`attend layers --options pair_transition`).
  static const OptionList<PairTransitionOptions>& option_list();
  static PairTransitionOptions from_json(const Json& config) { return option_list().from_json(config); }
  Json to_json() const { return option_list().to_json(*this); }
};

/// Parameters: layer_norm (c_z), linear_1 [c_z, n * c_z] (AF2 "relu" init: He normal),
/// linear_2 [n * c_z, c_z] (AF2 "final" init: zeros), both with bias.
class PairTransition : public Module {
 public:
  explicit PairTransition(PairTransitionOptions options);
  std::string type_name() const override { return "pair_transition"; }
  Json config() const override { return options_.to_json(); }

  /// x [n_res, n_res, c_z] -> the update [n_res, n_res, c_z]: linear_2(relu(linear_1(layer_norm(x)))), row-parallel as its ops.
  Var forward(const Var& x) const;

  static void register_into(Registry& registry);

 private:
  PairTransitionOptions options_;
  const Module* layer_norm_;
  const Linear* linear_1_;
  const Linear* linear_2_;
};

}  // namespace attend::bio
