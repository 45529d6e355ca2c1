/// bench_head_projection: the input side of the Evoformer's gated attention (AF2 supplement,
/// Alg. 7, 8, 13, 14): q, k, v and the gate from one input, as project_to_heads_jointly (one
/// product per batch row with the four weights side by side) against four project_to_heads
/// calls, in one process on the same data. The two variants alternate call by call (A B A B,
/// so a shared machine's load falls on both alike); printed: the median CPU ms of the forward
/// and of forward+backward (gradients of x and of the four weights and the gate's bias), and
/// their ratio. Defaults: the MSA row attention's shape (batch n_seq 128, n_res 256, c_m 64,
/// 8 heads of 32).
///
/// Options: bench_head_projection --help.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/bio/evoformer/head_projection.hpp"
#include "attend/core/heap.hpp"
#include "attend/core/measure.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/reduction.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "option_checks.hpp"

using namespace attend;

namespace {

struct Args {
  int64_t batch = 128, n = 256, c_in = 64, heads = 8, c_hidden = 32;
  int batch_axis = 0, threads = 1, rounds = 9;
  std::string json;
};

Args parse(int argc, char** argv) {
  Args a;
  CLI::App app{"Time q, k, v and the gate of a gated attention: one joint product against four"};
  app.add_option("--batch", a.batch, "batch rows (n_seq for the MSA row attention)")->check(attend::cli::at_least(1));
  app.add_option("--n", a.n, "positions per batch row (n_res)")->check(attend::cli::at_least(1));
  app.add_option("--c-in", a.c_in, "input channels")->check(attend::cli::at_least(1));
  app.add_option("--heads", a.heads, "heads")->check(attend::cli::at_least(1));
  app.add_option("--c-hidden", a.c_hidden, "channels per head")->check(attend::cli::at_least(1));
  app.add_option("--batch-axis", a.batch_axis, "0: x [batch, n, c_in]; 1: x [n, batch, c_in] (column-wise)")
      ->check(CLI::IsMember({0, 1}));
  app.add_option("--threads", a.threads, "threads")->check(attend::cli::at_least(1));
  app.add_option("--rounds", a.rounds, "timed calls of each variant (alternating; medians)")
      ->check(attend::cli::at_least(1));
  app.add_option("--json", a.json, "write the results as JSON to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  return a;
}

Tensor random_tensor(const Shape& shape, uint64_t seed) {
  Tensor t(shape);
  Rng rng(seed);
  for (float& x : t) x = rng.uniform(-1.0f, 1.0f);
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// sum over the four results of sum(result): a scalar whose backward reaches every result.
Var total(const std::vector<Var>& results) {
  Var s = ops::sum(results[0]);
  for (std::size_t p = 1; p < results.size(); ++p) s = ops::add(s, ops::sum(results[p]));
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  bound_openmp_spinning(argv);  // as the attend program does: before anything else
  const Args a = parse(argc, argv);
  keep_freed_memory();  // as the attend program does
  set_num_threads(a.threads);
  const int64_t hc = a.heads * a.c_hidden;
  const Shape x_shape = a.batch_axis == 0 ? Shape{a.batch, a.n, a.c_in} : Shape{a.n, a.batch, a.c_in};
  const Var x(random_tensor(x_shape, 1), true);  // [B, N, C] or [N, B, C]
  std::vector<Var> weights, biases;              // 4 x [C, H c]; the gate's bias [H c], the others none
  for (uint64_t p = 0; p < 4; ++p) weights.emplace_back(random_tensor({a.c_in, hc}, 2 + p), true);
  biases = {Var(), Var(), Var(), Var(random_tensor({hc}, 6), true)};

  const auto joint = [&] { return bio::project_to_heads_jointly(x, weights, biases, a.heads, a.batch_axis); };
  const auto separate = [&] {
    std::vector<Var> r;
    for (std::size_t p = 0; p < 4; ++p) r.push_back(bio::project_to_heads(x, weights[p], biases[p], a.heads, a.batch_axis));
    return r;
  };
  const auto forward_of = [](const std::function<std::vector<Var>()>& f) {
    return [f] {
      NoGradGuard no_grad;
      f();
    };
  };
  const auto forward_backward_of = [&](const std::function<std::vector<Var>()>& f) {
    return [&, f] {
      total(f()).backward();
      x.zero_grad();
      for (const Var& w : weights) w.zero_grad();
      biases[3].zero_grad();
    };
  };
  // [variant][measure] CPU ms per call, alternating variants call by call.
  std::vector<double> cpu[2][2];
  const std::function<std::vector<Var>()> variants[2] = {separate, joint};
  for (int r = 0; r < a.rounds; ++r)
    for (int v = 0; v < 2; ++v) {
      cpu[v][0].push_back(time_calls(1, forward_of(variants[v]), r == 0).cpu * 1e3);
      cpu[v][1].push_back(time_calls(1, forward_backward_of(variants[v]), r == 0).cpu * 1e3);
    }
  const double gflop = 2.0 * a.batch * a.n * a.c_in * 4 * hc * 1e-9;  // the forward's products
  std::cout << "q, k, v and gate: batch " << a.batch << ", n " << a.n << ", c_in " << a.c_in << ", " << a.heads
            << " heads of " << a.c_hidden << ", batch axis " << a.batch_axis << ", " << a.threads << " threads, "
            << a.rounds << " alternating rounds (median CPU ms)\n"
            << "  variant            forward   fwd+bwd\n";
  const char* names[2] = {"four products", "one joint"};
  nlohmann::json result = {{"batch", a.batch}, {"n", a.n}, {"c_in", a.c_in}, {"heads", a.heads},
                           {"c_hidden", a.c_hidden}, {"batch_axis", a.batch_axis}, {"threads", a.threads},
                           {"rounds", a.rounds}, {"forward_gflop", gflop}};
  for (int v = 0; v < 2; ++v) {
    const double f = median(cpu[v][0]), fb = median(cpu[v][1]);
    std::printf("  %-16s %9.2f %9.2f\n", names[v], f, fb);
    result[v == 0 ? "separate" : "joint"] = {{"forward_cpu_ms", f}, {"forward_backward_cpu_ms", fb}};
  }
  std::printf("  joint / four     %9.3f %9.3f\n", median(cpu[1][0]) / median(cpu[0][0]),
              median(cpu[1][1]) / median(cpu[0][1]));
  if (!a.json.empty()) std::ofstream(a.json) << result.dump(2) << "\n";
  return 0;
}
