#include "attend/graph/edge_feature_file.hpp"

#include <unordered_map>

#include "attend/core/error.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::graph {

void read_edge_feature_file(const std::string& path, NodeDataset& d) {
  std::unordered_map<std::string, int64_t> id_of;  // node name -> id
  for (int64_t i = 0; i < d.num_nodes; ++i) id_of.emplace(d.node_name(i), i);
  const auto key = [&](int64_t u, int64_t v) {
    if (!d.directed && v < u) std::swap(u, v);
    return static_cast<uint64_t>(u) * static_cast<uint64_t>(d.num_nodes) + static_cast<uint64_t>(v);
  };
  std::unordered_map<uint64_t, int64_t> row_of;  // the dataset's pairs -> row in `rows` (-1: none yet)
  for (int64_t e = 0; e < d.num_edges(); ++e) row_of.emplace(key(d.edge_src[e], d.edge_dst[e]), -1);

  io::LineReader reader(path);
  std::vector<float> rows;  // [lines, D]
  int64_t width = -1, count = 0;
  std::string line;
  while (reader.next(line)) {
    const std::vector<std::string> f = io::split_whitespace(line);
    if (f.empty() || f[0].front() == '#') continue;
    if (f.size() < 3) reader.fail("expected 'u v feature...', got " + quoted_input(line));
    if (width < 0) width = static_cast<int64_t>(f.size()) - 2;
    if (static_cast<int64_t>(f.size()) - 2 != width) {
      reader.fail("expected " + std::to_string(width) + " features as on the first line, got " + std::to_string(f.size() - 2));
    }
    int64_t ends[2];
    for (int k = 0; k < 2; ++k) {
      const auto it = id_of.find(f[static_cast<std::size_t>(k)]);
      if (it == id_of.end()) reader.fail("unknown node " + quoted_input(f[static_cast<std::size_t>(k)]));
      ends[k] = it->second;
    }
    const auto pair = row_of.find(key(ends[0], ends[1]));
    if (pair == row_of.end()) reader.fail("(" + quoted_input(f[0]) + ", " + quoted_input(f[1]) + ") is not an edge of the dataset");
    if (pair->second >= 0) reader.fail("(" + quoted_input(f[0]) + ", " + quoted_input(f[1]) + ") listed twice");
    pair->second = count++;
    for (std::size_t k = 2; k < f.size(); ++k) rows.push_back(reader.parse_float(f[k], "an edge feature"));
  }
  if (width < 0) reader.fail("no edge features (expected 'u v feature...' lines)");
  std::vector<float> features;
  features.reserve(static_cast<std::size_t>(d.num_edges() * width));
  for (int64_t e = 0; e < d.num_edges(); ++e) {
    const int64_t row = row_of.at(key(d.edge_src[e], d.edge_dst[e]));
    if (row < 0) {
      throw InputError(path, 0, "no features for the edge (" + quoted_input(d.node_name(d.edge_src[e])) + ", " +
                                    quoted_input(d.node_name(d.edge_dst[e])) + ")");
    }
    features.insert(features.end(), rows.begin() + row * width, rows.begin() + (row + 1) * width);
  }
  d.edge_features = std::move(features);
  d.edge_feature_dim = width;
}

}  // namespace attend::graph
