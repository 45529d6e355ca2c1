#include "attend/graph/node_prediction_files.hpp"

#include <fstream>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"

namespace attend::graph {

void write_node_predictions(const std::string& path, const NodeDataset& d, const Tensor& probabilities) {
  AtomicOutput output(path);
  {
    std::ofstream tsv(output.temp_path());
    const int64_t c = probabilities.dim(1);
    for (int64_t i = 0; i < d.num_nodes; ++i) {
      const float* row = probabilities.data() + i * c;
      int64_t best = 0;
      for (int64_t k = 1; k < c; ++k) best = row[k] > row[best] ? k : best;
      tsv << d.node_name(i) << '\t' << (d.class_names.empty() ? std::to_string(best) : d.class_names[best]) << '\t'
          << row[best] << '\n';
    }
    if (!tsv) throw InputError(path, 0, "cannot write predictions");
  }
  output.commit();
}

void write_attention_weights(const std::string& path, const PreparedNodeData& data,
                             const std::vector<AttentionExport>& attention) {
  AtomicOutput output(path);
  try {
    Hdf5File file = Hdf5File::create(output.temp_path(), "attend.attention", 1);
    std::vector<std::string> names;
    for (int64_t i = 0; i < data.dataset.num_nodes; ++i) names.push_back(data.dataset.node_name(i));
    file.write_strings("/nodes", names);
    for (std::size_t i = 0; i < attention.size(); ++i) {
      const AttentionExport& a = attention[i];
      if (a.view == nullptr) continue;  // a layer that does not attend
      const std::string group = "/layers/" + std::to_string(i);
      file.create_group(group);
      file.write_tensor(group + "/weights", a.weights);
      file.write_int64(group + "/src", a.view->src);
      file.write_int64(group + "/dst", a.view->dst);
      file.write_int64(group + "/relation", a.view->relation);
    }
    file.close();
  } catch (const InputError& error) {
    throw InputError(path, 0, std::string("cannot write attention weights: ") + error.what());
  }
  output.commit();
}

}  // namespace attend::graph
