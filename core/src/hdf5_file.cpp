#include "attend/core/hdf5_file.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <system_error>
#include <type_traits>
#include <utility>

#include "attend/core/error.hpp"
#include "attend/core/hdf5_guard.hpp"
#include "hdf5_hid.hpp"

static_assert(std::is_same_v<hid_t, int64_t>, "Hdf5File keeps its hid_t in an int64_t");

namespace attend {

using detail::Hid;

namespace {

/// Datasets at most this large are stored contiguously and uncompressed.
constexpr int64_t kCompressMinBytes = 4096;
/// Chunks aim at this size: below HDF5's default 1 MiB chunk cache, large enough for gzip.
constexpr int64_t kChunkTargetBytes = 512 * 1024;
constexpr unsigned kGzipLevel = 4;

// HDF5 prints its error stack to stderr by default; attend reports one line instead. The
// setting is per thread in a thread-safe HDF5 build (Debian's is), hence thread_local.
void silence_hdf5_errors() {
  thread_local bool silenced = false;
  if (!silenced) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    silenced = true;
  }
}

herr_t take_innermost(unsigned n, const H5E_error2_t* error, void* data) {
  if (n == 0 && error->desc != nullptr) *static_cast<std::string*>(data) = error->desc;
  return 0;
}

// The most specific message on HDF5's error stack (walked from the innermost call).
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_innermost, &reason);
  H5Eclear2(H5E_DEFAULT);
  return reason.empty() ? std::string("HDF5 error") : "HDF5: " + reason;
}

[[noreturn]] void fail(const std::string& file, const std::string& object, const std::string& what) {
  throw InputError(file, 0, object + ": " + what);
}

// The element count of a dataset of `shape`, after checking that its values fit in the file at
// all: deflate packs at most about 1032:1, so more bytes than 1032 times the file's size (plus
// 1 MiB) is a damaged file, whose dimensions would otherwise overflow or ask for petabytes.
int64_t checked_numel(const std::string& file, const std::string& label, const Shape& shape,
                      int64_t element_bytes) {
  std::error_code error;
  const std::uintmax_t file_bytes = std::filesystem::file_size(file, error);
  const double limit = error ? std::numeric_limits<double>::infinity()
                             : 1032.0 * static_cast<double>(file_bytes) + static_cast<double>(1 << 20);
  double bytes = static_cast<double>(element_bytes);
  for (int64_t d : shape) {
    if (d < 0) fail(file, label, "negative dimension in shape " + shape_to_string(shape) + " (a damaged file?)");
    bytes *= static_cast<double>(d);
  }
  if (bytes > limit) {
    fail(file, label, "shape " + shape_to_string(shape) + " cannot be stored in a file of " +
                          std::to_string(file_bytes) + " bytes (a damaged file?)");
  }
  return shape_numel(shape);
}

std::string dataset_label(const std::string& path) { return "dataset '" + path + "'"; }
std::string attr_label(const std::string& object, const std::string& name) {
  return "attribute '" + name + "' of '" + object + "'";
}

// "/a/b" for "a/b", "/a/b/" and "/a/b"; "/" stays.
std::string normalize(const std::string& path) {
  std::string out = (path.empty() || path[0] != '/') ? "/" + path : path;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string parent_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

// Prefixes "/a", "/a/b", ... of a normalized path, one per component.
std::vector<std::string> prefixes(const std::string& path) {
  std::vector<std::string> out;
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if ((i == path.size() || path[i] == '/') && path[i - 1] != '/') out.push_back(path.substr(0, i));
  }
  return out;
}

Hid checked(hid_t id, Hid::Closer closer, const std::string& file, const std::string& object,
            const std::string& action) {
  if (id < 0) fail(file, object, "cannot " + action + " (" + hdf5_reason() + ")");
  return Hid(id, closer);
}

void check(herr_t status, const std::string& file, const std::string& object,
           const std::string& action) {
  if (status < 0) fail(file, object, "cannot " + action + " (" + hdf5_reason() + ")");
}

std::string describe_type(hid_t type) {
  const std::string bits = std::to_string(H5Tget_size(type) * 8);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + bits;
    case H5T_FLOAT: return "float" + bits;
    case H5T_STRING: return "strings";
    case H5T_ENUM: return "an enum (h5py stores bool this way)";
    case H5T_COMPOUND: return "a compound type";
    case H5T_ARRAY: return "an array type";
    case H5T_VLEN: return "variable-length sequences";
    case H5T_REFERENCE: return "references";
    default: return "an unsupported type";
  }
}

Shape space_shape(hid_t space) {
  if (H5Sget_simple_extent_type(space) == H5S_NULL) return {0};
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
  if (rank > 0) H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  return Shape(dims.begin(), dims.end());
}

