#pragma once
/// Reader for NumPy's `.npy` array format (numpy.lib.format, versions 1.0, 2.0 and 3.0): the
/// magic "\x93NUMPY", a version, a header length (2 bytes in 1.0, 4 bytes after), a Python
/// dict literal `{'descr': '<i8', 'fortran_order': False, 'shape': (2, 10556), }` and the
/// raw elements. Read here: little-endian (or one-byte) booleans, signed and unsigned
/// integers of 1, 2, 4 or 8 bytes and float32 / float64, in C order or in Fortran order (what
/// numpy.save writes for a transposed array; reordered to C order on reading). Anything else
/// (big-endian, structured or object dtypes, a pickle) is an InputError saying what was found.

#include <cstdint>
#include <string>
#include <vector>

namespace attend::io {

/// The element types a `.npy` file may hold here (the dtype's kind character).
enum class NpyKind { kBool, kSigned, kUnsigned, kFloat };

struct NpyArray {
  std::string source;          ///< where it was read from, for messages (a file, or archive:member)
  NpyKind kind = NpyKind::kFloat;
  int item_size = 0;           ///< bytes per element: 1, 2, 4 or 8
  std::vector<int64_t> shape;  ///< [] for a scalar
  std::string data;            ///< numel * item_size bytes, little-endian, C order (as read, or reordered)

  int64_t numel() const;
  /// The shape as "(2, 5)", as NumPy prints it.
  std::string shape_text() const;
  /// The elements as int64, in C order; floats and uint64 values above INT64_MAX are an
  /// InputError naming `what` (the array's role: "edge_index").
  std::vector<int64_t> to_int64(const std::string& what) const;
  /// The elements as float32 (float64 and integers rounded to nearest), in C order.
  std::vector<float> to_float(const std::string& what) const;
};

/// Parse the bytes of a `.npy` file; `source` names it in errors. A header longer than 64 KiB
/// (NumPy itself refuses 10 000 bytes), a dimension that is negative, a size that overflows,
/// or data that is not exactly numel * item_size bytes is an InputError(source, 0, ...).
NpyArray parse_npy(std::string bytes, const std::string& source);

/// Read the `.npy` file at `path` (InputError when it cannot be read, see parse_npy).
NpyArray read_npy(const std::string& path);

}  // namespace attend::io
