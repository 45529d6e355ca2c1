#include "attend/core/heap.hpp"

#include <cstddef>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attend {

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // the largest value glibc accepts on 64-bit
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace attend
