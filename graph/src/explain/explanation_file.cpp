#include "attend/graph/explain/explanation_file.hpp"

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/core/quadrature.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::graph {

namespace {
constexpr const char* kSchema = "attend.explanations";

Tensor as_tensor(const std::vector<double>& values) {
  Tensor t({static_cast<int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i) t[static_cast<int64_t>(i)] = static_cast<float>(values[i]);
  return t;
}
}  // namespace

void save_explanations(const std::string& path, const ExplanationSet& set, const std::vector<std::string>& node_names) {
  const std::vector<NodeExplanation>& xs = set.explanations;
  ATTEND_CHECK(!xs.empty(), "no explanations to save");
  const bool features = !xs.front().feature_score.empty();
  const bool gap = !std::isnan(xs.front().feature_completeness_gap);
  const bool edge_gap = !std::isnan(xs.front().edge_completeness_gap);
  AtomicOutput output(path);
  Hdf5File file = Hdf5File::create(output.temp_path(), kSchema, 1);
  file.set_attr("/", "method", set.method);
  file.set_attr("/", "steps", set.steps);
  file.set_attr("/", "rule", set.rule);
  file.set_attr("/", "heads", set.heads);
  file.set_attr("/", "symmetric", int64_t{set.symmetric ? 1 : 0});
  file.set_attr("/", "samples", set.samples);
  file.set_attr("/", "num_features", set.num_features);
  std::vector<int64_t> node, explained, predicted, offset{0}, edge_id, source, target;
  std::vector<std::string> names;
  std::vector<double> value, baseline, gaps, edge_baseline, edge_gaps;
  std::vector<float> edge_score;
  Tensor feature_score({static_cast<int64_t>(xs.size()), features ? set.num_features : 0});  // [T, F]
  for (std::size_t t = 0; t < xs.size(); ++t) {
    const NodeExplanation& x = xs[t];
    ATTEND_CHECK(x.edge_score.size() == x.edge_id.size() &&
                     x.feature_score.size() == static_cast<std::size_t>(features ? set.num_features : 0),
                 "explanations of one file score different things");
    node.push_back(x.node);
    names.push_back(node_names.at(static_cast<std::size_t>(x.node)));
    explained.push_back(x.explained_class);
    predicted.push_back(x.predicted_class);
    value.push_back(x.value);
    offset.push_back(offset.back() + static_cast<int64_t>(x.edge_id.size()));
    edge_id.insert(edge_id.end(), x.edge_id.begin(), x.edge_id.end());
    source.insert(source.end(), x.edge_src.begin(), x.edge_src.end());
    target.insert(target.end(), x.edge_dst.begin(), x.edge_dst.end());
    edge_score.insert(edge_score.end(), x.edge_score.begin(), x.edge_score.end());
    if (features) std::copy(x.feature_score.begin(), x.feature_score.end(), feature_score.data() + t * set.num_features);
    if (gap) {
      baseline.push_back(x.feature_baseline_value);
      gaps.push_back(x.feature_completeness_gap);
    }
    if (edge_gap) {
      edge_baseline.push_back(x.edge_baseline_value);
      edge_gaps.push_back(x.edge_completeness_gap);
    }
  }
  file.write_int64("/node", node);
  file.write_strings("/node_name", names);
  file.write_int64("/explained_class", explained);
  file.write_int64("/predicted_class", predicted);
  file.write_tensor("/value", as_tensor(value));
  file.create_group("/edges");
  file.write_int64("/edges/offset", offset);
  file.write_int64("/edges/edge_id", edge_id);
  file.write_int64("/edges/source", source);
  file.write_int64("/edges/target", target);
  const std::size_t layers = xs.front().attention.size();
  for (std::size_t l = 0; l < layers && !edge_score.empty(); ++l) {  // [E, H_l], rows as /edges/*
    const int64_t h = xs.front().attention[l].dim(1);
    Tensor all({static_cast<int64_t>(edge_score.size()), h});
    int64_t row = 0;
    for (const NodeExplanation& x : xs) {
      ATTEND_CHECK(x.attention.size() == layers && x.attention[l].dim(1) == h, "attention of different layers");
      std::copy(x.attention[l].data(), x.attention[l].data() + x.attention[l].numel(), all.data() + row * h);
      row += x.attention[l].dim(0);
    }
    if (l == 0) file.create_group("/attention");
    file.write_tensor("/attention/layer" + std::to_string(l), all);
  }
  if (!edge_score.empty()) file.write_tensor("/edges/score", Tensor({static_cast<int64_t>(edge_score.size())}, edge_score));
  if (features) file.write_tensor("/features/score", feature_score);
  if (gap) {
    file.write_tensor("/features/baseline_value", as_tensor(baseline));
    file.write_tensor("/features/completeness_gap", as_tensor(gaps));
  }
  if (edge_gap) {
    file.write_tensor("/edges/baseline_value", as_tensor(edge_baseline));
    file.write_tensor("/edges/completeness_gap", as_tensor(edge_gaps));
  }
  file.close();
  output.commit();
}

ExplanationSet load_explanations(const std::string& path) {
  Hdf5File file = Hdf5File::open(path);
  file.require_schema(kSchema, 1);
  auto bad = [&](const std::string& what) { return InputError(path, 0, what); };
  ExplanationSet set;
  set.method = file.get_attr_string("/", "method");
  try {
    explain_method_from_name(set.method);
  } catch (const InputError& e) {
    throw bad(e.what());
  }
  set.steps = file.get_attr_int64("/", "steps");
  // Files written before the rule was a choice used the midpoint rule for integrated gradients.
  if (file.has_attr("/", "rule")) {
    set.rule = file.get_attr_string("/", "rule");
  } else if (set.steps > 0) {
    set.rule = "midpoint";
  }
  try {
    if (!set.rule.empty()) quadrature_from_name(set.rule);
  } catch (const InputError& e) {
    throw bad(e.what());
  }
  set.heads = file.get_attr_string("/", "heads");
  // Files written before occlusion have no `symmetric` (false).
  set.symmetric = file.has_attr("/", "symmetric") && file.get_attr_int64("/", "symmetric") != 0;
  // Files written before shapley have no `samples` (0).
  set.samples = file.has_attr("/", "samples") ? file.get_attr_int64("/", "samples") : 0;
  set.num_features = file.get_attr_int64("/", "num_features");
  if (set.steps < 0 || set.samples < 0 || set.num_features < 0) throw bad("negative steps, samples or num_features");
  const std::vector<int64_t> node = file.read_int64("/node");
  const auto t_count = static_cast<int64_t>(node.size());
  if (t_count == 0) throw bad("no explained node");
  const std::vector<int64_t> explained = file.read_int64("/explained_class");
  const std::vector<int64_t> predicted = file.read_int64("/predicted_class");
  const Tensor value = file.read_tensor("/value", {t_count});
  const std::vector<int64_t> offset = file.read_int64("/edges/offset");
  if (explained.size() != node.size() || predicted.size() != node.size() || static_cast<int64_t>(offset.size()) != t_count + 1) {
    throw bad("/node, /explained_class, /predicted_class and /edges/offset disagree on the number of nodes");
  }
  const std::vector<int64_t> edge_id = file.read_int64("/edges/edge_id");
  const std::vector<int64_t> source = file.read_int64("/edges/source");
  const std::vector<int64_t> target = file.read_int64("/edges/target");
  const auto e_count = static_cast<int64_t>(edge_id.size());
  if (source.size() != edge_id.size() || target.size() != edge_id.size()) throw bad("/edges/* of different lengths");
  if (offset.front() != 0 || offset.back() != e_count) throw bad("/edges/offset does not run from 0 to the edge count");
  for (int64_t t = 0; t < t_count; ++t) {
    if (offset[t + 1] < offset[t]) throw bad("/edges/offset decreases");
    if (node[t] < 0 || explained[t] < 0 || predicted[t] < 0) throw bad("a negative node or class id");
  }
  for (int64_t e = 0; e < e_count; ++e) {
    if (edge_id[e] < 0 || source[e] < 0 || target[e] < 0) throw bad("a negative edge or node id in /edges");
  }
  const bool edges = file.exists("/edges/score"), features = file.exists("/features/score");
  if (!edges && e_count > 0) throw bad("/edges/score is missing");
  const bool gap = file.exists("/features/completeness_gap");
  const bool edge_gap = file.exists("/edges/completeness_gap");
  const Tensor edge_score = edges ? file.read_tensor("/edges/score", {e_count}) : Tensor();
  const Tensor feature_score = features ? file.read_tensor("/features/score", {t_count, set.num_features}) : Tensor();
  const Tensor baseline = gap ? file.read_tensor("/features/baseline_value", {t_count}) : Tensor();
  const Tensor gaps = gap ? file.read_tensor("/features/completeness_gap", {t_count}) : Tensor();
  const Tensor edge_baseline = edge_gap ? file.read_tensor("/edges/baseline_value", {t_count}) : Tensor();
  const Tensor edge_gaps = edge_gap ? file.read_tensor("/edges/completeness_gap", {t_count}) : Tensor();
  for (int64_t t = 0; t < t_count; ++t) {
    NodeExplanation x;
    x.node = node[t];
    x.explained_class = explained[t];
    x.predicted_class = predicted[t];
    x.value = value[t];
    x.edge_id.assign(edge_id.begin() + offset[t], edge_id.begin() + offset[t + 1]);
    x.edge_src.assign(source.begin() + offset[t], source.begin() + offset[t + 1]);
    x.edge_dst.assign(target.begin() + offset[t], target.begin() + offset[t + 1]);
    if (edges) x.edge_score.assign(edge_score.data() + offset[t], edge_score.data() + offset[t + 1]);
    if (features) {
      x.feature_score.assign(feature_score.data() + t * set.num_features, feature_score.data() + (t + 1) * set.num_features);
    }
    if (gap) {
      x.feature_baseline_value = baseline[t];
      x.feature_completeness_gap = gaps[t];
    }
    if (edge_gap) {
      x.edge_baseline_value = edge_baseline[t];
      x.edge_completeness_gap = edge_gaps[t];
    }
    set.explanations.push_back(std::move(x));
  }
  return set;
}

void check_explanations_fit(const ExplanationSet& set, const PreparedNodeData& data, const std::string& file) {
  const NodeDataset& d = data.dataset;
  const GraphView& plain = data.graph.plain();
  auto bad = [&](const std::string& what) { return InputError(file, 0, what + " (explanations of another dataset?)"); };
  if (!set.explanations.front().feature_score.empty() && set.num_features != d.num_features()) {
    throw bad("the explanations score " + std::to_string(set.num_features) + " features, the dataset has " +
              std::to_string(d.num_features()));
  }
  for (const NodeExplanation& x : set.explanations) {
    if (x.node >= d.num_nodes) throw bad("node " + std::to_string(x.node) + " is not in the dataset");
    if (x.explained_class >= d.num_classes || x.predicted_class >= d.num_classes) throw bad("a class the dataset lacks");
    for (std::size_t e = 0; e < x.edge_id.size(); ++e) {
      const int64_t id = x.edge_id[e];
      if (id >= plain.num_edges() || plain.src[id] != x.edge_src[e] || plain.dst[id] != x.edge_dst[e]) {
        throw bad("edge " + std::to_string(id) + " of node " + std::to_string(x.node) + " is not in the graph");
      }
    }
  }
}

}  // namespace attend::graph
