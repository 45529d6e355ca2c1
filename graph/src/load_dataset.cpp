#include "attend/graph/load_dataset.hpp"

#include <filesystem>
#include <map>

#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "attend/graph/edge_feature_file.hpp"
#include "attend/graph/edge_list_file.hpp"
#include "attend/graph/graph_store.hpp"
#include "attend/graph/linqs.hpp"
#include "attend/graph/numpy_dataset.hpp"
#include "attend/graph/ogb_node_folder.hpp"
#include "attend/graph/planetoid_text.hpp"
#include "attend/graph/rdf_entities.hpp"

namespace attend::graph {

namespace {
namespace fs = std::filesystem;

bool has_file(const fs::path& dir, const std::string& name) {
  return io::path_kind((dir / name).string()) != io::PathKind::kMissing ||
         io::path_kind((dir / (name + ".gz")).string()) != io::PathKind::kMissing;
}

// The target relations of the R-GCN entity-classification benchmarks, by folder name.
const std::map<std::string, std::vector<std::string>>& benchmark_targets() {
  static const std::map<std::string, std::vector<std::string>> targets = {
      {"aifb", {"http://swrc.ontoware.org/ontology#affiliation", "http://swrc.ontoware.org/ontology#employs"}},
      {"mutag", {"http://dl-learner.org/carcinogenesis#isMutagenic"}},
  };
  return targets;
}

std::string find_with_suffix(const fs::path& dir, const std::string& suffix) {
  for (const std::string& entry : io::folder_entries(dir.string())) {
    const std::string name = fs::path(entry).filename().string();
    if (name.ends_with(suffix) || name.ends_with(suffix + ".gz")) return entry;
  }
  return "";
}

/// A text layout's folder: its dataset, without the edge-feature file.
NodeDataset load_text_folder(const std::string& path) {
  const fs::path dir(path);
  if (has_file(dir, "features.coo.txt")) return load_planetoid_text(path);
  if (io::path_kind((dir / "trainingSet.tsv").string()) != io::PathKind::kMissing) {
    RdfEntityFiles files = rdf_folder_files(path);
    std::error_code error;  // the folder was looked at above; no name, no benchmark targets
    const std::string name = fs::weakly_canonical(dir, error).filename().string();
    auto it = benchmark_targets().find(name);
    if (it != benchmark_targets().end()) files.removed_predicates = it->second;
    return load_rdf_entities(files);
  }
  const std::string content = find_with_suffix(dir, ".content");
  const std::string cites = find_with_suffix(dir, ".cites");
  if (!content.empty() && !cites.empty()) {
    NodeDataset d = load_linqs(content, cites);
    read_linqs_split(path, d);
    return d;
  }
  throw InputError(path, 0,
                   "not a dataset folder: expected features.coo.txt + labels.txt + edges.txt + "
                   "split_*.txt, an N-Triples file with trainingSet.tsv and testSet.tsv, LINQS "
                   "*.content and *.cites, OGB's raw/ and split/, or NumPy edge_index.npy, x.npy, ...");
}
}  // namespace

NodeDataset load_node_dataset(const std::string& path) {
  const fs::path dir(path);
  const io::PathKind kind = io::path_kind(path);
  if (kind == io::PathKind::kMissing) throw InputError(path, 0, "no such file or folder");
  if (kind != io::PathKind::kDirectory) {
    if (dir.extension() == ".h5" || dir.extension() == ".hdf5" || is_hdf5_file(path)) return load_node_dataset_h5(path);
    if (is_numpy_dataset(path)) return load_numpy_dataset(path);
    if (is_edge_list_file(path)) return load_edge_list(path);
    throw InputError(path, 0,
                     "expected a dataset folder or an attend.graph HDF5 file (.h5), a NumPy archive (.npz) "
                     "or an edge list (.edgelist, .edges, .csv)");
  }
  if (is_ogb_node_folder(path)) return load_ogb_node_folder(path);
  if (is_numpy_dataset(path)) return load_numpy_dataset(path);
  NodeDataset d = load_text_folder(path);
  if (has_file(dir, kEdgeFeatureFile)) {
    const std::string plain = (dir / kEdgeFeatureFile).string();
    read_edge_feature_file(io::path_kind(plain) != io::PathKind::kMissing ? plain : plain + ".gz", d);
  }
  return d;
}

void add_to_dataset(NodeDataset& d, const DatasetAdditions& additions) {
  const NodeAttributeFiles& files = additions.attributes;
  if (!files.labels.empty() || !files.features.empty()) attach_node_attributes(d, files);
  if (const std::optional<RandomSplit>& s = additions.split) split_at_random(d, s->train_fraction, s->val_fraction, s->seed);
}

NodeDataset load_node_dataset(const std::string& path, const DatasetAdditions& additions) {
  NodeDataset d = load_node_dataset(path);
  add_to_dataset(d, additions);
  return d;
}

}  // namespace attend::graph