Hid make_space(const Shape& shape) {
  if (shape.empty()) return Hid(H5Screate(H5S_SCALAR), H5Sclose);
  const std::vector<hsize_t> dims(shape.begin(), shape.end());
  return Hid(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
}

Hid utf8_string_type() {
  Hid type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

// Whole slices along the leading axis, as many as fit in kChunkTargetBytes; when a single
// slice is already too large, the same rule moves on to the next axis.
std::vector<hsize_t> chunk_shape(const Shape& shape, int64_t element_bytes) {
  std::vector<hsize_t> chunk(shape.begin(), shape.end());
  int64_t slice_bytes = element_bytes * shape_numel(shape);
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    slice_bytes /= shape[axis];  // bytes of one index along `axis`
    if (slice_bytes >= kChunkTargetBytes) {
      chunk[axis] = 1;
      continue;
    }
    chunk[axis] = static_cast<hsize_t>(std::clamp<int64_t>(kChunkTargetBytes / slice_bytes, 1,
                                                           shape[axis]));
    break;
  }
  return chunk;
}

bool object_exists(hid_t fid, const std::string& path) {
  for (const std::string& prefix : prefixes(path)) {
    if (H5Lexists(fid, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
  }
  return H5Oexists_by_name(fid, path.c_str(), H5P_DEFAULT) > 0;
}

Hid open_object(const std::string& file, hid_t fid, const std::string& path,
                const std::string& label) {
  if (!object_exists(fid, path)) fail(file, label, "does not exist");
  return checked(H5Oopen(fid, path.c_str(), H5P_DEFAULT), H5Oclose, file, label, "open");
}

Hid open_dataset(const std::string& file, hid_t fid, const std::string& path) {
  const std::string label = dataset_label(path);
  Hid object = open_object(file, fid, path, label);
  if (H5Iget_type(object.get()) != H5I_DATASET) fail(file, label, "is a group, expected a dataset");
  return object;
}

/// A dataset of floating-point values (read as float32); anything else is refused.
Hid open_float_dataset(const std::string& file, hid_t fid, const std::string& path) {
  Hid dataset = open_dataset(file, fid, path);
  Hid type(H5Dget_type(dataset.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_FLOAT) {
    fail(file, dataset_label(path), "expected float32 values, found " + describe_type(type.get()));
  }
  return dataset;
}

Hid open_integer_dataset(const std::string& file, hid_t fid, const std::string& path) {
  Hid dataset = open_dataset(file, fid, path);
  Hid type(H5Dget_type(dataset.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_INTEGER) {
    fail(file, dataset_label(path), "expected integer values, found " + describe_type(type.get()));
  }
  return dataset;
}

Hid open_group(const std::string& file, hid_t fid, const std::string& path) {
  const std::string label = "group '" + path + "'";
  Hid object = open_object(file, fid, path, label);
  if (H5Iget_type(object.get()) != H5I_GROUP) fail(file, label, "is a dataset, expected a group");
  return object;
}

Hid open_attr(const std::string& file, hid_t fid, const std::string& object,
              const std::string& name) {
  if (!object_exists(fid, object)) fail(file, "object '" + object + "'", "does not exist");
  const std::string label = attr_label(object, name);
  if (H5Aexists_by_name(fid, object.c_str(), name.c_str(), H5P_DEFAULT) <= 0) {
    fail(file, label, "does not exist");
  }
  return checked(H5Aopen_by_name(fid, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
                 H5Aclose, file, label, "open");
}

// Frees the strings HDF5 allocated for a variable-length read, also when copying throws.
struct VlenStrings {
  hid_t type;
  hid_t space;
  std::vector<char*> pointers;
  ~VlenStrings() { H5Dvlen_reclaim(type, space, H5P_DEFAULT, pointers.data()); }
};

// Read every string of a dataset or attribute (`read` wraps H5Dread / H5Aread), variable- or
// fixed-length, flattened row-major.
std::vector<std::string> read_string_values(hid_t file_type, hid_t space,
                                            const std::function<herr_t(hid_t, void*)>& read,
                                            const std::string& file, const std::string& label) {
  if (H5Tget_class(file_type) != H5T_STRING) {
    fail(file, label, "expected strings, found " + describe_type(file_type));
  }
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  if (count <= 0) return {};
  std::vector<std::string> values;
  values.reserve(static_cast<std::size_t>(count));
  if (H5Tis_variable_str(file_type) > 0) {
    Hid memory_type = utf8_string_type();
    H5Tset_cset(memory_type.get(), H5Tget_cset(file_type));
    VlenStrings buffer{memory_type.get(), space, std::vector<char*>(count, nullptr)};
    check(read(memory_type.get(), buffer.pointers.data()), file, label, "read strings");
    for (const char* s : buffer.pointers) values.emplace_back(s == nullptr ? "" : s);
  } else {
    const std::size_t width = H5Tget_size(file_type);
    Hid memory_type(H5Tcopy(file_type), H5Tclose);
    std::vector<char> bytes(width * static_cast<std::size_t>(count));
    check(read(memory_type.get(), bytes.data()), file, label, "read strings");
    for (hssize_t i = 0; i < count; ++i) {
      const char* s = bytes.data() + i * width;
      values.emplace_back(s, strnlen(s, width));
    }
  }
  return values;
}

Hid file_access_plist() {
  Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  // Closing the file closes everything in it, so no handle can keep it open by accident.
  H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG);
  // Lock where the file system can; where it cannot (some network file systems), still open.
  H5Pset_file_locking(fapl.get(), true, true);
  return fapl;
}

Hid group_create_plist() {
  Hid gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
  H5Pset_link_creation_order(gcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  return gcpl;
}

}  // namespace

// ---- opening and closing --------------------------------------------------------------------

Hdf5File::Hdf5File(std::string path, int64_t id, bool writable)
    : path_(std::move(path)), id_(id), writable_(writable) {}

Hdf5File::Hdf5File(Hdf5File&& other) noexcept
    : path_(std::move(other.path_)), id_(std::exchange(other.id_, -1)), writable_(other.writable_) {}

Hdf5File& Hdf5File::operator=(Hdf5File&& other) noexcept {
  if (this != &other) {
    if (id_ >= 0) H5Fclose(id_);
    path_ = std::move(other.path_);
    id_ = std::exchange(other.id_, -1);
    writable_ = other.writable_;
  }
  return *this;
}

Hdf5File::~Hdf5File() {
  if (id_ >= 0) H5Fclose(id_);
}

Hdf5File Hdf5File::create(const std::string& path, const std::string& schema,
                          int64_t schema_version) {
  silence_hdf5_errors();
  Hid fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  H5Pset_link_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  Hid fapl = file_access_plist();
  const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get());
  if (id < 0) throw InputError(path, 0, "cannot create HDF5 file (" + hdf5_reason() + ")");
  Hdf5File file(path, id, true);
  file.set_attr("/", "schema", schema);
  file.set_attr("/", "schema_version", schema_version);
  return file;
}

namespace {
int64_t open_file(const std::string& path, unsigned flags) {
  silence_hdf5_errors();
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw InputError(path, 0, "file does not exist");
  if (std::filesystem::is_directory(path, error)) {
    throw InputError(path, 0, "is a directory, expected an HDF5 file");
  }
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 < 0) throw InputError(path, 0, "cannot read file (" + hdf5_reason() + ")");
  if (is_hdf5 == 0) throw InputError(path, 0, "not an HDF5 file");
  // An input: first let a child process find out whether libhdf5 survives reading it.
  if (flags == H5F_ACC_RDONLY) require_hdf5_survives(path);
  Hid fapl = file_access_plist();
  const hid_t id = H5Fopen(path.c_str(), flags, fapl.get());
  if (id < 0) throw InputError(path, 0, "cannot open HDF5 file (" + hdf5_reason() + ")");
  return id;
}
}  // namespace

Hdf5File Hdf5File::open(const std::string& path) {
  return Hdf5File(path, open_file(path, H5F_ACC_RDONLY), false);
}

Hdf5File Hdf5File::open_rw(const std::string& path) {
  return Hdf5File(path, open_file(path, H5F_ACC_RDWR), true);
}

void Hdf5File::close() {
  if (id_ < 0) return;
  silence_hdf5_errors();
  const herr_t status = H5Fclose(std::exchange(id_, -1));
  if (status < 0) throw InputError(path_, 0, "cannot finish writing (" + hdf5_reason() + ")");
}

int64_t Hdf5File::id() const {
  silence_hdf5_errors();
  ATTEND_CHECK(id_ >= 0, "HDF5 file " << path_ << " is closed");
  return id_;
}

void Hdf5File::require_writable() const {
  ATTEND_CHECK(writable_, "HDF5 file " << path_ << " was opened read-only");
}

int64_t Hdf5File::open_object_count() const {
  return H5Fget_obj_count(id(), H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE |
                                    H5F_OBJ_ATTR | H5F_OBJ_LOCAL);
}

// ---- schema ---------------------------------------------------------------------------------

std::string Hdf5File::schema() const {
  if (!has_attr("/", "schema")) {
    throw InputError(path_, 0, "not an attend file: the root has no 'schema' attribute");
  }
  return get_attr_string("/", "schema");
}

int64_t Hdf5File::schema_version() const {
  if (!has_attr("/", "schema_version")) {
    throw InputError(path_, 0, "not an attend file: the root has no 'schema_version' attribute");
  }
  return get_attr_int64("/", "schema_version");
}

void Hdf5File::require_schema(const std::string& schema, int64_t max_version) const {
  const std::string found = this->schema();
  if (found != schema) {
    throw InputError(path_, 0, "expected an attend file with schema '" + schema +
                                   "', found schema '" + found + "'");
  }
  const int64_t version = schema_version();
  if (version < 1 || version > max_version) {
    throw InputError(path_, 0, "schema '" + schema + "' version " + std::to_string(version) +
                                   " is not supported (this build reads versions 1 to " +
                                   std::to_string(max_version) + ")");
  }
}

// ---- groups ---------------------------------------------------------------------------------

bool Hdf5File::exists(const std::string& object_path) const {
  return object_exists(id(), normalize(object_path));
}

namespace {
herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* data) {
  try {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  } catch (...) {
    return -1;  // an exception must not cross HDF5's C frames
  }
}
}  // namespace

std::vector<std::string> Hdf5File::list(const std::string& group_path, ListOrder order) const {
  const std::string path = normalize(group_path);
  const std::string label = "group '" + path + "'";
  Hid group = open_group(path_, id(), path);
  H5_index_t index = H5_INDEX_NAME;
  if (order == ListOrder::kCreation) {
    Hid gcpl = checked(H5Gget_create_plist(group.get()), H5Pclose, path_, label, "read properties");
    unsigned flags = 0;
    H5Pget_link_creation_order(gcpl.get(), &flags);
    if ((flags & H5P_CRT_ORDER_TRACKED) == 0) {
      fail(path_, label, "does not record the creation order of its children");
    }
    index = H5_INDEX_CRT_ORDER;
  }
  std::vector<std::string> names;
  check(H5Literate(group.get(), index, H5_ITER_INC, nullptr, collect_name, &names), path_, label,
        "list children");
  if (order == ListOrder::kName) std::sort(names.begin(), names.end());
  return names;
}

void Hdf5File::create_group(const std::string& group_path) {
  require_writable();
  const hid_t fid = id();
  for (const std::string& prefix : prefixes(normalize(group_path))) {
    if (H5Lexists(fid, prefix.c_str(), H5P_DEFAULT) > 0) {
      open_group(path_, fid, prefix);  // throws when it is a dataset
      continue;
    }
    Hid gcpl = group_create_plist();
    checked(H5Gcreate2(fid, prefix.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), H5Gclose,
            path_, "group '" + prefix + "'", "create");
  }
}

// ---- datasets -------------------------------------------------------------------------------

Shape Hdf5File::dataset_shape(const std::string& dataset_path) const {
  Hid dataset = open_dataset(path_, id(), normalize(dataset_path));
  Hid space(H5Dget_space(dataset.get()), H5Sclose);
  return space_shape(space.get());
}

namespace {

// Training stops on a non-finite loss and no writer of attend stores NaN or infinity, so one
// in a file is damage; refused here it cannot surface later as NaN outputs or an internal
// error deep inside a computation.
void require_finite(const std::string& file, const std::string& label, const Tensor& tensor) {
  const float* bad = std::find_if(tensor.begin(), tensor.end(), [](float v) { return !std::isfinite(v); });
  if (bad != tensor.end()) {
    fail(file, label, "a non-finite value (" + std::to_string(*bad) + ") at flat index " +
                          std::to_string(bad - tensor.begin()) + " (a damaged file?)");
  }
}

// What write_dataset stores: `data`, row-major, of `shape`, as `file_type`.
struct DatasetWrite {
  const Shape& shape;
  hid_t file_type;
  hid_t memory_type;
  int64_t element_bytes;
  const void* data;
  bool compress;
};

// Create a dataset (and its parent groups) and write it; an existing object is an error.
void write_dataset(Hdf5File& file, hid_t fid, const std::string& path, const DatasetWrite& w) {
  const std::string label = dataset_label(path);
  if (object_exists(fid, path)) fail(file.path(), label, "already exists");
  const std::string parent = parent_of(path);
  if (parent != "/") file.create_group(parent);
  Hid space = make_space(w.shape);
  Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  const int64_t bytes = shape_numel(w.shape) * w.element_bytes;
  if (w.compress && !w.shape.empty() && bytes > kCompressMinBytes) {
    const std::vector<hsize_t> chunk = chunk_shape(w.shape, w.element_bytes);
    H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data());
    H5Pset_shuffle(dcpl.get());
    H5Pset_deflate(dcpl.get(), kGzipLevel);
  }
  Hid dataset = checked(H5Dcreate2(fid, path.c_str(), w.file_type, space.get(), H5P_DEFAULT,
                                   dcpl.get(), H5P_DEFAULT),
                        H5Dclose, file.path(), label, "create");
  if (bytes > 0) {
    check(H5Dwrite(dataset.get(), w.memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, w.data),
          file.path(), label, "write");
  }
}

}  // namespace

void Hdf5File::write_tensor(const std::string& dataset_path, const Tensor& tensor, bool compress) {
  require_writable();
  write_dataset(*this, id(), normalize(dataset_path),
                {tensor.shape(), H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 4, tensor.data(), compress});
}

Tensor Hdf5File::read_tensor(const std::string& dataset_path) const {
  const std::string path = normalize(dataset_path);
  const std::string label = dataset_label(path);
  Hid dataset = open_float_dataset(path_, id(), path);
  Hid space(H5Dget_space(dataset.get()), H5Sclose);
  const Shape shape = space_shape(space.get());
  if (static_cast<int>(shape.size()) > Tensor::kMaxRank) {
    fail(path_, label, "has rank " + std::to_string(shape.size()) + ", at most " +
                           std::to_string(Tensor::kMaxRank) + " is supported");
  }
  checked_numel(path_, label, shape, 4);
  Tensor tensor(shape);
  if (tensor.numel() > 0) {
    check(H5Dread(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, tensor.data()),
          path_, label, "read");
  }
  require_finite(path_, label, tensor);
  return tensor;
}

Tensor Hdf5File::read_tensor(const std::string& dataset_path, const Shape& expected) const {
  Tensor tensor = read_tensor(dataset_path);
  const Shape& found = tensor.shape();
  bool matches = found.size() == expected.size();
  for (std::size_t i = 0; matches && i < found.size(); ++i) matches = expected[i] < 0 || expected[i] == found[i];
  if (!matches) {
    std::string wanted = "[";
    for (std::size_t i = 0; i < expected.size(); ++i) {
      wanted += (i > 0 ? ", " : "") + (expected[i] < 0 ? std::string("any") : std::to_string(expected[i]));
    }
    fail(path_, dataset_label(normalize(dataset_path)), "expected shape " + wanted + "], found " + shape_to_string(found));
  }
  return tensor;
}

// ---- row blocks -----------------------------------------------------------------------------

void Hdf5File::create_row_dataset(const std::string& dataset_path, int64_t rows, int64_t cols, int64_t chunk_rows,
                                  bool compress) {
  require_writable();
  ATTEND_CHECK(rows >= 0 && cols >= 0, "create_row_dataset: negative shape " << rows << " x " << cols);
  const hid_t fid = id();
  const std::string path = normalize(dataset_path);
  const std::string label = dataset_label(path);
  if (object_exists(fid, path)) fail(path_, label, "already exists");
  const std::string parent = parent_of(path);
  if (parent != "/") create_group(parent);
  ATTEND_CHECK(chunk_rows >= 0 && !(chunk_rows == 0 && compress),
               "create_row_dataset: " << chunk_rows << " rows per chunk" << (compress ? " with compression" : ""));
  Hid space = make_space({rows, cols});
  Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (chunk_rows == 0) {
    H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY);
  } else if (rows > 0 && cols > 0) {
    const std::vector<hsize_t> chunk = {static_cast<hsize_t>(std::clamp<int64_t>(chunk_rows, 1, rows)),
                                        static_cast<hsize_t>(cols)};
    H5Pset_chunk(dcpl.get(), 2, chunk.data());
    if (compress) {
      H5Pset_shuffle(dcpl.get());
      H5Pset_deflate(dcpl.get(), kGzipLevel);
    }
  }
  checked(H5Dcreate2(fid, path.c_str(), H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
          H5Dclose, path_, label, "create");
}

void Hdf5File::write_rows(const std::string& dataset_path, int64_t first, const Tensor& block) {
  require_writable();
  const std::string path = normalize(dataset_path);
  const std::string label = dataset_label(path);
  Hid dataset = open_dataset(path_, id(), path);
  Hid space(H5Dget_space(dataset.get()), H5Sclose);
  const Shape shape = space_shape(space.get());
  ATTEND_CHECK(shape.size() == 2 && block.rank() == 2 && block.dim(1) == shape[1] && first >= 0 &&
                   first + block.dim(0) <= shape[0],
               "write_rows: block " << shape_to_string(block.shape()) << " at row " << first << " does not fit "
                                    << label << " of shape " << shape_to_string(shape));
  if (block.numel() == 0) return;
  const std::vector<hsize_t> start = {static_cast<hsize_t>(first), 0};
  const std::vector<hsize_t> count = {static_cast<hsize_t>(block.dim(0)), static_cast<hsize_t>(block.dim(1))};
  H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
  Hid memory = make_space(block.shape());
  check(H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, memory.get(), space.get(), H5P_DEFAULT, block.data()), path_,
        label, "write rows");
}

