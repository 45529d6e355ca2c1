#include "attend/core/parallel.hpp"

#include "attend/core/error.hpp"

namespace attend {

int num_threads() { return omp_get_max_threads(); }

void set_num_threads(int n) {
  ATTEND_CHECK(n >= 1, "thread count must be at least 1, got " << n);
  omp_set_num_threads(n);
}

}  // namespace attend
