// The 5 x 7 bitmap font (with 2 rows of descenders) of the pictures' text (bitmap_font.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <bitset>
#include <set>
#include <string>
#include <vector>

#include "attend/core/bitmap_font.hpp"
#include "attend/core/error.hpp"

using namespace attend;

namespace {

const std::string kDrawable = " .-%/0123456789abcdefghijklmnopqrstuvwxyz";

std::vector<uint8_t> glyph(char c) {
  const uint8_t* rows = glyph_rows(c);
  return {rows, rows + kGlyphRows};
}

int64_t set_pixels(const RgbImage& image) {
  int64_t n = 0;
  for (std::size_t i = 0; i < image.pixels.size(); i += 3) n += image.pixels[i] == 0;
  return n;
}

}  // namespace

TEST_CASE("the bitmap font has a distinct glyph for every character it draws", "[core]") {
  std::set<std::vector<uint8_t>> seen;
  for (const char c : kDrawable) {
    INFO(c);
    REQUIRE(has_glyph(c));
    const std::vector<uint8_t> rows = glyph(c);
    for (const uint8_t r : rows) CHECK(r < (1 << kGlyphWidth));
    CHECK(seen.insert(rows).second);
    if (c != ' ') CHECK(rows != std::vector<uint8_t>(kGlyphRows, 0));
  }
  CHECK(glyph('E') == glyph('e'));  // uppercase is drawn as lowercase
  for (const char c : std::string("@#_:,+\x80")) CHECK_FALSE(has_glyph(c));
  CHECK_THROWS_AS(glyph_rows('@'), Error);
}

TEST_CASE("the letters with descenders reach below the baseline, and no other glyph does", "[core]") {
  for (const char c : kDrawable) {
    INFO(c);
    const std::vector<uint8_t> rows = glyph(c);
    const bool below = std::any_of(rows.begin() + kGlyphHeight, rows.end(), [](uint8_t r) { return r != 0; });
    CHECK(below == (std::string("gjpqy").find(c) != std::string::npos));
    if (below) CHECK(rows[kGlyphHeight - 1] != 0);  // the stem or bowl meets the tail at the baseline
  }
  // A 'p' drawn at (0, 0) sets a pixel in the last row, its stem's foot.
  RgbImage image(6, kGlyphRows, 255, 255, 255);
  draw_text(image, 0, 0, "p", 0, 0, 0);
  CHECK(image.pixels[static_cast<std::size_t>((kGlyphRows - 1) * 6 * 3)] == 0);
}

TEST_CASE("draw_text sets each glyph's pixels, scaled, advancing six columns a character", "[core]") {
  CHECK(text_width("") == 0);
  CHECK(text_width("loss") == 23);
  CHECK(text_width("loss", 2) == 46);
  int64_t bits = 0;
  for (const char c : std::string("10%")) {
    for (const uint8_t r : glyph(c)) bits += static_cast<int64_t>(std::bitset<8>(r).count());
  }
  RgbImage image(40, 20, 255, 255, 255);
  draw_text(image, 1, 2, "10%", 0, 0, 0);
  CHECK(set_pixels(image) == bits);
  // '1' is the glyph "..#.." on top: its top pixel is at column 2 of the glyph.
  CHECK(image.pixels[static_cast<std::size_t>((2 * 40 + 3) * 3)] == 0);
  CHECK(image.pixels[static_cast<std::size_t>((2 * 40 + 2) * 3)] == 255);

  RgbImage scaled(80, 40, 255, 255, 255);
  draw_text(scaled, 0, 0, "10%", 0, 0, 0, 2);
  CHECK(set_pixels(scaled) == 4 * bits);
  RgbImage clipped(8, 4, 255, 255, 255);  // most of the text falls outside: skipped
  draw_text(clipped, 5, 1, "10%", 0, 0, 0);
  CHECK(set_pixels(clipped) < bits);
  CHECK_THROWS_AS(draw_text(clipped, 0, 0, "a@", 0, 0, 0), Error);
}
