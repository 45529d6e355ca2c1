#pragma once
/// A 5 x 7 pixel bitmap font of attend's own, for the text of the pictures it draws (axis
/// labels and tick values of the training curves) without a font library: the digits, the
/// lowercase letters (uppercase letters are drawn as lowercase), space, '.', '-', '%' and
/// '/'. Each glyph is 5 columns by 7 rows down to the baseline, and 2 rows below it where the
/// descenders of g, j, p, q and y go; a character advances 6 columns (one blank column between
/// glyphs), times the scale.

#include <cstdint>
#include <string_view>

#include "attend/core/png_image.hpp"

namespace attend {

/// kGlyphHeight: the rows from the top to the baseline (digits and capitals' height);
/// kGlyphRows: with the descender rows below it.
inline constexpr int64_t kGlyphWidth = 5, kGlyphHeight = 7, kGlyphDescent = 2, kGlyphRows = kGlyphHeight + kGlyphDescent,
                         kGlyphAdvance = 6;

/// Whether the font has a glyph for `c` (uppercase letters count: they are drawn lowercase).
bool has_glyph(char c);

/// The glyph of `c` as kGlyphRows (9) rows of 5 bits (bit 4 the leftmost column); a character the font
/// lacks is an attend::Error naming it.
const uint8_t* glyph_rows(char c);

/// Width in pixels of `text` drawn at `scale` (the last glyph without its trailing column).
int64_t text_width(std::string_view text, int64_t scale = 1);

/// Draw `text` with its top-left corner at (x, y), each font pixel a `scale` x `scale`
/// square in colour (r, g, b); pixels outside the image are skipped.
void draw_text(RgbImage& image, int64_t x, int64_t y, std::string_view text, uint8_t r, uint8_t g, uint8_t b,
               int64_t scale = 1);

}  // namespace attend
