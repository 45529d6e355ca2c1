#pragma once
/// LruRowCache: copies of rows of an [N, F] float matrix kept within a byte budget, the least
/// recently used row evicted first, for readers that fetch rows from a file on demand.
///
/// Row storage is allocated block by block as the cache fills and never exceeds
/// `capacity_rows() = budget_bytes / (F * 4)` rows, so `bytes()` <= the budget. Bookkeeping
/// outside the budget: a slot per node ([N] int32, allocated with the cache) and two recency
/// links and an id per cached row (16 bytes). Not thread-safe.

#include <cstdint>
#include <memory>
#include <vector>

namespace attend {

class LruRowCache {
 public:
  /// A cache for rows 0..num_rows-1 of width `row_width` floats within `budget_bytes` of row
  /// storage (0: caches nothing).
  LruRowCache(int64_t num_rows, int64_t row_width, int64_t budget_bytes);

  int64_t capacity_rows() const { return capacity_; }
  /// Rows held now.
  int64_t size() const { return static_cast<int64_t>(id_of_slot_.size()); }
  /// Row storage allocated now (at most the budget).
  int64_t bytes() const;

  /// The cached copy of row `id` [F], marked most recently used, or nullptr when absent. The
  /// pointer stays valid until the next `insert`.
  const float* find(int64_t id);
  /// Store a copy of row `id` [F] (which must be absent) as the most recently used, evicting
  /// the least recently used row when full. Does nothing when the capacity is 0.
  void insert(int64_t id, const float* row);

 private:
  float* slot_data(int32_t slot);
  void unlink(int32_t slot);
  void push_front(int32_t slot);

  int64_t row_width_;
  int64_t capacity_;
  std::vector<int32_t> slot_of_id_;             ///< [N] slot holding the row, -1 when absent
  std::vector<int64_t> id_of_slot_;             ///< [size] row held by each slot
  std::vector<int32_t> newer_, older_;          ///< [size] recency links, -1 at the ends
  int32_t newest_ = -1, oldest_ = -1;
  std::vector<std::unique_ptr<float[]>> blocks_;  ///< row storage, kBlockRows rows per block
  int64_t allocated_rows_ = 0;
};

}  // namespace attend
