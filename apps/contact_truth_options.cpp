#include "contact_truth_options.hpp"

#include <vector>

namespace attend::cli {

void add_truth_options(CLI::App* app, bio::ContactTruthSource& t, CommandFiles& files) {
  CLI::Option* pdb =
      files.input(app->add_option("--pdb", t.pdb, "Native structure (PDB; C-beta < 8 A contacts)")->type_name("FILE"));
  app->add_option("--chain", t.chain, "Chain of --pdb (default: the first)")->type_name("C")->needs(pdb);
  files.input(app->add_option("--truth", t.tsv, "Native contacts TSV (i j dist contact)")->type_name("FILE")->excludes(pdb));
}

std::optional<bio::ContactMap> load_truth(const bio::ContactTruthSource& t, const std::string& query, int64_t L,
                                          const std::string& scored, std::ostream& err) {
  std::vector<std::string> warnings;
  std::optional<bio::ContactMap> truth = bio::load_contact_truth(t, query, L, scored, warnings);
  for (const std::string& w : warnings) err << "attend: warning: " << w << '\n';
  return truth;
}

}  // namespace attend::cli
