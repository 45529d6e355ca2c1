#include "attend/graph/graph_context.hpp"

#include "attend/graph/graph_algorithms.hpp"

namespace attend::graph {

namespace {
GraphView make_view(int64_t n, std::vector<int64_t> src, std::vector<int64_t> dst,
                    std::vector<int64_t> relation) {
  GraphView v;
  v.csr = Csr::from_edges(n, src, dst);
  v.src = std::move(src);
  v.dst = std::move(dst);
  v.relation = std::move(relation);
  return v;
}
}  // namespace

GraphContext GraphContext::from_dataset(const NodeDataset& d) {
  GraphContext g;
  g.num_nodes_ = d.num_nodes;
  std::vector<int64_t> src, dst, rel;
  if (!d.directed) {
    const EdgeList both = symmetrize(EdgeList{d.num_nodes, d.edge_src, d.edge_dst});
    src = both.src;
    dst = both.dst;
    rel.assign(src.size(), 0);
    g.num_relations_ = 2;  // the edges, and the self-loops
  } else {
    const int64_t r = std::max<int64_t>(d.num_relations(), 1);
    for (std::size_t e = 0; e < d.edge_src.size(); ++e) {
      const int64_t type = d.edge_type.empty() ? 0 : d.edge_type[e];
      src.push_back(d.edge_src[e]);
      dst.push_back(d.edge_dst[e]);
      rel.push_back(type);
      src.push_back(d.edge_dst[e]);  // the inverse edge
      dst.push_back(d.edge_src[e]);
      rel.push_back(type + r);
    }
    g.num_relations_ = 2 * r + 1;
  }
  std::vector<int64_t> lsrc, ldst, lrel;
  for (std::size_t e = 0; e < src.size(); ++e) {
    if (src[e] == dst[e]) continue;
    lsrc.push_back(src[e]);
    ldst.push_back(dst[e]);
    lrel.push_back(rel[e]);
  }
  for (int64_t v = 0; v < d.num_nodes; ++v) {
    lsrc.push_back(v);
    ldst.push_back(v);
    lrel.push_back(g.num_relations_ - 1);
  }
  g.plain_ = make_view(d.num_nodes, std::move(src), std::move(dst), std::move(rel));
  g.looped_ = make_view(d.num_nodes, std::move(lsrc), std::move(ldst), std::move(lrel));
  return g;
}

}  // namespace attend::graph
