#include "attend/graph/graph_store.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <functional>
#include <fstream>
#include <utility>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"

namespace attend::graph {

namespace {

/// What NodeDataset::validate leaves out but a graph file must satisfy: name lists that match
/// their counts and relation ids that the graph views accept (graph_context.cpp numbers
/// relations 0..max(R, 1) - 1). Empty when all is well.
std::string naming_problem(const NodeDataset& d) {
  const auto count = [](const std::vector<std::string>& v) { return static_cast<int64_t>(v.size()); };
  if (!d.node_names.empty() && count(d.node_names) != d.num_nodes) {
    return std::to_string(d.node_names.size()) + " node names for " + std::to_string(d.num_nodes) + " nodes";
  }
  if (!d.class_names.empty() && count(d.class_names) != d.num_classes) {
    return std::to_string(d.class_names.size()) + " class names for " + std::to_string(d.num_classes) + " classes";
  }
  const int64_t relations = std::max<int64_t>(d.num_relations(), 1);
  for (std::size_t e = 0; e < d.edge_type.size(); ++e) {
    if (d.edge_type[e] < 0 || d.edge_type[e] >= relations) {
      return "edge " + std::to_string(e) + " has relation " + std::to_string(d.edge_type[e]) + " outside 0.." +
             std::to_string(relations - 1);
    }
  }
  return "";
}

/// A one-dimensional int64 dataset; another rank is an InputError.
std::vector<int64_t> read_vector(const Hdf5File& file, const std::string& path) {
  Shape shape;
  std::vector<int64_t> values = file.read_int64(path, &shape);
  if (shape.size() != 1) {
    throw InputError(file.path(), 0, "dataset '" + path + "': expected one dimension, found shape " + shape_to_string(shape));
  }
  return values;
}

/// The string list at `path`, or none when the file does not have it.
std::vector<std::string> read_optional_strings(const Hdf5File& file, const std::string& path) {
  return file.exists(path) ? file.read_strings(path) : std::vector<std::string>{};
}

/// /features as a SparseMatrix. The CSR must be canonical (indptr from 0, non-decreasing, to
/// nnz; column indices strictly increasing within a row), so rebuilding it from its triplets
/// reproduces the stored arrays exactly.
SparseMatrix read_features(const Hdf5File& file) {
  const std::string& name = file.path();
  const int64_t rows = file.get_attr_int64("/features", "rows");
  const int64_t cols = file.get_attr_int64("/features", "cols");
  const std::vector<int64_t> indptr = read_vector(file, "/features/indptr");
  const std::vector<int64_t> indices = read_vector(file, "/features/indices");
  const Tensor values = file.read_tensor("/features/values");  // [nnz]
  const auto bad = [&](const std::string& what) { throw InputError(name, 0, "/features: " + what); };
  if (rows < 0 || cols < 0) bad("negative size " + std::to_string(rows) + " x " + std::to_string(cols));
  if (indptr.empty() || static_cast<int64_t>(indptr.size()) - 1 != rows) {
    bad("indptr has " + std::to_string(indptr.size()) + " entries for " + std::to_string(rows) + " rows");
  }
  if (values.rank() != 1 || values.numel() != static_cast<int64_t>(indices.size())) {
    bad("values of shape " + shape_to_string(values.shape()) + " for " + std::to_string(indices.size()) + " indices");
  }
  if (indptr.front() != 0 || indptr.back() != static_cast<int64_t>(indices.size())) {
    bad("indptr must run from 0 to the number of stored values (" + std::to_string(indices.size()) + ")");
  }
  std::vector<int64_t> row_of(indices.size());
  for (int64_t r = 0; r < rows; ++r) {
    if (indptr[r + 1] < indptr[r]) bad("indptr decreases at row " + std::to_string(r));
    if (indptr[r + 1] > static_cast<int64_t>(indices.size())) {
      bad("indptr runs past the " + std::to_string(indices.size()) + " stored values at row " + std::to_string(r));
    }
    for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k) {
      if (indices[k] < 0 || indices[k] >= cols) {
        bad("column " + std::to_string(indices[k]) + " outside 0.." + std::to_string(cols - 1) + " in row " + std::to_string(r));
      }
      if (k > indptr[r] && indices[k] <= indices[k - 1]) bad("columns not strictly increasing in row " + std::to_string(r));
      row_of[k] = r;
    }
  }
  return SparseMatrix::from_triplets(rows, cols, row_of, indices, std::vector<float>(values.begin(), values.end()));
}

/// /features/dense [N, F] as a SparseMatrix of its non-zero values; the group's `rows` and
/// `cols` attributes must agree with the dataset's shape.
SparseMatrix read_dense_features(const Hdf5File& file) {
  const int64_t rows = file.get_attr_int64("/features", "rows");
  const int64_t cols = file.get_attr_int64("/features", "cols");
  const Tensor dense = file.read_tensor(kDenseFeaturesPath, {-1, -1});  // [N, F]
  if (dense.dim(0) != rows || dense.dim(1) != cols) {
    throw InputError(file.path(), 0, std::string(kDenseFeaturesPath) + ": shape " + shape_to_string(dense.shape()) +
                                         " but /features says " + std::to_string(rows) + " x " + std::to_string(cols));
  }
  return SparseMatrix::from_dense(dense);
}

}  // namespace

