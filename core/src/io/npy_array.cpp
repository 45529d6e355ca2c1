// The NumPy .npy format as numpy.lib.format documents it (NEP 1): magic, version, header
// length, an ASCII dict literal padded with spaces and a newline, then the raw elements.
#include "attend/core/io/npy_array.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>

#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "attend/core/io/read_progress.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::io {

namespace {

constexpr std::size_t kMaxHeaderBytes = 65536;
constexpr char kMagic[] = "\x93NUMPY";

uint64_t little_endian(const std::string& bytes, std::size_t at, int size) {
  uint64_t v = 0;
  for (int i = size - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  return v;
}

/// The three keys of the header dict, parsed from its Python literal.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  void parse(std::string& descr, bool& fortran_order, std::vector<int64_t>& shape) {
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (!accept('}')) {
      const std::string key = quoted();
      expect(':');
      if (key == "descr") {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == '[') fail("a structured dtype (expected a plain one such as '<f4')");
        descr = quoted();
        seen_descr = true;
      } else if (key == "fortran_order") {
        fortran_order = word();
        seen_order = true;
      } else if (key == "shape") {
        shape = tuple();
        seen_shape = true;
      } else {
        fail("unknown header key " + quoted_input(key));
      }
      if (!accept(',')) {
        expect('}');
        break;
      }
    }
    if (!seen_descr || !seen_order || !seen_shape) fail("the header lacks 'descr', 'fortran_order' or 'shape'");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw InputError(source_, 0, "npy header: " + what); }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t')) ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "' at byte " + std::to_string(pos_) + " of " + quoted_input(text_));
  }
  std::string quoted() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      fail("expected a quoted string at byte " + std::to_string(pos_) + " of " + quoted_input(text_));
    }
    const char quote = text_[pos_++];
    const std::size_t end = text_.find(quote, pos_);
    if (end == std::string::npos) fail("an unterminated string in " + quoted_input(text_));
    std::string s = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return s;
  }
  bool word() {
    skip_space();
    for (const auto& [name, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      if (text_.compare(pos_, std::strlen(name), name) == 0) {
        pos_ += std::strlen(name);
        return value;
      }
    }
    fail("expected True or False for 'fortran_order' in " + quoted_input(text_));
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (!accept(')')) {
      skip_space();
      const std::size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      if (pos_ == start || pos_ - start > 18) fail("expected a dimension (0 to 10^18) in the shape of " + quoted_input(text_));
      dims.push_back(std::stoll(text_.substr(start, pos_ - start)));
      if (!accept(',')) {
        expect(')');
        break;
      }
    }
    return dims;
  }

  const std::string& text_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

}  // namespace

