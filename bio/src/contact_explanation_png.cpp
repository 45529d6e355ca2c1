// save_pair_attribution_png (declared in contact_explanation_files.hpp): the heat map of one
// contact's attribution through the pair (potts score) input.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <vector>

#include "attend/bio/contact_explanation_files.hpp"
#include "attend/core/bitmap_font.hpp"
#include "attend/core/error.hpp"
#include "attend/core/png_image.hpp"

namespace attend::bio {

namespace {

constexpr int64_t kMinPixels = 600;   // the map is scaled up to at least this many pixels a side
constexpr int64_t kMargin = 10;       // pixels around the map
constexpr int64_t kTextScale = 2;     // font pixels per glyph pixel
constexpr int64_t kLineHeight = (kGlyphHeight + 3) * kTextScale;

std::string fixed4(double v) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(4) << v;
  return out.str();
}

}  // namespace

void save_pair_attribution_png(const std::string& path, const ContactExplanation& x) {
  ATTEND_CHECK(x.attribution.has_value(), "the explanation holds no attribution");
  const ContactAttribution& a = *x.attribution;
  const int64_t L = a.pair_map.dim(0);
  std::vector<double> cells(static_cast<std::size_t>(L * L), 0.0);  // [L, L], symmetric
  double largest = 0.0;
  for (const ResiduePairAttribution& p : residue_pair_attributions(a)) {
    cells[static_cast<std::size_t>(p.i * L + p.j)] = p.score;
    cells[static_cast<std::size_t>(p.j * L + p.i)] = p.score;
    largest = std::max(largest, std::abs(p.score));
  }
  const double change = a.value - a.baseline_value;
  const std::vector<std::string> caption = {
      "pair attribution of the contact " + std::to_string(a.i + 1) + "-" + std::to_string(a.j + 1) + " red raises blue lowers",
      "pair input " + fixed4(a.pair_total) + " msa input " + fixed4(a.msa_total) + " of logit change " + fixed4(change),
      "largest cell " + fixed4(largest) + " gap " + fixed4(a.completeness_gap)};
  const int64_t s = std::max<int64_t>(1, (kMinPixels + L - 1) / L);  // pixels per cell
  const int64_t map = L * s, top = kMargin + static_cast<int64_t>(caption.size()) * kLineHeight;
  int64_t width = map;
  for (const std::string& line : caption) width = std::max(width, text_width(line, kTextScale));
  width += 2 * kMargin;
  ATTEND_CHECK(map <= 100000, "pair attribution picture of " << map << " pixels is too large");
  RgbImage image(width, top + map + kMargin, 255, 255, 255);
  for (std::size_t k = 0; k < caption.size(); ++k) {
    draw_text(image, kMargin, kMargin + static_cast<int64_t>(k) * kLineHeight, caption[k], 0, 0, 0, kTextScale);
  }
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < L; ++j) {
      const double t = largest > 0.0 ? cells[static_cast<std::size_t>(i * L + j)] / largest : 0.0;  // [-1, 1]
      const auto fade = static_cast<uint8_t>(std::lround(255.0 * (1.0 - std::abs(t))));
      const uint8_t r = t >= 0 ? 255 : fade, g = fade, b = t >= 0 ? fade : 255;
      for (int64_t y = i * s; y < (i + 1) * s; ++y)
        for (int64_t px = j * s; px < (j + 1) * s; ++px) image.set(kMargin + px, top + y, r, g, b);
    }
  for (int64_t p = -1; p <= map; ++p) {  // a grey frame around the map
    image.set(kMargin + p, top - 1, 160, 160, 160);
    image.set(kMargin + p, top + map, 160, 160, 160);
    image.set(kMargin - 1, top + p, 160, 160, 160);
    image.set(kMargin + map, top + p, 160, 160, 160);
  }
  // The explained pair: a black square two pixels outside each of its cells.
  for (const auto& [row, column] : {std::pair{a.i, a.j}, std::pair{a.j, a.i}}) {
    const int64_t x0 = kMargin + column * s - 2, y0 = top + row * s - 2, x1 = x0 + s + 3, y1 = y0 + s + 3;
    for (int64_t p = x0; p <= x1; ++p) {
      image.set(p, y0, 0, 0, 0);
      image.set(p, y1, 0, 0, 0);
    }
    for (int64_t p = y0; p <= y1; ++p) {
      image.set(x0, p, 0, 0, 0);
      image.set(x1, p, 0, 0, 0);
    }
  }
  write_png(path, image);
}

}  // namespace attend::bio