namespace {

/// "writing NAME (MiB)": the MiB of arrays written so far out of `total_bytes` (the arrays'
/// sizes, not the file's), when the options ask for it and the arrays are large enough.
class WriteProgress {
 public:
  WriteProgress(const std::string& path, int64_t total_bytes, const GraphFileOptions& options) {
    if (options.progress.mode == ProgressMode::kSilent || total_bytes < options.progress_min_bytes) return;
    total_mib_ = std::max<int64_t>((total_bytes + (int64_t{1} << 20) - 1) >> 20, 1);
    line_ = std::make_unique<ProgressLine>("writing " + std::filesystem::path(path).filename().string() + " (MiB)", total_mib_,
                                           options.progress);
  }
  /// `bytes` more have been written.
  void wrote(int64_t bytes) {
    written_ += bytes;
    const int64_t mib = std::min(written_ >> 20, total_mib_);
    if (line_ && mib > shown_mib_) line_->update(shown_mib_ = mib, {});
  }
  void finish() {
    if (line_ && shown_mib_ < total_mib_) line_->update(shown_mib_ = total_mib_, {}, true);
  }

 private:
  std::unique_ptr<ProgressLine> line_;
  int64_t total_mib_ = 0, shown_mib_ = 0, written_ = 0;
};

int64_t string_bytes(const std::vector<std::string>& strings) {
  int64_t bytes = 0;
  for (const std::string& s : strings) bytes += static_cast<int64_t>(s.size());
  return bytes;
}

/// Write everything of `d` but the features, atomically, around `write_features`, which adds
/// the /features group (`feature_bytes` of arrays) to the open file and reports its writes.
void write_graph_file(const std::string& path, const NodeDataset& d, int64_t schema_version, int64_t feature_bytes,
                      const GraphFileOptions& options,
                      const std::function<void(Hdf5File&, WriteProgress&)>& write_features) {
  d.validate();
  const std::string problem = naming_problem(d);
  ATTEND_CHECK(problem.empty(), d.name << ": " << problem);
  const auto int64_bytes = [](const std::vector<int64_t>& v) { return static_cast<int64_t>(v.size() * sizeof(int64_t)); };
  const int64_t label_bytes = int64_bytes(d.labels) + int64_bytes(d.train) + int64_bytes(d.val) + int64_bytes(d.test);
  const int64_t edge_bytes = int64_bytes(d.edge_src) + int64_bytes(d.edge_dst) + int64_bytes(d.edge_type) +
                             static_cast<int64_t>(d.edge_features.size() * sizeof(float));
  const int64_t name_bytes = string_bytes(d.node_names) + string_bytes(d.class_names) + string_bytes(d.relation_names);
  WriteProgress progress(path, feature_bytes + label_bytes + edge_bytes + name_bytes, options);
  AtomicOutput output(path);
  try {
    Hdf5File file = Hdf5File::create(output.temp_path(), kGraphSchema, schema_version);
    file.set_attr("/", "name", d.name);
    file.set_attr("/", "num_nodes", d.num_nodes);
    file.set_attr("/", "num_classes", d.num_classes);
    file.set_attr("/", "directed", int64_t{d.directed ? 1 : 0});
    write_features(file, progress);
    file.write_int64("/labels", d.labels);  // [N]
    file.write_int64("/splits/train", d.train);
    file.write_int64("/splits/val", d.val);
    file.write_int64("/splits/test", d.test);
    progress.wrote(label_bytes);
    file.write_int64("/edges/src", d.edge_src);  // [E]
    file.write_int64("/edges/dst", d.edge_dst);  // [E]
    if (!d.edge_type.empty()) file.write_int64("/edges/type", d.edge_type);  // [E]
    if (d.has_edge_features()) {
      file.write_tensor("/edges/features", Tensor({d.num_edges(), d.edge_feature_dim}, d.edge_features));  // [E, D]
    }
    progress.wrote(edge_bytes);
    if (!d.node_names.empty()) file.write_strings("/names/nodes", d.node_names);
    if (!d.class_names.empty()) file.write_strings("/names/classes", d.class_names);
    if (!d.relation_names.empty()) file.write_strings("/names/relations", d.relation_names);
    file.write_strings("/warnings", d.warnings);
    file.close();
    progress.finish();
  } catch (const InputError& error) {
    throw InputError(path, 0, std::string("cannot write graph: ") + error.what());
  }
  output.commit();
}

/// The dense layout: /features/dense [N, F], filled chunk-aligned block by block.
void write_dense_features(Hdf5File& file, int64_t rows, int64_t cols, const FeatureBlockSource& source,
                          const GraphFileOptions& options, WriteProgress& progress) {
  if (options.chunk_rows < 0 || (options.chunk_rows == 0 && options.compress)) {
    throw InputError("dense features need 0 rows per chunk (contiguous, uncompressed) or more, got " +
                     std::to_string(options.chunk_rows) + (options.compress ? " with compression" : ""));
  }
  file.create_group("/features");
  file.set_attr("/features", "rows", rows);
  file.set_attr("/features", "cols", cols);
  file.create_row_dataset(kDenseFeaturesPath, rows, cols, options.chunk_rows, options.compress);
  // About 16 MiB of rows per block, a whole number of chunks.
  const int64_t row_bytes = std::max<int64_t>(cols, 1) * static_cast<int64_t>(sizeof(float));
  const int64_t chunk = std::max<int64_t>(options.chunk_rows, 1);
  const int64_t block = std::max<int64_t>((int64_t{16} << 20) / row_bytes / chunk, 1) * chunk;
  for (int64_t first = 0; first < rows; first += block) {
    const int64_t count = std::min(block, rows - first);
    const Tensor values = source(first, count);  // [count, F]
    ATTEND_CHECK(values.rank() == 2 && values.dim(0) == count && values.dim(1) == cols,
                 "feature rows " << first << ".. came as " << shape_to_string(values.shape()) << ", expected ["
                                 << count << ", " << cols << "]");
    file.write_rows(kDenseFeaturesPath, first, values);
    progress.wrote(count * cols * static_cast<int64_t>(sizeof(float)));
  }
}

}  // namespace

