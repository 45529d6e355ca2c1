#include "attend/graph/graph_algorithms.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/visitors.hpp>
#include <numeric>
#include <utility>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend::graph {

namespace {
// An undirected Boost CSR graph holding both directions of every edge.
using UndirectedCsr = boost::compressed_sparse_row_graph<boost::directedS>;

void check_edges(const EdgeList& e) {
  ATTEND_CHECK(e.src.size() == e.dst.size(), "edge arrays differ in length");
  for (std::size_t i = 0; i < e.src.size(); ++i) {
    ATTEND_CHECK(e.src[i] >= 0 && e.src[i] < e.num_nodes && e.dst[i] >= 0 && e.dst[i] < e.num_nodes,
                 "edge (" << e.src[i] << ", " << e.dst[i] << ") outside 0.." << e.num_nodes - 1);
  }
}

UndirectedCsr undirected_csr(const EdgeList& e) {
  const EdgeList both = symmetrize(e);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  pairs.reserve(both.src.size());
  for (std::size_t i = 0; i < both.src.size(); ++i) pairs.emplace_back(both.src[i], both.dst[i]);
  return UndirectedCsr(boost::edges_are_unsorted_multi_pass, pairs.begin(), pairs.end(),
                       static_cast<std::size_t>(e.num_nodes));
}
}  // namespace

EdgeList symmetrize(const EdgeList& edges) {
  check_edges(edges);
  std::vector<std::pair<int64_t, int64_t>> pairs;  // (dst, src)
  pairs.reserve(2 * edges.src.size());
  for (std::size_t i = 0; i < edges.src.size(); ++i) {
    pairs.emplace_back(edges.dst[i], edges.src[i]);
    pairs.emplace_back(edges.src[i], edges.dst[i]);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  EdgeList out{edges.num_nodes, {}, {}};
  for (const auto& [d, s] : pairs) {
    out.src.push_back(s);
    out.dst.push_back(d);
  }
  return out;
}

EdgeList with_self_loops(const EdgeList& edges) {
  check_edges(edges);
  EdgeList out{edges.num_nodes, {}, {}};
  for (std::size_t i = 0; i < edges.src.size(); ++i) {
    if (edges.src[i] == edges.dst[i]) continue;
    out.src.push_back(edges.src[i]);
    out.dst.push_back(edges.dst[i]);
  }
  for (int64_t v = 0; v < edges.num_nodes; ++v) {
    out.src.push_back(v);
    out.dst.push_back(v);
  }
  return out;
}

DegreeStats degree_stats(const EdgeList& edges) {
  check_edges(edges);
  std::vector<int64_t> in(static_cast<std::size_t>(edges.num_nodes), 0), out(in);
  for (std::size_t i = 0; i < edges.src.size(); ++i) {
    ++in[edges.dst[i]];
    ++out[edges.src[i]];
  }
  DegreeStats s;
  if (edges.num_nodes == 0) return s;
  s.min_in = *std::min_element(in.begin(), in.end());
  s.max_in = *std::max_element(in.begin(), in.end());
  s.mean_in = static_cast<double>(edges.src.size()) / static_cast<double>(edges.num_nodes);
  for (std::size_t v = 0; v < in.size(); ++v) s.isolated += (in[v] == 0 && out[v] == 0);
  return s;
}

std::vector<int64_t> connected_components(const EdgeList& edges, int64_t* count) {
  check_edges(edges);
  using Undirected = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  Undirected g(static_cast<std::size_t>(edges.num_nodes));
  for (std::size_t i = 0; i < edges.src.size(); ++i) boost::add_edge(edges.src[i], edges.dst[i], g);
  std::vector<int> component(static_cast<std::size_t>(edges.num_nodes));
  const int n = component.empty() ? 0 : boost::connected_components(g, component.data());
  if (count) *count = n;
  // Boost numbers components in DFS discovery order from vertex 0, i.e. by first node.
  return std::vector<int64_t>(component.begin(), component.end());
}

std::vector<int32_t> shortest_path_distances(const EdgeList& edges, int32_t max_distance) {
  check_edges(edges);
  ATTEND_CHECK(max_distance >= 0, "negative max_distance");
  const int64_t n = edges.num_nodes;
  const UndirectedCsr g = undirected_csr(edges);
  std::vector<int32_t> out(static_cast<std::size_t>(n * n), max_distance + 1);
  parallel_for(0, n, [&](int64_t s) {
    std::vector<int64_t> dist(static_cast<std::size_t>(n), -1);
    dist[s] = 0;
    auto recorder = boost::record_distances(dist.data(), boost::on_tree_edge());
    boost::breadth_first_search(g, static_cast<std::size_t>(s), boost::visitor(boost::make_bfs_visitor(recorder)));
    for (int64_t t = 0; t < n; ++t) {
      if (dist[t] >= 0 && dist[t] <= max_distance) out[s * n + t] = static_cast<int32_t>(dist[t]);
    }
  });
  return out;
}

}  // namespace attend::graph
