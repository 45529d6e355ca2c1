// write_contact_png (declared in contact_writers.hpp): the contact-map picture.
#include <vector>

#include "attend/bio/contact_writers.hpp"
#include "attend/core/error.hpp"
#include "attend/core/png_image.hpp"
#include "ranked_pairs.hpp"

namespace attend::bio {

namespace {

struct Rgb {
  uint8_t r, g, b;
};

constexpr Rgb kBackground{255, 255, 255};
constexpr Rgb kDiagonal{200, 200, 200};
constexpr Rgb kNativeFaint{225, 225, 225};
constexpr Rgb kNative{140, 140, 140};
constexpr Rgb kTruePositive{20, 90, 210};
constexpr Rgb kFalsePositive{215, 40, 40};
constexpr Rgb kUnknown{0, 0, 0};

}  // namespace

void write_contact_png(const std::string& path, const Tensor& scores, const ContactPngOptions& options) {
  ATTEND_CHECK(scores.rank() == 2 && scores.dim(0) == scores.dim(1) && scores.dim(0) >= 1,
               "expected square scores [L, L], got " << shape_to_string(scores.shape()));
  const int64_t L = scores.dim(0);
  const ContactMap* truth = options.truth;
  ATTEND_CHECK(truth == nullptr || truth->length() == L,
               "the truth has L = " << truth->length() << ", the scores " << L);

  // The L x L map, one cell per pair.
  std::vector<Rgb> cells(static_cast<std::size_t>(L * L), kBackground);
  auto cell = [&](int64_t i, int64_t j) -> Rgb& { return cells[static_cast<std::size_t>(i * L + j)]; };
  for (int64_t i = 0; i < L; ++i) cell(i, i) = kDiagonal;
  if (truth != nullptr) {
    for (int64_t i = 0; i < L; ++i)
      for (int64_t j = i + 1; j < L; ++j)
        if (truth->contact(i, j)) {
          cell(j, i) = kNative;
          cell(i, j) = kNativeFaint;
        }
  }
  const std::vector<detail::RankedPair> pairs = detail::ranked_pairs(scores, options.min_separation);
  const int64_t k = std::min<int64_t>(options.top_k < 0 ? L : options.top_k,
                                      static_cast<int64_t>(pairs.size()));
  for (int64_t r = 0; r < k; ++r) {
    const detail::RankedPair& p = pairs[static_cast<std::size_t>(r)];
    Rgb colour = kUnknown;
    if (truth != nullptr && truth->evaluable(p.i, p.j)) {
      colour = truth->contact(p.i, p.j) ? kTruePositive : kFalsePositive;
    }
    cell(p.i, p.j) = colour;
    if (truth == nullptr) cell(p.j, p.i) = colour;
  }

  // Scale up so that small proteins are visible.
  const int64_t s = std::max<int64_t>(1, (options.min_pixels + L - 1) / L);
  const int64_t size = L * s;
  ATTEND_CHECK(size <= 100000, "contact picture of " << size << " pixels is too large");
  RgbImage image(size, size, kBackground.r, kBackground.g, kBackground.b);
  for (int64_t y = 0; y < size; ++y) {
    for (int64_t x = 0; x < size; ++x) {
      const Rgb c = cell(y / s, x / s);
      image.set(x, y, c.r, c.g, c.b);
    }
  }
  write_png(path, image);
}

}  // namespace attend::bio