Tensor Hdf5File::read_rows(const std::string& dataset_path, const std::vector<int64_t>& rows,
                           RowSelection selection) const {
  const std::string path = normalize(dataset_path);
  const std::string label = dataset_label(path);
  Hid dataset = open_float_dataset(path_, id(), path);
  Hid space(H5Dget_space(dataset.get()), H5Sclose);
  const Shape shape = space_shape(space.get());
  if (shape.size() != 2) fail(path_, label, "expected two dimensions, found shape " + shape_to_string(shape));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ATTEND_CHECK(rows[i] >= 0 && rows[i] < shape[0] && (i == 0 || rows[i] > rows[i - 1]),
                 "read_rows: rows must be strictly increasing within 0.." << shape[0] - 1 << ", got " << rows[i]
                                                                           << " at position " << i);
  }
  const auto n = static_cast<int64_t>(rows.size());
  const int64_t cols = shape[1];
  Tensor block({n, cols});  // [n, C]
  if (block.numel() == 0) return block;
  if (selection == RowSelection::kHyperslabs) {
    // One read per run: HDF5 1.10 maps a union of many hyperslabs onto a chunked dataset's
    // chunks in time that grows with runs x chunks, slower than separate reads beyond a few
    // hundred runs (docs/performance.md, "Feature rows out of core").
    for (int64_t i = 0; i < n;) {
      int64_t end = i + 1;  // rows[i .. end) are consecutive
      while (end < n && rows[end] == rows[end - 1] + 1) ++end;
      const std::vector<hsize_t> start = {static_cast<hsize_t>(rows[i]), 0};
      const std::vector<hsize_t> count = {static_cast<hsize_t>(end - i), static_cast<hsize_t>(cols)};
      H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
      Hid memory = make_space({end - i, cols});
      check(H5Dread(dataset.get(), H5T_NATIVE_FLOAT, memory.get(), space.get(), H5P_DEFAULT, block.data() + i * cols),
            path_, label, "read rows");
      i = end;
    }
  } else {
    std::vector<hsize_t> points(static_cast<std::size_t>(2 * n * cols));  // [n * C, 2] (row, column)
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t c = 0; c < cols; ++c) {
        points[2 * (i * cols + c)] = static_cast<hsize_t>(rows[i]);
        points[2 * (i * cols + c) + 1] = static_cast<hsize_t>(c);
      }
    }
    H5Sselect_elements(space.get(), H5S_SELECT_SET, static_cast<std::size_t>(n * cols), points.data());
    Hid memory = make_space(block.shape());
    check(H5Dread(dataset.get(), H5T_NATIVE_FLOAT, memory.get(), space.get(), H5P_DEFAULT, block.data()), path_,
          label, "read rows");
  }
  require_finite(path_, label, block);
  return block;
}

