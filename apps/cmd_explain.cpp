// `attend explain node|eval|contacts`: attribute node classifiers' predictions to the edges and
// input features of each node's computation graph (graph/explain/), and score such
// explanations for faithfulness and, on synthetic benchmarks, against the planted motifs;
// score every attention head of a contact predictor as a contact map and attribute one
// predicted contact to the alignment and the potts scores (bio/contact_explanation.hpp).
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

#include "attend/bio/contact_explanation.hpp"
#include "attend/bio/contact_explanation_files.hpp"
#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "attend/core/json_writer.hpp"
#include "attend/core/output_transaction.hpp"
#include "attend/core/progress.hpp"
#include "attend/core/quadrature.hpp"
#include "attend/core/quoted_input.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/eraser_aopc.hpp"
#include "attend/graph/explain/explanation_agreement.hpp"
#include "attend/graph/explain/explanation_file.hpp"
#include "attend/graph/explain/explanation_svg.hpp"
#include "attend/graph/explain/explanation_tables.hpp"
#include "attend/graph/explain/faithfulness.hpp"
#include "attend/graph/explain/motif_edge_auc.hpp"
#include "attend/graph/explain/node_explanation.hpp"
#include "attend/graph/explain/pg_explainer.hpp"
#include "attend/graph/load_dataset.hpp"
#include "attend/graph/motif_ground_truth.hpp"
#include "attend/graph/node_training.hpp"
#include "attend/graph/trained_node_model.hpp"
#include "command_files.hpp"
#include "commands.hpp"
#include "contact_truth_options.hpp"
#include "data_files.hpp"
#include "fit_progress.hpp"
#include "option_checks.hpp"