FeatureLayout parse_feature_layout(const std::string& name) {
  if (name == "auto") return FeatureLayout::kAuto;
  if (name == "csr") return FeatureLayout::kCsr;
  if (name == "dense") return FeatureLayout::kDense;
  throw InputError("unknown feature layout '" + name + "': expected auto, csr or dense");
}

FeatureLayout resolve_feature_layout(FeatureLayout layout, const SparseMatrix& features) {
  if (features.cols() == 0) return FeatureLayout::kCsr;
  if (layout != FeatureLayout::kAuto) return layout;
  const double values = static_cast<double>(features.rows()) * static_cast<double>(features.cols());
  // CSR stores 12 bytes per value (int64 column, float32), dense 4 per entry.
  return features.cols() > 0 && 3.0 * static_cast<double>(features.nnz()) > values ? FeatureLayout::kDense
                                                                                  : FeatureLayout::kCsr;
}

void save_node_dataset(const std::string& path, const NodeDataset& d, const GraphFileOptions& options) {
  const SparseMatrix& x = d.features;
  if (resolve_feature_layout(options.layout, x) == FeatureLayout::kDense) {
    const FeatureBlockSource densify = [&x](int64_t first, int64_t count) {
      Tensor block({count, x.cols()});  // [count, F]
      for (int64_t r = 0; r < count; ++r) {
        for (int64_t k = x.indptr()[first + r]; k < x.indptr()[first + r + 1]; ++k) {
          block.data()[r * x.cols() + x.indices()[k]] = x.values()[k];
        }
      }
      return block;
    };
    save_node_dataset_streaming(path, d, x.cols(), densify, options);
    return;
  }
  const int64_t csr_bytes = (x.rows() + 1 + x.nnz()) * static_cast<int64_t>(sizeof(int64_t)) +
                            x.nnz() * static_cast<int64_t>(sizeof(float));
  write_graph_file(path, d, 1, csr_bytes, options, [&x, csr_bytes](Hdf5File& file, WriteProgress& progress) {
    file.create_group("/features");
    file.set_attr("/features", "rows", x.rows());
    file.set_attr("/features", "cols", x.cols());
    file.write_int64("/features/indptr", x.indptr());    // [rows + 1]
    file.write_int64("/features/indices", x.indices());  // [nnz]
    file.write_tensor("/features/values", Tensor({x.nnz()}, x.values()));  // [nnz]
    progress.wrote(csr_bytes);
  });
}

