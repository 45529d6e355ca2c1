#include "attend/graph/node_attribute_files.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <unordered_map>

#include "attend/core/error.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/io/npy_array.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::graph {

namespace {

/// The largest integer label taken as a class id (the classes' count is one more).
constexpr int64_t kLargestClassId = (int64_t{1} << 24) - 1;

std::unordered_map<std::string, int64_t> node_ids(const NodeDataset& d) {
  std::unordered_map<std::string, int64_t> ids;
  for (int64_t i = 0; i < d.num_nodes; ++i) ids.emplace(d.node_name(i), i);
  return ids;
}

/// The node named `name` on the reader's current line, or a failure naming it.
int64_t listed_node(const io::LineReader& reader, const std::unordered_map<std::string, int64_t>& ids,
                    const std::string& name) {
  const auto it = ids.find(name);
  if (it == ids.end()) reader.fail("node " + quoted_input(name) + " is not in the graph");
  return it->second;
}

/// `text` as an integer >= 0, or nothing.
std::optional<int64_t> class_id(const std::string& text) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

bool has_npy_extension(const std::string& path) { return path.size() >= 4 && path.ends_with(".npy"); }

void attach_npy_features(NodeDataset& d, const std::string& path) {
  const io::NpyArray a = io::read_npy(path);
  if (a.shape.size() != 2) throw InputError(path, 0, "expected node features of shape (rows, F), got " + a.shape_text());
  const int64_t rows = a.shape[0], cols = a.shape[1];
  const std::vector<float> values = a.to_float("node features");  // [rows * cols]
  const std::unordered_map<std::string, int64_t> ids = node_ids(d);
  std::vector<int64_t> row_of(static_cast<std::size_t>(d.num_nodes), -1);  // [N]: the array's row of each node
  for (int64_t r = 0; r < rows; ++r) {
    const auto it = ids.find(std::to_string(r));
    if (it == ids.end()) {
      throw InputError(path, 0, "row " + std::to_string(r) + " is node " + quoted_input(std::to_string(r)) +
                                    ", which is not in the graph");
    }
    row_of[static_cast<std::size_t>(it->second)] = r;
  }
  std::vector<int64_t> r_idx, c_idx;
  std::vector<float> v;
  for (int64_t node = 0; node < d.num_nodes; ++node) {
    const int64_t r = row_of[static_cast<std::size_t>(node)];
    if (r < 0) {
      throw InputError(path, 0, "node " + quoted_input(d.node_name(node)) + " has no row (" + std::to_string(rows) +
                                    " rows: row r is the node named r)");
    }
    for (int64_t c = 0; c < cols; ++c) {
      const float x = values[static_cast<std::size_t>(r * cols + c)];
      if (x == 0.0f) continue;
      r_idx.push_back(node);
      c_idx.push_back(c);
      v.push_back(x);
    }
  }
  d.features = SparseMatrix::from_triplets(d.num_nodes, cols, r_idx, c_idx, v);
}

void attach_table_features(NodeDataset& d, const std::string& path) {
  const std::unordered_map<std::string, int64_t> ids = node_ids(d);
  std::vector<int64_t> line_of(static_cast<std::size_t>(d.num_nodes), 0);  // [N]: where each node was listed
  std::vector<int64_t> rows, cols;
  std::vector<float> values;
  int64_t width = -1;
  io::LineReader reader(path);
  std::string line;
  while (reader.next(line)) {
    const std::vector<std::string> f = io::split_whitespace(line);
    if (f.empty() || f[0].starts_with('#')) continue;
    if (f.size() < 2) reader.fail("expected 'node value...', got one field");
    const int64_t w = static_cast<int64_t>(f.size()) - 1;
    if (width < 0) width = w;
    if (w != width) reader.fail("expected " + std::to_string(width) + " values as on the first line, got " + std::to_string(w));
    const int64_t node = listed_node(reader, ids, f[0]);
    int64_t& listed = line_of[static_cast<std::size_t>(node)];
    if (listed > 0) reader.fail("node " + quoted_input(f[0]) + " is listed twice (first on line " + std::to_string(listed) + ")");
    listed = static_cast<int64_t>(reader.line_number());
    for (int64_t c = 0; c < w; ++c) {
      const float x = reader.parse_float(f[static_cast<std::size_t>(c) + 1], "a feature value");
      if (x == 0.0f) continue;
      rows.push_back(node);
      cols.push_back(c);
      values.push_back(x);
    }
  }
  for (int64_t node = 0; node < d.num_nodes; ++node) {
    if (line_of[static_cast<std::size_t>(node)] == 0) {
      throw InputError(path, 0, "node " + quoted_input(d.node_name(node)) + " has no features line");
    }
  }
  d.features = SparseMatrix::from_triplets(d.num_nodes, std::max<int64_t>(width, 0), rows, cols, values);
}

}  // namespace

void attach_node_labels(NodeDataset& d, const std::string& path) {
  const std::unordered_map<std::string, int64_t> ids = node_ids(d);
  std::vector<std::string> label_of(static_cast<std::size_t>(d.num_nodes));  // [N], "" where not listed
  std::vector<int64_t> line_of(static_cast<std::size_t>(d.num_nodes), 0);
  io::LineReader reader(path);
  std::string line;
  while (reader.next(line)) {
    const std::vector<std::string> f = io::split_whitespace(line);
    if (f.empty() || f[0].starts_with('#')) continue;
    if (f.size() != 2) reader.fail("expected 'node label', got " + std::to_string(f.size()) + " fields");
    const int64_t node = listed_node(reader, ids, f[0]);
    int64_t& listed = line_of[static_cast<std::size_t>(node)];
    if (listed > 0) reader.fail("node " + quoted_input(f[0]) + " is listed twice (first on line " + std::to_string(listed) + ")");
    listed = static_cast<int64_t>(reader.line_number());
    if (const std::optional<int64_t> id = class_id(f[1]); id && *id > kLargestClassId) {
      reader.fail("class id " + f[1] + " is too large (at most " + std::to_string(kLargestClassId) + ")");
    }
    label_of[static_cast<std::size_t>(node)] = f[1];
  }
  const bool integers = std::all_of(label_of.begin(), label_of.end(),
                                    [](const std::string& l) { return l.empty() || class_id(l).has_value(); });
  std::vector<std::string> names;
  if (!integers) {
    for (const std::string& l : label_of) {
      if (!l.empty()) names.push_back(l);
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
  d.labels.assign(static_cast<std::size_t>(d.num_nodes), -1);
  d.num_classes = static_cast<int64_t>(names.size());
  for (std::size_t i = 0; i < label_of.size(); ++i) {
    const std::string& l = label_of[i];
    if (l.empty()) continue;
    d.labels[i] = integers ? *class_id(l) : std::lower_bound(names.begin(), names.end(), l) - names.begin();
    if (integers) d.num_classes = std::max(d.num_classes, d.labels[i] + 1);
  }
  d.class_names = std::move(names);
}

void attach_node_features(NodeDataset& d, const std::string& path) {
  if (has_npy_extension(path)) {
    attach_npy_features(d, path);
  } else {
    attach_table_features(d, path);
  }
}

void attach_node_attributes(NodeDataset& d, const NodeAttributeFiles& files) {
  if (!files.labels.empty()) attach_node_labels(d, files.labels);
  if (!files.features.empty()) attach_node_features(d, files.features);
  d.validate();
}

}  // namespace attend::graph
