#pragma once
/// Pieces shared by the Evoformer modules (private to attend::bio): AlphaFold 2's parameter
/// initialisers, a layer-norm child module and the option check.

#include <cstdint>
#include <memory>
#include <string>

#include "attend/core/layers/linear.hpp"
#include "attend/core/module.hpp"
#include "attend/core/random.hpp"

namespace attend::bio::evoformer_detail {

/// The initialisers of the AF2 supplement (section 1.11.4).
enum class Init {
  kDefault,  ///< LeCun normal: N(0, 1 / fan_in)
  kRelu,     ///< He normal: N(0, 2 / fan_in), for layers followed by a ReLU
  kGlorot,   ///< Glorot uniform (attention queries, keys and values)
  kGating,   ///< weights 0, bias 1 (gates start almost open)
  kFinal,    ///< weights 0 (a residual update starts as zero)
};

/// A Linear [in, out] (with `bias`, zeros unless kGating) initialised by `init` from `rng`.
std::unique_ptr<Linear> make_linear(int64_t in, int64_t out, bool bias, Init init, Rng& rng);

/// Layer norm over the last axis with a learned scale (`weight`, ones) and shift (`bias`,
/// zeros), eps 1e-5. Only used as a child module; not registered.
class LayerNormModule : public Module {
 public:
  explicit LayerNormModule(int64_t c);
  std::string type_name() const override { return "layer_norm"; }
  Json config() const override { return Json{{"c", c_}}; }
  /// x [..., c] -> [..., c] through ops::layer_norm.
  Var forward(const Var& x) const;
  /// The scale [c] and shift [c], for fused ops that normalise inside (eps: kEps).
  const Var& weight() const { return weight_; }
  const Var& bias() const { return bias_; }
  static constexpr float kEps = 1e-5f;

 private:
  int64_t c_;
  Var weight_, bias_;
};

/// Throws attend::InputError naming `owner` unless value > 0.
void require_positive(const std::string& owner, const std::string& key, int64_t value);

}  // namespace attend::bio::evoformer_detail