int64_t Hdf5File::raw_data_offset(const std::string& dataset_path) const {
  const std::string path = normalize(dataset_path);
  Hid dataset = open_dataset(path_, id(), path);
  Hid dcpl(H5Dget_create_plist(dataset.get()), H5Pclose);
  Hid type(H5Dget_type(dataset.get()), H5Tclose);
  if (H5Pget_layout(dcpl.get()) != H5D_CONTIGUOUS || H5Pget_external_count(dcpl.get()) != 0 ||
      H5Tequal(type.get(), H5T_IEEE_F32LE) <= 0) {
    return -1;
  }
  const haddr_t address = H5Dget_offset(dataset.get());
  if (address == HADDR_UNDEF) return -1;
  Hid fcpl(H5Fget_create_plist(id()), H5Pclose);
  hsize_t user_block = 0;
  H5Pget_userblock(fcpl.get(), &user_block);
  return static_cast<int64_t>(address + user_block);
}

Shape Hdf5File::dataset_chunk_shape(const std::string& dataset_path) const {
  const std::string path = normalize(dataset_path);
  Hid dataset = open_dataset(path_, id(), path);
  Hid dcpl(H5Dget_create_plist(dataset.get()), H5Pclose);
  if (H5Pget_layout(dcpl.get()) != H5D_CHUNKED) return {};
  std::vector<hsize_t> chunk(static_cast<std::size_t>(H5S_MAX_RANK));
  const int rank = H5Pget_chunk(dcpl.get(), H5S_MAX_RANK, chunk.data());
  return Shape(chunk.begin(), chunk.begin() + std::max(rank, 0));
}

