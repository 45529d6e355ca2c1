#include "attend/graph/random_multigraph.hpp"

#include <string>

#include "attend/core/error.hpp"

namespace attend::graph {

NodeDataset random_multigraph(const RandomMultigraphSpec& spec, Rng& rng) {
  ATTEND_CHECK(spec.num_nodes >= 0 && spec.num_edges >= 0 && spec.num_relations >= 0,
               "random_multigraph: negative count");
  ATTEND_CHECK(spec.num_nodes > 0 || spec.num_edges == 0, "random_multigraph: edges need nodes");
  NodeDataset d;
  d.name = "random";
  d.num_nodes = spec.num_nodes;
  d.directed = spec.directed;
  const auto node = [&] { return static_cast<int64_t>(rng.below(static_cast<uint64_t>(spec.num_nodes))); };
  d.edge_src.resize(spec.num_edges);
  d.edge_dst.resize(spec.num_edges);
  for (int64_t e = 0; e < spec.num_edges; ++e) {
    d.edge_src[e] = node();
    d.edge_dst[e] = node();
  }
  if (spec.num_relations > 0) {
    d.edge_type.resize(spec.num_edges);
    for (int64_t& t : d.edge_type) t = static_cast<int64_t>(rng.below(static_cast<uint64_t>(spec.num_relations)));
    for (int64_t r = 0; r < spec.num_relations; ++r) d.relation_names.push_back("r" + std::to_string(r));
  }
  d.labels.assign(spec.num_nodes, -1);
  return d;
}

}  // namespace attend::graph
