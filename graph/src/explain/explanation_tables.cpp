#include "attend/graph/explain/explanation_tables.hpp"

#include <fstream>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"

namespace attend::graph {

namespace {
template <class Rows>
void save_table(const std::string& path, const char* header, Rows rows) {
  AtomicOutput output(path);
  {
    std::ofstream tsv(output.temp_path());
    tsv.precision(9);
    tsv << header << '\n';
    rows(tsv);
    if (!tsv) throw InputError(path, 0, "cannot write the table");
  }
  output.commit();
}
}  // namespace

void save_edge_table(const std::string& path, const ExplanationSet& set, const NodeDataset& d) {
  save_table(path, "node\tsource\ttarget\tscore", [&](std::ostream& out) {
    for (const NodeExplanation& x : set.explanations) {
      for (std::size_t e = 0; e < x.edge_score.size(); ++e) {
        out << d.node_name(x.node) << '\t' << d.node_name(x.edge_src[e]) << '\t' << d.node_name(x.edge_dst[e]) << '\t'
            << x.edge_score[e] << '\n';
      }
    }
  });
}

void save_feature_table(const std::string& path, const ExplanationSet& set, const NodeDataset& d) {
  save_table(path, "node\tfeature\tscore", [&](std::ostream& out) {
    for (const NodeExplanation& x : set.explanations) {
      for (std::size_t f = 0; f < x.feature_score.size(); ++f) {
        out << d.node_name(x.node) << '\t' << f << '\t' << x.feature_score[f] << '\n';
      }
    }
  });
}

}  // namespace attend::graph