bool Hdf5File::dataset_compressed(const std::string& dataset_path) const {
  const std::string path = normalize(dataset_path);
  Hid dataset = open_dataset(path_, id(), path);
  Hid dcpl(H5Dget_create_plist(dataset.get()), H5Pclose);
  for (int i = 0; i < H5Pget_nfilters(dcpl.get()); ++i) {
    unsigned flags = 0;
    std::size_t values = 0;
    if (H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &values, nullptr, 0, nullptr, nullptr) ==
        H5Z_FILTER_DEFLATE) {
      return true;
    }
  }
  return false;
}

namespace {
Shape shape_or_vector(const Shape& shape, std::size_t size, const std::string& file,
                      const std::string& path) {
  if (shape.empty()) return {static_cast<int64_t>(size)};
  ATTEND_CHECK(shape_numel(shape) == static_cast<int64_t>(size),
               "dataset '" << path << "' in " << file << ": shape " << shape_to_string(shape)
                           << " does not hold " << size << " values");
  return shape;
}
}  // namespace

void Hdf5File::write_int64(const std::string& dataset_path, const std::vector<int64_t>& values,
                           const Shape& shape) {
  require_writable();
  const std::string path = normalize(dataset_path);
  const Shape full = shape_or_vector(shape, values.size(), path_, path);
  write_dataset(*this, id(), path,
                {full, H5T_STD_I64LE, H5T_NATIVE_INT64, 8, values.data(), true});
}

