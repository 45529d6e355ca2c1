#include "attend/graph/node_dataset.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "attend/core/error.hpp"
#include "attend/core/random.hpp"

namespace attend::graph {

std::string NodeDataset::node_name(int64_t i) const {
  return node_names.empty() ? std::to_string(i) : node_names.at(static_cast<std::size_t>(i));
}

void NodeDataset::validate() const {
  const auto n = static_cast<std::size_t>(num_nodes);
  const auto fail = [](const std::string& what) { throw InputError(what); };
  if (features.rows() != num_nodes && features.cols() != 0) {
    fail(std::to_string(features.rows()) + " feature rows for " + std::to_string(num_nodes) + " nodes");
  }
  // Every reader ends here, so a NaN or infinite feature (from any format) stops at load
  // instead of turning into NaN probabilities.
  const std::vector<float>& x = features.values();
  if (const auto bad = std::find_if(x.begin(), x.end(), [](float v) { return !std::isfinite(v); }); bad != x.end()) {
    fail("a non-finite feature value (" + std::to_string(*bad) + ")");
  }
  if (labels.size() != n) fail(std::to_string(labels.size()) + " labels for " + std::to_string(n) + " nodes");
  for (int64_t y : labels) {
    if (y < -1 || y >= num_classes) {
      fail("label " + std::to_string(y) + " outside 0.." + std::to_string(num_classes - 1));
    }
  }
  if (edge_src.size() != edge_dst.size()) fail("edge arrays differ in length");
  if (!edge_type.empty() && edge_type.size() != edge_src.size()) fail("edge types do not match the edges");
  if (edge_feature_dim < 0 || edge_features.size() != edge_src.size() * static_cast<std::size_t>(edge_feature_dim)) {
    fail(std::to_string(edge_features.size()) + " edge feature values for " + std::to_string(edge_src.size()) +
         " edges of " + std::to_string(edge_feature_dim) + " features");
  }
  if (const auto bad = std::find_if(edge_features.begin(), edge_features.end(), [](float v) { return !std::isfinite(v); });
      bad != edge_features.end()) {
    fail("a non-finite edge feature value (" + std::to_string(*bad) + ") on edge " +
         std::to_string((bad - edge_features.begin()) / edge_feature_dim));
  }
  for (std::size_t e = 0; e < edge_src.size(); ++e) {
    if (edge_src[e] < 0 || edge_src[e] >= num_nodes || edge_dst[e] < 0 || edge_dst[e] >= num_nodes) {
      fail("edge " + std::to_string(e) + " (" + std::to_string(edge_src[e]) + ", " + std::to_string(edge_dst[e]) +
           ") outside 0.." + std::to_string(num_nodes - 1));
    }
  }
  std::map<int64_t, const char*> split_of;
  for (const auto& [split, nodes] : {std::pair<const char*, const std::vector<int64_t>*>{"train", &train},
                                     {"val", &val}, {"test", &test}}) {
    for (int64_t v : *nodes) {
      const auto node = [&] { return std::string("the ") + split + " split's node " + std::to_string(v); };
      if (v < 0 || v >= num_nodes) fail(node() + " is outside 0.." + std::to_string(num_nodes - 1));
      if (labels[static_cast<std::size_t>(v)] < 0) fail(node() + " has no label");
      const auto [it, added] = split_of.emplace(v, split);
      if (!added) fail(node() + " is already in the " + it->second + " split");
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

void split_at_random(NodeDataset& d, double train_fraction, double val_fraction, uint64_t seed) {
  if (!(train_fraction >= 0.0 && val_fraction >= 0.0 && train_fraction + val_fraction <= 1.0)) {
    throw InputError("split fractions must be >= 0 with a sum of at most 1, got " + std::to_string(train_fraction) +
                     " and " + std::to_string(val_fraction));
  }
  std::vector<int64_t> nodes;
  for (int64_t i = 0; i < d.num_nodes; ++i) {
    if (d.labels[static_cast<std::size_t>(i)] >= 0) nodes.push_back(i);
  }
  const auto n = static_cast<int64_t>(nodes.size());
  Rng rng(seed);
  for (int64_t i = 0; i + 1 < n; ++i) {
    const auto j = i + static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - i)));
    std::swap(nodes[static_cast<std::size_t>(i)], nodes[static_cast<std::size_t>(j)]);
  }
  const int64_t n_train = std::llround(train_fraction * static_cast<double>(n));
  const int64_t n_val = std::min(n - n_train, static_cast<int64_t>(std::llround(val_fraction * static_cast<double>(n))));
  auto sorted = [&](int64_t from, int64_t to) {
    std::vector<int64_t> part(nodes.begin() + from, nodes.begin() + to);
    std::sort(part.begin(), part.end());
    return part;
  };
  d.train = sorted(0, n_train);
  d.val = sorted(n_train, n_train + n_val);
  d.test = sorted(n_train + n_val, n);
}

}  // namespace attend::graph
