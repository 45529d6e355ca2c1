#pragma once
/// Hdf5File: a thin RAII wrapper over the HDF5 C API for the files attend reads and writes.
///
/// Every attend file carries two root attributes, `schema` (a string such as
/// "attend.checkpoint") and `schema_version` (int64); docs/hdf5-schema.md describes the
/// conventions and each layout. Paths are absolute inside the file ("/parameters/w"; a missing
/// leading "/" means the same). Tensors are float32 row-major; datasets larger than a few KB
/// are chunked along the leading axis and compressed (shuffle + gzip level 4). Strings are
/// variable-length UTF-8, which h5py reads as `str` / `bytes`.
///
/// Every problem with a file (missing, not HDF5, a missing dataset, a wrong dtype or schema)
/// throws InputError naming the file, the object and what was expected; HDF5's own error
/// printing is switched off so a user sees that one line. Handles are closed by RAII.
/// HDF5 itself is an implementation detail: this header does not include it.
///
/// One Hdf5File must not be used from two threads at once.

#include <cstdint>
#include <string>
#include <vector>

#include "attend/core/tensor.hpp"

namespace attend {

/// How `Hdf5File::read_rows` tells HDF5 which rows to read.
enum class RowSelection {
  kHyperslabs,  ///< one hyperslab read per run of consecutive rows
  kPoints,      ///< a point selection listing every value of the rows
};

/// Order of the names returned by `Hdf5File::list`.
enum class ListOrder {
  kName,      ///< sorted bytewise (std::string order)
  kCreation,  ///< the order the links were made in (groups written by attend record it)
};

class Hdf5File {
 public:
  /// Create (truncating) `path` and write the root attributes `schema` and `schema_version`.
  static Hdf5File create(const std::string& path, const std::string& schema,
                         int64_t schema_version);
  /// Open an existing HDF5 file read-only.
  static Hdf5File open(const std::string& path);
  /// Open an existing HDF5 file for reading and writing.
  static Hdf5File open_rw(const std::string& path);

  Hdf5File(Hdf5File&& other) noexcept;
  Hdf5File& operator=(Hdf5File&& other) noexcept;
  Hdf5File(const Hdf5File&) = delete;
  Hdf5File& operator=(const Hdf5File&) = delete;
  /// Closes the file (errors are ignored here; call `close()` to see them).
  ~Hdf5File();

  /// Flush and close the file; throws InputError when HDF5 cannot finish writing it.
  /// Further calls other than `close()` and `path()` are errors.
  void close();
  bool is_open() const { return id_ >= 0; }
  /// The file system path this file was opened with.
  const std::string& path() const { return path_; }

  /// The root attribute `schema`; throws InputError when absent (not an attend file).
  std::string schema() const;
  /// The root attribute `schema_version`; throws InputError when absent.
  int64_t schema_version() const;
  /// Throw InputError unless the file's schema is `schema` with a version in
  /// [1, max_version]; the message names both what was found and what was expected.
  void require_schema(const std::string& schema, int64_t max_version) const;

  /// True when `object_path` names an existing group or dataset ("/" always exists).
  bool exists(const std::string& object_path) const;
  /// Names of the children (groups and datasets) of a group.
  std::vector<std::string> list(const std::string& group_path,
                                ListOrder order = ListOrder::kName) const;
  /// Create a group and any missing parents (like `mkdir -p`); existing groups are kept.
  /// Groups record the creation order of their children.
  void create_group(const std::string& group_path);

  /// Shape of a dataset ({} for a scalar).
  Shape dataset_shape(const std::string& dataset_path) const;

  /// Write a float32 dataset of the tensor's shape (a rank-0 tensor gives a scalar dataset).
  /// Missing parent groups are created; an existing object at the path is an InputError.
  /// With `compress`, datasets above a few KB are chunked along the leading axis and
  /// compressed with shuffle + gzip level 4.
  void write_tensor(const std::string& dataset_path, const Tensor& tensor, bool compress = true);
  /// Read a floating-point dataset (float64 is converted to float32) as a tensor. A NaN or
  /// infinite value is an InputError: attend writes none, so one is a damaged file.
  Tensor read_tensor(const std::string& dataset_path) const;
  /// As read_tensor, and the dataset must have `expected` shape, where -1 stands for any size
  /// on that axis (`{L, L}`, `{-1}` for any vector); another shape is an InputError naming both.
  Tensor read_tensor(const std::string& dataset_path, const Shape& expected) const;

