#pragma once
/// GcnConv: the graph convolution of Kipf & Welling, "Semi-Supervised Classification with
/// Graph Convolutional Networks" (ICLR 2017), registered as "gcn". Options follow PyTorch
/// Geometric's GCNConv.

#include <cstdint>

#include "attend/core/option_list.hpp"
#include "attend/graph/node_layer.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

/// The JSON config, same keys.
struct GcnOptions {
  int64_t in_channels = 0;     ///< input features (required)
  int64_t out_channels = 0;    ///< output features (required)
  bool add_self_loops = true;  ///< aggregate over the graph with one self-loop per node (A + I)
  bool normalize = true;       ///< symmetric normalisation D^-1/2 A D^-1/2; false: a plain sum
  bool bias = true;
  float input_dropout = 0.0f;  ///< dropout on the input features (training)
  float init_gain = 1.0f;      ///< the Glorot bound is multiplied by this (PyTorch's `gain`)
  uint64_t seed = 0;           ///< seeds the Glorot initialisation

  /// The options above as the JSON config's keys, with their ranges and meanings.
  static const OptionList<GcnOptions>& option_list();
  static GcnOptions from_json(const Json& config);
  Json to_json() const;
};

/// Parameters: weight [in, C] (Glorot uniform, bound times init_gain), bias [C] (zeros).
/// Forward (Kipf & Welling 2017, Eq. 2): x' = D^-1/2 (A + I) D^-1/2 x W + b, that is
/// x'_i = sum_{j in N(i) + i} x_j W / sqrt(d_i d_j) + b with d the in-degree counting the
/// self-loop. The propagation matrix is GraphContext::adjacency (built once per graph, a
/// constant sparse [N, N]), applied after the projection by one ops::sparse_matmul: rows in
/// fixed blocks forward, the cached transpose backward, bit-identical for any thread count.
/// DEVIATION: PyG adds the self-loops only when it normalises; here `add_self_loops` holds
/// with `normalize` false too (x'_i = sum over N(i) + i of x_j W: the sum aggregation of the
/// GNNExplainer authors' GCN).
class GcnConv : public NodeLayer {
 public:
  explicit GcnConv(GcnOptions options);
  std::string type_name() const override { return "gcn"; }
  Json config() const override { return options_.to_json(); }
  /// `attention` is left untouched (the layer does not attend).
  Var forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
              AttentionExport* attention = nullptr) const override;
  int64_t out_features() const override { return options_.out_channels; }

  static void register_into(Registry& registry);

 private:
  GcnOptions options_;
  Var weight_, bias_;
};

}  // namespace attend::graph