namespace attend::cli {

namespace {

/// The path of integrated gradients (core/path_integral.hpp: PathSteps) as options say it.
struct PathArgs {
  int steps = 50;
  std::string rule = "midpoint";
  double max_gap = 0.0;
  int max_steps = 2000;
};

struct NodeArgs {
  std::string data, checkpoint, nodes, split, method, heads = "mean", out, json, ground_truth;
  PathArgs path;
  int64_t top_k = 5, class_id = -1;
  uint64_t seed = 0;
  graph::PgExplainerOptions pg;  ///< pgexplainer (its seed is --seed)
  /// The pgexplainer options gnnexplainer also takes, where given (else PyG's defaults).
  struct GnnGiven {
    const CLI::Option *epochs = nullptr, *lr = nullptr, *edge_size = nullptr, *edge_entropy = nullptr,
                      *initial_mask = nullptr;
  } gnn_given;
  std::string pg_training_nodes = "train", pg_training_label = "predicted", pg_update = "node",
              pg_scored_edges = "explained", pg_restart_combine = "best";
  bool quiet = false;
  bool pictures = true;
  bool symmetric = false;  ///< occlusion, shapley
  int64_t samples = graph::kDefaultShapleySamples;  ///< shapley
  const CLI::Option* samples_given = nullptr;
};

struct EvalArgs {
  std::string data, checkpoint, ground_truth, json;
  std::vector<std::string> explanations;
  int64_t top_k = 6;
  std::string auc_protocol = "explained-edges";
  int auc_hops = 0;  ///< khop-undirected's neighbourhood; 0: the model's message-passing layers
};

struct ContactsArgs {
  std::string msa, format = "auto", query, method, model, pair, out, json;
  bio::ContactTruthSource truth;
  std::shared_ptr<const CommandFiles> files;  ///< the file options, for the shipped model
  PathArgs path;
  int64_t heads = 0;
  int max_iterations = 0;
  uint64_t seed = 0;
  bool quiet = false;
};

nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

std::string fixed(double x, int digits = 3) {
  if (!std::isfinite(x)) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << x;
  return s.str();
}

/// A trained model, the dataset it explains, and its test accuracy (NaN without a test split).
struct ModelAndData {
  graph::TrainedNodeModel trained;
  double test_accuracy = NAN;
};

ModelAndData load_model_and_data(const std::string& data_path, const std::string& checkpoint, Context& ctx) {
  ModelAndData m{graph::load_trained_node_model(data_path, checkpoint, ctx.registry)};
  for (const std::string& w : m.trained.data.dataset.warnings) ctx.err << "attend: warning: " << w << '\n';
  const Tensor logits = graph::class_logits(m.trained);  // [N, C]; checks that the model fits the data
  m.test_accuracy = graph::accuracy(logits, m.trained.data.dataset.labels, m.trained.data.dataset.test);
  return m;
}

/// Dataset node ids of `--nodes` (names as the dataset gives them, comma-separated) or of a split.
std::vector<int64_t> target_nodes(const NodeArgs& a, const graph::NodeDataset& d) {
  if (!a.split.empty()) {
    const std::vector<int64_t>& rows = a.split == "train" ? d.train : a.split == "val" ? d.val : d.test;
    if (rows.empty()) throw InputError(a.data, 0, "the dataset has no " + a.split + " split");
    return rows;
  }
  std::map<std::string, int64_t> by_name;
  for (int64_t i = 0; i < d.num_nodes; ++i) by_name.emplace(d.node_name(i), i);
  std::vector<int64_t> ids;
  std::stringstream list(a.nodes);
  for (std::string name; std::getline(list, name, ',');) {
    const auto found = by_name.find(name);
    if (found == by_name.end()) throw InputError(a.data, 0, "--nodes: no node " + quoted_input(name) + " in the dataset");
    ids.push_back(found->second);
  }
  if (ids.empty()) throw InputError(a.data, 0, "--nodes names no node");
  return ids;
}

/// The motif ground truth in `folder` (`--ground-truth`), or none when no folder is given.
std::unique_ptr<graph::MotifGroundTruth> load_ground_truth(const std::string& folder, const graph::NodeDataset& d) {
  if (folder.empty()) return nullptr;
  return std::make_unique<graph::MotifGroundTruth>(graph::load_motif_ground_truth(folder, d.num_nodes));
}

std::string svg_path(const std::string& prefix, int64_t node) { return prefix + ".node" + std::to_string(node) + ".svg"; }

int run_node(const NodeArgs& a, Context& ctx) {
  ModelAndData m = load_model_and_data(a.data, a.checkpoint, ctx);
  const graph::NodeDataset& d = m.trained.data.dataset;
  const std::unique_ptr<graph::MotifGroundTruth> truth = load_ground_truth(a.ground_truth, d);
  const std::vector<int64_t> nodes = target_nodes(a, d);
  graph::ExplainOptions options;
  options.method = graph::explain_method_from_name(a.method);
  options.steps = a.path.steps;
  options.rule = quadrature_from_name(a.path.rule);
  options.max_gap = a.path.max_gap;
  options.max_steps = a.path.max_steps;
  options.heads = graph::head_reduction_from_name(a.heads);
  options.class_id = a.class_id;
  options.seed = a.seed;
  options.symmetric = a.symmetric;
  const bool shapley = options.method == graph::ExplainMethod::kShapley;
  if (a.symmetric && options.method != graph::ExplainMethod::kOcclusion && !shapley) {
    throw InputError("--symmetric is an option of --method occlusion and shapley");
  }
  if (a.samples_given->count() > 0 && !shapley) throw InputError("--samples is an option of --method shapley");
  if (a.samples % 2 != 0) {
    throw InputError("--samples " + std::to_string(a.samples) + ": expected an even count (each permutation and its reverse)");
  }
  options.samples = a.samples;
  const NodeArgs::GnnGiven& given = a.gnn_given;
  if (given.epochs->count() > 0) options.gnn.epochs = a.pg.epochs;
  if (given.lr->count() > 0) options.gnn.lr = a.pg.lr;
  if (given.edge_size->count() > 0) options.gnn.edge_size = a.pg.edge_size;
  if (given.edge_entropy->count() > 0) options.gnn.edge_entropy = a.pg.edge_entropy;
  if (given.initial_mask->count() > 0) options.gnn.initial_mask = a.pg.initial_mask;
  if (a.class_id >= d.num_classes) {
    throw InputError("--class " + std::to_string(a.class_id) + ": the dataset has " + std::to_string(d.num_classes) + " classes");
  }

  // pgexplainer: the MLP trained once, before any node is explained.
  std::unique_ptr<graph::PgExplainer> pg;
  if (options.method == graph::ExplainMethod::kPgExplainer) {
    // The named choices through the option list (their validators accepted the names).
    const graph::PgExplainerOptions named = graph::PgExplainerOptions::option_list().from_json(
        {{"training_nodes", a.pg_training_nodes},
         {"training_label", a.pg_training_label},
         {"update", a.pg_update},
         {"scored_edges", a.pg_scored_edges},
         {"restart_combine", a.pg_restart_combine}});
    graph::PgExplainerOptions pg_options = a.pg;
    pg_options.seed = a.seed;
    pg_options.training_nodes = named.training_nodes;
    pg_options.training_label = named.training_label;
    pg_options.update = named.update;
    pg_options.scored_edges = named.scored_edges;
    pg_options.restart_combine = named.restart_combine;
    m.trained.loaded.model->eval();
    pg = std::make_unique<graph::PgExplainer>(*m.trained.loaded.model, m.trained.data, pg_options);
    ProgressOptions progress;
    progress.mode = a.quiet ? ProgressMode::kSilent : ProgressMode::kAuto;
    progress.out = &ctx.err;
    ProgressLine line("pgexplainer epoch", static_cast<int64_t>(pg_options.epochs) * pg_options.restarts, progress);
    pg->train(graph::pg_training_nodes(m.trained.data, nodes, pg_options),
              [&](int epoch, double loss) { line.update(epoch, {{"loss", loss}}); });
    line.finish();
    options.pg_explainer = pg.get();
  }

  graph::ExplanationSet set;
  set.method = a.method;
  set.steps = options.method == graph::ExplainMethod::kIntegratedGradients ? a.path.steps : 0;
  set.rule = options.method == graph::ExplainMethod::kIntegratedGradients ? a.path.rule : "";
  set.heads = options.method == graph::ExplainMethod::kAttention ? a.heads : "";
  set.symmetric = a.symmetric;
  set.samples = shapley ? a.samples : 0;
  set.num_features = d.num_features();
  ProgressOptions progress;
  progress.mode = a.quiet ? ProgressMode::kSilent : ProgressMode::kAuto;
  progress.out = &ctx.err;
  ProgressLine line("node", static_cast<int64_t>(nodes.size()), progress);
  for (std::size_t t = 0; t < nodes.size(); ++t) {
    set.explanations.push_back(graph::explain_node(*m.trained.loaded.model, m.trained.data, nodes[t], options));
    line.update(static_cast<int64_t>(t) + 1, {});
  }
  line.finish();

  std::vector<std::string> names;
  for (int64_t i = 0; i < d.num_nodes; ++i) names.push_back(d.node_name(i));
  OutputTransaction outputs;  // every file of the explanation appears together
  graph::save_explanations(a.out + ".h5", set, names);
  graph::save_edge_table(a.out + ".edges.tsv", set, d);
  graph::save_feature_table(a.out + ".features.tsv", set, d);
  if (a.pictures) {
    for (const graph::NodeExplanation& x : set.explanations) {
      graph::save_explanation_svg(svg_path(a.out, x.node), x, d, truth.get());
    }
  }
  nlohmann::json per_node = nlohmann::json::array();
  double worst_gap = 0.0;
  for (const graph::NodeExplanation& x : set.explanations) {
    nlohmann::json j = {{"node", d.node_name(x.node)}, {"class", x.explained_class}, {"predicted", x.predicted_class},
                        {"log_probability", x.value}, {"edges", x.edge_id.size()}};
    // Integrated gradients: each kind's completeness gap, relative to |f(input) - f(baseline)|;
    // shapley: its efficiency gap, the same sum against the same difference.
    for (const auto& [kind, baseline, gap, steps] :
         {std::tuple{"features", x.feature_baseline_value, x.feature_completeness_gap, x.feature_steps},
          std::tuple{"edges", x.edge_baseline_value, x.edge_completeness_gap, x.edge_steps}}) {
      if (std::isnan(gap)) continue;
      j[kind] = {{"baseline_log_probability", baseline}, {"completeness_gap", gap}, {"steps", steps}};
      worst_gap = std::max(worst_gap, std::abs(gap) / std::max(1e-12, std::abs(x.value - baseline)));
    }
    per_node.push_back(j);
  }
  if (!a.json.empty()) {
    nlohmann::json summary = {{"dataset", d.name}, {"checkpoint", a.checkpoint}, {"method", a.method},
                              {"steps", set.steps}, {"rule", set.rule},
                              {"max_gap", a.path.max_gap}, {"max_steps", a.path.max_steps}, {"seed", a.seed}, {"symmetric", a.symmetric}, {"samples", set.samples}, {"test_accuracy", number_or_null(m.test_accuracy)}, {"nodes", per_node}};
    if (pg) {
      summary["pgexplainer"] = graph::PgExplainerOptions::option_list().to_json(pg->options());
      summary["pgexplainer"]["last_epoch_loss"] = number_or_null(pg->last_loss());
      summary["pgexplainer"]["objective"] = number_or_null(pg->objective());
    }
    if (options.method == graph::ExplainMethod::kGnnExplainer) {
      summary["gnnexplainer"] = {{"epochs", options.gnn.epochs}, {"lr", options.gnn.lr}, {"edge_size", options.gnn.edge_size},
                                 {"edge_entropy", options.gnn.edge_entropy}, {"initial_mask", options.gnn.initial_mask}};
    }
    write_json_file(a.json, summary);
  }
  outputs.commit();

  ctx.out << "explained " << nodes.size() << " node" << (nodes.size() == 1 ? "" : "s") << " of " << d.name << " with "
          << a.method << "; wrote " << a.out << ".h5, .edges.tsv, .features.tsv"
          << (a.pictures ? " and " + std::to_string(nodes.size()) + " .svg" : std::string()) << "\n";
  for (const graph::NodeExplanation& x : set.explanations) {
    ctx.out << "node " << d.node_name(x.node) << ": class " << x.explained_class << " (log p " << fixed(x.value, 4) << ", "
            << x.edge_id.size() << " edges in its computation graph)";
    if (!std::isnan(x.feature_completeness_gap)) {
      ctx.out << "; features: " << (shapley ? "efficiency" : "completeness") << " gap " << fixed(x.feature_completeness_gap, 5) << " of f(x) - f(0) = "
              << fixed(x.value - x.feature_baseline_value, 5);
      if (a.path.max_gap > 0.0) ctx.out << " (" << x.feature_steps << " steps)";
    }
    if (!std::isnan(x.edge_completeness_gap)) {
      ctx.out << "; edges: " << (shapley ? "efficiency" : "completeness") << " gap " << fixed(x.edge_completeness_gap, 5) << " of f(m=1) - f(m=0) = "
              << fixed(x.value - x.edge_baseline_value, 5);
      if (a.path.max_gap > 0.0) ctx.out << " (" << x.edge_steps << " steps)";
    }
    ctx.out << "\n";
    if (x.edge_score.empty()) continue;
    const std::vector<char> top = graph::top_k_mask(x.edge_score, a.top_k);
    std::vector<std::size_t> shown;
    for (std::size_t e = 0; e < top.size(); ++e) {
      if (top[e]) shown.push_back(e);
    }
    std::stable_sort(shown.begin(), shown.end(), [&](std::size_t p, std::size_t q) { return x.edge_score[p] > x.edge_score[q]; });
    for (std::size_t e : shown) {
      ctx.out << "  " << d.node_name(x.edge_src[e]) << " -> " << d.node_name(x.edge_dst[e]) << "  " << x.edge_score[e] << "\n";
    }
  }
  if (set.steps > 0 || shapley) {
    ctx.out << "largest " << (shapley ? "efficiency" : "completeness") << " gap: " << fixed(100.0 * worst_gap, 3) << " % of |f(x) - f(0)|\n";
  }
  return 0;
}

int run_eval(const EvalArgs& a, Context& ctx) {
  ModelAndData m = load_model_and_data(a.data, a.checkpoint, ctx);
  const graph::NodeDataset& d = m.trained.data.dataset;
  const std::unique_ptr<graph::MotifGroundTruth> truth = load_ground_truth(a.ground_truth, d);
  std::vector<graph::ExplanationSet> sets;
  for (const std::string& path : a.explanations) {
    sets.push_back(graph::load_explanations(path));
    graph::check_explanations_fit(sets.back(), m.trained.data, path);
  }
  const graph::MotifAucProtocol protocol = graph::parse_motif_auc_protocol(a.auc_protocol);
  const int hops = a.auc_hops > 0 ? a.auc_hops : m.trained.loaded.model->message_passing_hops();
  ctx.out << "model test accuracy " << (std::isnan(m.test_accuracy) ? std::string("-") : fixed(100.0 * m.test_accuracy, 1) + " %")
          << (m.test_accuracy >= 0.9 ? "" : " (an explanation AUC counts only for a model at 90 % or better)") << "\n";
  if (truth) {
    ctx.out << "AUC protocol " << a.auc_protocol
            << (protocol == graph::MotifAucProtocol::kKhopUndirected ? ", " + std::to_string(hops) + " hops" : std::string()) << "\n";
  }
  ctx.out << "\n";
  ctx.out << "method                 kind      nodes  top-k   fid+   fid-  charact  compr.  suff.    AUC\n";
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t s = 0; s < sets.size(); ++s) {
    const graph::ExplanationSet& set = sets[s];
    const double auc = truth ? graph::motif_edge_auc(set, *truth, d, protocol, hops) : NAN;
    const std::vector<graph::FaithfulnessResult> results = graph::evaluate_faithfulness(*m.trained.loaded.model, m.trained.data, set, a.top_k);
    auto row_start = [&](const std::string& kind) {
      ctx.out << std::left << std::setw(23) << set.method << std::setw(9) << kind << std::right << std::setw(6)
              << set.explanations.size();
    };
    for (const graph::FaithfulnessResult& r : results) {
      const double row_auc = r.kind == "edges" ? auc : NAN;
      row_start(r.kind);
      ctx.out << std::setw(7) << r.top_k << std::setw(7) << fixed(r.fidelity.plus) << std::setw(7) << fixed(r.fidelity.minus)
              << std::setw(9) << fixed(r.characterization) << std::setw(8) << fixed(r.comprehensiveness) << std::setw(7)
              << fixed(r.sufficiency) << std::setw(7) << fixed(row_auc) << "\n";
      nlohmann::json row = {{"file", a.explanations[s]}, {"method", set.method}, {"kind", r.kind}, {"nodes", r.targets},
                            {"top_k", r.top_k}, {"fidelity_plus", number_or_null(r.fidelity.plus)},
                            {"fidelity_minus", number_or_null(r.fidelity.minus)},
                            {"characterization", number_or_null(r.characterization)},
                            {"comprehensiveness", number_or_null(r.comprehensiveness)},
                            {"sufficiency", number_or_null(r.sufficiency)}};
      if (truth && r.kind == "edges") row["auc"] = number_or_null(row_auc);
      rows.push_back(row);
    }
  }
  nlohmann::json agreement = nlohmann::json::array();
  for (std::size_t i = 0; i < sets.size(); ++i) {
    for (std::size_t j = i + 1; j < sets.size(); ++j) {
      const graph::RankAgreement r = graph::edge_rank_agreement(sets[i], sets[j]);
      if (r.nodes == 0 && r.undefined == 0) continue;
      ctx.out << (agreement.empty() ? "\n" : "") << "Kendall tau-b of edge ranks, " << sets[i].method << " vs " << sets[j].method << ": " << fixed(r.mean_tau)
              << " (mean over " << r.nodes << " nodes" << (r.undefined ? ", " + std::to_string(r.undefined) + " all-tied left out" : "")
              << ")\n";
      agreement.push_back({{"a", a.explanations[i]}, {"b", a.explanations[j]}, {"kendall_tau_b", number_or_null(r.mean_tau)},
                           {"nodes", r.nodes}, {"undefined", r.undefined}});
    }
  }
  if (!a.json.empty()) {
    nlohmann::json summary = {{"dataset", d.name}, {"checkpoint", a.checkpoint},
                              {"test_accuracy", number_or_null(m.test_accuracy)}, {"rows", rows}, {"agreement", agreement}};
    if (truth) {
      summary["auc_protocol"] = a.auc_protocol;
      if (protocol == graph::MotifAucProtocol::kKhopUndirected) summary["auc_hops"] = hops;
    }
    write_json_file(a.json, summary);
  }
  return 0;
}

/// `--pair I,J` (1-based columns) as 0-based (i, j); anything else is an InputError.
std::pair<int64_t, int64_t> parse_pair(const std::string& text) {
  const auto comma = text.find(',');
  try {
    std::size_t used_i = 0, used_j = 0;
    const std::string a = text.substr(0, comma), b = comma == std::string::npos ? "" : text.substr(comma + 1);
    const long long i = std::stoll(a, &used_i), j = std::stoll(b, &used_j);
    if (used_i == a.size() && used_j == b.size()) return {i - 1, j - 1};
  } catch (const std::logic_error&) {
  }
  throw InputError("--pair " + quoted_input(text) + ": expected two 1-based columns I,J");
}

nlohmann::json head_precision_json(const bio::ContactPrecision& p) {
  return {{"long_P@L/5", p.long_range.top_l5}, {"long_P@L/2", p.long_range.top_l2}, {"long_P@L", p.long_range.top_l},
          {"medium_P@L/5", p.medium_range.top_l5}, {"short_P@L/5", p.short_range.top_l5}};
}

/// The `count` largest |values| as (index, value), largest first, ties by index.
std::vector<std::pair<std::size_t, double>> largest_magnitudes(const std::vector<double>& values, std::size_t count) {
  std::vector<std::pair<std::size_t, double>> order;
  for (std::size_t k = 0; k < values.size(); ++k) order.emplace_back(k, values[k]);
  std::stable_sort(order.begin(), order.end(), [](const auto& p, const auto& q) { return std::abs(p.second) > std::abs(q.second); });
  order.resize(std::min(count, order.size()));
  return order;
}

int run_contacts(const ContactsArgs& a, Context& ctx) {
  bio::ContactExplainOptions options;
  options.method = bio::parse_contact_method(a.method);
  const bio::AlignmentFeatures input =
      bio::read_contact_input(a.msa, bio::parse_alignment_format(a.format), a.query);
  const int64_t L = input.alignment.length;
  const std::optional<bio::ContactMap> truth = load_truth(a.truth, input.alignment.sequence(0), L, a.msa, ctx.err);
  options.truth = truth ? &*truth : nullptr;
  if (!a.pair.empty()) options.pair = parse_pair(a.pair);
  options.path = {quadrature_from_name(a.path.rule), a.path.steps, a.path.max_gap, a.path.max_steps};
  if (a.heads > 0) options.factored.n_heads = a.heads;
  if (a.max_iterations > 0) {
    options.factored.optimizer.max_iterations = a.max_iterations;
    options.potts.optimizer.max_iterations = a.max_iterations;
  }
  options.factored.seed = a.seed;
  if (!a.model.empty() && options.method != bio::ContactMethod::kEvoformer) throw InputError("--model needs --method evoformer");
  if (options.method == bio::ContactMethod::kEvoformer) {
    options.model_path = a.model.empty() ? find_data_file(std::string("models/") + kDefaultContactModel) : a.model;
    io::require_input_file(options.model_path);
    if (const std::string option = a.files->output_writing(options.model_path); !option.empty()) {
      throw InputError(options.model_path, 0,
                       "the model file is what " + option + " would write (an output may not replace an input)");
    }
    options.registry = &ctx.registry;
  }

  const bool factored = options.method == bio::ContactMethod::kFactored;
  FitProgress fit(factored ? options.factored.optimizer.max_iterations : options.potts.optimizer.max_iterations,
                  factored ? 5 : 25, a.quiet, ctx.err);
  ProgressOptions step_options;
  step_options.mode = a.quiet ? ProgressMode::kSilent : ProgressMode::kAuto;
  step_options.out = &ctx.err;
  std::unique_ptr<ProgressLine> steps;
  bio::ContactExplainProgress progress{fit.callback(), [&](int64_t done) {
                                         if (!steps) steps = std::make_unique<ProgressLine>("step", a.path.steps, step_options);
                                         steps->update(done, {});
                                       }};
  const bio::ContactExplanation x = bio::explain_contacts(input, a.msa, options, progress);
  fit.finish();
  if (steps) steps->finish();

  nlohmann::json heads = nlohmann::json::array();
  for (std::size_t h = 0; h < x.heads.names.size(); ++h) {
    nlohmann::json j = {{"head", h}, {"name", x.heads.names[h]}};
    if (truth) j["precision"] = head_precision_json(x.head_precision[h]);
    heads.push_back(j);
  }
  nlohmann::json json = {{"method", x.method}, {"L", L}, {"msa", a.msa}, {"heads", heads}};
  if (x.precision) json["precision"] = head_precision_json(*x.precision);
  if (x.attribution) {
    const bio::ContactAttribution& at = *x.attribution;
    json["attribution"] = {{"pair", {at.i + 1, at.j + 1}}, {"input", {"msa_features", "pair_features"}}, {"steps", at.steps},
                           {"rule", quadrature_name(at.rule)}, {"logit", at.value}, {"baseline_logit", at.baseline_value},
                           {"msa_total", at.msa_total}, {"pair_total", at.pair_total},
                           {"pair_rank", bio::explained_pair_rank(at)}, {"completeness_gap", at.completeness_gap}};
  }
  {
    OutputTransaction outputs;  // every file appears together or not at all
    bio::save_contact_explanation(a.out + ".h5", x);
    bio::save_head_table(a.out + ".heads.tsv", x);
    if (x.attribution) {
      bio::save_column_table(a.out + ".columns.tsv", x);
      bio::save_sequence_table(a.out + ".sequences.tsv", x);
      bio::save_column_attribution_svg(a.out + ".columns.svg", x);
      bio::save_pair_table(a.out + ".pairs.tsv", x);
      bio::save_pair_attribution_png(a.out + ".pairs.png", x);
    }
    if (!a.json.empty()) write_json_file(a.json, json);
    outputs.commit();
  }

  ctx.out << x.method << ": L " << L << ", " << x.heads.names.size() << " attention heads; wrote " << a.out << ".h5, .heads.tsv"
          << (x.attribution ? ", .columns.tsv, .sequences.tsv, .columns.svg, .pairs.tsv, .pairs.png" : "") << "\n";
  if (truth) {
    ctx.out << "\nhead                 long P@L/5  P@L/2  P@L    medium P@L/5  short P@L/5\n";
    const auto row = [&](const std::string& name, const bio::ContactPrecision& p) {
      ctx.out << std::left << std::setw(21) << name << std::right << std::setw(11) << fixed(p.long_range.top_l5) << std::setw(7)
              << fixed(p.long_range.top_l2) << std::setw(7) << fixed(p.long_range.top_l) << std::setw(14)
              << fixed(p.medium_range.top_l5) << std::setw(13) << fixed(p.short_range.top_l5) << "\n";
    };
    for (std::size_t h = 0; h < x.heads.names.size(); ++h) row(x.heads.names[h], x.head_precision[h]);
    row(x.method + " (all)", *x.precision);
    const std::size_t best = bio::best_head(x.head_precision);
    ctx.out << "best head: " << x.heads.names[best] << ", long-range P@L/5 " << fixed(x.head_precision[best].long_range.top_l5)
            << " against " << fixed(x.precision->long_range.top_l5) << " for the " << x.method << " scores\n";
  }
  if (x.attribution) {
    const bio::ContactAttribution& at = *x.attribution;
    const double change = at.value - at.baseline_value;
    const double scale = std::max(1e-12, std::abs(change));
    ctx.out << "\nintegrated gradients of the contact " << at.i + 1 << "-" << at.j + 1 << " (logit " << fixed(at.value, 4)
            << ", with MSA and pair features 0: " << fixed(at.baseline_value, 4) << ") on the model's MSA and pair features, "
            << at.steps << " steps: completeness gap " << fixed(at.completeness_gap, 5) << " ("
            << fixed(100.0 * std::abs(at.completeness_gap) / scale, 3) << " % of |f(x) - f(0)|)\n";
    ctx.out << "split of f(x) - f(0) = " << fixed(change, 4) << ": pair (potts score) input " << fixed(at.pair_total, 4)
            << ", MSA input " << fixed(at.msa_total, 4) << "\n";
    ctx.out << "residue pairs with the largest pair attributions:";
    const std::vector<bio::ResiduePairAttribution> ranked = bio::by_magnitude(bio::residue_pair_attributions(at));
    for (std::size_t k = 0; k < std::min<std::size_t>(5, ranked.size()); ++k) {
      ctx.out << "  " << ranked[k].i + 1 << "-" << ranked[k].j + 1 << " " << fixed(ranked[k].score, 4);
    }
    ctx.out << "\nthe explained pair is number " << bio::explained_pair_rank(at) << " of " << ranked.size()
            << " by |attribution|\n";
    ctx.out << "columns with the largest attributions:";
    for (const auto& [w, v] : largest_magnitudes(at.per_column, 5)) ctx.out << "  " << w + 1 << " " << x.query.at(w) << " " << fixed(v, 4);
    ctx.out << "\nsequences with the largest attributions:";
    for (const auto& [s, v] : largest_magnitudes(at.per_sequence, 5)) {
      ctx.out << "  " << x.sequence_rows[s] + 1 << " " << x.sequence_names[s] << " " << fixed(v, 4);
    }
    ctx.out << "\n";
  }
  return 0;
}

/// --steps (at least `min_steps`; `steps_help`), --rule, --max-gap and --max-steps into `path`,
/// each help text led by `who`, the method they apply to.
void add_path_options(CLI::App* app, PathArgs& path, const std::string& who, const std::string& steps_help, int min_steps) {
  app->add_option("--steps", path.steps, who + ": " + steps_help)->check(CLI::Range(min_steps, 100000))->capture_default_str();
  app->add_option("--rule", path.rule, who + ": quadrature rule of the integrated gradients (midpoint, gauss-legendre)")
      ->check(CLI::IsMember(quadrature_names()).description(""))
      ->capture_default_str();
  app->add_option("--max-gap", path.max_gap,
                  who + ": refine the steps (midpoint x3, gauss-legendre x2) until the completeness gap is at most "
                        "this fraction of |f(x) - f(0)| (0: off)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app->add_option("--max-steps", path.max_steps, who + " with --max-gap: the most steps")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
}

/// `flag` for PgExplainerOptions' option `key` into `value`, checked as its option list
/// declares it: a name (`one_of`) for a string, else a number in its range.
template <class T>
CLI::Option* add_pg_option(CLI::App* app, const std::string& flag, T& value, const std::string& key, const std::string& help) {
  const OptionList<graph::PgExplainerOptions>& pg = graph::PgExplainerOptions::option_list();
  CLI::Option* option = app->add_option(flag, value, "pgexplainer: " + help);
  if constexpr (std::is_same_v<T, std::string>) {
    option->check(one_of(pg, key));
  } else {
    option->check(in_range_of(pg, key));
  }
  option->capture_default_str();
  return option;
}

}  // namespace

Command add_explain_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand("explain", "Explain node classifiers' predictions and score explanations");
  app->require_subcommand(1);

