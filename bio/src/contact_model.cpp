#include "attend/bio/contact_model.hpp"

#include <algorithm>
#include <cmath>

#include "attend/core/checkpoint.hpp"
#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/memory_budget.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/core/registry.hpp"
#include "attend/core/training_checkpoint.hpp"
#include "evoformer/evoformer_common.hpp"

namespace attend::bio {

using evoformer_detail::Init;
using evoformer_detail::LayerNormModule;
using evoformer_detail::make_linear;

namespace {
// Holds the blocks so their parameters are named evoformer.<b>.<name>.
class BlockList : public Module {
 public:
  std::string type_name() const override { return "evoformer_stack"; }
  Json config() const override { return Json::array(); }
  const EvoformerBlock* add(std::unique_ptr<EvoformerBlock> block, int64_t index) {
    return &add_child(std::to_string(index), std::move(block));
  }
};
}  // namespace

const OptionList<ContactModelOptions>& ContactModelOptions::option_list() {
  using O = ContactModelOptions;
  const OptionRange positive = OptionRange::positive();
  static const OptionList<O> list =
      OptionList<O>("contact_model")
          .add("c_m", &O::c_m, "MSA channels", positive)
          .add("c_z", &O::c_z, "pair channels", positive)
          .add("blocks", &O::blocks, "Evoformer blocks", OptionRange::at_least(0))
          .add("max_relative_position", &O::max_relative_position, "relative positions are clipped to [-r, r]",
               positive)
          .add("msa_depth", &O::msa_depth, "sequences (query included) read at prediction time", positive)
          .add("neighbour_scores", &O::neighbour_scores,
               "the pair input and the skip path read the potts score's neighbour means too")
          // Every block's options but the widths and seed, which the model gives each block.
          .include(&O::block, EvoformerBlockOptions::option_list(), {"c_m", "c_z", "seed"})
          .add("seed", &O::seed, "seeds the initialisation");
  return list;
}

ContactModel::ContactModel(ContactModelOptions o) : options_(o) {
  Rng rng(o.seed);
  msa_embed_ = &add_child("msa_embed", make_linear(kMsaFeatures, o.c_m, true, Init::kDefault, rng));
  target_msa_ = &add_child("target_msa", make_linear(kTargetFeatures, o.c_m, true, Init::kDefault, rng));
  target_left_ = &add_child("target_left", make_linear(kTargetFeatures, o.c_z, true, Init::kDefault, rng));
  target_right_ = &add_child("target_right", make_linear(kTargetFeatures, o.c_z, true, Init::kDefault, rng));
  relpos_ = add_parameter("relpos", init::normal({2 * o.max_relative_position + 1, o.c_z}, 1.0 / std::sqrt(double(o.c_z)),
                                                 rng));  // [2 r + 1, c_z]
  const int64_t F = pair_feature_count(o.neighbour_scores);
  pair_embed_ = &add_child("pair_embed", make_linear(F, o.c_z, true, Init::kDefault, rng));
  auto& stack = add_child("evoformer", std::make_unique<BlockList>());
  for (int64_t b = 0; b < o.blocks; ++b) {
    // The first block's parameters times the count, before building the others: 2e9 blocks
    // would otherwise be built one by one until the memory ran out.
    if (b == 1) {
      require_memory(4.0 * static_cast<double>(blocks_[0]->parameter_count()) * static_cast<double>(o.blocks),
                     std::to_string(o.blocks) + " evoformer blocks");
    }
    EvoformerBlockOptions bo = o.block;
    bo.c_m = o.c_m;
    bo.c_z = o.c_z;
    bo.seed = rng.split();
    EvoformerBlockOptions::option_list().check(bo);  // options built in code: InputError on a bad one
    blocks_.push_back(stack.add(std::make_unique<EvoformerBlock>(bo), b));
  }
  head_norm_ = &add_child("head_norm", std::make_unique<LayerNormModule>(o.c_z));
  // Zero weights: the untrained model ranks pairs exactly as the coevolution score.
  head_ = &add_child("head", make_linear(o.c_z, 1, true, Init::kFinal, rng));
  Tensor potts_weight({F}, 0.0f);  // [F]: the score alone at first
  potts_weight[0] = 1.0f;
  potts_weight_ = add_parameter("potts_weight", std::move(potts_weight));
  potts_bias_ = add_parameter("potts_bias", Tensor({1}, std::vector<float>{kInitialPottsBias}));  // [1]
}

EvoformerState ContactModel::embed(const Var& msa, const Var& pair, const ContactModelInput& in) const {
  ATTEND_CHECK(msa.value().rank() == 3 && msa.dim(2) == kMsaFeatures,
               "contact_model: msa must be [S, W, " << kMsaFeatures << "], got " << shape_to_string(msa.shape()));
  const int64_t W = msa.dim(1), F = pair_feature_count(options_.neighbour_scores);
  ATTEND_CHECK(in.target.shape() == (Shape{W, kTargetFeatures}) && pair.shape() == (Shape{W, W, F}) &&
                   static_cast<int64_t>(in.positions.size()) == W,
               "contact_model: target, pair and positions must match the MSA's " << W << " residues");
  const int64_t c_z = options_.c_z, r = options_.max_relative_position;
  // AF2 Alg. 3: MSA and target embeddings.
  const Var target(in.target);                                                  // [W, 21]
  Var m = ops::add(msa_embed_->forward(msa), target_msa_->forward(target));  // [S, W, c_m]
  // Outer sum of the target embedding: rows (i, j) take left[i] + right[j].
  std::vector<int64_t> row_i(static_cast<std::size_t>(W * W)), row_j(row_i.size()), rel(row_i.size());
  for (int64_t i = 0; i < W; ++i)
    for (int64_t j = 0; j < W; ++j) {
      row_i[i * W + j] = i;
      row_j[i * W + j] = j;
      // AF2 Alg. 4: relative position, clipped, as a one-hot embedding.
      rel[i * W + j] = std::clamp(in.positions[i] - in.positions[j], -r, r) + r;
    }
  Var z = ops::add(ops::gather_rows(target_left_->forward(target), row_i),
                   ops::gather_rows(target_right_->forward(target), row_j));  // [W * W, c_z]
  z = ops::add(z, ops::embedding(relpos_, rel));                                // [W * W, c_z]
  z = ops::add(ops::reshape(z, {W, W, c_z}), pair_embed_->forward(pair));  // [W, W, c_z]
  return {m, z};
}

Var ContactModel::forward(const ContactModelInput& in, uint64_t seed) const {
  return forward_from_features(Var(in.msa), Var(in.pair), in, seed);
}

Var ContactModel::forward_from_features(const Var& msa, const Var& pair, const ContactModelInput& in, uint64_t seed) const {
  const EvoformerState embedded = embed(msa, pair, in);
  Var m = embedded.m;  // [S, W, c_m]
  Var z = embedded.z;  // [W, W, c_z]
  const int64_t W = msa.dim(1), F = pair_feature_count(options_.neighbour_scores);
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const EvoformerState state = blocks_[b]->forward(m, z, mix64(seed ^ (0x636f6e74ULL + b)));
    m = state.m;  // [S, W, c_m]
    z = state.z;  // [W, W, c_z]
  }
  const Var sym = ops::scale(ops::add(z, ops::permute(z, {1, 0, 2})), 0.5f);  // [W, W, c_z]
  // The skip path pair . w_p + b (the score, or a 3 x 3 filter of the map), plus the head.
  const Var skip = ops::linear(pair, ops::reshape(potts_weight_, {F, 1}), potts_bias_);  // [W, W, 1]
  return ops::reshape(ops::add(skip, head_->forward(head_norm_->forward(sym))), {W, W});  // [W, W]
}