void save_node_dataset_streaming(const std::string& path, const NodeDataset& structure, int64_t num_features,
                                 const FeatureBlockSource& rows, const GraphFileOptions& options) {
  ATTEND_CHECK(num_features >= 0, "negative feature count " << num_features);
  const int64_t dense_bytes = structure.num_nodes * num_features * static_cast<int64_t>(sizeof(float));
  write_graph_file(path, structure, 2, dense_bytes, options, [&](Hdf5File& file, WriteProgress& progress) {
    write_dense_features(file, structure.num_nodes, num_features, rows, options, progress);
  });
}

namespace {

/// Everything of a graph file but its features (left empty) and, without `with_edges`, its
/// edges, unvalidated.
NodeDataset read_structure(const Hdf5File& file, bool with_edges = true) {
  file.require_schema(kGraphSchema, kGraphSchemaVersion);
  NodeDataset d;
  d.name = file.get_attr_string("/", "name");
  d.num_nodes = file.get_attr_int64("/", "num_nodes");
  d.num_classes = file.get_attr_int64("/", "num_classes");
  d.directed = file.get_attr_int64("/", "directed") != 0;
  if (d.num_nodes < 0 || d.num_classes < 0) {
    throw InputError(file.path(), 0, "negative num_nodes or num_classes (" + std::to_string(d.num_nodes) + ", " +
                                         std::to_string(d.num_classes) + ")");
  }
  d.labels = read_vector(file, "/labels");
  d.train = read_vector(file, "/splits/train");
  d.val = read_vector(file, "/splits/val");
  d.test = read_vector(file, "/splits/test");
  if (with_edges) {
    d.edge_src = read_vector(file, "/edges/src");
    d.edge_dst = read_vector(file, "/edges/dst");
    if (file.exists("/edges/type")) d.edge_type = read_vector(file, "/edges/type");
  }
  if (with_edges && file.exists("/edges/features")) {
    const Tensor features = file.read_tensor("/edges/features");  // [E, D]
    if (features.rank() != 2 || features.dim(1) < 1 || features.dim(0) != d.num_edges()) {
      throw InputError(file.path(), 0, "/edges/features: expected [E, D] with E = " + std::to_string(d.num_edges()) +
                                    " and D >= 1, found shape " + shape_to_string(features.shape()));
    }
    d.edge_feature_dim = features.dim(1);
    d.edge_features.assign(features.begin(), features.end());
  }
  d.node_names = read_optional_strings(file, "/names/nodes");
  d.class_names = read_optional_strings(file, "/names/classes");
  d.relation_names = read_optional_strings(file, "/names/relations");
  d.warnings = read_optional_strings(file, "/warnings");
  return d;
}

/// The checks every reader makes once the dataset is complete.
void require_consistent(const std::string& path, const NodeDataset& d) {
  try {
    d.validate();
  } catch (const InputError& e) {
    throw InputError(path, 0, std::string("inconsistent graph: ") + e.what());
  }
  if (const std::string problem = naming_problem(d); !problem.empty()) {
    throw InputError(path, 0, "inconsistent graph: " + problem);
  }
}

/// The edges of a graph file read block by block (2^20 edges, 8 MiB per array, at a time)
/// into the GraphContext of `d` (the file's structure without its edges, validated), with
/// NodeDataset::validate's checks on them. Returns the context and the file's edge count.
std::pair<GraphContext, int64_t> read_edge_index(const Hdf5File& file, const NodeDataset& d) {
  constexpr int64_t kBlock = int64_t{1} << 20;
  const auto length = [&](const char* path) {
    const Shape shape = file.dataset_shape(path);
    if (shape.size() != 1) {
      throw InputError(file.path(), 0, std::string("dataset '") + path + "': expected one dimension, found shape " +
                                           shape_to_string(shape));
    }
    return shape[0];
  };
  const int64_t count = length("/edges/src");
  const bool typed = file.exists("/edges/type");
  if (length("/edges/dst") != count) throw InputError(file.path(), 0, "inconsistent graph: edge arrays differ in length");
  if (typed && length("/edges/type") != count) {
    throw InputError(file.path(), 0, "inconsistent graph: edge types do not match the edges");
  }
  const int64_t relations = std::max<int64_t>(d.num_relations(), 1);
  try {
    InEdgeIndex index = InEdgeIndex::from_dataset_edges(d.num_nodes, d.directed, relations, [&](const auto& visit) {
      for (int64_t first = 0; first < count; first += kBlock) {
        const int64_t n = std::min(kBlock, count - first);
        const std::vector<int64_t> src = file.read_int64_range("/edges/src", first, n);
        const std::vector<int64_t> dst = file.read_int64_range("/edges/dst", first, n);
        const std::vector<int64_t> type = typed ? file.read_int64_range("/edges/type", first, n) : std::vector<int64_t>{};
        visit(DatasetEdgeBlock{src, dst, type});
      }
    });
    // As GraphContext::from_dataset: undirected, the edges and the self-loops; directed, R
    // relations, their inverses and "self".
    return {GraphContext::from_in_edges(d.directed ? 2 * relations + 1 : 2, std::move(index)), count};
  } catch (const InputError& e) {
    if (!e.file().empty()) throw;
    throw InputError(file.path(), 0, std::string("inconsistent graph: ") + e.what());
  }
}

}  // namespace