  auto n = std::make_shared<NodeArgs>();
  CLI::App* node = app->add_subcommand(
      "node", "Attribute nodes' predictions to the edges and input features of their computation graphs");
  const std::shared_ptr<CommandFiles> node_files = CommandFiles::of(node);
  node_files->input(node->add_option("--data", n->data, "Dataset folder or graph .h5 file")->required()->type_name("PATH"));
  node_files->input(
      node->add_option("--checkpoint", n->checkpoint, "Model written by 'node-classify train --save'")->required()->type_name("FILE"));
  CLI::Option_group* targets = node->add_option_group("targets", "Which nodes to explain (one of)");
  targets->add_option("--nodes", n->nodes, "Node names as the dataset gives them (the ids 'predict' writes), comma-separated")
      ->type_name("N1,N2,...");
  targets->add_option("--split", n->split, "Every node of a split")->check(CLI::IsMember({"train", "val", "test"}))->type_name("SPLIT");
  targets->require_option(1);
  std::string methods;
  for (const std::string& name : graph::explain_method_names()) methods += (methods.empty() ? "" : ", ") + name;
  node->add_option("--method", n->method, "Attribution method: " + methods)
      ->required()
      ->check(CLI::IsMember(graph::explain_method_names()).description(""));
  add_path_options(node, n->path, "integrated-gradients", "points of the path integral", 1);
  node->add_option("--heads", n->heads, "attention: reduce the heads by mean or max")
      ->check(CLI::IsMember({"mean", "max"}))
      ->capture_default_str();
  node->add_option("--seed", n->seed,
                   "gnnexplainer: seed of the masks' initialisation (node v draws from it and v); pgexplainer: of "
                   "the MLP's initialisation, the node order and the concrete noise; shapley: of the permutations "
                   "(node v draws from it and v)")
      ->check(seed())
      ->capture_default_str();
  // pgexplainer's options: the ranges and names are those its option list declares.
  // gnnexplainer takes --epochs, --lr, --edge-size, --edge-entropy and --initial-mask too, where given.
  const std::string also = " (gnnexplainer too, where given; its default: PyG's)";
  n->gnn_given.epochs = add_pg_option(node, "--epochs", n->pg.epochs, "epochs", "passes over the training nodes" + also);
  n->gnn_given.lr = add_pg_option(node, "--lr", n->pg.lr, "lr", "Adam's learning rate" + also);
  add_pg_option(node, "--hidden", n->pg.hidden, "hidden", "width of the mask MLP's hidden layer");
  n->gnn_given.edge_size =
      add_pg_option(node, "--edge-size", n->pg.edge_size, "edge_size", "weight of the sum of the sampled edge mask" + also);
  n->gnn_given.edge_entropy = add_pg_option(node, "--edge-entropy", n->pg.edge_entropy, "edge_entropy",
                                            "weight of the mean entropy of the sampled edge mask" + also);
  add_pg_option(node, "--temperature-start", n->pg.temperature_start, "temperature_start",
                "binary concrete temperature at the first epoch (falls geometrically)");
  add_pg_option(node, "--temperature-end", n->pg.temperature_end, "temperature_end", "temperature after the last epoch");
  add_pg_option(node, "--sample-bias", n->pg.sample_bias, "sample_bias",
                "the binary concrete's uniforms are drawn from [B, 1 - B); 0.5: no noise");
  n->gnn_given.initial_mask = add_pg_option(
      node, "--initial-mask", n->pg.initial_mask, "initial_mask",
      "the mask every edge's first noise-free sample sits at (the MLP's output bias; attend's addition, 0.5: bias 0, "
      "the authors'); gnnexplainer: every edge logit starts at log(M0 / (1 - M0)) (default: PyG's random start)");
  add_pg_option(node, "--restarts", n->pg.restarts, "restarts",
                "train R MLPs (seeds S .. S + R - 1), combined by --restart-combine (attend's addition)");
  add_pg_option(node, "--restart-combine", n->pg_restart_combine, "restart_combine",
                "keep the MLP with the lowest noise-free objective on the training nodes (best), or keep every MLP "
                "and score an edge by the mean of their masks (mean)");
  node->add_flag("--symmetric", n->symmetric,
                 "occlusion, shapley: take each edge away (shapley: let it join) together with the edges joining its "
                 "endpoints the other way (the undirected edge; both get its score)");
  n->samples_given = node->add_option("--samples", n->samples,
                                      "shapley: permutations per node, even (each drawn permutation and its reverse)")
                         ->check(CLI::Range(int64_t{2}, int64_t{1} << 20))
                         ->capture_default_str();
  add_pg_option(node, "--entropy-margin", n->pg.entropy_margin, "entropy_margin",
                "the entropy term reads (1 - 2C) m + C (the authors' loss: 0.01; default 0: m, as PyG)");
  node->add_flag("--symmetric-mask", n->pg.symmetric_mask,
                 "pgexplainer: in training, mask both directions of an edge by the mean of their samples (the "
                 "authors' code)");
  add_pg_option(node, "--train-on", n->pg_training_nodes, "training_nodes",
                "train the MLP on the training split (train) or on the explained nodes (explained)");
  add_pg_option(node, "--train-label", n->pg_training_label, "training_label",
                "the class the training loss explains: the model's prediction (predicted) or the node's label (true, "
                "the authors' code)");
  add_pg_option(node, "--update", n->pg_update, "update",
                "one Adam step per training node (node) or one per epoch on the summed loss (epoch, the authors' code)");
  add_pg_option(node, "--gradient-clip", n->pg.gradient_clip, "gradient_clip",
                "clamp each gradient entry to [-G, G] before a step (the authors' code: 2); 0: none");
  add_pg_option(node, "--scored-edges", n->pg_scored_edges, "scored_edges",
                "score the computation graph's explained edges (explained), every edge of its subgraph, both "
                "directions (subgraph), or also the edges joining two nodes L hops away: every edge of the L-hop "
                "induced subgraph (khop, the authors' code)");
  node->add_option("--class", n->class_id, "Explain this class (0-based) instead of the predicted one")->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  node->add_option("--top-k", n->top_k, "Print each node's K highest-scored edges")->check(CLI::Range(int64_t{1}, int64_t{1} << 40))->capture_default_str();
  node_files->input(node->add_option("--ground-truth", n->ground_truth,
                                     "Folder with motif_edges.txt and motif_nodes.txt ('attend generate'): outline those edges in the pictures")
                        ->type_name("DIR"));
  node_files->output(node->add_option("--out", n->out, "Output prefix: PREFIX.h5, PREFIX.edges.tsv, PREFIX.features.tsv, PREFIX.node<ID>.svg")
                         ->required()->type_name("PREFIX"),
                     {".h5", ".edges.tsv", ".features.tsv", ".node*.svg"});
  node_files->output(node->add_option("--json", n->json, "Write a per-node summary as JSON")->type_name("FILE"));
  node->add_flag("--quiet", n->quiet, "No progress line");
  node->add_flag("--no-pictures{false}", n->pictures,
                 "Write no PREFIX.node<ID>.svg (for batch runs: laying out a large neighbourhood takes seconds per node)");

