#include "attend/graph/planetoid_text.hpp"

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::graph {

namespace {
namespace fs = std::filesystem;

// `dir/name`, or `dir/name.gz` when only the compressed file exists.
std::string find_file(const std::string& dir, const std::string& name) {
  const fs::path plain = fs::path(dir) / name;
  if (io::path_kind(plain.string()) != io::PathKind::kMissing) return plain.string();
  const fs::path packed = fs::path(dir) / (name + ".gz");
  if (io::path_kind(packed.string()) != io::PathKind::kMissing) return packed.string();
  throw InputError(plain.string(), 0, "missing file (also looked for " + packed.filename().string() + ")");
}

// Reads `# a b [c]` and returns the numbers; fails at line 1 otherwise.
std::vector<int64_t> read_header(io::LineReader& reader, std::size_t count, const char* layout) {
  std::string line;
  if (!reader.next(line)) reader.fail(std::string("empty file; expected a header '") + layout + "'");
  auto fields = io::split_whitespace(line);
  if (fields.size() != count + 1 || fields[0] != "#") {
    reader.fail(std::string("expected a header '") + layout + "', got " + quoted_input(line));
  }
  std::vector<int64_t> out;
  for (std::size_t i = 1; i <= count; ++i) {
    out.push_back(reader.parse_int(fields[i], "a count"));
    if (out.back() < 0) reader.fail(std::string("negative count in the header '") + layout + "', got " + quoted_input(line));
  }
  return out;
}

int64_t node_id(const io::LineReader& reader, const std::string& token, int64_t n) {
  const int64_t v = reader.parse_int(token, "a node id");
  if (v < 0 || v >= n) reader.fail("node id " + token + " outside 0.." + std::to_string(n - 1));
  return v;
}

std::string split_text(const std::vector<int64_t>& ids) {
  std::ostringstream out;
  for (int64_t id : ids) out << id << '\n';
  return out.str();
}

std::vector<int64_t> read_split(const std::string& path, int64_t n) {
  io::LineReader reader(path);
  std::vector<int64_t> ids;
  std::string line;
  while (reader.next(line)) {
    auto fields = io::split_whitespace(line);
    if (fields.empty()) continue;
    if (fields.size() != 1) reader.fail("expected one node id per line, got " + quoted_input(line));
    ids.push_back(node_id(reader, fields[0], n));
  }
  return ids;
}
}  // namespace

NodeDataset load_planetoid_text(const std::string& dir) {
  NodeDataset d;
  d.name = fs::path(dir).filename().string();
  if (d.name.empty()) d.name = fs::path(dir).parent_path().filename().string();

  // The feature matrix is built once the labels confirmed N: a header's N alone (a typo, a
  // damaged file) must not size an allocation.
  int64_t num_features = 0;
  std::vector<int64_t> rows, cols;
  std::vector<float> values;
  {  // features
    io::LineReader reader(find_file(dir, "features.coo.txt"));
    const auto h = read_header(reader, 3, "# N F nnz");
    d.num_nodes = h[0];
    num_features = h[1];
    std::string line;
    while (reader.next(line)) {
      auto f = io::split_whitespace(line);
      if (f.empty()) continue;
      if (f.size() != 3) reader.fail("expected 'node feature value', got " + quoted_input(line));
      rows.push_back(node_id(reader, f[0], h[0]));
      const int64_t c = reader.parse_int(f[1], "a feature index");
      if (c < 0 || c >= h[1]) reader.fail("feature index " + f[1] + " outside 0.." + std::to_string(h[1] - 1));
      cols.push_back(c);
      values.push_back(reader.parse_float(f[2], "a feature value"));
    }
    if (static_cast<int64_t>(rows.size()) != h[2]) {
      reader.fail("header announces " + std::to_string(h[2]) + " entries, found " + std::to_string(rows.size()));
    }
  }
  {  // labels
    io::LineReader reader(find_file(dir, "labels.txt"));
    std::string line;
    while (reader.next(line)) {
      auto f = io::split_whitespace(line);
      if (f.size() != 1) reader.fail("expected one class id per line, got " + quoted_input(line));
      const int64_t y = reader.parse_int(f[0], "a class id");
      if (y < -1) reader.fail("class id " + f[0] + " below -1 (-1 marks an unlabelled node)");
      if (y >= d.num_nodes) reader.fail("class id " + f[0] + " not below the number of nodes, " + std::to_string(d.num_nodes));
      d.labels.push_back(y);
      d.num_classes = std::max(d.num_classes, y + 1);
    }
    if (static_cast<int64_t>(d.labels.size()) != d.num_nodes) {
      reader.fail(std::to_string(d.labels.size()) + " labels for " + std::to_string(d.num_nodes) + " nodes");
    }
  }
  d.features = SparseMatrix::from_triplets(d.num_nodes, num_features, rows, cols, values);
  {  // edges
    io::LineReader reader(find_file(dir, "edges.txt"));
    const auto h = read_header(reader, 2, "# N E");
    if (h[0] != d.num_nodes) reader.fail("header says " + std::to_string(h[0]) + " nodes, features have " + std::to_string(d.num_nodes));
    std::string line;
    while (reader.next(line)) {
      auto f = io::split_whitespace(line);
      if (f.empty()) continue;
      if (f.size() != 2) reader.fail("expected 'u v', got " + quoted_input(line));
      d.edge_src.push_back(node_id(reader, f[0], d.num_nodes));
      d.edge_dst.push_back(node_id(reader, f[1], d.num_nodes));
    }
    if (d.num_edges() != h[1]) reader.fail("header announces " + std::to_string(h[1]) + " edges, found " + std::to_string(d.num_edges()));
  }
  d.train = read_split(find_file(dir, "split_train.txt"), d.num_nodes);
  d.val = read_split(find_file(dir, "split_val.txt"), d.num_nodes);
  d.test = read_split(find_file(dir, "split_test.txt"), d.num_nodes);
  try {
    d.validate();
  } catch (const InputError& e) {
    throw InputError(dir, 0, e.what());
  }
  return d;
}

std::vector<std::string> save_planetoid_text(const std::string& dir, const NodeDataset& d) {
  ATTEND_CHECK(!d.directed && d.edge_type.empty(), "the plain-text layout holds undirected, untyped graphs only");
  std::ostringstream features;
  const SparseMatrix& x = d.features;
  features << "# " << d.num_nodes << ' ' << x.cols() << ' ' << x.nnz() << '\n';
  char value[32];
  for (int64_t i = 0; i < x.rows(); ++i) {
    for (int64_t k = x.indptr()[i]; k < x.indptr()[i + 1]; ++k) {
      std::snprintf(value, sizeof value, "%.9g", static_cast<double>(x.values()[k]));
      features << i << ' ' << x.indices()[k] << ' ' << value << '\n';
    }
  }
  std::ostringstream labels;
  for (int64_t y : d.labels) labels << y << '\n';
  std::ostringstream edges;
  edges << "# " << d.num_nodes << ' ' << d.num_edges() << '\n';
  for (int64_t e = 0; e < d.num_edges(); ++e) edges << d.edge_src[e] << ' ' << d.edge_dst[e] << '\n';
  const std::vector<std::pair<std::string, std::string>> files = {
      {"features.coo.txt", features.str()},     {"labels.txt", labels.str()},       {"edges.txt", edges.str()},
      {"split_train.txt", split_text(d.train)}, {"split_val.txt", split_text(d.val)}, {"split_test.txt", split_text(d.test)}};
  std::vector<std::string> written;
  for (const auto& [name, text] : files) {
    written.push_back((fs::path(dir) / name).string());
    write_file_atomically(written.back(), text);
  }
  return written;
}

}  // namespace attend::graph