void Hdf5File::write_int32(const std::string& dataset_path, const std::vector<int32_t>& values,
                           const Shape& shape) {
  require_writable();
  const std::string path = normalize(dataset_path);
  const Shape full = shape_or_vector(shape, values.size(), path_, path);
  write_dataset(*this, id(), path,
                {full, H5T_STD_I32LE, H5T_NATIVE_INT32, 4, values.data(), true});
}

std::vector<int64_t> Hdf5File::read_int64(const std::string& dataset_path, Shape* shape) const {
  const std::string path = normalize(dataset_path);
  const std::string label = dataset_label(path);
  Hid dataset = open_integer_dataset(path_, id(), path);
  Hid space(H5Dget_space(dataset.get()), H5Sclose);
  const Shape found = space_shape(space.get());
  std::vector<int64_t> values(static_cast<std::size_t>(checked_numel(path_, label, found, 8)));
  if (!values.empty()) {
    check(H5Dread(dataset.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
          path_, label, "read");
  }
  if (shape != nullptr) *shape = found;
  return values;
}

std::vector<int64_t> Hdf5File::read_int64_range(const std::string& dataset_path, int64_t first, int64_t count) const {
  const std::string path = normalize(dataset_path);
  const std::string label = dataset_label(path);
  Hid dataset = open_integer_dataset(path_, id(), path);
  Hid space(H5Dget_space(dataset.get()), H5Sclose);
  const Shape shape = space_shape(space.get());
  if (shape.size() != 1) fail(path_, label, "expected one dimension, found shape " + shape_to_string(shape));
  ATTEND_CHECK(first >= 0 && count >= 0 && first + count <= shape[0],
               "read_int64_range: values " << first << " .. " << first + count - 1 << " of " << shape[0]);
  std::vector<int64_t> values(static_cast<std::size_t>(count));
  if (values.empty()) return values;
  const std::vector<hsize_t> start = {static_cast<hsize_t>(first)}, extent = {static_cast<hsize_t>(count)};
  H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr);
  Hid memory = make_space({count});
  check(H5Dread(dataset.get(), H5T_NATIVE_INT64, memory.get(), space.get(), H5P_DEFAULT, values.data()), path_, label,
        "read");
  return values;
}

