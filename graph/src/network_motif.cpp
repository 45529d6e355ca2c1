#include "attend/graph/network_motif.hpp"

#include <algorithm>

#include "attend/core/error.hpp"

namespace attend::graph {

int64_t NetworkMotif::num_roles() const { return roles.empty() ? 0 : *std::max_element(roles.begin(), roles.end()) + 1; }

NetworkMotif house_motif() {
  NetworkMotif house;
  house.name = "house";
  house.num_nodes = 5;
  house.edges = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 0}, {4, 1}};
  house.roles = {0, 0, 1, 1, 2};
  return house;
}

NetworkMotif cycle_motif(int64_t length) {
  ATTEND_CHECK(length >= 3, "cycle_motif: a cycle needs at least 3 nodes, got " << length);
  NetworkMotif cycle;
  cycle.name = "cycle";
  cycle.num_nodes = length;
  for (int64_t i = 0; i < length; ++i) cycle.edges.push_back({i, (i + 1) % length});
  cycle.roles.assign(length, 0);
  return cycle;
}

NetworkMotif grid_motif(int64_t side) {
  ATTEND_CHECK(side >= 2, "grid_motif: a grid needs a side of at least 2, got " << side);
  NetworkMotif grid;
  grid.name = "grid";
  grid.num_nodes = side * side;
  for (int64_t r = 0; r < side; ++r) {
    for (int64_t c = 0; c < side; ++c) {
      if (c + 1 < side) grid.edges.push_back({r * side + c, r * side + c + 1});
      if (r + 1 < side) grid.edges.push_back({r * side + c, (r + 1) * side + c});
    }
  }
  grid.roles.assign(grid.num_nodes, 0);
  return grid;
}

}  // namespace attend::graph
