#pragma once
/// PGExplainer (Luo et al., "Parameterized Explainer for Graph Neural Network", NeurIPS 2020,
/// Sec. 4, node classification): one MLP, shared by every explained node, maps the trained
/// model's embeddings of an edge j -> i and of the target v, [z_j, z_i, z_v], to the edge's
/// mask logit. It is trained once over a set of nodes; then one forward pass of the MLP gives
/// every explained node's edge scores with no optimisation per node. The score of an edge
/// with mask m = sigmoid(logit) is -log(1 - m) = softplus(logit) >= 0: the mask's ranking
/// (and 0 for an edge surely dropped, as an edge no method scores), without the ties that m
/// makes in float above a logit of about 17 (1.0f), where the trained MLP often lies (it is
/// trained at temperatures 5 to 2, so its logits grow to keep a sample near 1 despite the noise).
///
/// Embedding z: the rows the model's last layer (its head) reads, computed once on the whole
/// graph without masks: with jumping_knowledge "cat" the concatenation of the hidden layers'
/// outputs (the GNNExplainer authors' GCN, whose concatenated embedding the PGExplainer code
/// reads), else the last hidden layer's activated output; for a one-layer model the input
/// features. Only NodeClassifier's own layer_forward is called, so any registered node layer
/// works.
///
/// Training, per epoch e of E, over the training nodes in an order shuffled from the seed:
///   temperature T_e = t0 (t1 / t0)^(e / E),
///   m_k = sigmoid((log u_k - log(1 - u_k) + logit_k) / T_e), u_k ~ U(b, 1 - b)   (binary concrete)
///   loss = -log p(c | edges scaled by m) + size sum_k m_k + entropy mean_k H(m_k),
/// over the scored edges k of the node (below), with H(m) = -m log(m + eps) - (1 - m) log(1 -
/// m + eps), the other plain edges of the computation graph keeping mask 1. The masked forward
/// is the TargetForward pass (target_forward.hpp) with GraphContext::with_edge_mask, the
/// machinery GNNExplainer and integrated gradients use. Choices (the authors' code, github.com/
/// flyingdoog/PGExplainer, notebooks and codes/Explainer.py, against PyTorch Geometric's):
///   update      "node" (default): one Adam step per node (PyG's PGExplainer.train is called
///               once per node); "epoch": the loss summed over every training node, then one
///               step (the authors' code: 10 to 30 steps in all).
///   gradient_clip  each gradient entry clamped to [-g, g] before the step (the authors' 2.0);
///               0 (default): none.
///   symmetric_mask  false (default): each direction of an edge is masked by its own sample;
///               true: both by the mean of the two samples where both directions are scored,
///               in the masked forward of training (the authors' _masked_adj: (M + M^T) / 2;
///               the size and entropy terms read the samples themselves, as theirs do). The
///               scores stay each direction's own (an AUC over undirected edges sums them).
///   training_label "predicted" (default): c is the model's predicted class on the unmasked
///               graph (an explainer explains the model, not the labels); "true": the node's
///               label (the authors' `miGroudTruth`, on by default in their code), for nodes
///               with a label, the prediction where it is unknown.
///   entropy_margin c  the entropy term reads m' = (1 - 2c) m + c, in [c, 1 - c], which bounds
///               its gradient at 0 and 1 (the authors' loss: c = 0.01, their scale 0.99);
///               0 (default): m itself, as PyG.
///   scored_edges "explained" (default): the explained edges of the computation graph
///               (computation_graph.hpp: the edges into nodes within L - 1 hops, which carry the
///               target's messages); "subgraph": every plain edge of the computation graph's
///               subgraph but self-loops, both directions of each edge at a node within L - 1
///               hops, so also the edges from those nodes out to the nodes L hops away, which
///               carry nothing to the target (their mask gets the penalty's gradient only). The
///               authors' MLP scores every edge of the L-hop induced subgraph this way (it is
///               defined for any edge); the edges joining two nodes L hops away, which the
///               computation graph does not hold, are not scored. "khop": those too, from the
///               full graph: every edge of the L-hop induced subgraph, as the authors' code and
///               the khop-undirected protocol (motif_edge_auc.hpp) count them. They are not
///               trained on (no mask of theirs enters the loss).
///
/// attend's additions (not in the paper, the authors' code or PyG; defaults leave them off):
///   initial_mask m0  the MLP's output bias starts at b2 = t0 log(m0 / (1 - m0)), so every
///               edge's first noise-free sample is m0 (0.5, bias 0: the authors' and PyG's
///               start). A model whose prediction needs nearly every edge (a GCN summing the
///               messages of constant features counts neighbours: on attend's tree-grid the
///               predicted class keeps p = 0.10 under a uniform mask up to 0.7 and 0.87 at 1)
///               gives the prediction term no gradient at masks near 0.5, and the size and
///               entropy terms then drive every mask to 0 in the first epoch, where the
///               sigmoid saturates and training stops: m0 near 1 starts where the prediction
///               holds (docs/results.md, session 13).
///   restarts R  R MLPs trained from seeds seed .. seed + R - 1 (initialisation, node order
///               and noise), combined by restart_combine:
///   restart_combine "best" (default): the MLP with the lowest objective() on the training
///               nodes is kept, chosen without any ground truth. "mean": all R are kept, an
///               ensemble (Breiman 1996, bagging; Lakshminarayanan et al. 2017, deep
///               ensembles), and an edge's mask is the mean of the R MLPs' masks,
///               m = (1/R) sum_r sigmoid(logit_r), scored as every mask is, -log(1 - m), in
///               double: -log1p(-m) where m <= 1/2, else -log((1/R) sum_r exp(-softplus(logit_r)))
///               (a log-mean-exp), so that the ranking survives both where every m_r rounds to
///               1 and where every 1 - m_r rounds to 1 (masks collapsed towards 0, which the
///               size term alone can do on many training nodes). Why the masks and not the scores
///               or the logits: nothing fixes a trained MLP's logit scale (its logits grow to
///               hold samples near 1 against the noise, as far as each run's training takes
///               them), and the mean of softplus(logit) ~ logit would let the restart with the
///               largest scale decide the ranking, where each mask, in [0, 1], is one bounded vote: the
///               probability that MLP r keeps the edge, the quantity deep ensembles average.
///               Ranks per explained node would be scale-free too but throw away what the
///               pooled AUC compares, the scores of edges of different nodes. The mean is
///               not the lowest objective's choice and is not chosen by the objective at all:
///               the objective does not track the ranking (docs/results.md, session 13 and 14).
///               R = 1: "mean" is "best", bit for bit.
///
/// Defaults: PyTorch Geometric's (torch_geometric/explain/algorithm/pg_explainer.py; the
/// epoch count, which PyG requires, from its example): 30 epochs, Adam at lr 0.003, size 0.05,
/// entropy 1.0, temperature 5 -> 2, sampling bias 0.01, hidden width 64 with ReLU; size 0.05 and entropy 1.0 are also the coefficients of the
/// authors' BA-Shapes notebook. The MLP's weights start Glorot-uniform and its biases at 0
/// (Keras's Dense, the authors' code).

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "attend/core/adam.hpp"
#include "attend/core/autodiff.hpp"
#include "attend/core/option_list.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::graph {