Tensor ContactModel::msa_row_attention_maps(const ContactModelInput& in) const {
  NoGradGuard no_grad;
  ATTEND_CHECK(!is_training(), "msa_row_attention_maps needs the model in evaluation mode");
  EvoformerState state = embed(Var(in.msa), Var(in.pair), in);
  const int64_t S = in.msa.dim(0), W = in.msa.dim(1), H = options_.block.n_heads_msa;
  const auto blocks = static_cast<int64_t>(blocks_.size());
  Tensor maps({blocks, H, W, W});  // [blocks, H, W, W]
  for (int64_t b = 0; b < blocks; ++b) {
    const Tensor rows = blocks_[b]->msa_row_attention_weights(state.m, state.z);  // [S, H, W, W]
    const int64_t per_row = H * W * W;
    float* out = maps.data() + b * per_row;
    parallel_for_blocks(per_row, 4096, [&](int64_t begin, int64_t end) {
      for (int64_t e = begin; e < end; ++e) {
        double sum = 0.0;
        for (int64_t s = 0; s < S; ++s) sum += rows[s * per_row + e];
        out[e] = static_cast<float>(sum / static_cast<double>(S));
      }
    });
    state = blocks_[b]->forward(state.m, state.z);
  }
  return maps;
}

Tensor ContactModel::triangle_attention_maps(const ContactModelInput& in) const {
  NoGradGuard no_grad;
  ATTEND_CHECK(!is_training(), "triangle_attention_maps needs the model in evaluation mode");
  EvoformerState state = embed(Var(in.msa), Var(in.pair), in);
  const int64_t W = in.msa.dim(1), H = options_.block.n_heads_pair;
  const auto blocks = static_cast<int64_t>(blocks_.size());
  const int64_t per_node = H * W * W;
  Tensor maps({blocks, 2, H, W, W});  // [blocks, 2, H, W, W]
  for (int64_t b = 0; b < blocks; ++b) {
    TriangleAttentionWeights weights;
    state = blocks_[b]->forward(state.m, state.z, 0, &weights);
    for (int64_t node = 0; node < 2; ++node) {
      const Tensor& p = node == 0 ? weights.starting : weights.ending;  // [W (shared), H, W, W]
      float* out = maps.data() + (b * 2 + node) * per_node;
      parallel_for_blocks(per_node, 4096, [&](int64_t begin, int64_t end) {
        for (int64_t e = begin; e < end; ++e) {
          double sum = 0.0;
          for (int64_t s = 0; s < W; ++s) sum += p[s * per_node + e];
          out[e] = static_cast<float>(sum / static_cast<double>(W));
        }
      });
    }
  }
  return maps;
}

