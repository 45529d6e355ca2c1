#include "attend/graph/explain/computation_graph.hpp"

#include <algorithm>
#include <set>

#include "attend/core/error.hpp"

namespace attend::graph {

namespace {
// d(v) for every node with d(v) <= max_distance, -1 elsewhere: BFS from `target` against
// the direction of the plain edges (from a node to the sources of its in-edges).
std::vector<int32_t> distances_to(const GraphView& plain, int64_t target, int32_t max_distance) {
  std::vector<int32_t> dist(static_cast<std::size_t>(plain.csr.n_nodes()), -1);
  std::vector<int64_t> queue{target};
  dist[target] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const int64_t i = queue[head];
    if (dist[i] == max_distance) continue;
    for (int64_t p = plain.csr.indptr()[i]; p < plain.csr.indptr()[i + 1]; ++p) {
      const int64_t j = plain.csr.src()[p];
      if (dist[j] >= 0) continue;
      dist[j] = dist[i] + 1;
      queue.push_back(j);
    }
  }
  return dist;
}
}  // namespace

ComputationGraph computation_graph(const PreparedNodeData& full, int64_t target, int hops) {
  const NodeDataset& d = full.dataset;
  ATTEND_CHECK(target >= 0 && target < d.num_nodes, "target node " << target << " of " << d.num_nodes);
  ATTEND_CHECK(hops >= 0, "a computation graph of " << hops << " hops");
  ATTEND_CHECK(full.features.is_sparse() || full.features.dense.defined(), "computation_graph expects features in memory");
  const GraphView& plain = full.graph.plain();
  const std::vector<int32_t> dist = distances_to(plain, target, hops);

  ComputationGraph cg;
  cg.hops = hops;
  std::vector<int64_t> local(static_cast<std::size_t>(d.num_nodes), -1);
  for (int64_t v = 0; v < d.num_nodes; ++v) {
    if (dist[v] < 0) continue;
    local[v] = cg.num_nodes();
    cg.nodes.push_back(v);
    cg.distance.push_back(dist[v]);
  }
  cg.target = local[target];

  NodeDataset sub;
  sub.name = d.name + " (computation graph of node " + d.node_name(target) + ")";
  sub.num_nodes = cg.num_nodes();
  // The feature values are cg.data.features (selected below); the dataset keeps the shape
  // [n, F], as prepare_node_data leaves it.
  if (d.num_features() > 0) sub.features = SparseMatrix::from_triplets(sub.num_nodes, d.num_features(), {}, {}, {});
  for (int64_t v : cg.nodes) sub.labels.push_back(d.labels[v]);
  sub.num_classes = d.num_classes;
  sub.directed = d.directed;
  sub.relation_names = d.relation_names;
  sub.class_names = d.class_names;
  for (int64_t e = 0; e < d.num_edges(); ++e) {
    const int64_t a = d.edge_src[e], b = d.edge_dst[e];
    // The stored edge gives plain edges a -> b and b -> a (undirected or inverse): keep it
    // when one of them ends at a node with d < L (its source then has d <= L).
    const bool needed = (dist[a] >= 0 && dist[a] < hops) || (dist[b] >= 0 && dist[b] < hops);
    if (!needed) continue;
    sub.edge_src.push_back(local[a]);
    sub.edge_dst.push_back(local[b]);
    if (!d.edge_type.empty()) sub.edge_type.push_back(d.edge_type[e]);
  }
  cg.data.graph = GraphContext::from_dataset(sub);
  std::vector<int64_t> plain_degree, looped_degree;  // [n] in the full graph
  for (int64_t v : cg.nodes) {
    plain_degree.push_back(full.graph.normalization_degree(v, false));
    looped_degree.push_back(full.graph.normalization_degree(v, true));
  }
  cg.data.graph.set_normalization_degrees(std::move(plain_degree), std::move(looped_degree));
  cg.data.features = select_rows(full.features, cg.nodes);
  cg.data.dataset = std::move(sub);

  // Each local plain edge is the first unused full-graph edge with the same endpoints and
  // relation (multigraphs keep their duplicates in the same order).
  const GraphView& sub_plain = cg.data.graph.plain();
  std::set<int64_t> used;
  for (int64_t e = 0; e < sub_plain.num_edges(); ++e) {
    const int64_t src = cg.nodes[sub_plain.src[e]], dst = cg.nodes[sub_plain.dst[e]];
    int64_t found = -1;
    for (int64_t p = plain.csr.indptr()[dst]; p < plain.csr.indptr()[dst + 1] && found < 0; ++p) {
      const int64_t id = plain.csr.edge_id()[p];
      if (plain.csr.src()[p] == src && plain.relation[id] == sub_plain.relation[e] && !used.count(id)) found = id;
    }
    ATTEND_CHECK(found >= 0, "computation graph edge " << src << " -> " << dst << " is not in the graph");
    used.insert(found);
    cg.plain_edge.push_back(found);
    if (cg.distance[sub_plain.dst[e]] < hops && sub_plain.src[e] != sub_plain.dst[e]) cg.explained.push_back(e);
  }
  return cg;
}

}  // namespace attend::graph
