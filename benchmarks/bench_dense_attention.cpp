/// bench_dense_attention: speed of the fused tiled attention op against the GEMM peak of the
/// machine and against attention written out with full score matrices (as a PyTorch user
/// writes softmax(q k^T / sqrt(d)) v).
///
/// Flop convention (FlashAttention-2 paper): forward = 4 B H N^2 d (q k^T and P v), backward =
/// 2.5 x forward (five products), forward+backward = 3.5 x forward. These are the products the
/// fused op actually runs; the written-out version runs 2 forward and 4 backward products.
///
/// Usage: bench_dense_attention [--n 2048] [--heads 8] [--dim 64] [--batch 1] [--threads 2]
///                              [--repeats 5] [--causal] [--no-naive] [--json FILE]

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attend/core/gemm.hpp"
#include "attend/core/ops/dense_attention.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"

using namespace attend;

namespace {

struct Args {
  int64_t n = 2048, heads = 8, dim = 64, batch = 1;
  int threads = 2, repeats = 5;
  bool causal = false, naive = true;
  std::string json;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "missing value after " << flag << "\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (flag == "--n") a.n = std::stoll(value());
    else if (flag == "--heads") a.heads = std::stoll(value());
    else if (flag == "--dim") a.dim = std::stoll(value());
    else if (flag == "--batch") a.batch = std::stoll(value());
    else if (flag == "--threads") a.threads = std::stoi(value());
    else if (flag == "--repeats") a.repeats = std::stoi(value());
    else if (flag == "--json") a.json = value();
    else if (flag == "--causal") a.causal = true;
    else if (flag == "--no-naive") a.naive = false;
    else {
      std::cerr << "usage: bench_dense_attention [--n N] [--heads H] [--dim D] [--batch B]"
                   " [--threads T] [--repeats R] [--causal] [--no-naive] [--json FILE]\n";
      std::exit(flag == "--help" ? 0 : 2);
    }
  }
  return a;
}

Tensor random_tensor(const Shape& shape, uint64_t seed) {
  Tensor t(shape);
  Rng rng(seed);
  for (float& x : t) x = rng.uniform(-1.0f, 1.0f);
  return t;
}

