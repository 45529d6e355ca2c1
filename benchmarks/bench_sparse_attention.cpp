/// Benchmark of a GAT layer (Velickovic et al., 2018) built the way graph::GatConv builds it:
/// projection ops::matmul + ops::reshape into heads, per-node terms with head_dot, fused
/// sparse_attention. The graph is --edges random edges plus one self-loop per node (as
/// benchmarks/reference_torch.py builds it). Times the inference forward (no gradient
/// recording), the training forward + backward, and sparse_attention alone (forward +
/// backward), each the median of --repeats runs, for every thread count in --threads.
/// Prints a table and writes JSON to --json.

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/core/csr.hpp"
#include "attend/core/heap.hpp"
#include "attend/core/measure.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/ops/head_dot.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "option_checks.hpp"

using namespace attend;

namespace {

Tensor uniform_tensor(const Shape& shape, Rng& rng, float lo, float hi) {
  Tensor t(shape);
  for (float& v : t) v = rng.uniform(lo, hi);
  return t;
}

/// x [N, F] W [F, H*C] -> [N, H, C], as graph::GatConv projects dense features.
Var project_heads(const Var& x, const Var& w, int64_t heads, int64_t channels) {
  return ops::reshape(ops::matmul(x, w), {x.dim(0), heads, channels});
}

}  // namespace

int main(int argc, char** argv) {
  bound_openmp_spinning(argv);  // as the attend program does: before anything else
  CLI::App app{"Benchmark a GAT layer on the fused sparse attention op"};
  int64_t nodes = 100000, edges = 1000000, in_features = 128, heads = 8, channels = 16;
  int repeats = 5;
  float dropout = 0.0f;
  uint64_t seed = 1;
  std::vector<int> threads{1, 2};
  std::string json_path;
  app.add_option("--nodes", nodes, "number of nodes")->check(attend::cli::at_least(1));
  app.add_option("--edges", edges, "number of random edges (self-loops come on top)")->check(attend::cli::at_least(0));
  app.add_option("--in-features", in_features, "input feature width")->check(attend::cli::at_least(1));
  app.add_option("--heads", heads, "attention heads")->check(attend::cli::at_least(1));
  app.add_option("--channels", channels, "channels per head")->check(attend::cli::at_least(1));
  app.add_option("--threads", threads, "thread counts to time, e.g. 1,2")->delimiter(',');
  app.add_option("--repeats", repeats, "timed runs per measurement (median)")
      ->check(attend::cli::at_least(1));
  app.add_option("--dropout", dropout, "attention dropout while training")
      ->check(CLI::Range(0.0, 0.99));
  app.add_option("--seed", seed, "seed of the random graph and inputs");
  app.add_option("--json", json_path, "write the results as JSON to this file");
  bool training_only = false;
  app.add_flag("--training-only", training_only,
               "time the forward + backward alone (so the peak memory is that of training)");
  CLI11_PARSE(app, argc, argv);
  keep_freed_memory();  // as the attend program does

  Rng rng(seed);
  std::vector<int64_t> src(edges + nodes), dst(edges + nodes);
  for (int64_t e = 0; e < edges; ++e) {
    src[e] = static_cast<int64_t>(rng.below(nodes));
    dst[e] = static_cast<int64_t>(rng.below(nodes));
  }
  for (int64_t i = 0; i < nodes; ++i) src[edges + i] = dst[edges + i] = i;  // self-loops
  const Csr graph = Csr::from_edges(nodes, src, dst);
  // The input is one Var made once, as a model holds its features (the reference, too, reuses
  // its tensor): a Var made inside the timed call would copy the [N, F] features every step.
  const Var x(uniform_tensor({nodes, in_features}, rng, -1.0f, 1.0f));  // [N, F]
  const float bound = 1.0f / std::sqrt(static_cast<float>(in_features));
  Var w(uniform_tensor({in_features, heads * channels}, rng, -bound, bound), true);  // [F, HC]
  Var a_src(uniform_tensor({heads, channels}, rng, -0.3f, 0.3f), true);              // [H, C]
  Var a_dst(uniform_tensor({heads, channels}, rng, -0.3f, 0.3f), true);              // [H, C]
  const Tensor seed_grad = uniform_tensor({nodes, heads, channels}, rng, -1.0f, 1.0f);
  ops::SparseAttentionOptions options;
  options.training = true;
  options.dropout = dropout;

  auto layer = [&](const Var& xv) {
    Var h = project_heads(xv, w, heads, channels);  // [N, H, C]
    Var s_src = ops::head_dot(h, a_src);            // [N, H]
    Var s_dst = ops::head_dot(h, a_dst);            // [N, H]
    return ops::sparse_attention(graph, ops::SparseScores::gat(s_src, s_dst), h, options);
  };
  // Inputs of the attention-only measurement: the layer's own projection and terms.
  Var h_fixed, s_src_fixed, s_dst_fixed;
  if (!training_only) {
    NoGradGuard no_grad;
    h_fixed = Var(project_heads(x, w, heads, channels).value(), true);
    s_src_fixed = Var(ops::head_dot(h_fixed, a_src).value(), true);
    s_dst_fixed = Var(ops::head_dot(h_fixed, a_dst).value(), true);
  }

  nlohmann::json results = nlohmann::json::array();
  std::printf("GAT layer: %lld nodes, %lld edges, %lld -> %lld x %lld, median of %d\n",
              static_cast<long long>(nodes), static_cast<long long>(edges),
              static_cast<long long>(in_features), static_cast<long long>(heads),
              static_cast<long long>(channels), repeats);
  std::printf("%8s %14s %18s %22s\n", "threads", "forward ms", "fwd+bwd ms",
              "attention fwd+bwd ms");
  for (int t : threads) {
    set_num_threads(t);
    const double forward = training_only ? NAN : 1e3 * time_calls(repeats, [&] {
      NoGradGuard no_grad;
      layer(x);
    }).wall;
    const double train = 1e3 * time_calls(repeats, [&] {
      w.zero_grad();
      a_src.zero_grad();
      a_dst.zero_grad();
      layer(x).backward(seed_grad);
    }).wall;
    const double attention = training_only ? NAN : 1e3 * time_calls(repeats, [&] {
      h_fixed.zero_grad();
      s_src_fixed.zero_grad();
      s_dst_fixed.zero_grad();
      ops::sparse_attention(graph, ops::SparseScores::gat(s_src_fixed, s_dst_fixed), h_fixed,
                            options)
          .backward(seed_grad);
    }).wall;
    std::printf("%8d %14.1f %18.1f %22.1f\n", t, forward, train, attention);
    results.push_back({{"threads", t},
                       {"forward_ms", forward},
                       {"forward_backward_ms", train},
                       {"attention_forward_backward_ms", attention}});
  }
  const double rss = peak_rss_mib();
  std::printf("peak resident memory: %.0f MiB\n", rss);
  if (!json_path.empty()) {
    nlohmann::json out = {{"benchmark", "sparse_attention_gat_layer"},
                          {"nodes", nodes},
                          {"edges", edges},
                          {"in_features", in_features},
                          {"heads", heads},
                          {"channels", channels},
                          {"repeats", repeats},
                          {"dropout", dropout},
                          {"seed", seed},
                          {"peak_rss_mib", rss},
                          {"results", results}};
    std::ofstream(json_path) << out.dump(2) << "\n";
  }
  return 0;
}
