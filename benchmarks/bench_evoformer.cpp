/// bench_evoformer: one Evoformer block (AF2 supplement, Alg. 6) at AlphaFold-like sizes:
/// forward time (inference, no tape) and forward+backward time (training mode, dropout on),
/// medians over repeats, and the peak resident memory of the process.
///
/// Usage: bench_evoformer [--n-seq 128] [--n-res 256] [--c-m 64] [--c-z 64] [--heads-msa 8]
///                        [--heads-pair 4] [--chunk-size 0] [--threads 2] [--repeats 3]
///                        [--no-warmup] [--no-checkpoint] [--json FILE]

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attend/bio/evoformer/evoformer_block.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/reduction.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"

using namespace attend;

namespace {

struct Args {
  int64_t n_seq = 128, n_res = 256, c_m = 64, c_z = 64, heads_msa = 8, heads_pair = 4, chunk_size = 0;
  int threads = 2, repeats = 3;
  bool warmup = true, checkpoint = true;
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
    if (flag == "--n-seq") a.n_seq = std::stoll(value());
    else if (flag == "--n-res") a.n_res = std::stoll(value());
    else if (flag == "--c-m") a.c_m = std::stoll(value());
    else if (flag == "--c-z") a.c_z = std::stoll(value());
    else if (flag == "--heads-msa") a.heads_msa = std::stoll(value());
    else if (flag == "--heads-pair") a.heads_pair = std::stoll(value());
    else if (flag == "--chunk-size") a.chunk_size = std::stoll(value());
    else if (flag == "--threads") a.threads = std::stoi(value());
    else if (flag == "--repeats") a.repeats = std::stoi(value());
    else if (flag == "--json") a.json = value();
    else if (flag == "--no-warmup") a.warmup = false;
    else if (flag == "--no-checkpoint") a.checkpoint = false;
    else {
      std::cerr << "usage: bench_evoformer [--n-seq S] [--n-res N] [--c-m C] [--c-z C] [--heads-msa H]"
                   " [--heads-pair H] [--chunk-size K] [--threads T] [--repeats R] [--no-warmup] [--no-checkpoint] [--json FILE]\n";
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

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct Timing {
  double wall = 0;  // median wall seconds of one call
  double cpu = 0;   // median CPU seconds of one call over all threads (steadier on a shared machine)
};

// Medians over `repeats` calls, after one warm-up call unless `warmup` is off.
Timing time_calls(int repeats, bool warmup, const std::function<void()>& fn) {
  if (warmup) fn();
  std::vector<double> walls, cpus;
  for (int r = 0; r < repeats; ++r) {
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    cpus.push_back(cpu_seconds() - c0);
  }
  std::sort(walls.begin(), walls.end());
  std::sort(cpus.begin(), cpus.end());
  return {walls[walls.size() / 2], cpus[cpus.size() / 2]};
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  set_num_threads(a.threads);
  bio::EvoformerBlockOptions o;
  o.c_m = a.c_m;
  o.c_z = a.c_z;
  o.n_heads_msa = a.heads_msa;
  o.n_heads_pair = a.heads_pair;
  o.chunk_size = a.chunk_size;
  o.checkpoint = a.checkpoint;
  o.seed = 1;
  bio::EvoformerBlock block(o);
  const Var m(random_tensor({a.n_seq, a.n_res, a.c_m}, 2), true);  // [n_seq, n_res, c_m]
  const Var z(random_tensor({a.n_res, a.n_res, a.c_z}, 3), true);  // [n_res, n_res, c_z]
  const double rss_inputs = peak_rss_mib();

  block.eval();
  const Timing forward = time_calls(a.repeats, a.warmup, [&] {
    NoGradGuard no_grad;
    const auto out = block.forward(m, z);
  });
  const double rss_forward = peak_rss_mib();

  block.train();
  uint64_t step = 0;
  const Timing train = time_calls(a.repeats, a.warmup, [&] {
    const auto out = block.forward(m, z, ++step);
    Var loss = ops::add(ops::sum(out.m), ops::sum(out.z));  // scalar
    loss.backward();
    for (const auto& [name, p] : block.named_parameters()) p.zero_grad();
    m.zero_grad();
    z.zero_grad();
  });
  const double rss_train = peak_rss_mib();

  nlohmann::json result = {
      {"n_seq", a.n_seq}, {"n_res", a.n_res}, {"c_m", a.c_m}, {"c_z", a.c_z}, {"heads_msa", a.heads_msa},
      {"heads_pair", a.heads_pair}, {"chunk_size", a.chunk_size}, {"checkpoint", a.checkpoint}, {"threads", a.threads},
      {"repeats", a.repeats}, {"parameters", block.parameter_count()},
      {"forward_ms", forward.wall * 1e3}, {"forward_cpu_ms", forward.cpu * 1e3},
      {"forward_backward_ms", train.wall * 1e3}, {"forward_backward_cpu_ms", train.cpu * 1e3},
      {"peak_rss_mib_inputs", rss_inputs}, {"peak_rss_mib_forward", rss_forward},
      {"peak_rss_mib_forward_backward", rss_train}};
  std::cout << "evoformer block n_seq " << a.n_seq << ", n_res " << a.n_res << ", c_m " << a.c_m << ", c_z "
            << a.c_z << ", heads " << a.heads_msa << "/" << a.heads_pair << ", " << a.threads << " threads\n"
            << "  forward            " << forward.wall * 1e3 << " ms wall, " << forward.cpu * 1e3
            << " ms CPU (peak RSS " << rss_forward << " MiB)\n"
            << "  forward+backward   " << train.wall * 1e3 << " ms wall, " << train.cpu * 1e3
            << " ms CPU (peak RSS " << rss_train << " MiB)\n";
  if (!a.json.empty()) std::ofstream(a.json) << result.dump(2) << "\n";
  return 0;
}