/// Which nodes the MLP is trained on.
enum class PgTrainingNodes {
  kTrainSplit,  ///< the dataset's training split: explaining test nodes never trains on them
  kExplained,   ///< the explained nodes themselves (the paper's and the authors' code's choice)
};

/// Which class the training loss explains (see above).
enum class PgTrainingLabel { kPredicted, kTrue };
/// When Adam steps (see above).
enum class PgUpdate { kPerNode, kPerEpoch };
/// Which edges the MLP scores (see above).
enum class PgScoredEdges { kExplained, kSubgraph, kKhop };
/// How the restarts' MLPs make one explainer (see above).
enum class PgRestartCombine { kBest, kMean };

struct PgExplainerOptions {
  int epochs = 30;
  double lr = 0.003;               ///< Adam's learning rate (other Adam settings: PyTorch's)
  int hidden = 64;                 ///< width of the MLP's hidden layer
  double edge_size = 0.05;         ///< times the sum of the explained edges' sampled mask
  double edge_entropy = 1.0;       ///< times the mean entropy of the explained edges' sampled mask
  double temperature_start = 5.0;  ///< t0 of the binary concrete's temperature schedule
  double temperature_end = 2.0;    ///< t1, reached after the last epoch
  double sample_bias = 0.01;       ///< u ~ U(b, 1 - b) in the binary concrete sample; 0.5: u = 1/2, no noise
  double initial_mask = 0.5;       ///< the noise-free sample at the start: b2 = t0 log(m0 / (1 - m0)) (see above)
  int restarts = 1;                ///< MLPs trained (seeds seed .. seed + R - 1), combined by restart_combine
  PgRestartCombine restart_combine = PgRestartCombine::kBest;  ///< keep the lowest objective, or the mean mask
  bool symmetric_mask = false;     ///< in training, each direction passes (m_ij + m_ji) / 2 (the authors')
  double eps = 1e-15;              ///< inside the entropy's logarithms
  double entropy_margin = 0.0;     ///< the entropy reads (1 - 2c) m + c (the authors': 0.01; see above)
  PgTrainingNodes training_nodes = PgTrainingNodes::kTrainSplit;
  PgTrainingLabel training_label = PgTrainingLabel::kPredicted;
  PgUpdate update = PgUpdate::kPerNode;
  double gradient_clip = 0.0;      ///< clamp each gradient entry to [-g, g]; 0: none
  PgScoredEdges scored_edges = PgScoredEdges::kExplained;
  uint64_t seed = 0;               ///< MLP initialisation, node order and concrete noise

