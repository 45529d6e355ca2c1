#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "attend/core/gemm.hpp"
#include "attend/core/parallel.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::random_tensor;

namespace {

// C = alpha op(A) op(B) + beta C written out in double, row-major, as gemm's contract says.
std::vector<double> reference_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                                   const Tensor& a, const Tensor& b, float beta, const Tensor& c) {
  std::vector<double> out(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double x = ta ? a[p * m + i] : a[i * k + p];
        const double y = tb ? b[j * k + p] : b[p * n + j];
        s += x * y;
      }
      out[i * n + j] = alpha * s + beta * double(c[i * n + j]);
    }
  return out;
}

}  // namespace

// With OpenBLAS (ATTEND_OPENBLAS): 2100 rows take 512-row blocks, the last one short; 1100 rows
// 320-row ones; 100 rows 64 + 36; 60 rows x 600 columns column blocks of 192, the last one
// short; 5 x 70 x 1 one block of depth 1. With Eigen: 2100 and 1100 rows take the large-row
// path (256-row blocks, the last one short); 100 rows the 64-row one; 60 x 600 the
// column-block one. The narrow path (at most 128 columns, whole vectors, depth >= 64), in both
// builds: 300 x 64 x 600 has 96-row blocks, the last one short, and depth slices of
// 256 + 256 + 88; 1000 x 16 x 64 one slice and one vector per row; 37 x 128 x 300 a single
// short block of 6-row tiles and leftover rows. beta = 0 must not read C (it holds NaN then).
TEST_CASE("gemm matches a written-out product on every path and transpose, for 1, 2 and 3 threads",
          "[core]") {
  struct Shape3 { int64_t m, n, k; };
  for (const Shape3 s : {Shape3{2100, 40, 50}, Shape3{1100, 70, 90}, Shape3{100, 70, 90},
                         Shape3{60, 600, 40}, Shape3{5, 70, 1}, Shape3{300, 64, 600},
                         Shape3{1000, 16, 64}, Shape3{37, 128, 300},
                         // narrow, 15 and 2 blocks of 96 rows made 16 and 2 of 72 to 96
                         Shape3{1433, 64, 300}, Shape3{130, 32, 100}}) {
    for (const bool ta : {false, true})
      for (const bool tb : {false, true})
        for (const float beta : {2.0f, 0.0f}) {
          const Tensor a = random_tensor({s.m * s.k}, 1), b = random_tensor({s.k * s.n}, 2);
          const Tensor c0 = beta == 0.0f ? Tensor({s.m * s.n}, std::nanf(""))
                                         : random_tensor({s.m * s.n}, 3);
          auto run = [&](int threads) {
            set_num_threads(threads);
            Tensor c = c0;
            gemm(ta, tb, s.m, s.n, s.k, 0.5f, a.data(), ta ? s.m : s.k, b.data(), tb ? s.k : s.n,
                 beta, c.data(), s.n);
            return c;
          };
          const int before = num_threads();
          const Tensor one = run(1), two = run(2), three = run(3);
          set_num_threads(before);
          INFO("m " << s.m << " n " << s.n << " k " << s.k << " trans_a " << ta << " trans_b " << tb
                    << " beta " << beta);
          CHECK(bitwise_equal(one, two));
          CHECK(bitwise_equal(one, three));
          const Tensor c_ref = beta == 0.0f ? Tensor({s.m * s.n}) : c0;
          const std::vector<double> want =
              reference_gemm(ta, tb, s.m, s.n, s.k, 0.5f, a, b, beta, c_ref);
          double worst = 0;
          for (int64_t i = 0; i < s.m * s.n; ++i) {
            const double error = std::abs(one[i] - want[i]);
            worst = std::isnan(error) ? INFINITY : std::max(worst, error);  // a NaN fails
          }
          CHECK(worst < 1e-4 * std::sqrt(static_cast<double>(s.k)));
        }
  }
}