  /// Create a float32 dataset [rows, cols] that `write_rows` fills block by block, so a
  /// matrix larger than memory can be written: chunked in blocks of `chunk_rows` whole rows
  /// (clamped to 1..rows), compressed with shuffle + gzip level 4 when `compress`; with
  /// `chunk_rows` 0, contiguous and uncompressed (`compress` must be false), its storage
  /// allocated at once (see raw_data_offset). Values not written read as 0. Missing parent
  /// groups are created; an existing object is an InputError.
  void create_row_dataset(const std::string& dataset_path, int64_t rows, int64_t cols, int64_t chunk_rows,
                          bool compress);
  /// Write `block` [n, cols] into rows first .. first + n - 1 of a two-dimensional float32
  /// dataset [rows, cols]; rows outside the dataset are an attend::Error.
  void write_rows(const std::string& dataset_path, int64_t first, const Tensor& block);
  /// Read the given rows of a two-dimensional floating-point dataset [R, C] -> [n, C], only
  /// those rows (chunked datasets: only the chunks that hold them). `rows` must be strictly
  /// increasing and within 0..R-1 (else attend::Error). A NaN or infinite value is an
  /// InputError, as in read_tensor.
  Tensor read_rows(const std::string& dataset_path, const std::vector<int64_t>& rows,
                   RowSelection selection = RowSelection::kHyperslabs) const;
  /// Where the values of a contiguous, allocated, little-endian float32 dataset start, as a
  /// byte offset from the start of the file (a user block included), so that a reader can
  /// fetch rows with plain file reads; -1 for any other dataset (chunked, compressed, another
  /// type, external or not allocated).
  int64_t raw_data_offset(const std::string& dataset_path) const;
  /// The chunk shape of a dataset; {} when it is stored contiguously.
  Shape dataset_chunk_shape(const std::string& dataset_path) const;
  /// Whether a dataset is compressed (has the deflate filter).
  bool dataset_compressed(const std::string& dataset_path) const;

  /// Write an int64 dataset of `shape` (product must equal values.size()); `{}` as the shape
  /// means one dimension of values.size(). Chunking and compression as for tensors.
  void write_int64(const std::string& dataset_path, const std::vector<int64_t>& values,
                   const Shape& shape = {});
  /// Read an integer dataset as int64 values (row-major); its shape goes to `shape` if given.
  std::vector<int64_t> read_int64(const std::string& dataset_path, Shape* shape = nullptr) const;
  /// Read values first .. first + count - 1 of a one-dimensional integer dataset as int64 (one
  /// hyperslab: a reader can walk a dataset larger than it wants to hold in blocks). Another
  /// rank is an InputError; a range outside the dataset an attend::Error.
  std::vector<int64_t> read_int64_range(const std::string& dataset_path, int64_t first, int64_t count) const;
  /// As write_int64, stored as int32.
  void write_int32(const std::string& dataset_path, const std::vector<int32_t>& values,
                   const Shape& shape = {});
  /// Read an integer dataset whose values fit in int32; a value that does not is an InputError.
  std::vector<int32_t> read_int32(const std::string& dataset_path, Shape* shape = nullptr) const;

  /// Write a one-dimensional dataset of variable-length UTF-8 strings (no embedded NULs).
  void write_strings(const std::string& dataset_path, const std::vector<std::string>& values);
  /// Read a string dataset (variable- or fixed-length; any shape, flattened row-major).
  std::vector<std::string> read_strings(const std::string& dataset_path) const;
  /// Write a scalar variable-length UTF-8 string dataset (such as a JSON document).
  void write_string(const std::string& dataset_path, const std::string& value);
  /// Read a scalar (or one-element) string dataset.
  std::string read_string(const std::string& dataset_path) const;

  /// True when the object (group or dataset; "/" for the root) has attribute `name`.
  bool has_attr(const std::string& object_path, const std::string& name) const;
  /// Set an attribute, replacing any previous value: a variable-length UTF-8 string.
  void set_attr(const std::string& object_path, const std::string& name, const std::string& value);
  void set_attr(const std::string& object_path, const std::string& name, const char* value);
  /// An int64 scalar attribute.
  void set_attr(const std::string& object_path, const std::string& name, int64_t value);
  void set_attr(const std::string& object_path, const std::string& name, int value);
  /// A float64 scalar attribute.
  void set_attr(const std::string& object_path, const std::string& name, double value);
  /// A one-dimensional float32 attribute (h5py reads a numpy array).
  void set_attr(const std::string& object_path, const std::string& name,
                const std::vector<float>& value);
  /// Read a string attribute (variable- or fixed-length).
  std::string get_attr_string(const std::string& object_path, const std::string& name) const;
  /// Read a scalar integer attribute.
  int64_t get_attr_int64(const std::string& object_path, const std::string& name) const;
  /// Read a scalar integer or floating-point attribute as double; NaN or infinity is an
  /// InputError, as in datasets.
  double get_attr_double(const std::string& object_path, const std::string& name) const;
  /// Read a floating-point attribute of any shape, flattened, as float32 (finite values only).
  std::vector<float> get_attr_floats(const std::string& object_path, const std::string& name) const;

  /// HDF5 objects (groups, datasets, types, attributes) still open in this file. Always 0
  /// between calls unless a handle leaked; tests use it.
  int64_t open_object_count() const;

 private:
  Hdf5File(std::string path, int64_t id, bool writable);
  int64_t id() const;
  void require_writable() const;

  std::string path_;
  int64_t id_ = -1;  // hid_t of the open file, -1 when closed
  bool writable_ = false;
};

}  // namespace attend