  auto e = std::make_shared<EvalArgs>();
  CLI::App* eval = app->add_subcommand("eval", "Faithfulness (and ground-truth AUC) of explanations written by 'explain node'");
  const std::shared_ptr<CommandFiles> eval_files = CommandFiles::of(eval);
  eval_files->input(eval->add_option("--data", e->data, "Dataset folder or graph .h5 file")->required()->type_name("PATH"));
  eval_files->input(
      eval->add_option("--checkpoint", e->checkpoint, "The model the explanations explain")->required()->type_name("FILE"));
  eval_files->input(eval->add_option("--explanations", e->explanations,
                                     "PREFIX.h5 of 'explain node' (repeatable: one table row per file, and Kendall's tau between files)")
                        ->required()->type_name("H5")->allow_extra_args(false));
  eval_files->input(eval->add_option("--ground-truth", e->ground_truth,
                                     "Folder with motif_edges.txt and motif_nodes.txt: also the edge AUC")
                        ->type_name("DIR"));
  eval->add_option("--auc-protocol", e->auc_protocol,
                   "Edges of the AUC: explained-edges (every explained edge of every node, each direction its own item) or "
                   "khop-undirected (the GNNExplainer and PGExplainer evaluation code: every undirected edge within --auc-hops "
                   "of each node, scored by the sum of its two directions)")
      ->check(CLI::IsMember(graph::motif_auc_protocol_names()).description(""))
      ->capture_default_str();
  eval->add_option("--auc-hops", e->auc_hops,
                   "khop-undirected: the neighbourhood's radius (default: the model's message-passing layers)")
      ->check(CLI::Range(1, 64))
      ->type_name("H");
  eval->add_option("--top-k", e->top_k, "Size of the hard explanation for fidelity (edges or features)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  eval_files->output(eval->add_option("--json", e->json, "Write the table as JSON")->type_name("FILE"));

  auto c = std::make_shared<ContactsArgs>();
  CLI::App* contacts = app->add_subcommand(
      "contacts",
      "Score every attention head of a contact predictor as a contact map; attribute one predicted contact to the alignment "
      "and the potts scores");
  const std::shared_ptr<CommandFiles> contacts_files = CommandFiles::of(contacts);
  c->files = contacts_files;
  contacts_files->input(contacts->add_option("--msa", c->msa,
                                             "Alignment (A3M, FASTA/A2M, PSICOV .aln, Stockholm; .gz allowed) or an alignment "
                                             ".h5 ('attend convert'; evoformer reuses its potts scores)")
                            ->required()->type_name("FILE"));
  contacts->add_option("--format", c->format, "auto, a3m, fasta, psicov or stockholm")->capture_default_str();
  contacts->add_option("--query", c->query, "Name of the query sequence (default: the first)")->type_name("NAME");
  contacts->add_option("--method", c->method,
                       "factored (the heads of a factored-attention fit) or evoformer (the MSA row attention heads of "
                       "the trained model, and integrated gradients of one contact)")
      ->required()
      ->check(CLI::IsMember({"factored", "evoformer"}));
  contacts_files->input(
      contacts->add_option("--model", c->model, "evoformer: model file from 'contacts train' (default: the shipped one)")
          ->type_name("FILE"));
  add_truth_options(contacts, c->truth, *contacts_files);
  contacts->add_option("--pair", c->pair,
                       "evoformer: the contact to attribute, 1-based columns (default: the top-scored pair at least 24 apart)")
      ->type_name("I,J");
  add_path_options(contacts, c->path, "evoformer", "integrated-gradients steps (0: the heads only, no attribution)", 0);
  contacts->add_option("--heads", c->heads, "factored: attention heads (default 16)")->check(at_least(1));
  contacts->add_option("--max-iterations", c->max_iterations,
                       "L-BFGS iterations at most of the fit (factored; evoformer's potts scores when --msa stores none)")
      ->check(at_least(1));
  contacts->add_option("--seed", c->seed, "factored: seed of the initial queries and keys")->check(seed())->capture_default_str();
  contacts_files->output(contacts->add_option("--out", c->out,
                                              "Output prefix: PREFIX.h5, PREFIX.heads.tsv; evoformer also PREFIX.columns.tsv, "
                                              "PREFIX.sequences.tsv, PREFIX.columns.svg, PREFIX.pairs.tsv, PREFIX.pairs.png")
                             ->required()->type_name("PREFIX"),
                         {".h5", ".heads.tsv", ".columns.tsv", ".sequences.tsv", ".columns.svg", ".pairs.tsv", ".pairs.png"});
  contacts_files->output(contacts->add_option("--json", c->json, "Write the per-head summary as JSON")->type_name("FILE"));
  contacts->add_flag("--quiet", c->quiet, "No progress line");

  auto run = [&context, node, eval, n, e, c]() {
    if (node->parsed()) return run_node(*n, context);
    return eval->parsed() ? run_eval(*e, context) : run_contacts(*c, context);
  };
  return {app, run};
}

}  // namespace attend::cli
