// `attend contacts predict|eval|train`: residue-contact prediction from one alignment (the
// unsupervised `potts` and `factored` methods, and the trained `evoformer` model), written as
// .h5, .mat, .rr and .png; the CASP precision of any prediction file against a structure or a
// contacts TSV; training the evoformer model (contacts_train.cpp).
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>

#include "attend/bio/alignment.hpp"
#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_predictor.hpp"
#include "attend/bio/contact_readers.hpp"
#include "attend/bio/contact_truth.hpp"
#include "attend/bio/contact_writers.hpp"
#include "attend/bio/factored_attention.hpp"
#include "attend/bio/potts_predictor.hpp"
#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "attend/core/json_writer.hpp"
#include "attend/core/output_transaction.hpp"
#include "attend/core/progress.hpp"
#include "command_files.hpp"
#include "commands.hpp"
#include "contact_truth_options.hpp"
#include "contacts_train.hpp"
#include "data_files.hpp"
#include "fit_progress.hpp"
#include "option_checks.hpp"

namespace attend::cli {

namespace {

struct PredictArgs {
  std::string msa, format = "auto", query, method = "potts", out, json, model;
  bio::ContactTruthSource truth;
  std::shared_ptr<const CommandFiles> files;  ///< the file options, for the shipped model
  bool quiet = false;
  // Model knobs (0 / negative: the method's default).
  int64_t heads = 0;
  int max_iterations = 0;
  std::string regularization = "ccmpred";
  double lambda_single = -1.0;
  double lambda_pair_factor = -1.0;
  double tolerance = -1.0;
  double max_sequence_gaps = -1.0, max_column_gaps = -1.0;
  uint64_t seed = 0;
  int value_states = 0;
  std::vector<int> score_at_iterations;
};

/// The knobs both methods share, applied over the method's defaults (negative: keep them).
template <class Options>
void apply_common_options(const PredictArgs& a, Options& options) {
  if (a.max_iterations > 0) options.optimizer.max_iterations = a.max_iterations;
  if (a.lambda_single >= 0.0) options.lambda_single = a.lambda_single;
  if (a.lambda_pair_factor >= 0.0) options.lambda_pair_factor = a.lambda_pair_factor;
  if (a.tolerance >= 0.0) options.optimizer.epsilon = a.tolerance;
  if (a.max_sequence_gaps >= 0.0) options.filter.max_sequence_gap_fraction = a.max_sequence_gaps;
  if (a.max_column_gaps >= 0.0) options.filter.max_column_gap_fraction = a.max_column_gaps;
}

struct EvalArgs {
  std::string pred, json;
  bio::ContactTruthSource truth;
};

nlohmann::json range_json(const bio::RangePrecision& r) {
  return {{"P@L", r.top_l}, {"P@L/2", r.top_l2}, {"P@L/5", r.top_l5}};
}

/// {"L", "short", "medium", "long"} with P@L, P@L/2, P@L/5 per range.
nlohmann::json precision_json(const bio::ContactPrecision& p) {
  return {{"L", p.length},
          {"short", range_json(p.short_range)},
          {"medium", range_json(p.medium_range)},
          {"long", range_json(p.long_range)}};
}

void print_precision(const bio::ContactPrecision& p, std::ostream& out) {
  out << "range    separation  P@L    P@L/2  P@L/5  pairs  contacts\n";
  const auto row = [&](const char* name, const char* sep, const bio::RangePrecision& r) {
    out << std::left << std::setw(9) << name << std::setw(12) << sep << std::right << std::fixed
        << std::setprecision(3) << r.top_l << "  " << r.top_l2 << "  " << r.top_l5 << "  " << std::setw(5)
        << r.evaluable_pairs << "  " << std::setw(8) << r.true_contacts << '\n';
  };
  row("short", "6-11", p.short_range);
  row("medium", "12-23", p.medium_range);
  row("long", ">=24", p.long_range);
  out.unsetf(std::ios::floatfield);
}

int run_predict(const PredictArgs& a, Context& ctx) {
  bio::ContactPredictorOptions options;
  options.method = bio::parse_contact_method(a.method);
  const bio::AlignmentFeatures input =
      bio::read_contact_input(a.msa, bio::parse_alignment_format(a.format), a.query);
  const bio::Alignment& alignment = input.alignment;
  const int64_t L = alignment.length;
  // Read the truth and find the model before the fit so that a bad file fails fast.
  const std::optional<bio::ContactMap> truth = load_truth(a.truth, alignment.sequence(0), L, a.msa, ctx.err);
  options.truth = truth ? &*truth : nullptr;
  options.model_path = a.model;
  if (options.method == bio::ContactMethod::kEvoformer) {
    if (options.model_path.empty()) options.model_path = find_data_file(std::string("models/") + kDefaultContactModel);
    io::require_input_file(options.model_path);
    if (const std::string option = a.files->output_writing(options.model_path); !option.empty()) {
      throw InputError(options.model_path, 0,
                       "the model file is what " + option + " would write (an output may not replace an input)");
    }
    options.registry = &ctx.registry;
  }
  apply_common_options(a, options.potts);
  options.potts.regularization = bio::parse_potts_regularization_rule(a.regularization);
  apply_common_options(a, options.factored);
  if (a.heads > 0) options.factored.n_heads = a.heads;
  if (a.value_states > 0) options.factored.value_states = a.value_states;
  options.factored.seed = a.seed;
  options.factored.snapshot_iterations = a.score_at_iterations;

  const bool factored = options.method == bio::ContactMethod::kFactored;
  FitProgress progress(factored ? options.factored.optimizer.max_iterations : options.potts.optimizer.max_iterations,
                       factored ? 5 : 25, a.quiet, ctx.err);
  const bio::ContactPredictorResult r = bio::predict_contacts(input, a.msa, options, progress.callback());
  progress.finish();

  const std::string& base = a.out;
  nlohmann::json files = nlohmann::json::array();
  for (const std::string& suffix : bio::contact_prediction_suffixes()) files.push_back(base + suffix);
  nlohmann::json json = {{"method", a.method},
                         {"L", L},
                         {"num_sequences", r.fit.num_sequences},
                         {"n_eff", r.fit.n_eff},
                         {"iterations", r.fit.iterations},
                         {"seconds", r.fit.seconds},
                         {"files", files},
                         {"parameters", r.prediction.parameters}};
  std::optional<bio::ContactPrecision> precision;
  if (truth) {
    precision = bio::evaluate_contacts(r.prediction.scores, *truth);
    json["precision"] = precision_json(*precision);
  }
  nlohmann::json snapshots = nlohmann::json::array();
  for (const bio::ContactSnapshot& s : r.snapshots) {
    snapshots.push_back({{"iteration", s.iteration}, {"precision", precision_json(s.precision)}});
  }
  if (!snapshots.empty()) json["snapshots"] = snapshots;
  {
    OutputTransaction outputs;  // the four files and the JSON appear together or not at all
    bio::write_contact_prediction(base, r.prediction, alignment.names.front(), options.truth);
    if (!a.json.empty()) write_json_file(a.json, json);
    outputs.commit();
  }

  ctx.out << a.method << ": L " << L << ", " << r.fit.num_sequences << " sequences, N_eff " << std::fixed
          << std::setprecision(1) << r.fit.n_eff << ", ";
  if (r.scores_were_stored) {
    ctx.out << "potts scores stored in " << a.msa << "\n";
  } else {
    ctx.out << r.fit.iterations << " iterations (" << attend::to_string(r.fit.status) << "), "
            << std::setprecision(2) << r.fit.seconds << " s\n";
  }
  ctx.out.unsetf(std::ios::floatfield);
  ctx.out << "wrote " << base << ".h5, .mat, .rr, .png\n";
  if (precision) print_precision(*precision, ctx.out);
  for (const bio::ContactSnapshot& s : r.snapshots) {
    ctx.out << "after " << s.iteration << " iterations: long-range P@L/5 " << std::fixed << std::setprecision(3)
            << s.precision.long_range.top_l5 << ", P@L/2 " << s.precision.long_range.top_l2 << '\n';
    ctx.out.unsetf(std::ios::floatfield);
  }
  return 0;
}

int run_eval(const EvalArgs& a, Context& ctx) {
  if (a.truth.pdb.empty() && a.truth.tsv.empty()) throw InputError("contacts eval needs --pdb FILE or --truth FILE.tsv");
  std::string query;
  const Tensor scores = bio::read_prediction(a.pred, &query);  // [L, L]
  const int64_t L = scores.dim(0);
  if (!query.empty() && static_cast<int64_t>(query.size()) != L) {
    throw InputError(a.pred, 0, "the sequence has " + std::to_string(query.size()) + " residues, the scores " +
                                    std::to_string(L));
  }
  const bio::ContactPrecision p = bio::evaluate_contacts(scores, *load_truth(a.truth, query, L, a.pred, ctx.err));
  print_precision(p, ctx.out);
  if (!a.json.empty()) write_json_file(a.json, precision_json(p));
  return 0;
}

}  // namespace

Command add_contacts_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand("contacts", "Predict protein residue contacts from an alignment; evaluate predictions");
  app->require_subcommand(1);