int64_t NpyArray::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string NpyArray::shape_text() const {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::vector<int64_t> NpyArray::to_int64(const std::string& what) const {
  if (kind == NpyKind::kFloat) throw InputError(source, 0, what + ": expected integers, found floating-point values");
  std::vector<int64_t> out(static_cast<std::size_t>(numel()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const uint64_t raw = little_endian(data, i * static_cast<std::size_t>(item_size), item_size);
    if (kind == NpyKind::kSigned) {
      const int shift = 64 - 8 * item_size;  // sign-extend
      out[i] = static_cast<int64_t>(raw << shift) >> shift;
    } else {
      if (raw > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        throw InputError(source, 0, what + ": value " + std::to_string(raw) + " at index " + std::to_string(i) +
                                        " does not fit in int64");
      }
      out[i] = static_cast<int64_t>(raw);
    }
  }
  return out;
}

std::vector<float> NpyArray::to_float(const std::string& what) const {
  if (kind != NpyKind::kFloat) {
    const std::vector<int64_t> ints = to_int64(what);
    return std::vector<float>(ints.begin(), ints.end());
  }
  std::vector<float> out(static_cast<std::size_t>(numel()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const uint64_t raw = little_endian(data, i * static_cast<std::size_t>(item_size), item_size);
    if (item_size == 4) {
      const auto bits = static_cast<uint32_t>(raw);
      std::memcpy(&out[i], &bits, sizeof bits);
    } else {
      double v;
      std::memcpy(&v, &raw, sizeof v);
      out[i] = static_cast<float>(v);
    }
  }
  return out;
}

namespace {

/// Where the elements start and how many bytes they take, once the header is known.
struct NpyLayout {
  std::size_t data_start = 0;
  uint64_t data_bytes = 0;
  bool fortran_order = false;  ///< the elements are stored column-major
};

/// `data` of an array of `shape` stored in Fortran (column-major) order, in C order.
std::string to_c_order(const std::string& data, const std::vector<int64_t>& shape, int item_size) {
  const std::size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0), stride(rank, 1);  // stride: column-major, in elements
  for (std::size_t k = 1; k < rank; ++k) stride[k] = stride[k - 1] * shape[k - 1];
  std::string out(data.size(), '\0');
  const auto size = static_cast<std::size_t>(item_size);
  for (std::size_t c = 0; c * size < data.size(); ++c) {
    int64_t from = 0;
    for (std::size_t k = 0; k < rank; ++k) from += index[k] * stride[k];
    std::memcpy(out.data() + c * size, data.data() + static_cast<std::size_t>(from) * size, size);
    for (std::size_t k = rank; k-- > 0;) {  // the next C-order index: the last dimension runs fastest
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

/// The bytes of the header (magic, version, length, dict) that `prefix` must hold: 0 when
/// `prefix` is too short to tell yet.
std::size_t header_end(const std::string& prefix, const std::string& source) {
  if (prefix.size() < 10) return 0;
  if (prefix.compare(0, 6, kMagic, 6) != 0) throw InputError(source, 0, "not a .npy file (expected the magic \\x93NUMPY)");
  const int major = static_cast<unsigned char>(prefix[6]);
  if (major < 1 || major > 3) throw InputError(source, 0, "npy format version " + std::to_string(major) + " (expected 1, 2 or 3)");
  const int length_bytes = major == 1 ? 2 : 4;
  if (prefix.size() < 8 + static_cast<std::size_t>(length_bytes)) return 0;
  const uint64_t header_length = little_endian(prefix, 8, length_bytes);
  if (header_length > kMaxHeaderBytes) {
    throw InputError(source, 0, "npy header of " + std::to_string(header_length) + " bytes (at most 65536)");
  }
  return 8 + static_cast<std::size_t>(length_bytes) + static_cast<std::size_t>(header_length);
}

/// The array's description from the header at the start of `bytes` (which holds all of it).
NpyArray parse_header(const std::string& bytes, const std::string& source, NpyLayout& layout) {
  const auto fail = [&](const std::string& what) { throw InputError(source, 0, what); };
  const std::size_t end = header_end(bytes, source);
  if (end == 0 || bytes.size() < end) fail("truncated npy header");
  const std::size_t dict_start = static_cast<unsigned char>(bytes[6]) == 1 ? 10 : 12;
  const std::string header = bytes.substr(dict_start, end - dict_start);

  NpyArray a;
  a.source = source;
  std::string descr;
  bool fortran_order = false;
  HeaderParser(header, source).parse(descr, fortran_order, a.shape);
  if (descr.size() < 3) fail("dtype " + quoted_input(descr) + " (expected e.g. '<i8', '<f4', '|b1')");
  const char order = descr[0], kind = descr[1];
  const std::string size_text = descr.substr(2);
  if (order == '>') fail("big-endian dtype " + quoted_input(descr) + " (expected little-endian)");
  if (order != '<' && order != '|' && order != '=') fail("dtype " + quoted_input(descr) + " (expected a byte order '<' or '|')");
  if (size_text != "1" && size_text != "2" && size_text != "4" && size_text != "8") {
    fail("dtype " + quoted_input(descr) + " (expected an element of 1, 2, 4 or 8 bytes)");
  }
  a.item_size = std::stoi(size_text);
  if (kind == 'b' && a.item_size == 1) {
    a.kind = NpyKind::kBool;
  } else if (kind == 'i') {
    a.kind = NpyKind::kSigned;
  } else if (kind == 'u') {
    a.kind = NpyKind::kUnsigned;
  } else if (kind == 'f' && (a.item_size == 4 || a.item_size == 8)) {
    a.kind = NpyKind::kFloat;
  } else {
    fail("dtype " + quoted_input(descr) + " (expected bool, integers, float32 or float64)");
  }
  uint64_t bytes_needed = static_cast<uint64_t>(a.item_size);
  for (int64_t d : a.shape) {
    if (d != 0 && bytes_needed > (uint64_t{1} << 62) / static_cast<uint64_t>(d)) fail("shape " + a.shape_text() + " is too large");
    bytes_needed *= static_cast<uint64_t>(d);
  }
  layout = {end, bytes_needed, fortran_order};
  return a;
}

[[noreturn]] void wrong_size(const NpyArray& a, const NpyLayout& layout, uint64_t found) {
  throw InputError(a.source, 0, "shape " + a.shape_text() + " of " + std::to_string(a.item_size) + "-byte elements needs " +
                                    std::to_string(layout.data_bytes) + " data bytes, the file has " +
                                    (found > layout.data_bytes ? "more" : std::to_string(found)));
}

}  // namespace

NpyArray parse_npy(std::string bytes, const std::string& source) {
  NpyLayout layout;
  NpyArray a = parse_header(bytes, source, layout);
  const uint64_t available = bytes.size() - layout.data_start;
  if (available != layout.data_bytes) wrong_size(a, layout, available);
  bytes.erase(0, layout.data_start);
  a.data = layout.fortran_order ? to_c_order(bytes, a.shape, a.item_size) : std::move(bytes);
  return a;
}

NpyArray read_npy(const std::string& path) {
  require_input_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open");
  // Read only what the header announces (plus one byte to see the end): a device or an
  // endless file cannot make this read forever.
  std::string bytes;
  FileReadProgress progress(path);  // a large array draws "reading NAME (MiB)" (read_progress.hpp)
  const auto read_up_to = [&](uint64_t size) {
    while (bytes.size() < size && in) {
      char buffer[1 << 16];
      in.read(buffer, static_cast<std::streamsize>(std::min<uint64_t>(sizeof buffer, size - bytes.size())));
      bytes.append(buffer, static_cast<std::size_t>(in.gcount()));
      progress.read_to(static_cast<int64_t>(bytes.size()));
    }
    if (in.bad()) throw InputError(path, 0, "read error");
  };
  read_up_to(12);
  const std::size_t end = header_end(bytes, path);
  if (end == 0) throw InputError(path, 0, bytes.size() < 10 ? "not a .npy file (too short)" : "truncated npy header");
  read_up_to(end);
  NpyLayout layout;
  NpyArray a = parse_header(bytes, path, layout);
  read_up_to(layout.data_start + layout.data_bytes + 1);
  progress.finish();
  const uint64_t found = bytes.size() - layout.data_start;
  if (found != layout.data_bytes) wrong_size(a, layout, found);
  bytes.erase(0, layout.data_start);
  a.data = layout.fortran_order ? to_c_order(bytes, a.shape, a.item_size) : std::move(bytes);
  return a;
}

}  // namespace attend::io
