#include "attend/graph/rdf_entities.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/quoted_input.hpp"
#include "attend/graph/ntriples.hpp"

namespace attend::graph {

namespace {
namespace fs = std::filesystem;

struct LabelRow {
  std::string entity;  // canonical term `<iri>`
  std::string label;
  std::size_t line;
};

std::vector<LabelRow> read_label_file(const std::string& path) {
  io::LineReader reader(path);
  std::string line;
  if (!reader.next(line)) reader.fail("empty file; expected a header with an entity column, 'id' and a 'label_*' column");
  const auto header = io::split_on(line, '\t');
  int entity_col = -1, label_col = -1;
  for (std::size_t c = 0; c < header.size(); ++c) {
    if (header[c].rfind("label", 0) == 0) {
      label_col = static_cast<int>(c);
    } else if (header[c] != "id" && entity_col < 0) {
      entity_col = static_cast<int>(c);
    }
  }
  if (entity_col < 0 || label_col < 0) {
    reader.fail("header needs an entity column and a 'label_*' column, got " + quoted_input(line));
  }
  std::vector<LabelRow> rows;
  while (reader.next(line)) {
    if (line.empty()) continue;
    const auto f = io::split_on(line, '\t');
    if (f.size() != header.size()) {
      reader.fail("expected " + std::to_string(header.size()) + " TAB-separated fields, got " + std::to_string(f.size()));
    }
    if (f[entity_col].empty() || f[label_col].empty()) reader.fail("empty entity or label");
    rows.push_back({"<" + f[entity_col] + ">", f[label_col], reader.line_number()});
  }
  return rows;
}
}  // namespace

NodeDataset load_rdf_entities(const RdfEntityFiles& files) {
  NodeDataset d;
  d.name = fs::path(files.triples).parent_path().filename().string();
  d.directed = true;
  std::unordered_map<std::string, int64_t> node_id, relation_id;
  const std::set<std::string> removed(files.removed_predicates.begin(), files.removed_predicates.end());
  auto intern = [](std::unordered_map<std::string, int64_t>& ids, std::vector<std::string>& names,
                   const std::string& term) {
    auto [it, added] = ids.emplace(term, static_cast<int64_t>(names.size()));
    if (added) names.push_back(term);
    return it->second;
  };
  read_ntriples(files.triples, [&](const Triple& t) {
    if (removed.count(iri_of(t.predicate))) return;
    const int64_t s = intern(node_id, d.node_names, t.subject);
    const int64_t o = intern(node_id, d.node_names, t.object);
    d.edge_src.push_back(s);
    d.edge_dst.push_back(o);
    d.edge_type.push_back(intern(relation_id, d.relation_names, t.predicate));
  });
  d.num_nodes = static_cast<int64_t>(d.node_names.size());
  d.features = SparseMatrix::from_triplets(d.num_nodes, 0, {}, {}, {});

  const auto train = read_label_file(files.train);
  const auto test = read_label_file(files.test);
  std::set<std::string> classes;
  for (const auto* rows : {&train, &test})
    for (const auto& r : *rows) classes.insert(r.label);
  d.class_names.assign(classes.begin(), classes.end());
  d.num_classes = static_cast<int64_t>(d.class_names.size());
  d.labels.assign(static_cast<std::size_t>(d.num_nodes), -1);
  auto assign = [&](const std::vector<LabelRow>& rows, const std::string& path, std::vector<int64_t>& split) {
    for (const auto& r : rows) {
      auto it = node_id.find(r.entity);
      if (it == node_id.end()) throw InputError(path, r.line, "entity " + quoted_input(r.entity) + " does not occur in the graph");
      const int64_t y = std::lower_bound(d.class_names.begin(), d.class_names.end(), r.label) - d.class_names.begin();
      int64_t& label = d.labels[static_cast<std::size_t>(it->second)];
      if (label >= 0) throw InputError(path, r.line, "entity " + quoted_input(r.entity) + " is labelled twice");
      label = y;
      split.push_back(it->second);
    }
  };
  assign(train, files.train, d.train);
  assign(test, files.test, d.test);
  d.validate();
  return d;
}

RdfEntityFiles rdf_folder_files(const std::string& dir) {
  RdfEntityFiles f;
  if (io::path_kind(dir) != io::PathKind::kDirectory) throw InputError(dir, 0, "not a folder");
  for (const std::string& entry : io::folder_entries(dir)) {
    const std::string name = fs::path(entry).filename().string();
    const bool nt = name.size() > 3 && (name.ends_with(".nt") || name.ends_with(".nt.gz"));
    if (!nt) continue;
    if (!f.triples.empty()) throw InputError(dir, 0, "more than one N-Triples file (" + fs::path(f.triples).filename().string() + ", " + name + ")");
    f.triples = entry;
  }
  if (f.triples.empty()) throw InputError(dir, 0, "no N-Triples file (*.nt or *.nt.gz)");
  f.train = (fs::path(dir) / "trainingSet.tsv").string();
  f.test = (fs::path(dir) / "testSet.tsv").string();
  return f;
}

}  // namespace attend::graph
