#include "attend/graph/node_dataset.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "attend/core/error.hpp"
#include "attend/core/random.hpp"

namespace attend::graph {

std::string NodeDataset::node_name(int64_t i) const {
  return node_names.empty() ? std::to_string(i) : node_names.at(static_cast<std::size_t>(i));
}

void NodeDataset::validate() const {
  const auto n = static_cast<std::size_t>(num_nodes);
  ATTEND_CHECK(features.rows() == num_nodes || features.cols() == 0,
               name << ": " << features.rows() << " feature rows for " << num_nodes << " nodes");
  ATTEND_CHECK(labels.size() == n, name << ": " << labels.size() << " labels for " << n << " nodes");
  for (int64_t y : labels) ATTEND_CHECK(y >= -1 && y < num_classes, name << ": label " << y << " outside 0.." << num_classes - 1);
  ATTEND_CHECK(edge_src.size() == edge_dst.size(), name << ": edge arrays differ in length");
  ATTEND_CHECK(edge_type.empty() || edge_type.size() == edge_src.size(), name << ": edge types do not match the edges");
  for (std::size_t e = 0; e < edge_src.size(); ++e) {
    ATTEND_CHECK(edge_src[e] >= 0 && edge_src[e] < num_nodes && edge_dst[e] >= 0 && edge_dst[e] < num_nodes,
                 name << ": edge " << e << " (" << edge_src[e] << ", " << edge_dst[e] << ") outside 0.." << num_nodes - 1);
  }
  std::set<int64_t> seen;
  for (const auto* split : {&train, &val, &test}) {
    for (int64_t v : *split) {
      ATTEND_CHECK(v >= 0 && v < num_nodes, name << ": split node " << v << " outside 0.." << num_nodes - 1);
      ATTEND_CHECK(labels[static_cast<std::size_t>(v)] >= 0, name << ": split node " << v << " has no label");
      ATTEND_CHECK(seen.insert(v).second, name << ": node " << v << " is in two splits");
    }
  }
}

void hold_out_validation(NodeDataset& d, double fraction, uint64_t seed) {
  if (!d.val.empty()) throw InputError(d.name + ": the dataset already has a validation split");
  if (!(fraction > 0.0 && fraction < 1.0)) {
    throw InputError("the validation fraction must be in (0, 1), got " + std::to_string(fraction));
  }
  const auto n = static_cast<int64_t>(d.train.size());
  if (n < 2) throw InputError(d.name + ": too few training nodes to hold out a validation split");
  const int64_t k = std::clamp<int64_t>(std::llround(fraction * static_cast<double>(n)), 1, n - 1);
  // The first k positions of a Fisher-Yates shuffle of the training positions.
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  Rng rng(seed);
  for (int64_t i = 0; i < k; ++i) {
    const auto j = i + static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - i)));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  std::vector<bool> held(static_cast<std::size_t>(n), false);
  for (int64_t i = 0; i < k; ++i) held[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = true;
  std::vector<int64_t> train;
  for (int64_t i = 0; i < n; ++i) {
    (held[static_cast<std::size_t>(i)] ? d.val : train).push_back(d.train[static_cast<std::size_t>(i)]);
  }
  std::sort(d.val.begin(), d.val.end());
  d.train = std::move(train);
}

}  // namespace attend::graph
