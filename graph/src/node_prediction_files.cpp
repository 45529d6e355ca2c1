#include "attend/graph/node_prediction_files.hpp"

#include <filesystem>
#include <fstream>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"

namespace attend::graph {

namespace {

char separator_of(const std::string& path) { return std::filesystem::path(path).extension() == ".csv" ? ',' : '\t'; }

/// `field` as RFC 4180 writes it: in double quotes (inner quotes doubled) when it holds the
/// separator, a quote or a line break.
std::string table_field(const std::string& field, char separator) {
  if (field.find_first_of(std::string{separator, '"', '\n', '\r'}) == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

/// Write a table atomically: `rows(out, separator)` writes the body after `header`.
template <typename Rows>
void write_table(const std::string& path, const std::vector<std::string>& header, const char* what, Rows rows) {
  const char sep = separator_of(path);
  AtomicOutput output(path);
  {
    std::ofstream out(output.temp_path());
    for (std::size_t i = 0; i < header.size(); ++i) out << (i ? std::string(1, sep) : "") << header[i];
    out << '\n';
    rows(out, sep);
    if (!out) throw InputError(path, 0, std::string("cannot write ") + what);
  }
  output.commit();
}

}  // namespace

bool is_table_path(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  return extension == ".tsv" || extension == ".csv";
}

void write_node_predictions(const std::string& path, const NodeDataset& d, const Tensor& probabilities) {
  write_table(path, {"node", "label", "probability"}, "predictions", [&](std::ofstream& out, char sep) {
    const int64_t c = probabilities.dim(1);
    for (int64_t i = 0; i < d.num_nodes; ++i) {
      const float* row = probabilities.data() + i * c;
      int64_t best = 0;
      for (int64_t k = 1; k < c; ++k) best = row[k] > row[best] ? k : best;
      out << table_field(d.node_name(i), sep) << sep
          << table_field(d.class_names.empty() ? std::to_string(best) : d.class_names[best], sep) << sep << row[best] << '\n';
    }
  });
}

void write_attention_weights(const std::string& path, const PreparedNodeData& data,
                             const std::vector<AttentionExport>& attention) {
  const NodeDataset& d = data.dataset;
  if (is_table_path(path)) {
    write_table(path, {"layer", "head", "source", "target", "relation", "weight"}, "attention weights",
                [&](std::ofstream& out, char sep) {
                  for (std::size_t i = 0; i < attention.size(); ++i) {
                    const AttentionExport& a = attention[i];
                    if (a.view == nullptr) continue;  // a layer that does not attend
                    const int64_t heads = a.weights.dim(1);
                    for (int64_t e = 0; e < a.view->num_edges(); ++e) {
                      const std::string src = table_field(d.node_name(a.view->src[e]), sep);
                      const std::string dst = table_field(d.node_name(a.view->dst[e]), sep);
                      for (int64_t h = 0; h < heads; ++h) {
                        out << i << sep << h << sep << src << sep << dst << sep << a.view->relation[e] << sep
                            << a.weights.data()[e * heads + h] << '\n';
                      }
                    }
                  }
                });
    return;
  }
  AtomicOutput output(path);
  try {
    Hdf5File file = Hdf5File::create(output.temp_path(), "attend.attention", 1);
    std::vector<std::string> names;
    for (int64_t i = 0; i < d.num_nodes; ++i) names.push_back(d.node_name(i));
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