std::vector<int32_t> Hdf5File::read_int32(const std::string& dataset_path, Shape* shape) const {
  const std::vector<int64_t> wide = read_int64(dataset_path, shape);
  std::vector<int32_t> values(wide.size());
  for (std::size_t i = 0; i < wide.size(); ++i) {
    if (wide[i] < std::numeric_limits<int32_t>::min() ||
        wide[i] > std::numeric_limits<int32_t>::max()) {
      fail(path_, dataset_label(normalize(dataset_path)),
           "value " + std::to_string(wide[i]) + " at index " + std::to_string(i) +
               " does not fit in int32");
    }
    values[i] = static_cast<int32_t>(wide[i]);
  }
  return values;
}

void Hdf5File::write_strings(const std::string& dataset_path,
                             const std::vector<std::string>& values) {
  require_writable();
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const std::string& value : values) {
    ATTEND_CHECK(value.find('\0') == std::string::npos,
                 "HDF5 strings cannot hold NUL characters (dataset " << dataset_path << ")");
    pointers.push_back(value.c_str());
  }
  Hid type = utf8_string_type();
  // Variable-length data lives on HDF5's heap, which filters do not compress: no chunking.
  write_dataset(*this, id(), normalize(dataset_path),
                {Shape{static_cast<int64_t>(values.size())}, type.get(), type.get(),
                 static_cast<int64_t>(sizeof(char*)), pointers.data(), false});
}

void Hdf5File::write_string(const std::string& dataset_path, const std::string& value) {
  require_writable();
  ATTEND_CHECK(value.find('\0') == std::string::npos,
               "HDF5 strings cannot hold NUL characters (dataset " << dataset_path << ")");
  const char* pointer = value.c_str();
  Hid type = utf8_string_type();
  write_dataset(*this, id(), normalize(dataset_path),
                {Shape{}, type.get(), type.get(), static_cast<int64_t>(sizeof(char*)), &pointer,
                 false});
}

std::vector<std::string> Hdf5File::read_strings(const std::string& dataset_path) const {
  const std::string path = normalize(dataset_path);
  Hid dataset = open_dataset(path_, id(), path);
  Hid type(H5Dget_type(dataset.get()), H5Tclose);
  Hid space(H5Dget_space(dataset.get()), H5Sclose);
  const hid_t dataset_id = dataset.get();
  return read_string_values(
      type.get(), space.get(),
      [dataset_id](hid_t memory_type, void* buffer) {
        return H5Dread(dataset_id, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer);
      },
      path_, dataset_label(path));
}

std::string Hdf5File::read_string(const std::string& dataset_path) const {
  std::vector<std::string> values = read_strings(dataset_path);
  if (values.size() != 1) {
    fail(path_, dataset_label(normalize(dataset_path)),
         "expected one string, found " + std::to_string(values.size()));
  }
  return std::move(values[0]);
}

// ---- attributes -----------------------------------------------------------------------------

bool Hdf5File::has_attr(const std::string& object_path, const std::string& name) const {
  const std::string object = normalize(object_path);
  const hid_t fid = id();
  return object_exists(fid, object) &&
         H5Aexists_by_name(fid, object.c_str(), name.c_str(), H5P_DEFAULT) > 0;
}

namespace {
// Replace attribute `name` of `object` with one of `file_type` over `space`.
void write_attr(const std::string& file, hid_t fid, const std::string& object,
                const std::string& name, hid_t file_type, hid_t memory_type, hid_t space,
                const void* data) {
  if (!object_exists(fid, object)) fail(file, "object '" + object + "'", "does not exist");
  const std::string label = attr_label(object, name);
  if (H5Aexists_by_name(fid, object.c_str(), name.c_str(), H5P_DEFAULT) > 0) {
    check(H5Adelete_by_name(fid, object.c_str(), name.c_str(), H5P_DEFAULT), file, label,
          "replace");
  }
  Hid attr = checked(H5Acreate_by_name(fid, object.c_str(), name.c_str(), file_type, space,
                                       H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                     H5Aclose, file, label, "create");
  if (data != nullptr) check(H5Awrite(attr.get(), memory_type, data), file, label, "write");
}

// Open a scalar numeric attribute and return its type, after checking it holds one value
// of an accepted class.
Hid open_scalar_attr(const std::string& file, hid_t fid, const std::string& object,
                     const std::string& name, bool accept_float, const char* expected) {
  const std::string label = attr_label(object, name);
  Hid attr = open_attr(file, fid, object, name);
  Hid type(H5Aget_type(attr.get()), H5Tclose);
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_INTEGER && !(accept_float && type_class == H5T_FLOAT)) {
    fail(file, label, std::string("expected ") + expected + ", found " + describe_type(type.get()));
  }
  Hid space(H5Aget_space(attr.get()), H5Sclose);
  if (H5Sget_simple_extent_npoints(space.get()) != 1) {
    fail(file, label, std::string("expected ") + expected + ", found shape " +
                          shape_to_string(space_shape(space.get())));
  }
  return attr;
}
}  // namespace

