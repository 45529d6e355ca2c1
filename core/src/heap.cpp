#include "attend/core/heap.hpp"

#include <cstddef>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attend {

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);  // every block from the heap, however large
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace attend
