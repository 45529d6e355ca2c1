#include "attend/graph/explain/shapley_sampling.hpp"

#include <algorithm>
#include <numeric>

#include "attend/core/error.hpp"
#include "attend/core/random.hpp"
#include "attend/graph/explain/batched_values.hpp"
#include "attend/graph/explain/edge_groups.hpp"
#include "attend/graph/explain/explained_quantity.hpp"
#include "attend/graph/explain/gradient_attribution.hpp"

namespace attend::graph {

namespace {

/// The per-player scores of `values` as floats, with v(empty) and the efficiency gap.
ShapleyAttribution attribution_of(const ShapleyValues& values) {
  ShapleyAttribution out;
  double sum = 0.0;
  for (double phi : values.value) {
    out.score.push_back(static_cast<float>(phi));
    sum += static_cast<double>(out.score.back());
  }
  out.baseline_value = values.empty_value;
  out.efficiency_gap = sum - (values.full_value - values.empty_value);
  return out;
}

/// The dataset node id of the explained node of `passes`: each node draws its own orders.
uint64_t target_node_id(const TargetForwards& passes) {
  const ComputationGraph& cg = passes.graph();
  return static_cast<uint64_t>(cg.nodes[static_cast<std::size_t>(cg.target)]);
}

/// shapley_edges over the players `grouped` (edge_groups of the explained edges).
ShapleyAttribution shapley_edge_groups(TargetForwards& passes, int64_t cls, const EdgeGroups& grouped,
                                       const std::vector<std::vector<int64_t>>& permutations, int64_t batch_values) {
  const ComputationGraph& cg = passes.graph();
  const int64_t n = cg.num_nodes(), e_count = cg.data.graph.plain().num_edges();
  const int64_t players = static_cast<int64_t>(grouped.groups.size());
  const int64_t per_batch = std::max<int64_t>(batch_values / (n + e_count), 1);
  const ShapleyValues values = shapley_over_permutations(
      players, permutations, per_batch, [&](const std::vector<std::vector<char>>& coalitions, int64_t copies) {
        NoGradGuard no_grad;
        Tensor mask({copies * e_count}, 1.0f);  // [copies E]: explained edges outside the coalition 0
        for (std::size_t k = 0; k < coalitions.size(); ++k) {
          for (int64_t g = 0; g < players; ++g) {
            if (coalitions[k][static_cast<std::size_t>(g)]) continue;
            for (int64_t e : grouped.groups[static_cast<std::size_t>(g)]) mask[static_cast<int64_t>(k) * e_count + e] = 0.0f;
          }
        }
        const TargetForward& pass = passes.copies(copies, TargetForward::Input::kShared);
        return per_copy_log_probability(pass.logits(passes.model(), pass.features(), Var(mask)).value(), cls);
      });
  ShapleyAttribution out = attribution_of(values);
  const std::vector<float> per_player = out.score;
  out.score.clear();
  for (std::size_t group : grouped.group_of) out.score.push_back(per_player[group]);
  return out;
}

/// shapley_features of the computation graph's dense features x [n, F].
ShapleyAttribution shapley_feature_columns(TargetForwards& passes, int64_t cls, const Tensor& x,
                                           const std::vector<std::vector<int64_t>>& permutations, int64_t batch_values) {
  const int64_t n = x.dim(0), f_count = x.dim(1);
  const int64_t per_batch = std::max<int64_t>(batch_values / std::max<int64_t>(x.numel(), 1), 1);
  const ShapleyValues values = shapley_over_permutations(
      f_count, permutations, per_batch, [&](const std::vector<std::vector<char>>& coalitions, int64_t copies) {
        NoGradGuard no_grad;
        Tensor batch({copies * n, f_count}, 0.0f);  // [copies n, F]: copy k's coalition's columns of x
        for (std::size_t k = 0; k < coalitions.size(); ++k) {
          for (int64_t v = 0; v < n; ++v) {
            for (int64_t f = 0; f < f_count; ++f) {
              if (coalitions[k][static_cast<std::size_t>(f)]) {
                batch[(static_cast<int64_t>(k) * n + v) * f_count + f] = x[v * f_count + f];
              }
            }
          }
        }
        const TargetForward& pass = passes.copies(copies);
        return per_copy_log_probability(pass.logits(passes.model(), NodeFeatures(Var(batch)), Var()).value(), cls);
      });
  return attribution_of(values);
}

}  // namespace

ShapleyValues shapley_over_permutations(int64_t players, const std::vector<std::vector<int64_t>>& permutations,
                                        int64_t per_batch, const CoalitionValues& values) {
  ATTEND_CHECK(players >= 0 && !permutations.empty(), players << " players, " << permutations.size() << " permutations");
  for (const std::vector<int64_t>& order : permutations) {
    std::vector<char> seen(static_cast<std::size_t>(players), 0);
    ATTEND_CHECK(static_cast<int64_t>(order.size()) == players, "an order of " << order.size() << " of " << players << " players");
    for (int64_t i : order) {
      ATTEND_CHECK(i >= 0 && i < players && !seen[static_cast<std::size_t>(i)], "player " << i << " twice or out of range");
      seen[static_cast<std::size_t>(i)] = 1;
    }
  }
  // Coalition c: 0 the empty one, 1 every player, then permutation p's prefix of j players
  // (1 <= j < n) at 2 + p (n - 1) + j - 1.
  const int64_t inner = std::max<int64_t>(players - 1, 0);
  const int64_t count = (players == 0 ? 1 : 2) + static_cast<int64_t>(permutations.size()) * inner;
  const std::vector<double> v = batched_values(count, per_batch, [&](int64_t first, int64_t size, int64_t copies) {
    std::vector<std::vector<char>> coalitions(static_cast<std::size_t>(size));
    for (int64_t k = 0; k < size; ++k) {
      const int64_t c = first + k;
      std::vector<char>& in = coalitions[static_cast<std::size_t>(k)];
      in.assign(static_cast<std::size_t>(players), c == 1 ? 1 : 0);
      if (c < 2) continue;
      const std::vector<int64_t>& order = permutations[static_cast<std::size_t>((c - 2) / inner)];
      const int64_t length = (c - 2) % inner + 1;
      for (int64_t j = 0; j < length; ++j) in[static_cast<std::size_t>(order[static_cast<std::size_t>(j)])] = 1;
    }
    return values(coalitions, copies);
  });

  ShapleyValues out;
  out.empty_value = v[0];
  out.full_value = players == 0 ? v[0] : v[1];
  out.value.assign(static_cast<std::size_t>(players), 0.0);
  for (std::size_t p = 0; p < permutations.size(); ++p) {
    double before = out.empty_value;
    for (int64_t j = 1; j <= players; ++j) {
      const double after = j == players ? out.full_value : v[static_cast<std::size_t>(2 + static_cast<int64_t>(p) * inner + j - 1)];
      out.value[static_cast<std::size_t>(permutations[p][static_cast<std::size_t>(j - 1)])] += after - before;
      before = after;
    }
  }
  for (double& phi : out.value) phi /= static_cast<double>(permutations.size());
  return out;
}

std::vector<std::vector<int64_t>> antithetic_permutations(int64_t players, int64_t samples, uint64_t seed) {
  ATTEND_CHECK(players >= 0 && samples >= 2 && samples % 2 == 0, samples << " samples of " << players << " players");
  Rng rng(seed);
  std::vector<std::vector<int64_t>> out;
  for (int64_t s = 0; s < samples / 2; ++s) {
    std::vector<int64_t> order(static_cast<std::size_t>(players));
    std::iota(order.begin(), order.end(), int64_t{0});
    for (int64_t i = players - 1; i > 0; --i) {  // Fisher-Yates
      std::swap(order[static_cast<std::size_t>(i)], order[rng.below(static_cast<uint64_t>(i) + 1)]);
    }
    out.push_back(order);
    std::reverse(order.begin(), order.end());
    out.push_back(order);
  }
  return out;
}

ShapleyAttribution shapley_edges(TargetForwards& passes, int64_t cls, const std::vector<int64_t>& edges, bool symmetric,
                                 const std::vector<std::vector<int64_t>>& permutations, int64_t batch_values) {
  const EdgeGroups grouped = edge_groups(passes.graph().data.graph.plain(), edges, symmetric);
  return shapley_edge_groups(passes, cls, grouped, permutations, batch_values);
}

ShapleyAttribution shapley_edges(TargetForwards& passes, int64_t cls, const std::vector<int64_t>& edges, bool symmetric,
                                 int64_t samples, uint64_t seed, int64_t batch_values) {
  const EdgeGroups grouped = edge_groups(passes.graph().data.graph.plain(), edges, symmetric);
  const int64_t players = static_cast<int64_t>(grouped.groups.size());
  return shapley_edge_groups(passes, cls, grouped,
                             antithetic_permutations(players, samples, mix64(seed ^ target_node_id(passes))), batch_values);
}

ShapleyAttribution shapley_features(TargetForwards& passes, int64_t cls, const std::vector<std::vector<int64_t>>& permutations,
                                    int64_t batch_values) {
  return shapley_feature_columns(passes, cls, dense_features(passes.graph()), permutations, batch_values);
}

ShapleyAttribution shapley_features(TargetForwards& passes, int64_t cls, int64_t samples, uint64_t seed,
                                    int64_t batch_values) {
  const Tensor x = dense_features(passes.graph());  // [n, F]
  return shapley_feature_columns(passes, cls, x,
                                 antithetic_permutations(x.dim(1), samples, mix64(mix64(seed ^ target_node_id(passes)))),
                                 batch_values);
}

}  // namespace attend::graph
