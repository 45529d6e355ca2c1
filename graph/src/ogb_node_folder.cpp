#include "attend/graph/ogb_node_folder.hpp"

#include <cmath>
#include <filesystem>

#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::graph {

namespace {
namespace fs = std::filesystem;

bool present(const fs::path& p) { return io::path_kind(p.string()) != io::PathKind::kMissing; }

std::string required(const fs::path& p) {
  if (!present(p)) throw InputError(p.string(), 0, "missing file of the OGB node-property-prediction layout");
  return p.string();
}

/// The single integer of a `num-*-list.csv.gz` file.
int64_t read_count(const std::string& path, const char* what) {
  io::LineReader reader(path);
  std::string line;
  if (!reader.next(line)) reader.fail(std::string("empty file; expected ") + what);
  const int64_t n = reader.parse_int(line, what);
  if (n < 0) reader.fail(std::string("expected ") + what + " (at least 0), got " + quoted_input(line));
  std::string extra;
  if (reader.next(extra) && !extra.empty()) reader.fail("expected one graph (a heterogeneous or multi-graph dataset?)");
  return n;
}

/// Rows of `width` comma-separated numbers, one per line, exactly `rows` of them (width < 0:
/// taken from the first line). Returns the values row-major and sets `width`.
std::vector<float> read_matrix(const std::string& path, int64_t rows, int64_t& width, const char* what) {
  io::LineReader reader(path);
  std::vector<float> values;
  std::string line;
  int64_t row = 0;
  while (reader.next(line)) {
    if (line.empty()) continue;
    const std::vector<std::string> fields = io::split_on(line, ',');
    if (width < 0) width = static_cast<int64_t>(fields.size());
    if (static_cast<int64_t>(fields.size()) != width) {
      reader.fail("expected " + std::to_string(width) + " comma-separated " + what + " as on the first line, got " +
                  std::to_string(fields.size()));
    }
    if (row == rows) reader.fail("more than the " + std::to_string(rows) + " rows of num-*-list.csv.gz");
    for (const std::string& f : fields) values.push_back(reader.parse_float(f, what));
    ++row;
  }
  if (row != rows) reader.fail(std::to_string(row) + " rows, expected " + std::to_string(rows));
  return values;
}

std::vector<int64_t> read_ids(const std::string& path, int64_t n) {
  io::LineReader reader(path);
  std::vector<int64_t> ids;
  std::string line;
  while (reader.next(line)) {
    if (line.empty()) continue;
    const int64_t v = reader.parse_int(line, "a node id");
    if (v < 0 || v >= n) reader.fail("node id " + line + " outside 0.." + std::to_string(n - 1));
    ids.push_back(v);
  }
  return ids;
}

}  // namespace

bool is_ogb_node_folder(const std::string& dir) {
  const fs::path d(dir);
  return present(d / "raw" / "edge.csv.gz") && io::path_kind((d / "split").string()) == io::PathKind::kDirectory;
}

