#pragma once
/// The options every Evoformer attention module shares (MSA row and column attention, AF2
/// supplement Alg. 7 and 8; triangle attention, Alg. 13 and 14), declared once: the base class
/// of each module's options, whose list includes this one (OptionList::include).

#include <cstdint>

#include "attend/core/option_list.hpp"

namespace attend::bio {

/// The gated attention's width, heads, chunking and seed; `kHeads` is the module's default
/// head count (AF2: 8 on the MSA, 4 on the pair).
template <int64_t kHeads>
struct EvoformerAttentionOptions {
  int64_t c_hidden = 32;   ///< channels per head
  int64_t n_heads = kHeads;
  int64_t chunk_size = 0;  ///< query rows per dense-attention work item; 0 = automatic
  uint64_t seed = 0;       ///< seeds the initialisation

  static const OptionList<EvoformerAttentionOptions>& option_list() {
    using O = EvoformerAttentionOptions;
    static const OptionList<O> list =
        OptionList<O>("evoformer attention")
            .add("c_hidden", &O::c_hidden, "channels per head", OptionRange::positive())
            .add("n_heads", &O::n_heads, "attention heads", OptionRange::positive())
            .add("chunk_size", &O::chunk_size, "query rows per dense-attention work item; 0: automatic",
                 OptionRange::at_least(0.0))
            .add("seed", &O::seed, "seeds the initialisation");
    return list;
  }
};

}  // namespace attend::bio
