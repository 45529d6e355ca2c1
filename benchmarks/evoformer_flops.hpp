#pragma once
/// The useful floating-point operations of one Evoformer block (AF2 supplement, Alg. 6-15),
/// per module: every matrix product counted as 2 m n k, each attention as its two products
/// (q k^T and p v: 4 B H N^2 c), layer norms, gates and other elementwise work not counted.
/// The backward of a module counts twice its forward (the two products per forward product),
/// so forward + backward = 3 x forward; a recomputed forward (checkpointing) is not useful work.

#include <cstdint>
#include <string>
#include <vector>

namespace attend::bench {

/// The sizes the count depends on (the bench's options and EvoformerBlockOptions' defaults).
struct EvoformerSizes {
  int64_t n_seq = 128, n_res = 256, c_m = 64, c_z = 64;
  int64_t heads_msa = 8, heads_pair = 4;
  int64_t c_hidden_msa_att = 32, c_hidden_opm = 32, c_hidden_mul = 128, c_hidden_pair_att = 32;
  int64_t transition_n = 4;
};

/// One module's forward FLOPs, named as the block's child.
struct ModuleFlops {
  std::string name;
  double forward = 0;
};

namespace flops_detail {

inline double linear(int64_t rows, int64_t in, int64_t out) { return 2.0 * double(rows) * double(in) * double(out); }

// GatedAttention on x [B, N, c_in]: q, k, v, g projections, the attention, the output projection.
inline double gated_attention(int64_t batch, int64_t n, int64_t c_in, int64_t heads, int64_t c) {
  const int64_t rows = batch * n, hc = heads * c;
  const double attention = 4.0 * double(batch) * double(heads) * double(n) * double(n) * double(c);
  return 4 * linear(rows, c_in, hc) + attention + linear(rows, hc, c_in);
}

}  // namespace flops_detail

/// The nine modules in the block's order.
inline std::vector<ModuleFlops> evoformer_module_flops(const EvoformerSizes& s) {
  using namespace flops_detail;
  const int64_t msa_rows = s.n_seq * s.n_res, pair_rows = s.n_res * s.n_res;
  const double r = double(s.n_res), opm_c = double(s.c_hidden_opm);
  const double tri_mul = 4 * linear(pair_rows, s.c_z, s.c_hidden_mul) + linear(pair_rows, s.c_z, s.c_z) +
                         linear(pair_rows, s.c_hidden_mul, s.c_z) + 2.0 * double(s.c_hidden_mul) * r * r * r;
  const double tri_att = linear(pair_rows, s.c_z, s.heads_pair) +
                         gated_attention(s.n_res, s.n_res, s.c_z, s.heads_pair, s.c_hidden_pair_att);
  return {
      {"msa_row_attention",
       linear(pair_rows, s.c_z, s.heads_msa) + gated_attention(s.n_seq, s.n_res, s.c_m, s.heads_msa, s.c_hidden_msa_att)},
      {"msa_column_attention", gated_attention(s.n_res, s.n_seq, s.c_m, s.heads_msa, s.c_hidden_msa_att)},
      {"msa_transition", 2 * linear(msa_rows, s.c_m, s.transition_n * s.c_m)},
      {"outer_product_mean", 2 * linear(msa_rows, s.c_m, s.c_hidden_opm) + 2.0 * r * r * opm_c * opm_c * double(s.n_seq) +
                                 linear(pair_rows, s.c_hidden_opm * s.c_hidden_opm, s.c_z)},
      {"tri_mul_out", tri_mul},
      {"tri_mul_in", tri_mul},
      {"tri_att_start", tri_att},
      {"tri_att_end", tri_att},
      {"pair_transition", 2 * linear(pair_rows, s.c_z, s.transition_n * s.c_z)},
  };
}

/// The whole block's forward FLOPs.
inline double evoformer_block_flops(const EvoformerSizes& s) {
  double total = 0;
  for (const ModuleFlops& m : evoformer_module_flops(s)) total += m.forward;
  return total;
}

}  // namespace attend::bench