NodeDataset load_ogb_node_folder(const std::string& dir, const std::string& scheme) {
  const fs::path root(dir);
  const fs::path raw = root / "raw";
  if (present(raw / "relations")) throw InputError(raw.string(), 0, "a heterogeneous OGB dataset (raw/relations/), not supported");
  NodeDataset d;
  d.name = root.filename().string();
  if (d.name.empty()) d.name = root.parent_path().filename().string();
  d.num_nodes = read_count(required(raw / "num-node-list.csv.gz"), "the number of nodes");
  const int64_t num_edges = read_count(required(raw / "num-edge-list.csv.gz"), "the number of edges");

  {  // edges
    io::LineReader reader(required(raw / "edge.csv.gz"));
    std::string line;
    while (reader.next(line)) {
      if (line.empty()) continue;
      const std::vector<std::string> f = io::split_on(line, ',');
      if (f.size() != 2) reader.fail("expected 'u,v', got " + quoted_input(line));
      for (const std::string& token : f) {
        const int64_t v = reader.parse_int(token, "a node id");
        if (v < 0 || v >= d.num_nodes) reader.fail("node id " + token + " outside 0.." + std::to_string(d.num_nodes - 1));
      }
      if (d.num_edges() == num_edges) reader.fail("more than the " + std::to_string(num_edges) + " edges of num-edge-list.csv.gz");
      d.edge_src.push_back(reader.parse_int(f[0], "a node id"));
      d.edge_dst.push_back(reader.parse_int(f[1], "a node id"));
    }
    if (d.num_edges() != num_edges) reader.fail(std::to_string(d.num_edges()) + " edges, expected " + std::to_string(num_edges));
  }
  if (present(raw / "node-feat.csv.gz")) {
    int64_t width = -1;
    const std::vector<float> x = read_matrix((raw / "node-feat.csv.gz").string(), d.num_nodes, width, "node features");
    std::vector<int64_t> rows, cols;
    std::vector<float> values;
    for (int64_t i = 0; i < d.num_nodes; ++i) {
      for (int64_t j = 0; j < width; ++j) {
        const float v = x[static_cast<std::size_t>(i * width + j)];
        if (v == 0.0f) continue;
        rows.push_back(i);
        cols.push_back(j);
        values.push_back(v);
      }
    }
    d.features = SparseMatrix::from_triplets(d.num_nodes, std::max<int64_t>(width, 0), rows, cols, values);
  }
  if (present(raw / "edge-feat.csv.gz")) {
    int64_t width = -1;
    d.edge_features = read_matrix((raw / "edge-feat.csv.gz").string(), num_edges, width, "edge features");
    d.edge_feature_dim = std::max<int64_t>(width, 0);
  }
  {  // labels
    io::LineReader reader(required(raw / "node-label.csv.gz"));
    std::string line;
    while (reader.next(line)) {
      if (line.empty()) continue;
      if (line.find(',') != std::string::npos) {
        reader.fail("expected one class id per node, got " + quoted_input(line) + " (multi-label datasets are not supported)");
      }
      if (static_cast<int64_t>(d.labels.size()) == d.num_nodes) reader.fail("more labels than the " + std::to_string(d.num_nodes) + " nodes");
      if (line == "nan" || line == "NaN") {
        d.labels.push_back(-1);
        continue;
      }
      // OGB writes labels as integers, or as floats ("3.0") in datasets with unlabelled nodes.
      const std::size_t point = line.find('.');
      const bool integral_float = point != std::string::npos && line.find_first_not_of('0', point + 1) == std::string::npos;
      const int64_t y = reader.parse_int(integral_float ? line.substr(0, point) : line, "a class id");
      if (y < 0 || y >= d.num_nodes) reader.fail("class id " + line + " outside 0.." + std::to_string(d.num_nodes - 1));
      d.labels.push_back(y);
      d.num_classes = std::max(d.num_classes, y + 1);
    }
    if (static_cast<int64_t>(d.labels.size()) != d.num_nodes) {
      reader.fail(std::to_string(d.labels.size()) + " labels for " + std::to_string(d.num_nodes) + " nodes");
    }
  }
  fs::path split = root / "split";
  if (!scheme.empty()) {
    split /= scheme;
  } else {
    std::vector<std::string> schemes;
    for (const std::string& entry : io::folder_entries(split.string())) {
      if (io::path_kind(entry) == io::PathKind::kDirectory) schemes.push_back(fs::path(entry).filename().string());
    }
    if (schemes.size() != 1) {
      std::string names;
      for (const std::string& s : schemes) names += (names.empty() ? "" : ", ") + quoted_input(s);
      throw InputError(split.string(), 0, "expected one split scheme folder, found " + std::to_string(schemes.size()) +
                                              (names.empty() ? "" : " (" + names + ")"));
    }
    split /= schemes.front();
  }
  d.train = read_ids(required(split / "train.csv.gz"), d.num_nodes);
  d.val = read_ids(required(split / "valid.csv.gz"), d.num_nodes);
  d.test = read_ids(required(split / "test.csv.gz"), d.num_nodes);
  try {
    d.validate();
  } catch (const InputError& e) {
    throw InputError(dir, 0, e.what());
  }
  return d;
}

}  // namespace attend::graph