  auto p = std::make_shared<PredictArgs>();
  CLI::App* predict = app->add_subcommand("predict", "Fit an unsupervised model to one alignment; write PREFIX.{h5,mat,rr,png}");
  const std::shared_ptr<CommandFiles> predict_files = CommandFiles::of(predict);
  p->files = predict_files;
  predict_files->input(predict->add_option("--msa", p->msa, "Alignment (A3M, FASTA/A2M, PSICOV .aln, Stockholm; .gz allowed)")
      ->required()->type_name("FILE"));
  predict->add_option("--format", p->format, "auto, a3m, fasta, psicov or stockholm")->capture_default_str();
  predict->add_option("--query", p->query, "Name of the query sequence (default: the first)")->type_name("NAME");
  predict->add_option("--method", p->method,
                      "potts (CCMpred pseudo-likelihood), factored (factored attention) or evoformer (trained model "
                      "on the potts scores; --msa may be an alignment .h5 with scores)")
      ->capture_default_str();
  predict_files->input(
      predict->add_option("--model", p->model, "evoformer: model file from 'contacts train' (default: the shipped one)")
          ->type_name("FILE"));
  predict_files->output(predict->add_option("--out", p->out, "Output prefix")->required()->type_name("PREFIX"),
                        bio::contact_prediction_suffixes());
  add_truth_options(predict, p->truth, *predict_files);
  predict_files->output(
      predict->add_option("--json", p->json, "Write the fit summary (and precision) as JSON")->type_name("FILE"));
  // The ranges and names are those the options' lists declare (the JSON keys of the methods).
  const OptionList<bio::PottsOptions>& potts = bio::PottsOptions::option_list();
  const OptionList<bio::FactoredOptions>& factored = bio::FactoredOptions::option_list();
  predict->add_option("--heads", p->heads, "factored: attention heads (default 16)")->check(in_range_of(factored, "n_heads"));
  predict->add_option("--max-iterations", p->max_iterations, "L-BFGS iterations at most (default: potts 250, factored 300)")
      ->check(in_range_of(potts, "max_iterations"));
  predict->add_option("--regularization", p->regularization,
                      "potts: ccmpred (lambda fixed: --lambda-single, --lambda-pair-factor) or plmdca "
                      "(lambda = 0.01 N_eff for fields and couplings, more below N_eff 500)")
      ->check(one_of(potts, "regularization"))
      ->capture_default_str();
  predict->add_option("--lambda-single", p->lambda_single, "Field L2 weight (default 0.01, CCMpred's)")
      ->check(in_range_of(potts, "lambda_single"));
  predict->add_option("--lambda-pair-factor", p->lambda_pair_factor,
                      "Coupling L2 weight / (L - 1) (default 0.2, CCMpred's)")
      ->check(in_range_of(potts, "lambda_pair_factor"));
  predict->add_option("--tolerance", p->tolerance,
                      "Stop when the objective fell by less than this fraction over the last iterations "
                      "(0: run to --max-iterations; default: the method's)")
      ->check(in_range_of(potts, "epsilon"));
  predict->add_option("--max-sequence-gaps", p->max_sequence_gaps,
                      "Drop sequences (not the query) with more than this fraction of gaps (default 1: keep all)")
      ->check(in_range_of(potts, "max_sequence_gap_fraction"));
  predict->add_option("--max-column-gaps", p->max_column_gaps,
                      "Drop columns with more than this fraction of gaps; their pairs get the lowest score "
                      "(default 1: keep all)")
      ->check(in_range_of(potts, "max_column_gap_fraction"));
  predict->add_option("--seed", p->seed, "factored: seed of the initial queries and keys")->check(seed())->capture_default_str();
  predict->add_option("--value-states", p->value_states,
                      "factored: states of the value matrices, 20 (amino acids only, no couplings to gaps; the "
                      "default) or 21 (gap included)")
      ->check(in_range_of(factored, "value_states"));
  predict->add_option("--score-at-iterations", p->score_at_iterations,
                      "factored: also report the precision after these iterations (the scores a fit with that "
                      "--max-iterations gives; needs --truth or --pdb)")
      ->delimiter(',')
      ->check(at_least(1))
      ->type_name("N,...");
  predict->add_flag("--quiet", p->quiet, "No progress line");

  auto e = std::make_shared<EvalArgs>();
  CLI::App* eval = app->add_subcommand("eval", "Precision at L, L/2, L/5 by sequence separation (CASP ranges)");
  const std::shared_ptr<CommandFiles> eval_files = CommandFiles::of(eval);
  eval_files->input(eval->add_option("--pred", e->pred, "Prediction: PREFIX.h5, .mat or .rr")->required()->type_name("FILE"));
  add_truth_options(eval, e->truth, *eval_files);
  eval_files->output(eval->add_option("--json", e->json, "Write the precision table as JSON")->type_name("FILE"));

  CLI::App* train = app->add_subcommand("train", "Train the evoformer contact model on families with known contacts");
  auto t = add_contacts_train_options(train);

  auto run = [&context, predict, train, p, e, t]() {
    if (train->parsed()) return run_contacts_train(*t, context);
    return predict->parsed() ? run_predict(*p, context) : run_eval(*e, context);
  };
  return {app, run};
}

}  // namespace attend::cli
