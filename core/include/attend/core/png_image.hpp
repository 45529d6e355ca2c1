#pragma once
/// RGB pictures written as PNG files (libpng): the contact maps and the training curves.

#include <cstdint>
#include <string>
#include <vector>

namespace attend {

/// An 8-bit RGB picture, rows top to bottom.
struct RgbImage {
  int64_t width = 0, height = 0;
  std::vector<uint8_t> pixels;  ///< [height, width, 3]

  RgbImage(int64_t width, int64_t height, uint8_t r, uint8_t g, uint8_t b);
  /// Colour pixel (x, y); outside the picture: nothing.
  void set(int64_t x, int64_t y, uint8_t r, uint8_t g, uint8_t b);
};

/// Write `image` to `path` as a PNG, atomically (a temporary renamed into place). An
/// unwritable destination or a libpng failure is an InputError naming `path`.
void write_png(const std::string& path, const RgbImage& image);

}  // namespace attend
