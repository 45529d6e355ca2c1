#pragma once
// OpenBLAS's own thread count held at 1 while attend calls it, and left afterwards as attend
// found it. The count is one global of the process's libopenblas.so.0, which torch (or the
// user's own code) shares; attend must not leave it at 1 for them.
//
// Design: a scope around every blas_gemm call, counted across threads. The first scope to open
// (no other open anywhere in the process) saves the count and sets 1; the last to close sets
// the saved count back. While any scope is open the count is 1, so every cblas call attend
// makes runs on its calling thread alone, whether gemm was called outside a parallel region,
// inside one of attend's (batched_matmul, the Evoformer's modules), inside the user's own, or
// from several threads at once (the Python bindings release the GIL). One place in gemm.cpp
// covers all of them, where guards at each parallel region's entry would need every future
// region that calls gemm to remember one.

namespace attend::detail {

class OpenblasOneThread {
 public:
  OpenblasOneThread();
  ~OpenblasOneThread();
  OpenblasOneThread(const OpenblasOneThread&) = delete;
  OpenblasOneThread& operator=(const OpenblasOneThread&) = delete;
};

}  // namespace attend::detail
