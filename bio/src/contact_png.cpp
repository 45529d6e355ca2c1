// write_contact_png (declared in contact_writers.hpp): the contact-map picture, by libpng.
#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "attend/bio/contact_writers.hpp"
#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
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

// libpng reports errors through this handler, which keeps the message and jumps back to the
// setjmp in write_rgb_png (libpng is C: no exception may cross it).
void png_error_handler(png_structp png, png_const_charp message) {
  auto* buffer = static_cast<char*>(png_get_error_ptr(png));
  std::snprintf(buffer, 256, "%s", message);
  png_longjmp(png, 1);
}

void png_warning_handler(png_structp, png_const_charp) {}

// Only trivially destructible objects live between setjmp and the libpng calls.
bool write_rgb_png(std::FILE* file, uint32_t width, uint32_t height, png_bytepp rows, char* message) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, message, png_error_handler,
                                            png_warning_handler);
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
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

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
  std::vector<uint8_t> pixels(static_cast<std::size_t>(size * size * 3));
  std::vector<png_bytep> rows(static_cast<std::size_t>(size));
  for (int64_t y = 0; y < size; ++y) {
    uint8_t* row = pixels.data() + y * size * 3;
    rows[static_cast<std::size_t>(y)] = row;
    for (int64_t x = 0; x < size; ++x) {
      const Rgb c = cell(y / s, x / s);
      row[3 * x] = c.r;
      row[3 * x + 1] = c.g;
      row[3 * x + 2] = c.b;
    }
  }

  AtomicOutput output(path);
  std::FILE* file = std::fopen(output.temp_path().c_str(), "wb");
  if (file == nullptr) throw InputError(path, 0, std::string("cannot write: ") + std::strerror(errno));
  char message[256] = "out of memory";
  const bool ok = write_rgb_png(file, static_cast<uint32_t>(size), static_cast<uint32_t>(size),
                                rows.data(), message);
  const bool closed = std::fclose(file) == 0;
  if (!ok) throw InputError(path, 0, std::string("cannot write PNG: ") + message);
  if (!closed) throw InputError(path, 0, "cannot write PNG: close failed");
  output.commit();
}

}  // namespace attend::bio
