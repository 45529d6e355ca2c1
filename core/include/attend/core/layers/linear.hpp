#pragma once
/// Linear: the affine layer y = x W + b, registered as "linear".

#include <cstdint>
#include <memory>

#include "attend/core/module.hpp"

namespace attend {

class Registry;

/// Options of a Linear layer (the JSON config, same keys).
struct LinearOptions {
  int64_t in = 0;     ///< input features (required, > 0)
  int64_t out = 0;    ///< output features (required, > 0)
  bool bias = true;   ///< add a learned bias
  uint64_t seed = 0;  ///< seeds the Glorot-uniform initialisation of the weight

  /// Read from JSON; a missing, mistyped or unknown option throws attend::InputError.
  static LinearOptions from_json(const Json& config);
  Json to_json() const;
};

/// Parameters: `weight` [in, out] (Glorot uniform), `bias` [out] (zeros) when enabled.
class Linear : public Module {
 public:
  /// Throws attend::Error unless in and out are positive.
  explicit Linear(LinearOptions options);

  std::string type_name() const override { return "linear"; }
  Json config() const override { return options_.to_json(); }

  /// x [..., in] -> [..., out] through ops::linear (parallel over row blocks of x).
  Var forward(const Var& x) const;

  const Var& weight() const { return weight_; }
  /// Undefined when the layer has no bias.
  const Var& bias() const { return bias_; }

  /// Register "linear" into `registry`.
  static void register_into(Registry& registry);

 private:
  LinearOptions options_;
  Var weight_;
  Var bias_;
};

}  // namespace attend
