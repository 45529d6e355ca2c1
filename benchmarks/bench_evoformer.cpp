/// bench_evoformer: one Evoformer block (AF2 supplement, Alg. 6) at AlphaFold-like sizes:
/// forward time (inference, no tape) and forward+backward time (training mode, dropout on),
/// medians over repeats, and the peak resident memory of the process.
///
/// Options: bench_evoformer --help.

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/bio/evoformer/evoformer_block.hpp"
#include "attend/core/heap.hpp"
#include "attend/core/measure.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/reduction.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "option_checks.hpp"

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

}  // namespace

int main(int argc, char** argv) {
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
