#include "attend/graph/numpy_dataset.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "attend/core/io/npy_array.hpp"
#include "attend/core/io/zip_archive.hpp"
#include "attend/core/quoted_input.hpp"
#include "attend/graph/dataset_arrays.hpp"

namespace attend::graph {

namespace {
namespace fs = std::filesystem;

/// The arrays of an .npz archive or of a folder of .npy files, by name without `.npy`.
class ArrayFiles {
 public:
  explicit ArrayFiles(const std::string& path) : path_(path) {
    if (io::path_kind(path) == io::PathKind::kDirectory) {
      for (const std::string& entry : io::folder_entries(path)) {
        const fs::path p(entry);
        if (p.extension() == ".npy") names_.insert(p.stem().string());
      }
    } else {
      archive_.emplace(path);
      for (const std::string& member : archive_->names()) {
        if (member.ends_with(".npy")) names_.insert(member.substr(0, member.size() - 4));
      }
    }
  }
  bool has(const std::string& name) const { return names_.count(name) != 0; }
  const std::set<std::string>& names() const { return names_; }
  io::NpyArray read(const std::string& name) {
    if (!archive_) return io::read_npy((fs::path(path_) / (name + ".npy")).string());
    return io::parse_npy(archive_->read(name + ".npy"), path_ + ":" + name + ".npy");
  }

 private:
  std::string path_;
  std::optional<io::ZipArchive> archive_;
  std::set<std::string> names_;
};

[[noreturn]] void wrong_shape(const io::NpyArray& a, const std::string& name, const std::string& expected) {
  throw InputError(a.source, 0, name + ": expected shape " + expected + ", found " + a.shape_text());
}

/// A dense [N, F] array as a SparseMatrix (its nonzero entries).
SparseMatrix dense_features(const io::NpyArray& a) {
  if (a.shape.size() != 2) wrong_shape(a, "x", "(N, F)");
  const std::vector<float> values = a.to_float("x");  // [N * F]
  const int64_t rows = a.shape[0], cols = a.shape[1];
  std::vector<int64_t> r, c;
  std::vector<float> v;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const float x = values[static_cast<std::size_t>(i * cols + j)];
      if (x == 0.0f) continue;
      r.push_back(i);
      c.push_back(j);
      v.push_back(x);
    }
  }
  return SparseMatrix::from_triplets(rows, cols, r, c, v);
}

/// A split given as `<split>_mask` or `<split>_idx` (not both).
NodeSelection read_split(ArrayFiles& files, const std::string& split, const std::string& path) {
  NodeSelection s;
  const std::string mask = split + "_mask", idx = split + "_idx";
  if (files.has(mask) && files.has(idx)) throw InputError(path, 0, "give " + mask + " or " + idx + ", not both");
  if (files.has(mask)) {
    const io::NpyArray a = files.read(mask);
    if (a.shape.size() != 1) wrong_shape(a, mask, "(N,)");
    for (int64_t v : a.to_int64(mask)) {
      if (v != 0 && v != 1) throw InputError(a.source, 0, mask + ": expected booleans (0 or 1), found " + std::to_string(v));
      s.mask.push_back(static_cast<uint8_t>(v));
    }
  } else if (files.has(idx)) {
    const io::NpyArray a = files.read(idx);
    if (a.shape.size() != 1) wrong_shape(a, idx, "(k,)");
    s.ids = a.to_int64(idx);
  }
  return s;
}

}  // namespace

bool is_numpy_dataset(const std::string& path) {
  const io::PathKind kind = io::path_kind(path);
  if (kind == io::PathKind::kDirectory) return io::path_kind((fs::path(path) / "edge_index.npy").string()) == io::PathKind::kFile;
  return kind != io::PathKind::kMissing && fs::path(path).extension() == ".npz";
}

NodeDataset load_numpy_dataset(const std::string& path) {
  ArrayFiles files(path);
  if (!files.has("edge_index")) {
    throw InputError(path, 0, "no edge_index array (expected edge_index" + std::string(".npy [2, E] with x, y, masks...)"));
  }
  DatasetArrays arrays;
  arrays.name = fs::path(path).stem().string();
  if (arrays.name.empty() || arrays.name == ".") arrays.name = fs::path(path).parent_path().filename().string();
  const io::NpyArray edges = files.read("edge_index");
  if (edges.shape.size() != 2 || edges.shape[0] != 2) wrong_shape(edges, "edge_index", "(2, E)");
  const std::vector<int64_t> endpoints = edges.to_int64("edge_index");  // [2 * E]
  const auto num_edges = static_cast<std::size_t>(edges.shape[1]);
  arrays.edge_src.assign(endpoints.begin(), endpoints.begin() + static_cast<std::ptrdiff_t>(num_edges));
  arrays.edge_dst.assign(endpoints.begin() + static_cast<std::ptrdiff_t>(num_edges), endpoints.end());
  if (files.has("x")) arrays.features = dense_features(files.read("x"));
  if (files.has("y")) {
    const io::NpyArray y = files.read("y");
    if (!(y.shape.size() == 1 || (y.shape.size() == 2 && y.shape[1] == 1))) wrong_shape(y, "y", "(N,) or (N, 1)");
    arrays.labels = y.to_int64("y");
  }
  arrays.train = read_split(files, "train", path);
  arrays.val = read_split(files, "val", path);
  arrays.test = read_split(files, "test", path);
  if (files.has("edge_type")) {
    const io::NpyArray t = files.read("edge_type");
    if (t.shape != std::vector<int64_t>{edges.shape[1]}) wrong_shape(t, "edge_type", "(E,) with E = " + std::to_string(num_edges));
    arrays.edge_type = t.to_int64("edge_type");
    arrays.directed = true;
  }
  if (files.has("edge_attr")) {
    const io::NpyArray edge_attr = files.read("edge_attr");
    const std::vector<int64_t>& s = edge_attr.shape;
    if (s.empty() || s.size() > 2 || s[0] != edges.shape[1] || (s.size() == 2 && s[1] < 1)) {
      wrong_shape(edge_attr, "edge_attr", "(E,) or (E, D) with E = " + std::to_string(num_edges));
    }
    arrays.edge_feature_dim = s.size() == 2 ? s[1] : 1;
    arrays.edge_features = edge_attr.to_float("edge_attr");
  }
  NodeDataset d;
  try {
    d = dataset_from_arrays(std::move(arrays));
  } catch (const InputError& e) {
    if (!e.file().empty()) throw;
    throw InputError(path, 0, e.what());
  }
  std::string ignored;
  for (const std::string& name : files.names()) {
    static const std::set<std::string> known = {"edge_index", "x", "y", "train_mask", "val_mask", "test_mask", "train_idx",
                                                "val_idx", "test_idx", "edge_type", "edge_attr"};
    if (known.count(name) == 0) ignored += (ignored.empty() ? "" : ", ") + quoted_input(name);
  }
  if (!ignored.empty()) d.warnings.push_back(path + ": arrays not read: " + ignored);
  return d;
}

}  // namespace attend::graph