NodeDataset load_node_dataset_h5(const std::string& path) {
  Hdf5File file = Hdf5File::open(path);
  NodeDataset d = read_structure(file);
  d.features = file.exists(kDenseFeaturesPath) ? read_dense_features(file) : read_features(file);
  require_consistent(path, d);
  return d;
}

GraphStructure load_graph_structure_h5(const std::string& path, const Hdf5FeatureRowsOptions& options,
                                       StructureEdges edges) {
  GraphStructure g;
  bool dense = false;
  {
    Hdf5File file = Hdf5File::open(path);
    const bool index = edges == StructureEdges::kIndex && !file.exists("/edges/features");
    g.dataset = read_structure(file, !index);
    require_consistent(path, g.dataset);
    g.num_edges = g.dataset.num_edges();
    if (index) {
      auto [graph, count] = read_edge_index(file, g.dataset);
      g.graph = std::move(graph);
      g.num_edges = count;
    }
    dense = file.exists(kDenseFeaturesPath);
    if (!dense) g.features = std::make_unique<InMemoryFeatureRows>(read_features(file), options.normalize);
  }
  if (dense) g.features = std::make_unique<Hdf5FeatureRows>(path, options);
  if (g.features->cols() > 0 && g.features->rows() != g.dataset.num_nodes) {
    throw InputError(path, 0, "inconsistent graph: " + std::to_string(g.features->rows()) + " feature rows for " +
                                  std::to_string(g.dataset.num_nodes) + " nodes");
  }
  return g;
}

GraphStructure open_graph_out_of_core(const std::string& path, int64_t cache_bytes, bool normalize_features) {
  if (!is_hdf5_file(path)) {
    throw InputError(path, 0, "features out of core are read from an HDF5 graph file (attend convert --features-layout dense)");
  }
  return load_graph_structure_h5(path, {cache_bytes, RowSelection::kHyperslabs, normalize_features}, StructureEdges::kIndex);
}

bool is_hdf5_file(const std::string& path) {
  static constexpr std::array<char, 8> kSignature = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  std::error_code ignored;
  if (!std::filesystem::is_regular_file(path, ignored)) return false;
  std::ifstream in(path, std::ios::binary);
  std::array<char, 8> head{};
  return in.read(head.data(), head.size()) && head == kSignature;
}

}  // namespace attend::graph
