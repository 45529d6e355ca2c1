// The compact in-edge index: the same edges, in the same order, as the edge lists and views it
// replaces (graph::symmetrize, R-GCN's inverse edges, Csr::from_edges), at 4 bytes an id.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <limits>
#include <vector>

#include "attend/core/csr.hpp"
#include "attend/core/error.hpp"
#include "attend/graph/compact_ids.hpp"
#include "attend/graph/graph_algorithms.hpp"
#include "attend/graph/graph_context.hpp"
#include "attend/graph/graph_store.hpp"
#include "attend/graph/in_edge_index.hpp"
#include "random_graphs.hpp"
#include "temp_dir.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::random_dataset;
using attend::testing::random_typed_dataset;

namespace {

// The dataset's edges in blocks of `block` edges.
DatasetEdgeBlocks blocks_of(const NodeDataset& d, std::size_t block) {
  return [&d, block](const auto& visit) {
    for (std::size_t first = 0; first < d.edge_src.size(); first += block) {
      const std::size_t n = std::min(block, d.edge_src.size() - first);
      const std::span<const int64_t> type =
          d.edge_type.empty() ? std::span<const int64_t>{} : std::span<const int64_t>(d.edge_type).subspan(first, n);
      visit(DatasetEdgeBlock{std::span<const int64_t>(d.edge_src).subspan(first, n),
                             std::span<const int64_t>(d.edge_dst).subspan(first, n), type});
    }
  };
}

// The Csr's arrays, for comparing two Csrs bit for bit.
std::vector<std::vector<int64_t>> arrays(const Csr& c) {
  return {c.indptr(), c.src(), c.edge_id(), c.out_indptr(), c.out_dst(), c.out_pos()};
}

}  // namespace

TEST_CASE("compact ids are int32 while the largest id fits and int64 beyond", "[graph]") {
  CompactIds narrow(3, std::numeric_limits<int32_t>::max());
  CHECK_FALSE(narrow.is_wide());
  narrow.set(2, std::numeric_limits<int32_t>::max());
  CHECK(narrow[2] == std::numeric_limits<int32_t>::max());
  CHECK(narrow.bytes() == 3 * sizeof(int32_t));
  CompactIds wide(3, int64_t{1} << 31);
  CHECK(wide.is_wide());
  wide.set(1, int64_t{1} << 40);
  CHECK(wide[1] == int64_t{1} << 40);
  CHECK(wide[0] == 0);
}

TEST_CASE("an undirected dataset's in-edge index is symmetrize's edge list in rows, 4 bytes an edge", "[graph]") {
  NodeDataset d = random_dataset(60, 300, 3);
  for (int64_t e = 0; e < 20; ++e) {  // repeated pairs, both ways round, and self-loops
    d.edge_src.push_back(d.edge_dst[e]);
    d.edge_dst.push_back(d.edge_src[e]);
  }
  d.edge_src.insert(d.edge_src.end(), {7, 7, 9});
  d.edge_dst.insert(d.edge_dst.end(), {7, 7, 9});
  const EdgeList both = symmetrize(EdgeList{d.num_nodes, d.edge_src, d.edge_dst});  // ordered by (dst, src)
  REQUIRE(4 * (2 * d.edge_src.size() - both.src.size()) < 2 * d.edge_src.size());  // too few duplicates to shrink
  for (std::size_t block : {std::size_t{1}, std::size_t{7}, d.edge_src.size()}) {
    INFO("block " << block);
    const InEdgeIndex index = InEdgeIndex::from_dataset_edges(d.num_nodes, false, 1, blocks_of(d, block));
    REQUIRE(index.num_edges() == static_cast<int64_t>(both.src.size()));
    for (int64_t i = 0; i < d.num_nodes; ++i) {
      for (int64_t p = index.indptr()[i]; p < index.indptr()[i + 1]; ++p) {
        CHECK(both.dst[p] == i);
        CHECK(index.source(p) == both.src[p]);
        CHECK(index.edge_id(p) == p);
        CHECK(index.relation(p) == 0);
      }
    }
    CHECK(index.self_loops(7) == 1);  // listed twice, kept once
    CHECK(index.self_loops(9) == 1);
    CHECK(index.self_loops(8) == 0);
    // Sources (room for every listed direction: few were duplicates), row pointers and the
    // self-loop counts; no edge ids, no relations.
    CHECK(index.bytes() == 4 * 2 * d.edge_src.size() + 8 * (d.num_nodes + 1) + 4 * d.num_nodes);
  }
}

