#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>

#include "attend/core/gemm.hpp"
#include "attend/core/ops/batched_matmul.hpp"
#include "attend/core/parallel.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::random_tensor;

// torch links the same libopenblas.so.0 as attend, so OpenBLAS's thread count is shared with
// it: attend holds it at 1 while it calls OpenBLAS and must leave it as it found it. The
// OpenBLAS functions are looked up in the process (attend_core loads the library when the build
// has it); without them this test has nothing to check. ctest runs it a second time without
// this machine's OPENBLAS_CORETYPE, so that OpenBLAS does the products (gemm_library()).
TEST_CASE("OpenBLAS's thread count is left as found after products in and outside parallel regions",
          "[core][openblas_threads]") {
  using GetThreads = int (*)();
  using SetThreads = void (*)(int);
  const auto get_threads = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  const auto set_threads = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (get_threads == nullptr || set_threads == nullptr) {
    WARN("no OpenBLAS in this process (build without ATTEND_OPENBLAS)");
    return;
  }
  INFO("gemm library: " << gemm_library());
  const int user_threads = get_threads(), attend_threads = num_threads();
  set_threads(2);
  REQUIRE(get_threads() == 2);

  // 300 x 200 x 150: not narrow, so OpenBLAS's (or Eigen's) blocks, 5 of 64 rows. The batched
  // product calls gemm from inside its parallel loop, one 96 x 160 x 80 product per item.
  const int64_t m = 300, n = 200, k = 150, batch = 6;
  const Tensor a = random_tensor({m, k}, 1), b = random_tensor({n, k}, 2);  // C = A B^T
  const Tensor xa = random_tensor({batch, 96, 80}, 3), xb = random_tensor({batch, 80, 160}, 4);
  auto products = [&](int threads) {
    set_num_threads(threads);
    Tensor c({m, n}, 0.0f);
    gemm(false, true, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(), n);
    CHECK(get_threads() == 2);
    const Tensor batched = ops::batched_matmul(Var(xa), Var(xb), false, false).value();
    CHECK(get_threads() == 2);
    return std::make_pair(c, batched);
  };
  const auto one = products(1);
  for (const int threads : {2, 3}) {
    const auto many = products(threads);
    CHECK(std::memcmp(one.first.data(), many.first.data(), m * n * sizeof(float)) == 0);
    CHECK(std::memcmp(one.second.data(), many.second.data(), batch * 96 * 160 * sizeof(float)) == 0);
  }
  // Two threads of the user's calling gemm at once (as two Python threads can: the bindings
  // release the GIL). Each saving and restoring the count on its own would leave 1 whenever one
  // saved it while the other held it at 1; the count must be 2 once both are done.
  // (Catch's CHECK is for the test's own thread: the workers count wrong products instead.)
  std::atomic<int> wrong_products{0};
  auto repeated_products = [&] {
    for (int i = 0; i < 200; ++i) {
      Tensor c({m, n}, 0.0f);
      gemm(false, true, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(), n);
      if (std::memcmp(one.first.data(), c.data(), m * n * sizeof(float)) != 0) ++wrong_products;
    }
  };
  std::thread first(repeated_products), second(repeated_products);
  first.join();
  second.join();
  CHECK(wrong_products == 0);
  CHECK(get_threads() == 2);
  set_num_threads(attend_threads);
  set_threads(user_threads);
}
