#include "attend/graph/linqs.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::graph {

NodeDataset load_linqs(const std::string& content, const std::string& cites) {
  NodeDataset d;
  d.name = std::filesystem::path(content).stem().string();
  std::unordered_map<std::string, int64_t> id_of;
  std::vector<std::string> class_of;
  std::vector<int64_t> rows, cols;
  std::vector<float> values;
  int64_t num_features = -1;
  {
    io::LineReader reader(content);
    std::string line;
    while (reader.next(line)) {
      if (line.empty()) continue;
      const auto f = io::split_whitespace(line);
      if (f.size() < 3) reader.fail("expected 'id<TAB>features...<TAB>class', got " + std::to_string(f.size()) + " fields");
      const int64_t width = static_cast<int64_t>(f.size()) - 2;
      if (num_features < 0) num_features = width;
      if (width != num_features) {
        reader.fail("expected " + std::to_string(num_features) + " features as on the first line, got " + std::to_string(width));
      }
      const int64_t node = static_cast<int64_t>(d.node_names.size());
      if (!id_of.emplace(f[0], node).second) reader.fail("paper id " + quoted_input(f[0]) + " appears twice");
      d.node_names.push_back(f[0]);
      for (int64_t c = 0; c < width; ++c) {
        const float v = reader.parse_float(f[static_cast<std::size_t>(c) + 1], "a feature value");
        if (v == 0.0f) continue;
        rows.push_back(node);
        cols.push_back(c);
        values.push_back(v);
      }
      class_of.push_back(f.back());
    }
    if (d.node_names.empty()) reader.fail("no papers");
  }
  d.num_nodes = static_cast<int64_t>(d.node_names.size());
  d.features = SparseMatrix::from_triplets(d.num_nodes, num_features, rows, cols, values);
  std::set<std::string> classes(class_of.begin(), class_of.end());
  d.class_names.assign(classes.begin(), classes.end());
  d.num_classes = static_cast<int64_t>(d.class_names.size());
  for (const std::string& c : class_of) {
    d.labels.push_back(std::lower_bound(d.class_names.begin(), d.class_names.end(), c) - d.class_names.begin());
  }
  int64_t skipped = 0;
  {
    io::LineReader reader(cites);
    std::string line;
    while (reader.next(line)) {
      if (line.empty()) continue;
      const auto f = io::split_whitespace(line);
      if (f.size() != 2) reader.fail("expected 'cited<TAB>citing', got " + quoted_input(line));
      auto cited = id_of.find(f[0]), citing = id_of.find(f[1]);
      if (cited == id_of.end() || citing == id_of.end()) {
        ++skipped;
        continue;
      }
      d.edge_src.push_back(citing->second);
      d.edge_dst.push_back(cited->second);
    }
  }
  if (skipped > 0) {
    d.warnings.push_back(std::to_string(skipped) + " citations in " + cites +
                         " name a paper absent from " + content + "; skipped");
  }
  d.validate();
  return d;
}

bool read_linqs_split(const std::string& dir, NodeDataset& d) {
  const auto find = [&](const std::string& name) {
    for (const std::string& candidate : {name, name + ".gz"}) {
      const std::string path = (std::filesystem::path(dir) / candidate).string();
      if (io::path_kind(path) != io::PathKind::kMissing) return path;
    }
    return std::string();
  };
  if (find("split_train.txt").empty()) return false;
  std::unordered_map<std::string, int64_t> id_of;
  for (int64_t i = 0; i < d.num_nodes; ++i) id_of.emplace(d.node_name(i), i);
  for (auto [name, ids] : {std::pair{"split_train.txt", &d.train}, {"split_val.txt", &d.val}, {"split_test.txt", &d.test}}) {
    ids->clear();
    const std::string path = find(name);
    if (path.empty()) continue;
    io::LineReader reader(path);
    std::string line;
    while (reader.next(line)) {
      const auto f = io::split_whitespace(line);
      if (f.empty()) continue;
      if (f.size() != 1) reader.fail("expected one paper id per line, got " + quoted_input(line));
      const auto it = id_of.find(f[0]);
      if (it == id_of.end()) reader.fail("unknown paper id " + quoted_input(f[0]));
      ids->push_back(it->second);
    }
  }
  try {
    d.validate();
  } catch (const InputError& e) {
    throw InputError(dir, 0, std::string("split: ") + e.what());
  }
  return true;
}

}  // namespace attend::graph
