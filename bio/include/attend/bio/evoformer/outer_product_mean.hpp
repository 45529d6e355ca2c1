#pragma once
/// Outer product mean (AF2 supplement, Alg. 10): the MSA -> pair update, registered as
/// "outer_product_mean".

#include <cstdint>
#include <memory>

#include "attend/core/layers/linear.hpp"
#include "attend/core/module.hpp"
#include "attend/core/option_list.hpp"

namespace attend {
class Registry;
}

namespace attend::bio {

/// The JSON config, same keys.
struct OuterProductMeanOptions {
  int64_t c_m = 0;        ///< MSA channels (required)
  int64_t c_z = 0;        ///< pair channels (required)
  int64_t c_hidden = 32;  ///< channels of the two projections (the outer product has c_hidden^2)
  uint64_t seed = 0;      ///< seeds the initialisation

  /// The options declared once: keys, ranges, defaults and meanings (`attend layers --options outer_product_mean`).
  static const OptionList<OuterProductMeanOptions>& option_list();
  static OuterProductMeanOptions from_json(const Json& config) { return option_list().from_json(config); }
  Json to_json() const { return option_list().to_json(*this); }
};

/// z[i, j] = sum_{c1, c2} (1/S sum_s a[s, i, c1] b[s, j, c2]) w[c1 * C + c2, :] + bias for
/// a, b [S, N, C], w [C * C, c_z] and bias [c_z] -> [N, N, c_z]: the mean outer product
/// flattened and projected, fused so the [N, N, C * C] outer products are never stored (and
/// the bias added as each chunk is written, its gradient summed per block of rows i).
/// Parallel strategy: fixed blocks of 8 rows i, each in chunks of 16 columns j: one product
/// a^T b for the chunk's 8 x 16 (i, j) pairs ([8 C1, 16 C2]), reordered to [(i, j), C1 * C2]
/// and projected while both stay in the core's L2 (512 KiB each at C = 32). Block and chunk
/// edges depend on the sizes only, so no result depends on the thread count. The backward runs
/// over fixed blocks of rows i (32, or N / 16 when more) and forms each product once: per row
/// dQ_i = w dy_i^T [C1 * C2, N] (dO_i transposed, which is already the [C1, C2 * N] operand
/// that da and db need, against b with its last two axes swapped once, [S, C2 * N]), then per
/// 8 rows da (b dQ^T, written in place) and db (a_i dQ, into the block's partial, in the
/// swapped layout); dw from the outer products, recomputed chunk by chunk as in the forward,
/// O^T dy into the block's partial; the partials of dw are added in block order, those of db
/// per row s in block order and swapped back. With forward FLOPs F (2/3 outer products, 1/3
/// projection) the backward does 8/3 F (dO once, O once) instead of 3 F. Scratch: about
/// 8 N C^2 + 256 C^2 floats per thread, S N C for the swapped b and, per block, S N C + C^2 c_z
/// floats of partials (at most 16 blocks).
Var outer_product_mean_projection(const Var& a, const Var& b, const Var& w, const Var& bias);

/// Parameters: layer_norm (c_m), linear_a, linear_b [c_m, c_hidden] (AF2 default init),
/// linear_out [c_hidden^2, c_z] with bias (AF2 "final" init: zeros).
class OuterProductMean : public Module {
 public:
  explicit OuterProductMean(OuterProductMeanOptions options);
  std::string type_name() const override { return "outer_product_mean"; }
  Json config() const override { return options_.to_json(); }

  /// m [n_seq, n_res, c_m] -> the pair update [n_res, n_res, c_z] (AF2 Alg. 10).
  Var forward(const Var& m) const;

  static void register_into(Registry& registry);

 private:
  OuterProductMeanOptions options_;
  const Module* layer_norm_;
  const Linear* linear_a_;
  const Linear* linear_b_;
  const Linear* linear_out_;
};

}  // namespace attend::bio
