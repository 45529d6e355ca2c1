// agnn: an attend plugin with one layer, "agnn": the attention-based propagation of AGNN
// (Thekumparampil, Wang, Oh & Li, "Attention-based Graph Neural Network for Semi-supervised
// Learning", 2018), eq. 5-6:
//
//   h        = x W                                           // [N, C]
//   P_ij     = softmax over j in N(i) + {i} of beta cos(h_i, h_j)
//   out_i    = sum_j P_ij h_j (+ bias)                        // [N, C]
//
// with beta a learned scalar. The scores go straight into attend's fused sparse_attention op
// (dot-product rule with q = beta h_i / |h_i|, k = h_j / |h_j| and scale 1), so no per-edge
// tensor is built. The row normalisation is a small op of the plugin's own, with its
// backward, to show how a plugin adds one.
// DEVIATION: AGNN's propagation layers have no weight (a separate linear layer precedes them);
// here each layer projects first, so that "agnn" stacks like "gat" in a model file.
#include <cmath>
#include <memory>

#include <attend/core/error.hpp>
#include <attend/core/init.hpp>
#include <attend/core/ops/elementwise.hpp>
#include <attend/core/ops/shape.hpp>
#include <attend/core/ops/sparse_attention.hpp>
#include <attend/core/options_json.hpp>
#include <attend/core/parallel.hpp>
#include <attend/core/plugin.hpp>
#include <attend/core/random.hpp>
#include <attend/core/registry.hpp>
#include <attend/graph/node_layer.hpp>

namespace agnn {

using attend::Json;
using attend::Tensor;
using attend::Var;

/// Each row of x [N, C] divided by its L2 norm sqrt(|x|^2 + 1e-12): y = x / n.
/// dx = (dy - y (y . dy)) / n per row. Parallel over fixed blocks of rows; every row is
/// computed by one thread, so results do not depend on the thread count.
Var l2_normalize_rows(const Var& x) {
  const Tensor& xv = x.value();
  ATTEND_CHECK(xv.rank() == 2, "l2_normalize_rows expects [N, C], got " << attend::shape_to_string(xv.shape()));
  const int64_t n = xv.dim(0), c = xv.dim(1);
  Tensor y(xv.shape());                // [N, C]
  auto norms = std::make_shared<std::vector<float>>(n);
  attend::parallel_for_blocks(n, 256, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      double sq = 1e-12;
      for (int64_t k = 0; k < c; ++k) sq += double(xv[i * c + k]) * xv[i * c + k];
      const float norm = static_cast<float>(std::sqrt(sq));
      (*norms)[i] = norm;
      for (int64_t k = 0; k < c; ++k) y[i * c + k] = xv[i * c + k] / norm;
    }
  });
  return Var::from_op(std::move(y), {x}, [x, norms, n, c](const Tensor& yv, const Tensor& gy) {
    if (!x.requires_grad()) return;
    Tensor& gx = x.grad_mut();  // [N, C]
    attend::parallel_for_blocks(n, 256, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        double dot = 0;
        for (int64_t k = 0; k < c; ++k) dot += double(yv[i * c + k]) * gy[i * c + k];
        for (int64_t k = 0; k < c; ++k) {
          gx[i * c + k] += static_cast<float>((gy[i * c + k] - yv[i * c + k] * dot) / (*norms)[i]);
        }
      }
    });
  });
}

/// The JSON config.
struct AgnnOptions {
  int64_t in_channels = 0;     ///< input features (required)
  int64_t out_channels = 0;    ///< output features (required)
  float beta = 1.0f;           ///< initial temperature of the cosine scores
  bool learn_beta = true;      ///< train beta (AGNN) or keep it fixed
  float dropout = 0.0f;        ///< dropout on the attention weights (training)
  float input_dropout = 0.0f;  ///< dropout on the input features (training)
  bool add_self_loops = true;  ///< attend over N(i) + {i}, as AGNN does
  bool bias = true;
  uint64_t seed = 0;           ///< seeds the Glorot initialisation

