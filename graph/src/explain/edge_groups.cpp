#include "attend/graph/explain/edge_groups.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "attend/core/error.hpp"

namespace attend::graph {

EdgeGroups edge_groups(const GraphView& plain, const std::vector<int64_t>& edges, bool symmetric) {
  const int64_t e_count = plain.num_edges();
  using Pair = std::tuple<int64_t, int64_t, int64_t>;  // lower endpoint, higher endpoint, relation
  auto pair_of = [&](int64_t e) {
    return Pair{std::min(plain.src[e], plain.dst[e]), std::max(plain.src[e], plain.dst[e]), plain.relation[e]};
  };
  std::map<Pair, std::vector<int64_t>> joining;
  if (symmetric) {
    for (int64_t e = 0; e < e_count; ++e) joining[pair_of(e)].push_back(e);
  }
  EdgeGroups out;
  out.group_of.resize(edges.size());
  std::map<Pair, std::size_t> group_of_pair;
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const int64_t e = edges[k];
    ATTEND_CHECK(e >= 0 && e < e_count, "edge " << e << " of a computation graph of " << e_count << " edges");
    if (!symmetric) {
      out.group_of[k] = out.groups.size();
      out.groups.push_back({e});
      continue;
    }
    const auto [at, added] = group_of_pair.emplace(pair_of(e), out.groups.size());
    if (added) out.groups.push_back(joining.at(pair_of(e)));
    out.group_of[k] = at->second;
  }
  return out;
}

}  // namespace attend::graph
