#include "attend/graph/hdf5_feature_rows.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "attend/core/error.hpp"
#include "attend/graph/graph_store.hpp"

namespace attend::graph {

namespace {
/// The shape [N, F] of `/features/dense`, checked against the file's node count.
Shape dense_feature_shape(const Hdf5File& file) {
  file.require_schema(kGraphSchema, kGraphSchemaVersion);
  if (!file.exists(kDenseFeaturesPath)) {
    throw InputError(file.path(), 0,
                     std::string("no dense feature rows (") + kDenseFeaturesPath +
                         "): write the graph with 'attend convert --features-layout dense' to read its features out of core");
  }
  const Shape shape = file.dataset_shape(kDenseFeaturesPath);
  const int64_t nodes = file.get_attr_int64("/", "num_nodes");
  if (shape.size() != 2 || shape[0] != nodes) {
    throw InputError(file.path(), 0, std::string(kDenseFeaturesPath) + ": shape " + shape_to_string(shape) + " for " +
                                         std::to_string(nodes) + " nodes, expected [" + std::to_string(nodes) + ", F]");
  }
  // As Hdf5File's readers: deflate packs at most about 1032:1, so a larger matrix is damage
  // (the reader allocates per-row arrays before it reads a value).
  const double bytes = 4.0 * static_cast<double>(shape[0]) * static_cast<double>(shape[1]);
  if (bytes > 1032.0 * static_cast<double>(std::filesystem::file_size(file.path())) + (1 << 20)) {
    throw InputError(file.path(), 0, std::string(kDenseFeaturesPath) + ": shape " + shape_to_string(shape) +
                                         " cannot be stored in this file (a damaged file?)");
  }
  return shape;
}
}  // namespace

Hdf5FeatureRows::Hdf5FeatureRows(const std::string& path, const Hdf5FeatureRowsOptions& options)
    : file_(Hdf5File::open(path)),
      options_(options),
      rows_(dense_feature_shape(file_)[0]),
      cols_(file_.dataset_shape(kDenseFeaturesPath)[1]),
      cache_(rows_, cols_, options.cache_bytes),
      mark_(static_cast<std::size_t>(rows_), -1) {
  if constexpr (std::endian::native == std::endian::little) {
    const int64_t offset = file_.raw_data_offset(kDenseFeaturesPath);
    if (offset < 0 || rows_ * cols_ == 0) return;
    const auto end = static_cast<uintmax_t>(offset + rows_ * cols_ * static_cast<int64_t>(sizeof(float)));
    if (end > std::filesystem::file_size(path)) {
      throw InputError(path, 0, std::string(kDenseFeaturesPath) + ": its values run past the end of the file (truncated?)");
    }
    descriptor_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (descriptor_ < 0) throw InputError(path, 0, "cannot open for reading feature rows");
    raw_offset_ = offset;
  }
}

Hdf5FeatureRows::~Hdf5FeatureRows() {
  if (descriptor_ >= 0) ::close(descriptor_);
}

Tensor Hdf5FeatureRows::read_sorted(const std::vector<int64_t>& sorted) const {
  if (raw_offset_ < 0) return file_.read_rows(kDenseFeaturesPath, sorted, options_.selection);
  const auto m = static_cast<int64_t>(sorted.size());
  Tensor block({m, cols_});  // [m, F]
  const int64_t row_bytes = cols_ * static_cast<int64_t>(sizeof(float));
  for (int64_t i = 0; i < m;) {
    int64_t end = i + 1;  // sorted[i .. end) are consecutive rows
    while (end < m && sorted[end] == sorted[end - 1] + 1) ++end;
    auto* into = reinterpret_cast<char*>(block.data() + i * cols_);
    int64_t want = (end - i) * row_bytes, at = raw_offset_ + sorted[i] * row_bytes;
    while (want > 0) {
      const ssize_t got = ::pread(descriptor_, into, static_cast<std::size_t>(want), static_cast<off_t>(at));
      if (got <= 0) {
        throw InputError(file_.path(), 0, std::string(kDenseFeaturesPath) + ": cannot read rows from " +
                                              std::to_string(sorted[i]) + " (the file is truncated?)");
      }
      into += got;
      at += got;
      want -= got;
    }
    i = end;
  }
  const float* bad = std::find_if(block.begin(), block.end(), [](float v) { return !std::isfinite(v); });
  if (bad != block.end()) {
    throw InputError(file_.path(), 0, std::string(kDenseFeaturesPath) + ": a non-finite value (" +
                                          std::to_string(*bad) + ") (a damaged file?)");
  }
  return block;
}

Tensor Hdf5FeatureRows::gather(const std::vector<int64_t>& ids) {
  const auto n = static_cast<int64_t>(ids.size());
  ++stats_.gathers;
  stats_.requested += n;
  // The distinct ids, in first-seen order; mark_ maps each to its position.
  for (int64_t id : ids) ATTEND_CHECK(id >= 0 && id < rows_, "feature row " << id << " outside 0.." << rows_ - 1);
  std::vector<int64_t> distinct;
  for (int64_t id : ids) {
    int64_t& mark = mark_[static_cast<std::size_t>(id)];
    if (mark < 0) {
      mark = static_cast<int64_t>(distinct.size());
      distinct.push_back(id);
    }
  }
  try {
    Tensor out = gather_distinct(ids, distinct);
    for (int64_t id : distinct) mark_[static_cast<std::size_t>(id)] = -1;
    return out;
  } catch (...) {
    for (int64_t id : distinct) mark_[static_cast<std::size_t>(id)] = -1;
    throw;
  }
}

Tensor Hdf5FeatureRows::gather_distinct(const std::vector<int64_t>& ids, const std::vector<int64_t>& distinct) {
  const auto n = static_cast<int64_t>(ids.size());
  Tensor unique({static_cast<int64_t>(distinct.size()), cols_});  // [u, F]
  const std::size_t row_bytes = static_cast<std::size_t>(cols_) * sizeof(float);
  std::vector<int64_t> missing;
  for (std::size_t u = 0; u < distinct.size(); ++u) {
    if (const float* row = cache_.find(distinct[u])) {
      std::memcpy(unique.data() + u * cols_, row, row_bytes);
    } else {
      missing.push_back(distinct[u]);
    }
  }
  stats_.cache_hits += static_cast<int64_t>(distinct.size() - missing.size());
  stats_.cache_misses += static_cast<int64_t>(missing.size());
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    Tensor read = read_sorted(missing);  // [m, F]
    for (std::size_t k = 0; k < missing.size(); ++k) {
      float* row = read.data() + k * cols_;
      if (options_.normalize) normalize_feature_row(row, cols_);
      cache_.insert(missing[k], row);
      std::memcpy(unique.data() + mark_[static_cast<std::size_t>(missing[k])] * cols_, row, row_bytes);
    }
  }
  Tensor out({n, cols_});  // [n, F]
  for (int64_t i = 0; i < n; ++i) {
    const int64_t u = mark_[static_cast<std::size_t>(ids[static_cast<std::size_t>(i)])];
    std::memcpy(out.data() + i * cols_, unique.data() + u * cols_, row_bytes);
  }
  return out;
}

FeatureRowsStats Hdf5FeatureRows::stats() const {
  FeatureRowsStats s = stats_;
  s.cache_rows = cache_.size();
  s.cache_bytes = cache_.bytes();
  return s;
}

}  // namespace attend::graph
