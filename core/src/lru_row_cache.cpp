#include "attend/core/lru_row_cache.hpp"

#include <algorithm>
#include <limits>

#include "attend/core/error.hpp"

namespace attend {

namespace {
/// Rows per storage block: the cache grows by at most this many rows at a time.
constexpr int64_t kBlockRows = 4096;
}  // namespace

LruRowCache::LruRowCache(int64_t num_rows, int64_t row_width, int64_t budget_bytes)
    : row_width_(row_width),
      capacity_(row_width > 0 ? std::min<int64_t>({budget_bytes / (row_width * static_cast<int64_t>(sizeof(float))),
                                                   num_rows, std::numeric_limits<int32_t>::max()})
                              : 0),
      slot_of_id_(static_cast<std::size_t>(capacity_ > 0 ? num_rows : 0), -1) {
  ATTEND_CHECK(num_rows >= 0 && row_width >= 0 && budget_bytes >= 0,
               "LruRowCache: negative size " << num_rows << " x " << row_width << " or budget " << budget_bytes);
  capacity_ = std::max<int64_t>(capacity_, 0);
}

int64_t LruRowCache::bytes() const { return allocated_rows_ * row_width_ * static_cast<int64_t>(sizeof(float)); }

float* LruRowCache::slot_data(int32_t slot) {
  return blocks_[static_cast<std::size_t>(slot / kBlockRows)].get() + (slot % kBlockRows) * row_width_;
}

void LruRowCache::unlink(int32_t slot) {
  const int32_t newer = newer_[slot], older = older_[slot];
  (newer >= 0 ? older_[newer] : newest_) = older;
  (older >= 0 ? newer_[older] : oldest_) = newer;
}

void LruRowCache::push_front(int32_t slot) {
  newer_[slot] = -1;
  older_[slot] = newest_;
  (newest_ >= 0 ? newer_[newest_] : oldest_) = slot;
  newest_ = slot;
}

const float* LruRowCache::find(int64_t id) {
  if (capacity_ == 0) return nullptr;
  const int32_t slot = slot_of_id_[static_cast<std::size_t>(id)];
  if (slot < 0) return nullptr;
  if (slot != newest_) {
    unlink(slot);
    push_front(slot);
  }
  return slot_data(slot);
}

void LruRowCache::insert(int64_t id, const float* row) {
  if (capacity_ == 0) return;
  ATTEND_CHECK(slot_of_id_[static_cast<std::size_t>(id)] < 0, "LruRowCache: row " << id << " is already cached");
  int32_t slot = 0;
  if (size() < capacity_) {
    slot = static_cast<int32_t>(size());
    if (slot == allocated_rows_) {  // a new block: kBlockRows rows, fewer for the last one
      const int64_t rows = std::min(kBlockRows, capacity_ - allocated_rows_);
      blocks_.push_back(std::make_unique<float[]>(static_cast<std::size_t>(rows * row_width_)));
      allocated_rows_ += rows;
    }
    id_of_slot_.push_back(id);
    newer_.push_back(-1);
    older_.push_back(-1);
  } else {  // evict the least recently used row and reuse its slot
    slot = oldest_;
    unlink(slot);
    slot_of_id_[static_cast<std::size_t>(id_of_slot_[slot])] = -1;
    id_of_slot_[slot] = id;
  }
  slot_of_id_[static_cast<std::size_t>(id)] = slot;
  std::copy(row, row + row_width_, slot_data(slot));
  push_front(slot);
}

}  // namespace attend
