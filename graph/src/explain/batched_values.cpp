#include "attend/graph/explain/batched_values.hpp"

#include <algorithm>

#include "attend/core/error.hpp"

namespace attend::graph {

std::vector<double> batched_values(int64_t count, int64_t per_batch,
                                   const std::function<std::vector<double>(int64_t, int64_t, int64_t)>& batch_f) {
  ATTEND_CHECK(per_batch > 0, "batches of " << per_batch << " copies");
  std::vector<double> f;
  if (count == 0) return f;
  const int64_t batches = (count + per_batch - 1) / per_batch;
  const int64_t copies = (count + batches - 1) / batches;  // one pass size for every batch
  for (int64_t first = 0; first < count; first += copies) {
    const int64_t size = std::min(copies, count - first);
    const std::vector<double> batch = batch_f(first, size, copies);
    ATTEND_CHECK(static_cast<int64_t>(batch.size()) >= size, "a batch of " << size << " inputs gave " << batch.size() << " values");
    f.insert(f.end(), batch.begin(), batch.begin() + size);
  }
  return f;
}

}  // namespace attend::graph
