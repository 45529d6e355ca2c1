#pragma once
/// Registration of attend::bio's built-in layers (explicit, no static initialisers).

namespace attend {
class Registry;
}

namespace attend::bio {

/// Add the Evoformer modules to `registry`: "msa_row_attention", "msa_column_attention",
/// "msa_transition", "outer_product_mean", "triangle_multiplication_outgoing",
/// "triangle_multiplication_incoming", "triangle_attention_starting_node",
/// "triangle_attention_ending_node", "pair_transition" and "evoformer_block".
void register_evoformer_layers(Registry& registry);

/// Every layer of attend::bio (for now the Evoformer modules).
void register_bio_layers(Registry& registry);

}  // namespace attend::bio
