#include "attend/core/heap.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attend {

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace attend