// Median wall time in seconds of `repeats` calls after one warm-up call.
double median_seconds(int repeats, const std::function<void()>& fn) {
  fn();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

// Attention written out with full [N, N] matrices per head, as in
// `torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d), -1) @ v` and its autograd backward.
struct NaiveAttention {
  int64_t bh, n, d;
  std::vector<float> p;  // [bh, n, n] probabilities, kept for the backward

  void forward(const float* q, const float* k, const float* v, float* out) {
    p.assign(bh * n * n, 0.0f);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    for (int64_t h = 0; h < bh; ++h) {
      float* ph = p.data() + h * n * n;
      gemm(false, true, n, n, d, scale, q + h * n * d, d, k + h * n * d, d, 0.0f, ph, n);
      parallel_for(0, n, [&](int64_t i) {
        float* row = ph + i * n;
        const float mx = *std::max_element(row, row + n);
        float sum = 0.0f;
        for (int64_t j = 0; j < n; ++j) sum += (row[j] = std::exp(row[j] - mx));
        for (int64_t j = 0; j < n; ++j) row[j] /= sum;
      });
      gemm(false, false, n, d, n, 1.0f, ph, n, v + h * n * d, d, 0.0f, out + h * n * d, d);
    }
  }

  void backward(const float* q, const float* k, const float* v, const float* dout, float* dq,
                float* dk, float* dv) {
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    std::vector<float> ds(n * n);
    for (int64_t h = 0; h < bh; ++h) {
      const float* ph = p.data() + h * n * n;
      const int64_t o = h * n * d;
      gemm(true, false, n, d, n, 1.0f, ph, n, dout + o, d, 0.0f, dv + o, d);        // P^T dO
      gemm(false, true, n, n, d, 1.0f, dout + o, d, v + o, d, 0.0f, ds.data(), n);  // dO V^T
      parallel_for(0, n, [&](int64_t i) {
        float* row = ds.data() + i * n;
        const float* pr = ph + i * n;
        float dot = 0.0f;
        for (int64_t j = 0; j < n; ++j) dot += row[j] * pr[j];
        for (int64_t j = 0; j < n; ++j) row[j] = pr[j] * (row[j] - dot);
      });
      gemm(false, false, n, d, n, scale, ds.data(), n, k + o, d, 0.0f, dq + o, d);  // dS K
      gemm(true, false, n, d, n, scale, ds.data(), n, q + o, d, 0.0f, dk + o, d);   // dS^T Q
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  set_num_threads(a.threads);
  const int64_t B = a.batch, H = a.heads, N = a.n, D = a.dim;
  const double fwd_flops = 4.0 * B * H * N * N * D * (a.causal ? 0.5 : 1.0);
  const double fwd_bwd_flops = 3.5 * fwd_flops;
  const Shape shape{B, H, N, D};
  const Tensor q = random_tensor(shape, 1), k = random_tensor(shape, 2), v = random_tensor(shape, 3);
  const Tensor seed = random_tensor(shape, 4);
  ops::DenseAttentionOptions options;
  options.causal = a.causal;

  // Inference forward first, so that the peak-memory growth it causes is its own.
  const double rss_before = peak_rss_mib();
  const double t_fwd = median_seconds(a.repeats, [&] {
    NoGradGuard no_grad;
    Var out = ops::dense_attention(Var(q), Var(k), Var(v), options);
  });
  const double rss_growth = peak_rss_mib() - rss_before;

  const double t_fwd_bwd = median_seconds(a.repeats, [&] {
    Var vq(q, true), vk(k, true), vv(v, true);
    Var out = ops::dense_attention(vq, vk, vv, options);
    out.backward(seed);
  });

  // GEMM peak: a large square product through attend::gemm.
  const int64_t g = 2048;
  const Tensor ga = random_tensor({g, g}, 5), gb = random_tensor({g, g}, 6);
  Tensor gc({g, g});
  const double t_gemm = median_seconds(3, [&] {
    gemm(false, false, g, g, g, 1.0f, ga.data(), g, gb.data(), g, 0.0f, gc.data(), g);
  });
  const double gemm_gflops = 2.0 * g * g * g / t_gemm * 1e-9;

  double t_naive_fwd = 0, t_naive_fwd_bwd = 0;
  if (a.naive && !a.causal) {
    NaiveAttention naive{B * H, N, D, {}};
    Tensor out(shape), dq(shape), dk(shape), dv(shape);
    t_naive_fwd = median_seconds(a.repeats, [&] { naive.forward(q.data(), k.data(), v.data(), out.data()); });
    t_naive_fwd_bwd = median_seconds(a.repeats, [&] {
      naive.forward(q.data(), k.data(), v.data(), out.data());
      naive.backward(q.data(), k.data(), v.data(), seed.data(), dq.data(), dk.data(), dv.data());
    });
  }

  const double fwd_gflops = fwd_flops / t_fwd * 1e-9, fwd_bwd_gflops = fwd_bwd_flops / t_fwd_bwd * 1e-9;
  const double nxn_mib = N * N * 4.0 / (1024.0 * 1024.0);
  std::printf("dense_attention B=%lld H=%lld N=%lld d=%lld threads=%d causal=%d\n", (long long)B,
              (long long)H, (long long)N, (long long)D, a.threads, a.causal ? 1 : 0);
  std::printf("  gemm %lld^3:       %8.1f GFLOP/s (peak reference)\n", (long long)g, gemm_gflops);
  std::printf("  forward:          %8.2f ms  %7.1f GFLOP/s  %5.1f %% of gemm\n", t_fwd * 1e3,
              fwd_gflops, 100 * fwd_gflops / gemm_gflops);
  std::printf("  forward+backward: %8.2f ms  %7.1f GFLOP/s  %5.1f %% of gemm (3.5x forward flops)\n",
              t_fwd_bwd * 1e3, fwd_bwd_gflops, 100 * fwd_bwd_gflops / gemm_gflops);
  std::printf("  inference peak-RSS growth: %.1f MiB (one N x N f32 matrix: %.1f MiB)\n", rss_growth,
              nxn_mib);
  if (t_naive_fwd > 0) {
    std::printf("  written-out full-matrix attention: forward %.2f ms (%.2fx), forward+backward "
                "%.2f ms (%.2fx)\n",
                t_naive_fwd * 1e3, t_naive_fwd / t_fwd, t_naive_fwd_bwd * 1e3, t_naive_fwd_bwd / t_fwd_bwd);
  }

  if (!a.json.empty()) {
    nlohmann::json j = {{"benchmark", "dense_attention"},
                        {"batch", B}, {"heads", H}, {"n", N}, {"dim", D},
                        {"threads", a.threads}, {"causal", a.causal}, {"repeats", a.repeats},
                        {"flop_convention", "forward 4*B*H*N^2*d (halved when causal); "
                                            "forward+backward 3.5x forward"},
                        {"forward_ms", t_fwd * 1e3}, {"forward_gflops", fwd_gflops},
                        {"forward_backward_ms", t_fwd_bwd * 1e3},
                        {"forward_backward_gflops", fwd_bwd_gflops},
                        {"gemm_size", g}, {"gemm_gflops", gemm_gflops},
                        {"forward_percent_of_gemm", 100 * fwd_gflops / gemm_gflops},
                        {"forward_backward_percent_of_gemm", 100 * fwd_bwd_gflops / gemm_gflops},
                        {"inference_peak_rss_growth_mib", rss_growth},
                        {"nxn_matrix_mib", nxn_mib}};
    if (t_naive_fwd > 0) {
      j["naive_forward_ms"] = t_naive_fwd * 1e3;
      j["naive_forward_backward_ms"] = t_naive_fwd_bwd * 1e3;
      j["speedup_forward"] = t_naive_fwd / t_fwd;
      j["speedup_forward_backward"] = t_naive_fwd_bwd / t_fwd_bwd;
    }
    std::ofstream(a.json) << j.dump(2) << "\n";
  }
  return 0;
}
