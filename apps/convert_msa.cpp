#include "convert_msa.hpp"

#include <iomanip>

#include "attend/bio/alignment_h5.hpp"
#include "attend/bio/contact_features.hpp"
#include "attend/bio/potts_predictor.hpp"
#include "attend/bio/sequence_weights.hpp"
#include "attend/core/error.hpp"
#include "attend/core/random.hpp"

namespace attend::cli {

std::shared_ptr<ConvertMsaArgs> add_convert_msa_options(CLI::App* convert, CommandFiles& files) {
  auto args = std::make_shared<ConvertMsaArgs>();
  files.input(
      convert->add_option("--msa", args->msa, "Alignment to convert (A3M, FASTA/A2M, PSICOV .aln, Stockholm; .gz allowed)")
          ->type_name("FILE"));
  convert->add_option("--format", args->format, "Alignment format: auto, a3m, fasta, psicov or stockholm")
      ->capture_default_str();
  convert->add_option("--query", args->query, "Name of the query sequence (default: the first)")->type_name("NAME");
  convert->add_flag("--with-scores", args->with_scores, "Also store the potts (APC) contact scores");
  convert->add_option("--max-sequences", args->max_sequences,
                      "Store at most N sequences: the query and a seeded sample of the others (scores still use all)")
      ->type_name("N");
  return args;
}

int run_convert_msa(const ConvertMsaArgs& args, const std::string& to, Context& context) {
  if (args.max_sequences < 0) throw InputError("--max-sequences must be >= 0");
  bio::AlignmentFeatures f;
  f.alignment = bio::read_alignment(args.msa, bio::parse_alignment_format(args.format), args.query);
  if (args.with_scores) {
    if (f.alignment.length < 3) throw InputError(args.msa, 0, "--with-scores needs at least 3 columns");
    const bio::PottsOptions options;
    const bio::PottsResult result = bio::predict_contacts_potts(f.alignment, options);
    f.scores = result.scores;
    f.scores_method = "potts";
    f.scores_parameters = bio::potts_parameters(options, result);
  }
  if (args.max_sequences > 0 && f.alignment.num_sequences() > args.max_sequences) {
    Rng rng(0);
    const std::vector<int64_t> rows = bio::sample_rows(f.alignment.num_sequences(), args.max_sequences, rng);
    bio::Alignment kept;
    kept.length = f.alignment.length;
    for (int64_t r : rows) {
      kept.names.push_back(f.alignment.names[r]);
      kept.codes.insert(kept.codes.end(), f.alignment.row(r), f.alignment.row(r) + kept.length);
    }
    f.alignment = std::move(kept);
  }
  f.identity_threshold = bio::kDefaultIdentityThreshold;
  f.weights = bio::sequence_weights(f.alignment, f.identity_threshold);
  f.n_eff = bio::effective_sequences(f.weights);
  bio::write_alignment_h5(to, f);
  context.out << "wrote " << to << ": " << f.alignment.num_sequences() << " sequences x " << f.alignment.length
              << " columns, N_eff " << std::fixed << std::setprecision(1) << f.n_eff
              << (args.with_scores ? ", potts scores" : "") << "\n";
  context.out.unsetf(std::ios::floatfield);
  return 0;
}

}  // namespace attend::cli