  static AgnnOptions from_json(const Json& c) {
    const std::string me = "agnn";
    attend::check_option_keys(c, {"in_channels", "out_channels", "beta", "learn_beta", "dropout", "input_dropout",
                                  "add_self_loops", "bias", "seed"}, me);
    AgnnOptions o;
    o.in_channels = attend::option_required<int64_t>(c, "in_channels", me);
    o.out_channels = attend::option_required<int64_t>(c, "out_channels", me);
    o.beta = attend::option_or(c, "beta", o.beta, me);
    o.learn_beta = attend::option_or(c, "learn_beta", o.learn_beta, me);
    o.dropout = attend::option_or(c, "dropout", o.dropout, me);
    o.input_dropout = attend::option_or(c, "input_dropout", o.input_dropout, me);
    o.add_self_loops = attend::option_or(c, "add_self_loops", o.add_self_loops, me);
    o.bias = attend::option_or(c, "bias", o.bias, me);
    o.seed = attend::option_or(c, "seed", o.seed, me);
    if (o.in_channels <= 0 || o.out_channels <= 0) throw attend::InputError("agnn: in_channels and out_channels must be positive");
    if (o.dropout < 0 || o.dropout >= 1 || o.input_dropout < 0 || o.input_dropout >= 1) {
      throw attend::InputError("agnn: dropout and input_dropout must be in [0, 1)");
    }
    return o;
  }

  Json to_json() const {
    return {{"in_channels", in_channels}, {"out_channels", out_channels}, {"beta", beta},
            {"learn_beta", learn_beta}, {"dropout", dropout}, {"input_dropout", input_dropout},
            {"add_self_loops", add_self_loops}, {"bias", bias}, {"seed", seed}};
  }
};

/// Parameters: weight [in, out] (Glorot), beta [1] (when learn_beta), bias [out] (zeros).
class AgnnConv : public attend::graph::NodeLayer {
 public:
  explicit AgnnConv(AgnnOptions o) : options_(o) {
    attend::Rng rng(o.seed);
    weight_ = add_parameter("weight", attend::init::glorot_uniform({o.in_channels, o.out_channels},
                                                                   o.in_channels, o.out_channels, rng));
    Tensor beta(attend::Shape{1}, o.beta);  // [1]
    beta_ = o.learn_beta ? add_parameter("beta", std::move(beta)) : Var(std::move(beta));
    if (o.bias) bias_ = add_parameter("bias", attend::init::zeros({o.out_channels}));
  }

  std::string type_name() const override { return "agnn"; }
  Json config() const override { return options_.to_json(); }
  int64_t out_features() const override { return options_.out_channels; }

  Var forward(const attend::graph::NodeFeatures& x, const attend::graph::GraphContext& graph, uint64_t seed,
              attend::graph::AttentionExport* attention = nullptr) const override {
    using namespace attend::ops;
    const AgnnOptions& o = options_;
    ATTEND_CHECK(x.cols() == o.in_channels, "agnn expects " << o.in_channels << " input features, got " << x.cols());
    const int64_t n = x.rows(), c = o.out_channels;
    const attend::graph::NodeFeatures xd = attend::graph::dropout(x, o.input_dropout, attend::mix64(seed ^ 1), is_training());
    Var h = attend::graph::project(xd, weight_);  // [N, C]
    Var unit = l2_normalize_rows(h);              // [N, C]
    Var q = reshape(mul(unit, reshape(beta_, {})), {n, 1, c});  // [N, 1, C], beta h_i / |h_i|
    Var k = reshape(unit, {n, 1, c});             // [N, 1, C]
    SparseAttentionOptions sa;
    sa.scale = 1.0f;
    sa.dropout = o.dropout;
    sa.seed = attend::mix64(seed ^ 2);
    sa.training = is_training();
    const attend::graph::GraphView& view = graph.view(o.add_self_loops);
    Tensor* weights = attention ? &attention->weights : nullptr;
    if (attention) attention->view = &view;
    Var out = sparse_attention(view.csr, SparseScores::dot(q, k), reshape(h, {n, 1, c}), sa, weights);  // [N, 1, C]
    out = reshape(out, {n, c});                                                                         // [N, C]
    return o.bias ? add(out, bias_) : out;
  }

 private:
  AgnnOptions options_;
  Var weight_, beta_, bias_;
};

/// Add "agnn" to the registry the loader hands over.
void register_layers(attend::Registry& registry) {
  registry.add("agnn", [](const Json& config) -> std::unique_ptr<attend::Module> {
    return std::make_unique<AgnnConv>(AgnnOptions::from_json(config));
  });
}

}  // namespace agnn

ATTEND_PLUGIN("agnn", "1.0.0", agnn::register_layers)
