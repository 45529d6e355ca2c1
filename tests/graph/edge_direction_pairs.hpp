#pragma once
/// A check shared by the explainers' `symmetric` tests (occlusion, Shapley values).

#include <catch2/catch.hpp>

#include <cstddef>

#include "attend/graph/explain/node_explanation.hpp"

namespace attend::testing {

/// CHECKs that every explained edge j -> i whose reverse i -> j is explained too has its
/// reverse's score; returns how many ordered pairs were compared.
inline int check_directions_share_score(const graph::NodeExplanation& x) {
  int pairs = 0;
  for (std::size_t a = 0; a < x.edge_id.size(); ++a) {
    for (std::size_t b = 0; b < x.edge_id.size(); ++b) {
      if (x.edge_src[a] != x.edge_dst[b] || x.edge_dst[a] != x.edge_src[b]) continue;
      CHECK(x.edge_score[a] == x.edge_score[b]);
      ++pairs;
    }
  }
  return pairs;
}

}  // namespace attend::testing