TEST_CASE("a directed typed dataset's index numbers each edge and its inverse as R-GCN does", "[graph]") {
  const NodeDataset d = random_typed_dataset(40, 200, 3, 5);
  std::vector<int64_t> src, dst, rel;  // edge 2k and its inverse 2k + 1
  for (std::size_t k = 0; k < d.edge_src.size(); ++k) {
    src.insert(src.end(), {d.edge_src[k], d.edge_dst[k]});
    dst.insert(dst.end(), {d.edge_dst[k], d.edge_src[k]});
    rel.insert(rel.end(), {d.edge_type[k], d.edge_type[k] + 3});
  }
  const Csr expected = Csr::from_edges(d.num_nodes, src, dst);
  const InEdgeIndex index = InEdgeIndex::from_dataset_edges(d.num_nodes, true, 3, blocks_of(d, 11));
  REQUIRE(index.num_edges() == expected.n_edges());
  CHECK(index.indptr() == expected.indptr());
  for (int64_t p = 0; p < index.num_edges(); ++p) {
    CHECK(index.source(p) == expected.src()[p]);
    CHECK(index.edge_id(p) == expected.edge_id()[p]);
    CHECK(index.relation(p) == rel[expected.edge_id()[p]]);
  }
  CHECK(InEdgeIndex::from_edges(d.num_nodes, src, dst, rel).bytes() == index.bytes());
}

TEST_CASE("views built from the index are the views built from edge arrays", "[graph]") {
  for (const NodeDataset& d : {random_dataset(50, 200, 8), random_typed_dataset(50, 200, 2, 9)}) {
    INFO("directed " << d.directed);
    const GraphContext g = GraphContext::from_dataset(d);
    std::vector<int64_t> src, dst, rel;  // the plain edges by the rules of from_dataset
    if (d.directed) {
      for (std::size_t k = 0; k < d.edge_src.size(); ++k) {
        src.insert(src.end(), {d.edge_src[k], d.edge_dst[k]});
        dst.insert(dst.end(), {d.edge_dst[k], d.edge_src[k]});
        rel.insert(rel.end(), {d.edge_type[k], d.edge_type[k] + 2});
      }
    } else {
      const EdgeList both = symmetrize(EdgeList{d.num_nodes, d.edge_src, d.edge_dst});
      src = both.src;
      dst = both.dst;
      rel.assign(src.size(), 0);
    }
    CHECK(g.plain().src == src);
    CHECK(g.plain().dst == dst);
    CHECK(g.plain().relation == rel);
    CHECK(arrays(g.plain().csr) == arrays(Csr::from_edges(d.num_nodes, src, dst)));
    const EdgeList looped = with_self_loops(EdgeList{d.num_nodes, src, dst});
    CHECK(g.looped().src == looped.src);
    CHECK(g.looped().dst == looped.dst);
    CHECK(arrays(g.looped().csr) == arrays(Csr::from_edges(d.num_nodes, looped.src, looped.dst)));
    CHECK(g.looped().relation.back() == g.num_relations() - 1);
  }
}