  /// The JSON keys (epochs, lr, hidden, edge_size, edge_entropy, temperature_start,
  /// temperature_end, sample_bias, restarts, restart_combine "best" | "mean", initial_mask, symmetric_mask,
  /// entropy_margin, training_nodes "train" | "explained", training_label "predicted" | "true", update "node" | "epoch",
  /// gradient_clip, scored_edges "explained" | "subgraph" | "khop", seed) and ranges.
  static const OptionList<PgExplainerOptions>& option_list();
};

/// The embedding PGExplainer reads (see above) of every node of `data`: [N, D], no gradient.
/// `model` must be in evaluation mode.
Tensor explainer_embeddings(const NodeClassifier& model, const PreparedNodeData& data);

/// The mask MLP on edge inputs x [K, 3D]: relu(x W1 + b1) W2 + b2 -> [K] logits, with W1
/// [3D, H], b1 [H], W2 [H, 1], b2 [1].
Var edge_mask_mlp(const Var& x, const Var& w1, const Var& b1, const Var& w2, const Var& b2);

/// The binary concrete sample sigmoid((noise + logits) / temperature), noise [K] the
/// log-odds log u - log(1 - u) of the uniforms.
Var concrete_sample(const Var& logits, const Tensor& noise, double temperature);

/// size sum(m) + entropy mean(-m' log(m' + eps) - (1 - m') log(1 - m' + eps)) of a mask m [K]
/// with entries in [0, 1], m' = (1 - 2 margin) m + margin: a scalar Var, differentiable in m (0
/// when K = 0). Summed in double.
Var mask_size_entropy(const Var& mask, double size, double entropy, double eps, double margin = 0.0);

class PgExplainer {
 public:
  /// An untrained explainer for `model` (in evaluation mode) on `data`: the embeddings are
  /// computed here, the MLP initialised from options.seed. Keeps references to both, which
  /// must outlive it.
  PgExplainer(const NodeClassifier& model, const PreparedNodeData& data, const PgExplainerOptions& options = {});

  /// Train the MLP on dataset nodes `nodes` (each with a computation graph of at least one
  /// explained edge; the others are skipped), options.restarts times (see above). `after_epoch`,
  /// when given, receives each epoch's number (1-based, counted on across restarts: 1 ..
  /// restarts x epochs) and mean loss. The model's parameters receive no gradient (their
  /// requires_grad is off during the call and restored). Deterministic for a seed and
  /// bit-identical for any thread count. Throws attend::InputError when no node has an edge
  /// to explain.
  void train(const std::vector<int64_t>& nodes, const std::function<void(int, double)>& after_epoch = {});

