#include "attend/bio/contact_map.hpp"

#include <limits>

#include "attend/core/error.hpp"

namespace attend::bio {

namespace {
// L * L after checking L, so that a bad length fails the check instead of overflowing.
std::size_t checked_area(int64_t length) {
  ATTEND_CHECK(length >= 0 && length <= kMaxContactMapLength,
               "length " << length << " outside 0.." << kMaxContactMapLength);
  return static_cast<std::size_t>(length * length);
}
}  // namespace

ContactMap::ContactMap(int64_t length)
    : length_(length),
      distance_(checked_area(length), std::numeric_limits<float>::quiet_NaN()),
      state_(static_cast<std::size_t>(length * length), kNotEvaluable) {}

void ContactMap::set(int64_t i, int64_t j, float distance, bool contact) {
  ATTEND_CHECK(i >= 0 && j >= 0 && i < length_ && j < length_ && i != j,
               "pair (" << i << ", " << j << ") outside a map of length " << length_);
  distance_[index(i, j)] = distance_[index(j, i)] = distance;
  state_[index(i, j)] = state_[index(j, i)] = contact ? 1 : 0;
}

}  // namespace attend::bio
