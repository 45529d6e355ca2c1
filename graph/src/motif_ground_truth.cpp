#include "attend/graph/motif_ground_truth.hpp"

#include <filesystem>
#include <sstream>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "attend/core/io/line_reader.hpp"

namespace attend::graph {

namespace {
namespace fs = std::filesystem;

constexpr const char* kEdgesFile = "motif_edges.txt";
constexpr const char* kNodesFile = "motif_nodes.txt";

// `dir/name`, or `dir/name.gz` when only the compressed file exists (io::path_kind: a link
// loop or a name too long is bad input, not a std::filesystem exception).
std::string find_file(const std::string& dir, const std::string& name) {
  if (io::path_kind(dir) != io::PathKind::kDirectory) {
    throw InputError(dir, 0, "expected a folder holding " + std::string(kEdgesFile) + " and " + kNodesFile);
  }
  const fs::path plain = fs::path(dir) / name;
  if (io::path_kind(plain.string()) != io::PathKind::kMissing) return plain.string();
  const fs::path packed = fs::path(dir) / (name + ".gz");
  if (io::path_kind(packed.string()) != io::PathKind::kMissing) return packed.string();
  throw InputError(plain.string(), 0, "missing file (also looked for " + packed.filename().string() + ")");
}

// The fields of the next line that is neither empty nor a `#` comment; false at the end.
bool next_fields(io::LineReader& reader, std::vector<std::string>& fields) {
  std::string line;
  while (reader.next(line)) {
    fields = io::split_whitespace(line);
    if (!fields.empty() && fields[0][0] != '#') return true;
  }
  return false;
}
}  // namespace

void save_motif_ground_truth(const std::string& dir, const MotifGroundTruth& truth) {
  ATTEND_CHECK(truth.edge_src.size() == truth.edge_dst.size(), "motif ground truth: edge lists of different lengths");
  std::ostringstream edges;
  edges << "# source target: the edges of the planted motifs (the ground truth of an explanation), "
           "each undirected edge once; "
        << truth.num_edges() << " edges\n";
  for (int64_t e = 0; e < truth.num_edges(); ++e) edges << truth.edge_src[e] << ' ' << truth.edge_dst[e] << '\n';
  std::ostringstream nodes;
  nodes << "# per node, in node order: the id of the planted motif it belongs to, -1 for the base graph; "
        << truth.num_nodes() << " nodes\n";
  for (int64_t m : truth.node_motif) nodes << m << '\n';
  write_file_atomically((fs::path(dir) / kEdgesFile).string(), edges.str());
  write_file_atomically((fs::path(dir) / kNodesFile).string(), nodes.str());
}

MotifGroundTruth load_motif_ground_truth(const std::string& dir, int64_t num_nodes) {
  MotifGroundTruth truth;
  std::vector<std::string> f;
  {
    io::LineReader reader(find_file(dir, kNodesFile));
    while (next_fields(reader, f)) {
      if (f.size() != 1) reader.fail("expected one motif id per line");
      const int64_t m = reader.parse_int(f[0], "a motif id");
      if (m < -1) reader.fail("motif id " + f[0] + " below -1 (-1 marks the base graph)");
      if (truth.num_nodes() == num_nodes) reader.fail("more lines than the " + std::to_string(num_nodes) + " nodes");
      truth.node_motif.push_back(m);
    }
    if (truth.num_nodes() != num_nodes) {
      reader.fail(std::to_string(truth.num_nodes()) + " motif ids for " + std::to_string(num_nodes) + " nodes");
    }
  }
  io::LineReader reader(find_file(dir, kEdgesFile));
  while (next_fields(reader, f)) {
    if (f.size() != 2) reader.fail("expected 'source target'");
    int64_t ends[2];
    for (int k = 0; k < 2; ++k) {
      ends[k] = reader.parse_int(f[k], "a node id");
      if (ends[k] < 0 || ends[k] >= num_nodes) reader.fail("node id " + f[k] + " outside 0.." + std::to_string(num_nodes - 1));
    }
    const int64_t m = truth.node_motif[ends[0]];
    if (m < 0 || truth.node_motif[ends[1]] != m) {
      reader.fail("edge " + f[0] + " " + f[1] + " is not inside one motif (" + kNodesFile + " puts its nodes in " +
                  std::to_string(m) + " and " + std::to_string(truth.node_motif[ends[1]]) + ")");
    }
    truth.edge_src.push_back(ends[0]);
    truth.edge_dst.push_back(ends[1]);
  }
  return truth;
}

}  // namespace attend::graph
