#include "attend/bio/head_contact_maps.hpp"

#include "attend/bio/apc.hpp"
#include "attend/bio/contact_model.hpp"
#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "fitted_scores.hpp"

namespace attend::bio {

namespace {

/// Head h of a [H, L, L] tensor as its own [L, L] tensor.
Tensor head_slice(const Tensor& maps, int64_t h) {
  const int64_t L = maps.dim(1);
  Tensor one({L, L});  // [L, L]
  std::copy_n(maps.data() + h * L * L, L * L, one.data());
  return one;
}

}  // namespace

Tensor head_contact_scores(const Tensor& attention) {
  ATTEND_CHECK(attention.rank() == 3 && attention.dim(1) == attention.dim(2),
               "head maps must be [H, L, L], got " << shape_to_string(attention.shape()));
  const int64_t H = attention.dim(0), L = attention.dim(1);
  ATTEND_CHECK(L >= 3, "head maps need L >= 3, got " << L);
  Tensor scores({H, L, L});  // [H, L, L]
  parallel_for(0, H, [&](int64_t h) {
    const float* a = attention.data() + h * L * L;
    Tensor symmetric({L, L});  // [L, L]: (A + A^T) / 2, diagonal 0
    for (int64_t i = 0; i < L; ++i)
      for (int64_t j = 0; j < L; ++j) symmetric[i * L + j] = i == j ? 0.0f : 0.5f * (a[i * L + j] + a[j * L + i]);
    const Tensor corrected = average_product_correction(symmetric);  // [L, L]
    std::copy_n(corrected.data(), L * L, scores.data() + h * L * L);
  });
  return scores;
}

HeadContactMaps factored_head_maps(const FactoredResult& fit, int64_t length) {
  const Tensor& a = fit.attention;  // [H, L', L']
  const auto kept = static_cast<int64_t>(fit.columns.size());
  ATTEND_CHECK(a.rank() == 3 && a.dim(1) == kept && a.dim(2) == kept,
               "factored fit: attention " << shape_to_string(a.shape()) << " over " << kept << " columns");
  const int64_t H = a.dim(0), L = length;
  const Tensor fitted = head_contact_scores(a);  // [H, L', L']
  HeadContactMaps maps;
  maps.attention = Tensor({H, L, L}, 0.0f);  // [H, L, L]
  maps.scores = Tensor({H, L, L});           // [H, L, L]
  for (int64_t h = 0; h < H; ++h) {
    maps.names.push_back("head " + std::to_string(h));
    for (int64_t i = 0; i < kept; ++i)
      for (int64_t j = 0; j < kept; ++j)
        maps.attention[(h * L + fit.columns[i]) * L + fit.columns[j]] = a[(h * kept + i) * kept + j];
    const Tensor expanded = detail::expand_fitted_scores(head_slice(fitted, h), fit.columns, L);  // [L, L]
    std::copy_n(expanded.data(), L * L, maps.scores.data() + h * L * L);
  }
  return maps;
}

HeadContactMaps evoformer_head_maps(const ContactModel& model, const ContactModelInput& input) {
  const Tensor rows = model.msa_row_attention_maps(input);         // [blocks, H, W, W]
  const Tensor triangles = model.triangle_attention_maps(input);  // [blocks, 2, H_pair, W, W]
  const int64_t blocks = rows.dim(0), H = rows.dim(1), W = rows.dim(2), H_pair = triangles.dim(2);
  HeadContactMaps maps;
  maps.attention = Tensor({blocks * (H + 2 * H_pair), W, W});  // [blocks (H + 2 H_pair), W, W]
  std::copy_n(rows.data(), rows.numel(), maps.attention.data());
  std::copy_n(triangles.data(), triangles.numel(), maps.attention.data() + rows.numel());
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t h = 0; h < H; ++h) maps.names.push_back("block " + std::to_string(b) + " head " + std::to_string(h));
  for (int64_t b = 0; b < blocks; ++b) {
    for (const char* node : {"start", "end"}) {
      for (int64_t h = 0; h < H_pair; ++h) {
        maps.names.push_back("block " + std::to_string(b) + " triangle " + node + " head " + std::to_string(h));
      }
    }
  }
  maps.scores = head_contact_scores(maps.attention);  // [blocks (H + 2 H_pair), W, W]
  return maps;
}

std::vector<ContactPrecision> evaluate_heads(const HeadContactMaps& maps, const ContactMap& truth) {
  std::vector<ContactPrecision> out;
  for (int64_t h = 0; h < maps.scores.dim(0); ++h) out.push_back(evaluate_contacts(head_slice(maps.scores, h), truth));
  return out;
}

std::size_t best_head(const std::vector<ContactPrecision>& precisions) {
  ATTEND_CHECK(!precisions.empty(), "best_head of no heads");
  std::size_t best = 0;
  for (std::size_t h = 1; h < precisions.size(); ++h) {
    if (precisions[h].long_range.top_l5 > precisions[best].long_range.top_l5) best = h;
  }
  return best;
}

}  // namespace attend::bio
