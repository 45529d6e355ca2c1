#include "attend/bio/builtin_layers.hpp"

#include "attend/bio/contact_model.hpp"
#include "attend/bio/evoformer/evoformer_block.hpp"

namespace attend::bio {

void register_evoformer_layers(Registry& registry) {
  MsaRowAttention::register_into(registry);
  MsaColumnAttention::register_into(registry);
  MsaTransition::register_into(registry);
  OuterProductMean::register_into(registry);
  TriangleMultiplication::register_into(registry);
  TriangleAttention::register_into(registry);
  PairTransition::register_into(registry);
  EvoformerBlock::register_into(registry);
}

void register_bio_layers(Registry& registry) {
  register_evoformer_layers(registry);
  ContactModel::register_into(registry);
}

}  // namespace attend::bio
