#pragma once
/// A contact model small enough for exact checks in tests: c_m = c_z = 4, two heads
/// everywhere, a three-sequence MSA (tests only).

#include <cstdint>

#include "attend/bio/contact_model.hpp"

namespace attend::testing {

inline bio::ContactModelOptions tiny_contact_model_options(int64_t blocks = 1, uint64_t seed = 11) {
  bio::ContactModelOptions o;
  o.c_m = 4;
  o.c_z = 4;
  o.blocks = blocks;
  o.max_relative_position = 3;
  o.msa_depth = 3;
  o.block.c_hidden_msa_att = 2;
  o.block.c_hidden_opm = 2;
  o.block.c_hidden_mul = 3;
  o.block.c_hidden_pair_att = 2;
  o.block.n_heads_msa = 2;
  o.block.n_heads_pair = 2;
  o.block.transition_n = 2;
  o.seed = seed;
  return o;
}

}  // namespace attend::testing
