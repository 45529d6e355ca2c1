#include "attend/core/bitmap_font.hpp"

#include <array>
#include <cctype>

#include "attend/core/error.hpp"

namespace attend {

namespace {

/// A glyph drawn as 7 rows of 5 characters, '#' for a set pixel.
struct GlyphArt {
  char c;
  const char* rows[kGlyphHeight];
};

// clang-format off
constexpr GlyphArt kArt[] = {
  {' ', {".....", ".....", ".....", ".....", ".....", ".....", "....."}},
  {'.', {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}},
  {'-', {".....", ".....", ".....", "#####", ".....", ".....", "....."}},
  {'%', {"##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##"}},
  {'/', {".....", "....#", "...#.", "..#..", ".#...", "#....", "....."}},
  {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
  {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
  {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
  {'3', {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}},
  {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
  {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
  {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
  {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
  {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
  {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
  {'a', {".....", ".....", ".###.", "....#", ".####", "#...#", ".####"}},
  {'b', {"#....", "#....", "#.##.", "##..#", "#...#", "#...#", "####."}},
  {'c', {".....", ".....", ".###.", "#....", "#....", "#...#", ".###."}},
  {'d', {"....#", "....#", ".##.#", "#..##", "#...#", "#...#", ".####"}},
  {'e', {".....", ".....", ".###.", "#...#", "#####", "#....", ".###."}},
  {'f', {"..##.", ".#..#", ".#...", "###..", ".#...", ".#...", ".#..."}},
  {'g', {".....", ".####", "#...#", "#...#", ".####", "....#", ".###."}},
  {'h', {"#....", "#....", "#.##.", "##..#", "#...#", "#...#", "#...#"}},
  {'i', {"..#..", ".....", ".##..", "..#..", "..#..", "..#..", ".###."}},
  {'j', {"...#.", ".....", "..##.", "...#.", "...#.", "#..#.", ".##.."}},
  {'k', {"#....", "#....", "#..#.", "#.#..", "##...", "#.#..", "#..#."}},
  {'l', {".##..", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
  {'m', {".....", ".....", "##.#.", "#.#.#", "#.#.#", "#...#", "#...#"}},
  {'n', {".....", ".....", "#.##.", "##..#", "#...#", "#...#", "#...#"}},
  {'o', {".....", ".....", ".###.", "#...#", "#...#", "#...#", ".###."}},
  {'p', {".....", ".....", "####.", "#...#", "####.", "#....", "#...."}},
  {'q', {".....", ".....", ".##.#", "#..##", ".####", "....#", "....#"}},
  {'r', {".....", ".....", "#.##.", "##..#", "#....", "#....", "#...."}},
  {'s', {".....", ".....", ".###.", "#....", ".###.", "....#", "####."}},
  {'t', {".#...", ".#...", "###..", ".#...", ".#...", ".#..#", "..##."}},
  {'u', {".....", ".....", "#...#", "#...#", "#...#", "#..##", ".##.#"}},
  {'v', {".....", ".....", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
  {'w', {".....", ".....", "#...#", "#...#", "#.#.#", "#.#.#", ".#.#."}},
  {'x', {".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#"}},
  {'y', {".....", ".....", "#...#", "#...#", ".####", "....#", ".###."}},
  {'z', {".....", ".....", "#####", "...#.", "..#..", ".#...", "#####"}},
};
// clang-format on

/// The glyphs as bits, indexed by character code (0 rows where the font has no glyph).
struct GlyphTable {
  std::array<std::array<uint8_t, kGlyphHeight>, 128> rows{};
  std::array<bool, 128> present{};
  GlyphTable() {
    for (const GlyphArt& art : kArt) {
      const auto code = static_cast<std::size_t>(art.c);
      present[code] = true;
      for (int64_t y = 0; y < kGlyphHeight; ++y) {
        uint8_t bits = 0;
        for (int64_t x = 0; x < kGlyphWidth; ++x) bits = static_cast<uint8_t>((bits << 1) | (art.rows[y][x] == '#'));
        rows[code][static_cast<std::size_t>(y)] = bits;
      }
    }
  }
};

const GlyphTable& table() {
  static const GlyphTable t;
  return t;
}

char drawn_as(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

}  // namespace

bool has_glyph(char c) {
  const auto code = static_cast<unsigned char>(drawn_as(c));
  return code < 128 && table().present[code];
}

const uint8_t* glyph_rows(char c) {
  ATTEND_CHECK(has_glyph(c), "the bitmap font has no glyph for character code " << static_cast<int>(static_cast<unsigned char>(c)));
  return table().rows[static_cast<unsigned char>(drawn_as(c))].data();
}

int64_t text_width(std::string_view text, int64_t scale) {
  if (text.empty()) return 0;
  return (static_cast<int64_t>(text.size()) * kGlyphAdvance - 1) * scale;
}

void draw_text(RgbImage& image, int64_t x, int64_t y, std::string_view text, uint8_t r, uint8_t g, uint8_t b,
               int64_t scale) {
  for (const char c : text) {
    const uint8_t* rows = glyph_rows(c);
    for (int64_t gy = 0; gy < kGlyphHeight; ++gy) {
      for (int64_t gx = 0; gx < kGlyphWidth; ++gx) {
        if (((rows[gy] >> (kGlyphWidth - 1 - gx)) & 1) == 0) continue;
        for (int64_t sy = 0; sy < scale; ++sy)
          for (int64_t sx = 0; sx < scale; ++sx) image.set(x + gx * scale + sx, y + gy * scale + sy, r, g, b);
      }
    }
    x += kGlyphAdvance * scale;
  }
}

}  // namespace attend
