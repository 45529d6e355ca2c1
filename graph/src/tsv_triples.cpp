#include "attend/graph/tsv_triples.hpp"

#include <filesystem>
#include <unordered_map>

#include "attend/core/error.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::graph {

NodeDataset load_tsv_triples(const std::vector<std::string>& paths) {
  ATTEND_CHECK(!paths.empty(), "no triple files given");
  NodeDataset d;
  d.name = std::filesystem::path(paths.front()).parent_path().filename().string();
  d.directed = true;
  std::unordered_map<std::string, int64_t> node_id, relation_id;
  auto intern = [](std::unordered_map<std::string, int64_t>& ids, std::vector<std::string>& names,
                   const std::string& key) {
    auto [it, added] = ids.emplace(key, static_cast<int64_t>(names.size()));
    if (added) names.push_back(key);
    return it->second;
  };
  for (const std::string& path : paths) {
    io::LineReader reader(path);
    const std::size_t edges_before = d.edge_src.size();
    std::string line;
    while (reader.next(line)) {
      if (line.empty()) continue;
      const auto f = io::split_on(line, '\t');
      if (f.size() != 3 || f[0].empty() || f[1].empty() || f[2].empty()) {
        reader.fail("expected 'head<TAB>relation<TAB>tail', got " + quoted_input(line));
      }
      d.edge_src.push_back(intern(node_id, d.node_names, f[0]));
      d.edge_type.push_back(intern(relation_id, d.relation_names, f[1]));
      d.edge_dst.push_back(intern(node_id, d.node_names, f[2]));
    }
    if (d.edge_src.size() == edges_before) throw InputError(path, 0, "no triples (an empty file?)");
  }
  d.num_nodes = static_cast<int64_t>(d.node_names.size());
  d.features = SparseMatrix::from_triplets(d.num_nodes, 0, {}, {}, {});
  d.labels.assign(static_cast<std::size_t>(d.num_nodes), -1);
  d.validate();
  return d;
}

}  // namespace attend::graph
