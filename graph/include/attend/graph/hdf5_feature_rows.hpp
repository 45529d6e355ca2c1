#pragma once
/// Hdf5FeatureRows: node features read row by row from an attend.graph file's dense layout
/// (`/features/dense` [N, F] float32, chunked by rows; docs/hdf5-schema.md), through an LRU
/// row cache, so memory holds a batch's rows and the cache, never the whole matrix.
///
/// A gather looks every distinct id up in the cache, reads the missing rows in sorted order
/// (one hyperslab read per run of consecutive rows, or one read of a point selection; from a
/// contiguous dataset, `chunk_rows` 0, one plain file read (pread) per run at the offset HDF5
/// gives, bypassing HDF5's per-read overhead),
/// normalises them when asked, caches them and copies each requested row into place. The
/// rows do not depend on the cache size or the selection: the same bits as
/// InMemoryFeatureRows over the same file.

#include <cstdint>
#include <string>
#include <vector>

#include "attend/core/hdf5_file.hpp"
#include "attend/core/lru_row_cache.hpp"
#include "attend/graph/feature_rows.hpp"

namespace attend::graph {

struct Hdf5FeatureRowsOptions {
  int64_t cache_bytes = 0;  ///< budget of the LRU row cache (row storage); 0: no cache
  RowSelection selection = RowSelection::kHyperslabs;
  bool normalize = false;   ///< scale rows to sum 1 (normalize_feature_row)
};

/// Counters since the reader was opened.
struct FeatureRowsStats {
  int64_t gathers = 0;
  int64_t requested = 0;    ///< ids asked for, repeats included
  int64_t cache_hits = 0;   ///< distinct ids of a gather found in the cache
  int64_t cache_misses = 0; ///< distinct ids of a gather read from the file
  int64_t cache_rows = 0;   ///< rows in the cache now
  int64_t cache_bytes = 0;  ///< row storage of the cache now (<= cache budget)
};

class Hdf5FeatureRows final : public FeatureRows {
 public:
  Hdf5FeatureRows(const Hdf5FeatureRows&) = delete;
  Hdf5FeatureRows& operator=(const Hdf5FeatureRows&) = delete;
  ~Hdf5FeatureRows() override;
  /// Open `path` (an attend.graph file with `/features/dense`); a file without it, or whose
  /// dataset's shape disagrees with its node count, is an InputError naming the file.
  Hdf5FeatureRows(const std::string& path, const Hdf5FeatureRowsOptions& options);
  int64_t rows() const override { return rows_; }
  int64_t cols() const override { return cols_; }
  /// Serial, apart from HDF5's own reading.
  Tensor gather(const std::vector<int64_t>& ids) override;
  FeatureRowsStats stats() const;
  /// Whether rows are read with plain file reads (a contiguous little-endian dataset).
  bool reads_directly() const { return raw_offset_ >= 0; }

 private:
  /// gather's work once `mark_` maps each of the `distinct` ids to its position.
  Tensor gather_distinct(const std::vector<int64_t>& ids, const std::vector<int64_t>& distinct);
  /// The rows `sorted` (strictly increasing) from the file: [m, F].
  Tensor read_sorted(const std::vector<int64_t>& sorted) const;

  Hdf5File file_;
  Hdf5FeatureRowsOptions options_;
  int64_t rows_ = 0, cols_ = 0;
  LruRowCache cache_;
  FeatureRowsStats stats_;
  std::vector<int64_t> mark_;  ///< [N] position of an id in the current gather's distinct ids, -1 otherwise
  int64_t raw_offset_ = -1;    ///< byte offset of the contiguous values, -1: read through HDF5
  int descriptor_ = -1;        ///< the file opened for pread when raw_offset_ >= 0
};

}  // namespace attend::graph