  /// The local plain edges of `cg` the MLP scores (options.scored_edges), ascending.
  std::vector<int64_t> scored_edges(const ComputationGraph& cg) const;
  /// The MLP's mask logits of the local plain edges `edges` of `cg` [K] (while training: the
  /// MLP being trained; after it with restart_combine "mean": the last restart's).
  Var edge_logits(const ComputationGraph& cg, const std::vector<int64_t>& edges) const;
  /// The edge scores of `cg`: softplus(logit) at each scored local plain edge ("mean": -log(1 -
  /// the restarts' mean mask), see above), 0 elsewhere [E_sub] (no gradient).
  Tensor edge_scores(const ComputationGraph& cg) const;
  /// scored_edges "khop": the full graph's plain edges joining two nodes cg.hops away from the
  /// target (outside the computation graph), ascending, and their scores; empty otherwise.
  std::pair<std::vector<int64_t>, std::vector<float>> outer_edge_scores(const ComputationGraph& cg) const;

  const PgExplainerOptions& options() const { return options_; }
  /// The mean loss of the last epoch trained (of the restart kept; "mean": the mean over the
  /// restarts; NaN before training).
  double last_loss() const { return last_loss_; }
  /// The noise-free objective of the MLP kept, over the training nodes (NaN before training):
  /// the mean over them of the loss above with u = 1/2 (no noise) at temperature t1; "mean":
  /// the mean over the restarts of each MLP's own.
  double objective() const { return objective_; }

 private:
  struct TrainingNode;
  /// The MLP's parameters drawn from `seed` (see above).
  std::vector<std::pair<std::string, Var>> initial_parameters(uint64_t seed) const;
  /// One training run from the arena's current values: node order and noise drawn from `seed`;
  /// after_epoch gets epochs_before + the epoch's number.
  void train_from(const std::vector<TrainingNode>& training, uint64_t seed, int epochs_before,
                  const std::function<void(int, double)>& after_epoch);
  /// The loss of one training node with the concrete noise `noise` [K] at `temperature`.
  Var node_loss(const TrainingNode& t, const Tensor& noise, double temperature) const;
  /// The mean noise-free loss over `training` (objective()).
  double training_objective(const std::vector<TrainingNode>& training) const;

  /// The logits of the MLP `mlp` (w1, b1, w2, b2) of the edges src[k] -> dst[k] (dataset node
  /// ids) for `target` [K].
  Var pair_logits(const std::vector<std::pair<std::string, Var>>& mlp, const std::vector<int64_t>& src,
                  const std::vector<int64_t>& dst, int64_t target) const;
  /// The scores of the edges src[k] -> dst[k] for `target` [K]: softplus of the MLP's logit, or
  /// of the ensemble's mean mask (restart_combine "mean").
  std::vector<float> pair_scores(const std::vector<int64_t>& src, const std::vector<int64_t>& dst, int64_t target) const;
  /// One Adam step on the arena's gradients, clamped to [-gradient_clip, gradient_clip].
  void step(Adam& adam);

  const NodeClassifier& model_;
  const PreparedNodeData& data_;
  PgExplainerOptions options_;
  Tensor embeddings_;  ///< [N, D]
  std::vector<std::pair<std::string, Var>> parameters_;  ///< w1 [3D, H], b1 [H], w2 [H, 1], b2 [1]
  /// restart_combine "mean" with restarts > 1: every restart's trained MLP, in restart order (own
  /// copies of the arena's values); empty otherwise (the arena's MLP scores)
  std::vector<std::vector<std::pair<std::string, Var>>> ensemble_;
  ParameterArena arena_;
  double last_loss_;
  double objective_;
};

/// The dataset nodes PGExplainer trains on for explaining `explained`: the training split or
/// `explained` itself (options.training_nodes). Throws attend::InputError when the dataset has
/// no training split and the training split is asked for.
std::vector<int64_t> pg_training_nodes(const PreparedNodeData& data, const std::vector<int64_t>& explained,
                                       const PgExplainerOptions& options);

}  // namespace attend::graph