TEST_CASE("the in-edge index refuses nodes and relations outside the graph", "[graph]") {
  NodeDataset d = random_typed_dataset(10, 30, 2, 1);
  d.edge_dst[12] = 10;
  CHECK_THROWS_WITH(InEdgeIndex::from_dataset_edges(10, true, 2, blocks_of(d, 5)),
                    Catch::Matchers::Contains("edge 12 (") && Catch::Matchers::Contains("outside 0..9"));
  d.edge_dst[12] = 3;
  d.edge_type[4] = 2;
  CHECK_THROWS_WITH(InEdgeIndex::from_dataset_edges(10, true, 2, blocks_of(d, 5)),
                    Catch::Matchers::Contains("edge 4 has relation 2 outside 0..1"));
  CHECK_THROWS_AS(InEdgeIndex::from_edges(3, {0, 1}, {1, 3}, {0, 0}), Error);
  CHECK_THROWS_AS(InEdgeIndex::from_edges(3, {0, 1}, {1, 2}, {0, -1}), Error);
}

TEST_CASE("a graph file read as an in-edge index gives the graph its edge arrays give", "[graph][io]") {
  testing::TempDir dir;
  for (const NodeDataset& d : {random_dataset(50, 200, 4), random_typed_dataset(50, 200, 3, 6)}) {
    INFO("directed " << d.directed);
    save_node_dataset(dir.file("g.h5"), d);
    GraphStructure lean = load_graph_structure_h5(dir.file("g.h5"), {}, StructureEdges::kIndex);
    CHECK(lean.dataset.edge_src.empty());
    CHECK(lean.num_edges == d.num_edges());
    REQUIRE(lean.graph.has_value());
    const GraphContext expected = GraphContext::from_dataset(d);
    CHECK(lean.graph->num_relations() == expected.num_relations());
    CHECK(lean.graph->in_edges().bytes() == expected.in_edges().bytes());
    CHECK(lean.graph->plain().src == expected.plain().src);
    CHECK(lean.graph->plain().dst == expected.plain().dst);
    CHECK(lean.graph->plain().relation == expected.plain().relation);
    const GraphStructure full = load_graph_structure_h5(dir.file("g.h5"), {});
    CHECK(full.dataset.edge_src == d.edge_src);
    CHECK_FALSE(full.graph.has_value());
  }
}

TEST_CASE("an undirected index listing both directions of its pairs gives back the room of the duplicates", "[graph]") {
  NodeDataset d = random_dataset(60, 300, 4);
  const std::size_t listed = d.edge_src.size();
  for (std::size_t e = 0; e < listed; ++e) {  // every pair again, the other way round
    d.edge_src.push_back(d.edge_dst[e]);
    d.edge_dst.push_back(d.edge_src[e]);
  }
  const InEdgeIndex index = InEdgeIndex::from_dataset_edges(d.num_nodes, false, 1, blocks_of(d, 64));
  const EdgeList both = symmetrize(EdgeList{d.num_nodes, d.edge_src, d.edge_dst});
  CHECK(index.num_edges() == static_cast<int64_t>(both.src.size()));
  CHECK(index.bytes() <= 4 * both.src.size() + 8 * (d.num_nodes + 1) + 4 * d.num_nodes);
}

TEST_CASE("a graph opened out of core is read as an index, and only from an HDF5 file", "[graph][io]") {
  testing::TempDir dir;
  const NodeDataset d = random_dataset(30, 60, 2);
  save_node_dataset(dir.file("g.h5"), d);
  const GraphStructure g = open_graph_out_of_core(dir.file("g.h5"), 1 << 20, true);
  REQUIRE(g.graph.has_value());
  CHECK(g.graph->in_edges().num_edges() == GraphContext::from_dataset(d).in_edges().num_edges());
  CHECK(g.dataset.edge_src.empty());
  std::ofstream(dir.file("g.txt")) << "0 1\n";
  CHECK_THROWS_WITH(open_graph_out_of_core(dir.file("g.txt"), 0, true),
                    Catch::Matchers::Contains("g.txt") && Catch::Matchers::Contains("--features-layout dense"));
}
