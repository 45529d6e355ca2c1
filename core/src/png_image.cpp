#include "attend/core/png_image.hpp"

#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"

namespace attend {

namespace {

// libpng reports errors through this handler, which keeps the message and jumps back to the
// setjmp in write_rgb_rows (libpng is C: no exception may cross it).
void png_error_handler(png_structp png, png_const_charp message) {
  auto* buffer = static_cast<char*>(png_get_error_ptr(png));
  std::snprintf(buffer, 256, "%s", message);
  png_longjmp(png, 1);
}

void png_warning_handler(png_structp, png_const_charp) {}

// Only trivially destructible objects live between setjmp and the libpng calls.
bool write_rgb_rows(std::FILE* file, uint32_t width, uint32_t height, png_bytepp rows, char* message) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, message, png_error_handler, png_warning_handler);
  if (png == nullptr) return false;
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_init_io(png, file);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

RgbImage::RgbImage(int64_t w, int64_t h, uint8_t r, uint8_t g, uint8_t b) : width(w), height(h) {
  ATTEND_CHECK(w >= 1 && h >= 1 && w <= 100000 && h <= 100000, "a picture of " << w << " x " << h << " pixels");
  pixels.resize(static_cast<std::size_t>(w * h * 3));
  for (std::size_t i = 0; i < pixels.size(); i += 3) {
    pixels[i] = r;
    pixels[i + 1] = g;
    pixels[i + 2] = b;
  }
}

void RgbImage::set(int64_t x, int64_t y, uint8_t r, uint8_t g, uint8_t b) {
  if (x < 0 || y < 0 || x >= width || y >= height) return;
  uint8_t* p = pixels.data() + (y * width + x) * 3;
  p[0] = r;
  p[1] = g;
  p[2] = b;
}

void write_png(const std::string& path, const RgbImage& image) {
  std::vector<png_bytep> rows(static_cast<std::size_t>(image.height));
  for (int64_t y = 0; y < image.height; ++y) {
    rows[static_cast<std::size_t>(y)] = const_cast<png_bytep>(image.pixels.data() + y * image.width * 3);
  }
  AtomicOutput output(path);
  std::FILE* file = std::fopen(output.temp_path().c_str(), "wb");
  if (file == nullptr) throw InputError(path, 0, std::string("cannot write: ") + std::strerror(errno));
  char message[256] = "out of memory";
  const bool ok = write_rgb_rows(file, static_cast<uint32_t>(image.width), static_cast<uint32_t>(image.height),
                                 rows.data(), message);
  const bool closed = std::fclose(file) == 0;
  if (!ok) throw InputError(path, 0, std::string("cannot write PNG: ") + message);
  if (!closed) throw InputError(path, 0, "cannot write PNG: close failed");
  output.commit();
}

}  // namespace attend
