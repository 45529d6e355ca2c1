#pragma once
/// The HDF5 graph file (schema "attend.graph", versions 1 and 2): a NodeDataset in one file,
/// written by `attend convert --graph` and read by training like any source format. The layout
/// (features as CSR (version 1) or as a dense row-chunked matrix (version 2), labels, splits,
/// edges with relation types, names, loader warnings) is described in docs/hdf5-schema.md,
/// section "Graph". A file can also be opened without its feature values
/// (load_graph_structure_h5), its rows then read on demand.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "attend/core/progress.hpp"
#include "attend/core/tensor.hpp"
#include "attend/graph/feature_rows.hpp"
#include "attend/graph/graph_context.hpp"
#include "attend/graph/hdf5_feature_rows.hpp"
#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// The `schema` attribute of a graph file and the newest `schema_version` this build knows.
inline constexpr const char* kGraphSchema = "attend.graph";
/// Files with CSR features are written as version 1 (which every older reader reads), files
/// with dense features as version 2.
inline constexpr int64_t kGraphSchemaVersion = 2;
/// The dense layout's feature matrix [N, F] float32.
inline constexpr const char* kDenseFeaturesPath = "/features/dense";

/// How a graph file stores the node features.
enum class FeatureLayout {
  kAuto,   ///< the smaller of the two uncompressed: dense when over a third of the values are stored
  kCsr,    ///< /features/indptr, indices, values: small for bag-of-words features
  kDense,  ///< /features/dense [N, F], chunked by rows: a batch reads only its rows (out of core)
};

struct GraphFileOptions {
  FeatureLayout layout = FeatureLayout::kAuto;
  /// Dense layout: rows per chunk; 0: one contiguous dataset, which FeatureRows reads with
  /// plain file reads (the fastest for random rows). Small chunks suit random rows (a read
  /// decodes whole chunks); see docs/performance.md "Feature rows out of core".
  int64_t chunk_rows = 64;
  bool compress = false;  ///< dense layout: shuffle + gzip level 4 on each chunk (chunk_rows >= 1)
  /// Progress while the file is written ("writing g.h5 (MiB) 96/410": the MiB of arrays
  /// written so far, features block by block), drawn with these options when the arrays
  /// hold at least `progress_min_bytes`; silent by default.
  ProgressOptions progress{.mode = ProgressMode::kSilent};
  int64_t progress_min_bytes = int64_t{32} << 20;
};

/// "auto", "csr" or "dense"; another name is an InputError listing these.
FeatureLayout parse_feature_layout(const std::string& name);
/// The layout kAuto stands for with these features; another layout is returned as given,
/// except that featureless graphs (F = 0, nothing to store) are always kCsr.
FeatureLayout resolve_feature_layout(FeatureLayout layout, const SparseMatrix& features);

/// Write `dataset` to `path` as an attend.graph file, atomically (a temporary file renamed
/// into place, so a failure leaves any previous file untouched). Every field of NodeDataset is
/// stored so that `load_node_dataset_h5` gives it back exactly (the dense layout does not
/// keep explicitly stored zeros apart from absent values). The dataset must be valid
/// (`NodeDataset::validate`); an unwritable destination is an InputError. Serial.
void save_node_dataset(const std::string& path, const NodeDataset& dataset, const GraphFileOptions& options = {});

/// Produces rows first .. first + count - 1 of a feature matrix as [count, F].
using FeatureBlockSource = std::function<Tensor(int64_t first, int64_t count)>;

/// As save_node_dataset with the dense layout, for a feature matrix that does not fit in
/// memory: everything but the features comes from `structure` (its `features`, normally empty,
/// are validated but not written),
/// the [N, F] matrix from `rows`, asked for in order in blocks of whole chunks, each written
/// before the next is asked for. Validates `structure` as save_node_dataset does.
void save_node_dataset_streaming(const std::string& path, const NodeDataset& structure, int64_t num_features,
                                 const FeatureBlockSource& rows, const GraphFileOptions& options);

/// Read an attend.graph file written by `save_node_dataset`. A file that is not HDF5, has
/// another schema or a newer version, lacks a dataset, or whose contents are inconsistent
/// (sizes, id ranges, an unsorted CSR) is an InputError naming the file and the problem.
NodeDataset load_node_dataset_h5(const std::string& path);

/// Where load_graph_structure_h5 puts a graph file's edges.
enum class StructureEdges {
  kDataset,  ///< in the dataset's edge arrays (edge_src, edge_dst, edge_type), as load_node_dataset_h5
  /// Read in blocks straight into `GraphStructure::graph`, a GraphContext over an InEdgeIndex
  /// whose views are not built (what sampled training and inference need: about 4 bytes per
  /// directed edge of an undirected graph); the dataset's edge arrays stay empty. A file whose
  /// edges have features is read as kDataset (its context is then built from the dataset).
  kIndex,
};

/// A graph file without its feature values in memory.
struct GraphStructure {
  NodeDataset dataset;  ///< all but the features, whose matrix is empty [0, 0]
  /// The features [N, F] on demand: an Hdf5FeatureRows for the dense layout; the CSR
  /// layout's matrix (sparse, small) is read whole into an InMemoryFeatureRows.
  std::unique_ptr<FeatureRows> features;
  /// StructureEdges::kIndex: the graph read from the file; otherwise none.
  std::optional<GraphContext> graph;
  int64_t num_edges = 0;  ///< the file's edges (as listed, before both directions are taken)
};

/// Read a graph file's structure, labels, splits and names, and open its features as rows
/// (`options`: the cache budget, the selection, normalisation); `edges` says where the edges
/// go. Memory: the edges (int64 arrays, or the compact index) and per-node arrays, not the
/// dense feature matrix. Errors as load_node_dataset_h5.
GraphStructure load_graph_structure_h5(const std::string& path, const Hdf5FeatureRowsOptions& options,
                                       StructureEdges edges = StructureEdges::kDataset);

/// A graph file opened for training or inference with its features out of core (`node-classify
/// train | evaluate | predict --features-out-of-core`): `path` must be an HDF5 file (else an
/// InputError saying how to make one); its edges go straight into the compact in-edge index
/// (StructureEdges::kIndex), its feature rows are read through an LRU cache of `cache_bytes`
/// (0: none) with hyperslab reads, normalised when `normalize_features`. Errors as
/// load_graph_structure_h5.
GraphStructure open_graph_out_of_core(const std::string& path, int64_t cache_bytes, bool normalize_features);

/// True when `path` is a regular file that starts with the HDF5 signature (the 8 bytes
/// "\x89HDF\r\n\x1a\n" at offset 0, where every file HDF5 writes without a user block has it).
bool is_hdf5_file(const std::string& path);

}  // namespace attend::graph