void ContactModel::register_into(Registry& registry) {
  registry.add("contact_model", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<ContactModel>(ContactModelOptions::from_json(config));
  });
  registry.document("contact_model", ContactModelOptions::option_list().docs());
}

std::vector<int64_t> whole_family_rows(const ContactModel& model, const FamilyFeatures& family) {
  Rng rng(0);
  return sample_rows(family.alignment.num_sequences(), model.options().msa_depth, rng);
}

ContactModelInput whole_family_input(const ContactModel& model, const FamilyFeatures& family) {
  return make_model_input(family, 0, family.length(), whole_family_rows(model, family), model.options().neighbour_scores);
}

std::unique_ptr<ContactModel> load_contact_model(const std::string& path, const Registry& registry) {
  const CheckpointData data = load_checkpoint(path);
  try {  // a bad stored config or parameter list is an error in the model file: name it
    std::unique_ptr<Module> module = module_from_checkpoint(data, registry);
    auto* model = dynamic_cast<ContactModel*>(module.get());
    if (model == nullptr) throw InputError(path, 0, "the model file does not hold a contact_model");
    module.release();
    std::unique_ptr<ContactModel> owned(model);
    ParameterArena arena(owned->named_parameters());
    load_parameters(data, arena);
    owned->eval();
    return owned;
  } catch (const InputError& e) {
    if (!e.file().empty()) throw;
    throw InputError(path, 0, e.what());
  }
}

Tensor predict_contact_probabilities(const ContactModel& model, const FamilyFeatures& family) {
  NoGradGuard no_grad;
  const int64_t L = family.length();
  const ContactModelInput input = whole_family_input(model, family);
  ATTEND_CHECK(!model.is_training(), "predict_contact_probabilities needs the model in evaluation mode");
  const Tensor logits = ops::sigmoid(model.forward(input)).value();  // [L, L]
  Tensor out = logits;
  for (int64_t i = 0; i < L; ++i) out[i * L + i] = 0.0f;
  return out;
}

}  // namespace attend::bio