void Hdf5File::set_attr(const std::string& object_path, const std::string& name,
                        const std::string& value) {
  require_writable();
  ATTEND_CHECK(value.find('\0') == std::string::npos,
               "HDF5 strings cannot hold NUL characters (attribute " << name << ")");
  const char* pointer = value.c_str();
  Hid type = utf8_string_type();
  Hid space = make_space({});
  write_attr(path_, id(), normalize(object_path), name, type.get(), type.get(), space.get(),
             &pointer);
}

void Hdf5File::set_attr(const std::string& object_path, const std::string& name,
                        const char* value) {
  set_attr(object_path, name, std::string(value));
}

void Hdf5File::set_attr(const std::string& object_path, const std::string& name, int64_t value) {
  require_writable();
  Hid space = make_space({});
  write_attr(path_, id(), normalize(object_path), name, H5T_STD_I64LE, H5T_NATIVE_INT64,
             space.get(), &value);
}

void Hdf5File::set_attr(const std::string& object_path, const std::string& name, int value) {
  set_attr(object_path, name, static_cast<int64_t>(value));
}

void Hdf5File::set_attr(const std::string& object_path, const std::string& name, double value) {
  require_writable();
  Hid space = make_space({});
  write_attr(path_, id(), normalize(object_path), name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
             space.get(), &value);
}

void Hdf5File::set_attr(const std::string& object_path, const std::string& name,
                        const std::vector<float>& value) {
  require_writable();
  // An empty vector is stored with a null dataspace (h5py reads it as h5py.Empty).
  Hid space = value.empty() ? Hid(H5Screate(H5S_NULL), H5Sclose)
                            : make_space({static_cast<int64_t>(value.size())});
  write_attr(path_, id(), normalize(object_path), name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT,
             space.get(), value.empty() ? nullptr : value.data());
}

std::string Hdf5File::get_attr_string(const std::string& object_path,
                                      const std::string& name) const {
  const std::string object = normalize(object_path);
  const std::string label = attr_label(object, name);
  Hid attr = open_attr(path_, id(), object, name);
  Hid type(H5Aget_type(attr.get()), H5Tclose);
  Hid space(H5Aget_space(attr.get()), H5Sclose);
  const hid_t attr_id = attr.get();
  std::vector<std::string> values = read_string_values(
      type.get(), space.get(),
      [attr_id](hid_t memory_type, void* buffer) { return H5Aread(attr_id, memory_type, buffer); },
      path_, label);
  if (values.size() != 1) {
    fail(path_, label, "expected one string, found " + std::to_string(values.size()));
  }
  return std::move(values[0]);
}

int64_t Hdf5File::get_attr_int64(const std::string& object_path, const std::string& name) const {
  const std::string object = normalize(object_path);
  Hid attr = open_scalar_attr(path_, id(), object, name, false, "one integer");
  int64_t value = 0;
  check(H5Aread(attr.get(), H5T_NATIVE_INT64, &value), path_, attr_label(object, name), "read");
  return value;
}

double Hdf5File::get_attr_double(const std::string& object_path, const std::string& name) const {
  const std::string object = normalize(object_path);
  Hid attr = open_scalar_attr(path_, id(), object, name, true, "one number");
  double value = 0;
  check(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &value), path_, attr_label(object, name), "read");
  if (!std::isfinite(value)) fail(path_, attr_label(object, name), "a non-finite value (a damaged file?)");
  return value;
}

std::vector<float> Hdf5File::get_attr_floats(const std::string& object_path,
                                             const std::string& name) const {
  const std::string object = normalize(object_path);
  const std::string label = attr_label(object, name);
  Hid attr = open_attr(path_, id(), object, name);
  Hid type(H5Aget_type(attr.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_FLOAT) {
    fail(path_, label, "expected float values, found " + describe_type(type.get()));
  }
  Hid space(H5Aget_space(attr.get()), H5Sclose);
  std::vector<float> values(static_cast<std::size_t>(
      std::max<hssize_t>(H5Sget_simple_extent_npoints(space.get()), 0)));
  if (!values.empty()) {
    check(H5Aread(attr.get(), H5T_NATIVE_FLOAT, values.data()), path_, label, "read");
  }
  if (!std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); })) {
    fail(path_, label, "a non-finite value (a damaged file?)");
  }
  return values;
}

}  // namespace attend
