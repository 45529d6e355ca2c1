#pragma once
/// CompactIds: an array of non-negative ids stored as int32 while every id fits (the largest
/// is below 2^31), else as int64. A graph of up to 2^31 nodes and edges keeps its id arrays at
/// 4 bytes an entry; larger ones still work, at 8. Reads return int64 whatever the storage.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace attend::graph {

class CompactIds {
 public:
  /// No ids.
  CompactIds() = default;
  /// `size` zeros, stored narrow when `max_id` (the largest id the array will hold) fits in int32.
  CompactIds(std::size_t size, int64_t max_id) : wide_(max_id > std::numeric_limits<int32_t>::max()) {
    if (wide_) {
      wide_values_.resize(size);
    } else {
      narrow_values_.resize(size);
    }
  }

  std::size_t size() const { return wide_ ? wide_values_.size() : narrow_values_.size(); }
  bool empty() const { return size() == 0; }
  /// Whether the ids are stored as int64.
  bool is_wide() const { return wide_; }
  int64_t operator[](std::size_t i) const { return wide_ ? wide_values_[i] : narrow_values_[i]; }
  /// Store `id` (at most the `max_id` given at construction) at `i`.
  void set(std::size_t i, int64_t id) {
    if (wide_) {
      wide_values_[i] = id;
    } else {
      narrow_values_[i] = static_cast<int32_t>(id);
    }
  }
  /// Call `fn` with the underlying vector (std::vector<int32_t> or <int64_t>), for whole-array
  /// work (sorting ranges, compaction) at the storage's own width.
  template <class Fn>
  void visit(Fn&& fn) {
    if (wide_) {
      fn(wide_values_);
    } else {
      fn(narrow_values_);
    }
  }
  /// Bytes held by the values.
  std::size_t bytes() const {
    return wide_ ? wide_values_.capacity() * sizeof(int64_t) : narrow_values_.capacity() * sizeof(int32_t);
  }

 private:
  bool wide_ = false;
  std::vector<int32_t> narrow_values_;
  std::vector<int64_t> wide_values_;
};

}  // namespace attend::graph
