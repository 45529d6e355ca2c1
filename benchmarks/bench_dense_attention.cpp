/// bench_dense_attention: speed of the fused tiled attention op against the GEMM peak of the
/// machine and against attention written out with full score matrices (as a PyTorch user
/// writes softmax(q k^T / sqrt(d)) v).
///
/// Flop convention (FlashAttention-2 paper): forward = 4 B H N^2 d (q k^T and P v), backward =
/// 2.5 x forward (five products), forward+backward = 3.5 x forward. These are the products the
/// fused op actually runs; the written-out version runs 2 forward and 4 backward products.
///
/// Options: bench_dense_attention --help. --measure times one part alone (so that the peak
/// memory of the process is that part's).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/core/gemm.hpp"
#include "attend/core/heap.hpp"
#include "attend/core/measure.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "attend/core/ops/dense_attention.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "option_checks.hpp"

using namespace attend;

namespace {

struct Args {
  int64_t n = 2048, heads = 8, dim = 64, batch = 1;
  int threads = 2, repeats = 5;
  bool causal = false, naive = true;
  std::string json;
  std::string measure = "all";
};

Args parse(int argc, char** argv) {
  Args a;
  CLI::App app{"Time the fused dense attention op against the GEMM peak and written-out attention"};
  app.add_option("--n", a.n, "sequence length N")->check(attend::cli::at_least(1));
  app.add_option("--heads", a.heads, "attention heads H")->check(attend::cli::at_least(1));
  app.add_option("--dim", a.dim, "channels per head d")->check(attend::cli::at_least(1));
  app.add_option("--batch", a.batch, "batch size B")->check(attend::cli::at_least(1));
  app.add_option("--threads", a.threads, "threads")->check(attend::cli::at_least(1));
  app.add_option("--repeats", a.repeats, "timed calls per measurement (median)")->check(attend::cli::at_least(1));
  app.add_flag("--causal", a.causal, "causal mask");
  bool no_naive = false;
  app.add_flag("--no-naive", no_naive, "skip the written-out full-matrix attention");
  app.add_option("--json", a.json, "write the results as JSON to this file");
  app.add_option("--measure", a.measure, "time one part alone, so that the peak memory is that part's")
      ->check(CLI::IsMember({"all", "forward", "forward_backward", "gemm"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  a.naive = !no_naive && a.measure == "all";
  return a;
}

Tensor random_tensor(const Shape& shape, uint64_t seed) {
  Tensor t(shape);
  Rng rng(seed);
  for (float& x : t) x = rng.uniform(-1.0f, 1.0f);
  return t;
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
  bound_openmp_spinning(argv);  // as the attend program does: before anything else
  const Args a = parse(argc, argv);
  keep_freed_memory();  // as the attend program does
  set_num_threads(a.threads);
  const int64_t B = a.batch, H = a.heads, N = a.n, D = a.dim;
  const double fwd_flops = 4.0 * B * H * N * N * D * (a.causal ? 0.5 : 1.0);
  const double fwd_bwd_flops = 3.5 * fwd_flops;
  const Shape shape{B, H, N, D};
  const Var q(random_tensor(shape, 1)), k(random_tensor(shape, 2)), v(random_tensor(shape, 3));
  const Tensor seed = random_tensor(shape, 4);
  ops::DenseAttentionOptions options;
  options.causal = a.causal;

  // Inference forward first, so that the peak-memory growth it causes is its own: the output
  // [B, H, N, d] plus per-thread tiles; an N x N buffer per head would show here.
  auto wanted = [&](const char* part) { return a.measure == "all" || a.measure == part; };
  // Times `fn` when `part` is measured; NaN otherwise.
  auto timed = [&](const char* part, int repeats, const std::function<void()>& fn) {
    return wanted(part) ? time_calls(repeats, fn) : CallTimes{NAN, NAN};
  };
  const double rss_before = peak_rss_mib();
  const CallTimes fwd = timed("forward", a.repeats, [&] {
    NoGradGuard no_grad;
    Var out = ops::dense_attention(q, k, v, options);
  });
  const double rss_growth = peak_rss_mib() - rss_before;

  const CallTimes fwd_bwd = timed("forward_backward", a.repeats, [&] {
    Var vq(q.value(), true), vk(k.value(), true), vv(v.value(), true);
    Var out = ops::dense_attention(vq, vk, vv, options);
    out.backward(seed);
  });

  // GEMM peak: a large square product through attend::gemm.
  const int64_t g = 2048;
  const int64_t gn = wanted("gemm") ? g : 0;
  const Tensor ga = random_tensor({gn, gn}, 5), gb = random_tensor({gn, gn}, 6);
  Tensor gc({gn, gn});
  const CallTimes gemm_time = timed("gemm", 3, [&] {
    gemm(false, false, g, g, g, 1.0f, ga.data(), g, gb.data(), g, 0.0f, gc.data(), g);
  });
  const double gemm_flops = 2.0 * g * g * g;

  CallTimes naive_fwd, naive_fwd_bwd;
  if (a.naive && !a.causal) {
    NaiveAttention naive{B * H, N, D, {}};
    const float *qd = q.value().data(), *kd = k.value().data(), *vd = v.value().data();
    Tensor out(shape), dq(shape), dk(shape), dv(shape);
    naive_fwd = time_calls(a.repeats, [&] { naive.forward(qd, kd, vd, out.data()); });
    naive_fwd_bwd = time_calls(a.repeats, [&] {
      naive.forward(qd, kd, vd, out.data());
      naive.backward(qd, kd, vd, seed.data(), dq.data(), dk.data(), dv.data());
    });
  }

  // Rates: GFLOP/s of wall time, and per core (flops / CPU seconds), which a busy machine
  // disturbs less; "% of gemm" compares like with like.
  auto gflops = [](double flops, double seconds) { return flops / seconds * 1e-9; };
  const double gemm_wall = gflops(gemm_flops, gemm_time.wall), gemm_core = gflops(gemm_flops, gemm_time.cpu);
  const double fwd_wall = gflops(fwd_flops, fwd.wall), fwd_core = gflops(fwd_flops, fwd.cpu);
  const double fb_wall = gflops(fwd_bwd_flops, fwd_bwd.wall), fb_core = gflops(fwd_bwd_flops, fwd_bwd.cpu);
  const double nxn_mib = N * N * 4.0 / (1024.0 * 1024.0);
  std::printf("dense_attention B=%lld H=%lld N=%lld d=%lld threads=%d causal=%d\n", (long long)B,
              (long long)H, (long long)N, (long long)D, a.threads, a.causal ? 1 : 0);
  std::printf("  gemm library: %s\n", gemm_library().c_str());
  std::printf("                    wall ms   GFLOP/s  %%gemm | GFLOP/s per core  %%gemm\n");
  std::printf("  gemm %4lld^3     %9.2f %9.1f  100.0 | %9.1f         100.0\n", (long long)g,
              gemm_time.wall * 1e3, gemm_wall, gemm_core);
  std::printf("  forward         %9.2f %9.1f  %5.1f | %9.1f         %5.1f\n", fwd.wall * 1e3,
              fwd_wall, 100 * fwd_wall / gemm_wall, fwd_core, 100 * fwd_core / gemm_core);
  std::printf("  fwd+bwd         %9.2f %9.1f  %5.1f | %9.1f         %5.1f   (3.5x forward flops)\n",
              fwd_bwd.wall * 1e3, fb_wall, 100 * fb_wall / gemm_wall, fb_core, 100 * fb_core / gemm_core);
  std::printf("  inference peak-RSS growth: %.1f MiB (one N x N f32 matrix: %.1f MiB, all heads: %.1f MiB)\n",
              rss_growth, nxn_mib, nxn_mib * B * H);
  if (naive_fwd.wall > 0) {
    std::printf("  written-out full-matrix attention: forward %.2f ms (fused is %.2fx faster), "
                "fwd+bwd %.2f ms (%.2fx)\n",
                naive_fwd.wall * 1e3, naive_fwd.wall / fwd.wall, naive_fwd_bwd.wall * 1e3,
                naive_fwd_bwd.wall / fwd_bwd.wall);
  }

  if (!a.json.empty()) {
    nlohmann::json j = {{"benchmark", "dense_attention"},
                        {"batch", B}, {"heads", H}, {"n", N}, {"dim", D},
                        {"threads", a.threads}, {"causal", a.causal}, {"repeats", a.repeats},
                        {"flop_convention", "forward 4*B*H*N^2*d (halved when causal); "
                                            "forward+backward 3.5x forward"},
                        {"forward_ms", fwd.wall * 1e3}, {"forward_gflops", fwd_wall},
                        {"forward_gflops_per_core", fwd_core},
                        {"forward_backward_ms", fwd_bwd.wall * 1e3},
                        {"forward_backward_gflops", fb_wall},
                        {"forward_backward_gflops_per_core", fb_core},
                        {"gemm_size", g}, {"gemm_library", gemm_library()},
                        {"gemm_gflops", gemm_wall}, {"gemm_gflops_per_core", gemm_core},
                        {"forward_percent_of_gemm", 100 * fwd_wall / gemm_wall},
                        {"forward_backward_percent_of_gemm", 100 * fb_wall / gemm_wall},
                        {"inference_peak_rss_growth_mib", rss_growth},
                        {"nxn_matrix_mib", nxn_mib}};
    if (naive_fwd.wall > 0) {
      j["naive_forward_ms"] = naive_fwd.wall * 1e3;
      j["naive_forward_backward_ms"] = naive_fwd_bwd.wall * 1e3;
      j["speedup_forward"] = naive_fwd.wall / fwd.wall;
      j["speedup_forward_backward"] = naive_fwd_bwd.wall / fwd_bwd.wall;
    }
    std::ofstream(a.json) << j.dump(2) << "\n";
  }
  return 0;
}
