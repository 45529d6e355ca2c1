#pragma once
/// Triangular multiplicative update using "outgoing" (AF2 supplement, Alg. 11) and
/// "incoming" (Alg. 12) edges, registered as "triangle_multiplication_outgoing" and
/// "triangle_multiplication_incoming".

#include <cstdint>

#include "attend/core/layers/linear.hpp"
#include "attend/core/module.hpp"
#include "attend/core/option_list.hpp"

namespace attend {
class Registry;
}

namespace attend::bio {

/// The JSON config, same keys (the direction is the registry name).
struct TriangleMultiplicationOptions {
  int64_t c_z = 0;         ///< pair channels (required)
  int64_t c_hidden = 128;  ///< channels of the a and b edges
  uint64_t seed = 0;       ///< seeds the initialisation

  /// The options declared once: keys, ranges, defaults and meanings (`attend layers --options
  /// triangle_multiplication_outgoing`); the two registered names differ only in the name errors give.
  static const OptionList<TriangleMultiplicationOptions>& option_list(bool outgoing);
  static TriangleMultiplicationOptions from_json(const Json& config, bool outgoing) { return option_list(outgoing).from_json(config); }
  Json to_json() const { return option_list(true).to_json(*this); }
};

/// Parameters: layer_norm_in (c_z), linear_a_p, linear_b_p [c_z, c_hidden] (AF2 default
/// init), linear_a_g, linear_b_g [c_z, c_hidden] and linear_g [c_z, c_z] (gating init),
/// layer_norm_out (c_hidden), linear_z [c_hidden, c_z] (final init: zeros); all with bias.
class TriangleMultiplication : public Module {
 public:
  /// `outgoing` selects Alg. 11 (true) or Alg. 12 (false).
  TriangleMultiplication(TriangleMultiplicationOptions options, bool outgoing);
  std::string type_name() const override;
  Json config() const override { return options_.to_json(); }

  /// z [n_res, n_res, c_z] -> the pair update [n_res, n_res, c_z]. Outgoing:
  /// x_ij = sum_k a_ik * b_jk; incoming: x_ij = sum_k a_ki * b_kj, per channel; then
  /// g_ij * linear_z(layer_norm_out(x_ij)). The gated edges a and b come channel-first from
  /// gated_projection (projections, gate and layout in one op, the projections never stored);
  /// the sum over k is one GEMM per channel (ops::batched_matmul), parallel over channels;
  /// its channel-first result goes through gated_output_projection (layer norm, linear_z and
  /// the gate in one op over blocks of positions, reading x channel-first; nothing between
  /// them is stored).
  Var forward(const Var& z) const;

  /// Register both directions.
  static void register_into(Registry& registry);

 private:
  TriangleMultiplicationOptions options_;
  bool outgoing_;
  const Module* layer_norm_in_;
  const Module* layer_norm_out_;
  const Linear* linear_a_p_;
  const Linear* linear_a_g_;
  const Linear* linear_b_p_;
  const Linear* linear_b_g_;
  const Linear* linear_g_;
  const Linear* linear_z_;
};

}  // namespace attend::bio