// gemm_one_block: the same contract on every path, one block on the calling thread. Its
// narrow path runs gemm's fixed row blocks in order, so it gives gemm's bits; the others may
// differ from gemm's blocks in the last bits, never from one thread count to another.
TEST_CASE("gemm_one_block matches a written-out product, and gemm's bits on the narrow path",
          "[core]") {
  struct Shape3 { int64_t m, n, k; };
  for (const Shape3 s : {Shape3{700, 300, 90}, Shape3{130, 600, 40}, Shape3{5, 70, 1},
                         Shape3{300, 64, 600}, Shape3{37, 128, 300}}) {
    for (const bool ta : {false, true})
      for (const bool tb : {false, true})
        for (const float beta : {2.0f, 0.0f}) {
          const Tensor a = random_tensor({s.m * s.k}, 1), b = random_tensor({s.k * s.n}, 2);
          const Tensor c0 = beta == 0.0f ? Tensor({s.m * s.n}, std::nanf(""))
                                         : random_tensor({s.m * s.n}, 3);
          const int64_t lda = ta ? s.m : s.k, ldb = tb ? s.k : s.n;
          Tensor one = c0, blocked = c0;
          gemm_one_block(ta, tb, s.m, s.n, s.k, 0.5f, a.data(), lda, b.data(), ldb, beta,
                         one.data(), s.n);
          gemm(ta, tb, s.m, s.n, s.k, 0.5f, a.data(), lda, b.data(), ldb, beta, blocked.data(),
               s.n);
          INFO("m " << s.m << " n " << s.n << " k " << s.k << " trans_a " << ta << " trans_b " << tb
                    << " beta " << beta);
          if (s.n <= 128 && s.n % 16 == 0 && s.k >= 64) CHECK(bitwise_equal(one, blocked));
          const Tensor c_ref = beta == 0.0f ? Tensor({s.m * s.n}) : c0;
          const std::vector<double> want =
              reference_gemm(ta, tb, s.m, s.n, s.k, 0.5f, a, b, beta, c_ref);
          double worst = 0;
          for (int64_t i = 0; i < s.m * s.n; ++i) {
            const double error = std::abs(one[i] - want[i]);
            worst = std::isnan(error) ? INFINITY : std::max(worst, error);  // a NaN fails
          }
          CHECK(worst < 1e-4 * std::sqrt(static_cast<double>(s.k)));
        }
  }
}

// Products called from inside a parallel region run on several threads at once (as batched
// products do): each must equal the same product computed alone. A BLAS whose calls share
// scratch memory without a lock (Debian's serial OpenBLAS, which gemm refuses) gets some of
// them wrong, but only when two calls take their scratch at the same instant: measured on
// 2 loaded cores, 0 to 3 per cent of the calls, so this catches it now and then, not always.
// n = 120 keeps the products off the narrow path, and m n k above 100^3 off OpenBLAS's
// small-matrix kernels, which use no scratch.
TEST_CASE("gemm called from several threads at once gives each product as computed alone",
          "[core]") {
  constexpr int64_t kOperands = 8, kProducts = 4000, m = 128, n = 120, k = 96;
  const Tensor a = random_tensor({kOperands * m * k}, 4), b = random_tensor({kOperands * k * n}, 5);
  auto product = [&](int64_t i, float* c) {
    const int64_t o = i % kOperands;
    gemm(false, false, m, n, k, 1.0f, a.data() + o * m * k, k, b.data() + o * k * n, n, 0.0f, c,
         n);
  };
  const int before = num_threads();
  set_num_threads(1);
  std::vector<float> alone(kOperands * m * n);
  for (int64_t o = 0; o < kOperands; ++o) product(o, alone.data() + o * m * n);
  set_num_threads(2);
  std::vector<char> differs(kProducts);
  parallel_for(0, kProducts, [&](int64_t i) {
    std::vector<float> c(m * n);
    product(i, c.data());
    differs[i] = !std::equal(c.begin(), c.end(), alone.begin() + (i % kOperands) * m * n,
                             [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; });
  });
  set_num_threads(before);
  CHECK(std::count(differs.begin(), differs.end(), 1) == 0);
}

// Benchmarks print which library did the products; it is one of the two gemm knows.
TEST_CASE("gemm names the library that does its products that are not narrow", "[core]") {
  const std::string library = gemm_library();
  CHECK((library == "Eigen" || library.rfind("OpenBLAS", 0) == 0));
}
