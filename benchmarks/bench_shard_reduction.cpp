/// Benchmark of the data-parallel gradient sum (core/shard_reduction.hpp) under
/// `mpirun -np K bench_shard_reduction`: for each gradient size P (--values), the time of the
/// all-gather of the ranks' subtree sums alone and of a whole sum_shard_gradients call (shard
/// gradients that cost nothing to compute, so what remains is copying, adding and
/// communicating). Rank 0 prints medians over --repeats calls, each started after a barrier,
/// and writes JSON to --json. Without mpirun: K = 1 (no communication, the local tree only).

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/core/communicator.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/core/shard_reduction.hpp"
#include "option_checks.hpp"

using namespace attend;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds of `fn` over `repeats` calls, every rank starting each call together.
template <class Fn>
double timed(const Communicator& comm, int repeats, Fn&& fn) {
  std::vector<double> seconds;
  fn();  // warm-up: first-touch of the buffers, MPI connection set-up
  for (int r = 0; r < repeats; ++r) {
    comm.barrier();
    const auto start = std::chrono::steady_clock::now();
    fn();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // The slowest rank's median is the step's: every rank waits for it at the next collective.
  const std::vector<double> all = comm.allgather(std::vector<double>{median(seconds)});
  return *std::max_element(all.begin(), all.end());
}

}  // namespace

int main(int argc, char** argv) {
  bound_openmp_spinning(argv);  // as the attend program does: before anything else
  std::vector<int64_t> sizes = {9741, 17939, 92373, 1000000, 10000000};
  int64_t shards = 8;
  int repeats = 20;
  std::string json_path;
  CLI::App app{"Time the data-parallel gradient sum (run under mpirun -np K)"};
  app.add_option("--values", sizes, "gradient sizes P (floats)")->check(attend::cli::at_least(1));
  app.add_option("--shards", shards, "shards per batch")->check(attend::cli::at_least(1))->capture_default_str();
  app.add_option("--repeats", repeats, "timed calls per size")->check(attend::cli::at_least(1))->capture_default_str();
  app.add_option("--json", json_path, "write the results as JSON");
  CLI11_PARSE(app, argc, argv);

  const Communicator& comm = Communicator::world();
  nlohmann::json rows = nlohmann::json::array();
  if (comm.is_root()) std::cout << "ranks " << comm.size() << ", shards " << shards << "\n         P  allgather ms  shard sum ms  MB in per rank\n";
  for (const int64_t P : sizes) {
    ParameterArena arena({{"w", Var(Tensor({P}, 0.0f), true)}});
    const std::vector<float> partial(static_cast<std::size_t>(P), 1.0f);  // one subtree sum per rank
    const double gather = timed(comm, repeats, [&] { comm.allgather(std::span<const float>(partial)); });
    const double sum = timed(comm, repeats, [&] {
      sum_shard_gradients(comm, arena, shards, [&](int64_t s) { arena.grads()[static_cast<std::size_t>(s % P)] = 1.0f; });
    });
    const double mb_in = double(comm.size() - 1) * double(P) * sizeof(float) / 1e6;
    if (comm.is_root()) {
      std::printf("%10lld  %12.3f  %12.3f  %14.1f\n", static_cast<long long>(P), gather * 1e3, sum * 1e3, mb_in);
    }
    rows.push_back({{"values", P}, {"allgather_seconds", gather}, {"shard_sum_seconds", sum}, {"mb_received_per_rank", mb_in}});
  }
  if (comm.is_root() && !json_path.empty()) {
    std::ofstream(json_path) << nlohmann::json{{"ranks", comm.size()}, {"shards", shards}, {"rows", rows}}.dump(2) << '\n';
  }
  return 0;
}
