#include "attend/core/csr.hpp"

#include <utility>

#include "attend/core/error.hpp"

namespace attend {

namespace {

/// Check the destination-major arrays; the message names the first rule broken.
void validate(int64_t n_nodes, const std::vector<int64_t>& indptr,
              const std::vector<int64_t>& src, const std::vector<int64_t>& edge_id) {
  ATTEND_CHECK(n_nodes >= 0, "Csr: negative node count " << n_nodes);
  ATTEND_CHECK(static_cast<int64_t>(indptr.size()) == n_nodes + 1,
               "Csr: indptr has " << indptr.size() << " entries, expected n_nodes + 1 = "
                                  << n_nodes + 1);
  const int64_t n_edges = static_cast<int64_t>(src.size());
  ATTEND_CHECK(static_cast<int64_t>(edge_id.size()) == n_edges,
               "Csr: " << edge_id.size() << " edge ids for " << n_edges << " edges");
  ATTEND_CHECK(indptr.front() == 0, "Csr: indptr[0] is " << indptr.front() << ", expected 0");
  ATTEND_CHECK(indptr.back() == n_edges, "Csr: indptr[n_nodes] is "
                                             << indptr.back() << ", expected the edge count "
                                             << n_edges);
  for (int64_t i = 0; i < n_nodes; ++i) {
    ATTEND_CHECK(indptr[i] <= indptr[i + 1], "Csr: indptr decreases at node "
                                                 << i << " (" << indptr[i] << " > "
                                                 << indptr[i + 1] << ")");
  }
  std::vector<char> seen(n_edges, 0);
  for (int64_t p = 0; p < n_edges; ++p) {
    ATTEND_CHECK(src[p] >= 0 && src[p] < n_nodes, "Csr: position " << p << " has source "
                                                                   << src[p] << " outside [0, "
                                                                   << n_nodes << ")");
    const int64_t id = edge_id[p];
    ATTEND_CHECK(id >= 0 && id < n_edges && !seen[id],
                 "Csr: edge ids must be a permutation of 0.." << n_edges - 1 << "; position "
                                                              << p << " has " << id);
    seen[id] = 1;
  }
}

}  // namespace

Csr::Csr() : Csr(0, {0}, {}, {}) {}

Csr Csr::with_edge_scale(Var scale) const {
  ATTEND_CHECK(!scale.defined() || scale.value().shape() == (Shape{n_edges()}),
               "Csr::with_edge_scale: scale of shape " << shape_to_string(scale.value().shape())
                                                       << ", expected [E] = [" << n_edges() << "]");
  Csr scaled = *this;
  scaled.edge_scale_ = std::move(scale);
  return scaled;
}

Csr::Csr(int64_t n_nodes, std::vector<int64_t> indptr, std::vector<int64_t> src,
         std::vector<int64_t> edge_id) {
  validate(n_nodes, indptr, src, edge_id);
  auto data = std::make_shared<Data>();
  data->n_nodes = n_nodes;
  data->indptr = std::move(indptr);
  data->src = std::move(src);
  data->edge_id = std::move(edge_id);

  // Transpose by a counting sort over sources; visiting positions in increasing order keeps
  // each source row sorted by position (and so by destination).
  const int64_t n_edges = static_cast<int64_t>(data->src.size());
  data->out_indptr.assign(n_nodes + 1, 0);
  for (int64_t p = 0; p < n_edges; ++p) ++data->out_indptr[data->src[p] + 1];
  for (int64_t j = 0; j < n_nodes; ++j) data->out_indptr[j + 1] += data->out_indptr[j];
  data->out_dst.resize(n_edges);
  data->out_pos.resize(n_edges);
  std::vector<int64_t> next(data->out_indptr.begin(), data->out_indptr.end() - 1);
  for (int64_t i = 0; i < n_nodes; ++i) {
    for (int64_t p = data->indptr[i]; p < data->indptr[i + 1]; ++p) {
      const int64_t slot = next[data->src[p]]++;
      data->out_dst[slot] = i;
      data->out_pos[slot] = p;
    }
  }
  data_ = std::move(data);
}

Csr Csr::from_edges(int64_t n_nodes, const std::vector<int64_t>& src,
                    const std::vector<int64_t>& dst) {
  ATTEND_CHECK(n_nodes >= 0, "Csr::from_edges: negative node count " << n_nodes);
  ATTEND_CHECK(src.size() == dst.size(), "Csr::from_edges: " << src.size() << " sources but "
                                                             << dst.size() << " destinations");
  const int64_t n_edges = static_cast<int64_t>(src.size());
  for (int64_t e = 0; e < n_edges; ++e) {
    ATTEND_CHECK(src[e] >= 0 && src[e] < n_nodes && dst[e] >= 0 && dst[e] < n_nodes,
                 "Csr::from_edges: edge " << e << " (" << src[e] << " -> " << dst[e]
                                          << ") has a node outside [0, " << n_nodes << ")");
  }
  // Stable counting sort by destination.
  std::vector<int64_t> indptr(n_nodes + 1, 0);
  for (int64_t e = 0; e < n_edges; ++e) ++indptr[dst[e] + 1];
  for (int64_t i = 0; i < n_nodes; ++i) indptr[i + 1] += indptr[i];
  std::vector<int64_t> sorted_src(n_edges), edge_id(n_edges);
  std::vector<int64_t> next(indptr.begin(), indptr.end() - 1);
  for (int64_t e = 0; e < n_edges; ++e) {
    const int64_t p = next[dst[e]]++;
    sorted_src[p] = src[e];
    edge_id[p] = e;
  }
  return Csr(n_nodes, std::move(indptr), std::move(sorted_src), std::move(edge_id));
}

}  // namespace attend
