/// bench_evoformer: one Evoformer block (AF2 supplement, Alg. 6) at AlphaFold-like sizes:
/// forward time (inference, no tape) and forward+backward time (training mode, dropout on),
/// medians over repeats, the peak resident memory of the process, and the useful GFLOP/s
/// (evoformer_flops.hpp). With --modules, also each of the nine modules alone (no
/// recomputation): forward and forward+backward time and rate, to find the slow ones.
///
/// Options: bench_evoformer --help.

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/bio/evoformer/evoformer_block.hpp"
#include "attend/core/heap.hpp"
#include "attend/core/measure.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/reduction.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "evoformer_flops.hpp"
#include "option_checks.hpp"

using namespace attend;

namespace {

struct Args {
  int64_t n_seq = 128, n_res = 256, c_m = 64, c_z = 64, heads_msa = 8, heads_pair = 4, chunk_size = 0;
  int threads = 2, repeats = 3;
  bool warmup = true, checkpoint = true, modules = false;
  std::string json;
};

Args parse(int argc, char** argv) {
  Args a;
  CLI::App app{"Time one Evoformer block: inference forward and training forward + backward"};
  app.add_option("--n-seq", a.n_seq, "MSA rows")->check(attend::cli::at_least(1));
  app.add_option("--n-res", a.n_res, "residues")->check(attend::cli::at_least(1));
  app.add_option("--c-m", a.c_m, "MSA channels")->check(attend::cli::at_least(1));
  app.add_option("--c-z", a.c_z, "pair channels")->check(attend::cli::at_least(1));
  app.add_option("--heads-msa", a.heads_msa, "heads of the MSA attentions")->check(attend::cli::at_least(1));
  app.add_option("--heads-pair", a.heads_pair, "heads of the triangle attentions")->check(attend::cli::at_least(1));
  app.add_option("--chunk-size", a.chunk_size, "query rows per chunk in the attentions (0: no chunking)")
      ->check(attend::cli::at_least(0));
  app.add_option("--threads", a.threads, "threads")->check(attend::cli::at_least(1));
  app.add_option("--repeats", a.repeats, "timed calls per measurement (median)")->check(attend::cli::at_least(1));
  bool no_warmup = false, no_checkpoint = false;
  app.add_flag("--no-warmup", no_warmup, "time the first call too");
  app.add_flag("--no-checkpoint", no_checkpoint, "keep every activation instead of recomputing in the backward");
  app.add_flag("--modules", a.modules, "also time each module alone (forward, forward+backward, GFLOP/s)");
  app.add_option("--json", a.json, "write the results as JSON to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  a.warmup = !no_warmup;
  a.checkpoint = !no_checkpoint;
  return a;
}

Tensor random_tensor(const Shape& shape, uint64_t seed) {
  Tensor t(shape);
  Rng rng(seed);
  for (float& x : t) x = rng.uniform(-1.0f, 1.0f);
  return t;
}

// Median times of one module alone: forward without a tape, forward + backward of sum(output).
struct ModuleTimes {
  double forward_ms = 0, forward_cpu_ms = 0, forward_backward_ms = 0, forward_backward_cpu_ms = 0;
};

ModuleTimes time_module(const Module& module, const std::function<Var()>& forward, const std::vector<Var>& inputs,
                        int repeats, bool warmup) {
  const CallTimes f = time_calls(repeats, [&] {
    NoGradGuard no_grad;
    forward();
  }, warmup);
  const CallTimes fb = time_calls(repeats, [&] {
    Var loss = ops::sum(forward());  // scalar
    loss.backward();
    for (const auto& [name, p] : module.named_parameters()) p.zero_grad();
    for (const Var& x : inputs) x.zero_grad();
  }, warmup);
  return {f.wall * 1e3, f.cpu * 1e3, fb.wall * 1e3, fb.cpu * 1e3};
}

// Each module of the block built alone with the block's options, timed on (m, z).
nlohmann::json time_modules(const bio::EvoformerBlockOptions& o, const bench::EvoformerSizes& sizes, const Var& m,
                            const Var& z, int repeats, bool warmup) {
  using namespace bio;
  Rng rng(o.seed);
  MsaRowAttention row({{o.c_hidden_msa_att, o.n_heads_msa, o.chunk_size, rng.split()}, o.c_m, o.c_z});
  MsaColumnAttention col({{o.c_hidden_msa_att, o.n_heads_msa, o.chunk_size, rng.split()}, o.c_m});
  MsaTransition msa_transition({o.c_m, o.transition_n, rng.split()});
  OuterProductMean opm({o.c_m, o.c_z, o.c_hidden_opm, rng.split()});
  TriangleMultiplication mul_out({o.c_z, o.c_hidden_mul, rng.split()}, true);
  TriangleMultiplication mul_in({o.c_z, o.c_hidden_mul, rng.split()}, false);
  TriangleAttention att_start({{o.c_hidden_pair_att, o.n_heads_pair, o.chunk_size, rng.split()}, o.c_z}, true);
  TriangleAttention att_end({{o.c_hidden_pair_att, o.n_heads_pair, o.chunk_size, rng.split()}, o.c_z}, false);
  PairTransition pair_transition({o.c_z, o.transition_n, rng.split()});
  struct Run {
    const Module* module;
    std::function<Var()> forward;
    std::vector<Var> inputs;
  };
  const std::vector<Run> runs = {
      {&row, [&] { return row.forward(m, z); }, {m, z}},
      {&col, [&] { return col.forward(m); }, {m}},
      {&msa_transition, [&] { return msa_transition.forward(m); }, {m}},
      {&opm, [&] { return opm.forward(m); }, {m}},
      {&mul_out, [&] { return mul_out.forward(z); }, {z}},
      {&mul_in, [&] { return mul_in.forward(z); }, {z}},
      {&att_start, [&] { return att_start.forward(z); }, {z}},
      {&att_end, [&] { return att_end.forward(z); }, {z}},
      {&pair_transition, [&] { return pair_transition.forward(z); }, {z}},
  };
  const std::vector<bench::ModuleFlops> flops = bench::evoformer_module_flops(sizes);
  nlohmann::json out = nlohmann::json::array();
  std::cout << "  module                 GFLOP fwd   fwd ms  CPU ms  GFLOP/s   fwd+bwd ms   CPU ms  GFLOP/s\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ModuleTimes t = time_module(*runs[i].module, runs[i].forward, runs[i].inputs, repeats, warmup);
    const double gflop = flops[i].forward * 1e-9;
    const double rate_f = gflop / (t.forward_ms * 1e-3), rate_fb = 3 * gflop / (t.forward_backward_ms * 1e-3);
    std::printf("  %-22s %9.2f %8.1f %7.1f %8.1f %12.1f %8.1f %8.1f\n", flops[i].name.c_str(), gflop, t.forward_ms,
                t.forward_cpu_ms, rate_f, t.forward_backward_ms, t.forward_backward_cpu_ms, rate_fb);
    out.push_back({{"module", flops[i].name}, {"forward_gflop", gflop}, {"forward_ms", t.forward_ms},
                   {"forward_cpu_ms", t.forward_cpu_ms}, {"forward_gflop_per_s", rate_f},
                   {"forward_backward_ms", t.forward_backward_ms}, {"forward_backward_cpu_ms", t.forward_backward_cpu_ms},
                   {"forward_backward_gflop_per_s", rate_fb}});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bound_openmp_spinning(argv);  // as the attend program does: before anything else
  const Args a = parse(argc, argv);
  keep_freed_memory();  // as the attend program does
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
  const CallTimes forward = time_calls(a.repeats, [&] {
    NoGradGuard no_grad;
    const auto out = block.forward(m, z);
  }, a.warmup);
  const double rss_forward = peak_rss_mib();

  block.train();
  uint64_t step = 0;
  const CallTimes train = time_calls(a.repeats, [&] {
    const auto out = block.forward(m, z, ++step);
    Var loss = ops::add(ops::sum(out.m), ops::sum(out.z));  // scalar
    loss.backward();
    for (const auto& [name, p] : block.named_parameters()) p.zero_grad();
    m.zero_grad();
    z.zero_grad();
  }, a.warmup);
  const double rss_train = peak_rss_mib();

  bench::EvoformerSizes sizes;
  sizes.n_seq = a.n_seq;
  sizes.n_res = a.n_res;
  sizes.c_m = a.c_m;
  sizes.c_z = a.c_z;
  sizes.heads_msa = a.heads_msa;
  sizes.heads_pair = a.heads_pair;
  const double gflop = bench::evoformer_block_flops(sizes) * 1e-9;  // forward
  const double rate_forward = gflop / forward.wall, rate_train = 3 * gflop / train.wall;

  nlohmann::json result = {
      {"n_seq", a.n_seq}, {"n_res", a.n_res}, {"c_m", a.c_m}, {"c_z", a.c_z}, {"heads_msa", a.heads_msa},
      {"heads_pair", a.heads_pair}, {"chunk_size", a.chunk_size}, {"checkpoint", a.checkpoint}, {"threads", a.threads},
      {"repeats", a.repeats}, {"parameters", block.parameter_count()},
      {"forward_ms", forward.wall * 1e3}, {"forward_cpu_ms", forward.cpu * 1e3},
      {"forward_backward_ms", train.wall * 1e3}, {"forward_backward_cpu_ms", train.cpu * 1e3},
      {"peak_rss_mib_inputs", rss_inputs}, {"peak_rss_mib_forward", rss_forward},
      {"peak_rss_mib_forward_backward", rss_train}, {"forward_gflop", gflop},
      {"forward_gflop_per_s", rate_forward}, {"forward_backward_gflop_per_s", rate_train}};
  std::cout << "evoformer block n_seq " << a.n_seq << ", n_res " << a.n_res << ", c_m " << a.c_m << ", c_z "
            << a.c_z << ", heads " << a.heads_msa << "/" << a.heads_pair << ", " << a.threads << " threads\n"
            << "  forward            " << forward.wall * 1e3 << " ms wall, " << forward.cpu * 1e3
            << " ms CPU (peak RSS " << rss_forward << " MiB), " << rate_forward << " GFLOP/s of " << gflop
            << " GFLOP\n"
            << "  forward+backward   " << train.wall * 1e3 << " ms wall, " << train.cpu * 1e3
            << " ms CPU (peak RSS " << rss_train << " MiB), " << rate_train << " GFLOP/s of " << 3 * gflop
            << " GFLOP\n";
  if (a.modules) result["modules"] = time_modules(o, sizes, m, z, a.repeats, a.warmup);
  if (!a.json.empty()) std::ofstream(a.json) << result.dump(2) << "\n";
  return 0;
}
