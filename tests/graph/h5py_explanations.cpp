// Checks that h5py reads the explanations file (attend.explanations) as docs/hdf5-schema.md
// describes it: a set of two hand-made explanations, each value compared in Python.
//
// Runs Debian's /usr/bin/python3 (which has python3-h5py), as core/h5py_interop.cpp does.
// Exit status: 0 pass, 1 fail, 77 skipped (no /usr/bin/python3 or no h5py).

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>

#include "attend/graph/explain/explanation_file.hpp"
#include "python_check.hpp"
#include "temp_dir.hpp"

namespace {

using attend::testing::kPython;
using attend::testing::kSkip;

const std::string kScript = std::string(attend::testing::kH5pyPrelude) + R"PY(

with h5py.File(sys.argv[1], "r") as f:
    expect(f.attrs["schema"] == "attend.explanations" and int(f.attrs["schema_version"]) == 1, "schema")
    expect(f.attrs["method"] == "integrated-gradients" and int(f.attrs["steps"]) == 50 and f.attrs["rule"] == "gauss-legendre", "method, steps, rule")
    expect(f.attrs["heads"] == "" and int(f.attrs["num_features"]) == 2, "heads, num_features")
    expect(list(f["node"][()]) == [4, 7] and list(f["node_name"].asstr()[()]) == ["n4", "n7"], "nodes")
    expect(list(f["explained_class"][()]) == [1, 0] and list(f["predicted_class"][()]) == [1, 2], "classes")
    expect(np.allclose(f["value"][()], [-0.25, -1.5]), "value")
    offset = f["edges/offset"][()]
    expect(list(offset) == [0, 2, 3], "offset %s" % offset)
    expect(list(f["edges/edge_id"][()]) == [10, 11, 30], "edge ids")
    expect(list(f["edges/source"][()]) == [1, 2, 7] and list(f["edges/target"][()]) == [4, 4, 3], "endpoints")
    expect(f["edges/score"].dtype == np.float32 and np.allclose(f["edges/score"][()], [0.5, -0.25, 2.0]), "edge scores")
    expect(np.allclose(f["edges/completeness_gap"][()], [0.01, -0.02]), "edge gaps")
    expect(np.allclose(f["edges/baseline_value"][()], [-2.0, -3.0]), "edge baselines")
    expect(f["features/score"].shape == (2, 2) and np.allclose(f["features/score"][()], [[1, 2], [3, 4]]), "features")
    expect(np.allclose(f["features/completeness_gap"][()], [0.003, 0.004]), "feature gaps")
print("h5py reads attend explanation files")
)PY";

attend::graph::NodeExplanation explanation(int64_t node, int64_t cls, int64_t predicted, double value,
                                           std::vector<int64_t> ids, std::vector<int64_t> src, std::vector<int64_t> dst,
                                           std::vector<float> scores, std::vector<float> features, double edge_gap,
                                           double edge_baseline, double feature_gap) {
  attend::graph::NodeExplanation x;
  x.node = node;
  x.explained_class = cls;
  x.predicted_class = predicted;
  x.value = value;
  x.edge_id = std::move(ids);
  x.edge_src = std::move(src);
  x.edge_dst = std::move(dst);
  x.edge_score = std::move(scores);
  x.feature_score = std::move(features);
  x.edge_completeness_gap = edge_gap;
  x.edge_baseline_value = edge_baseline;
  x.feature_completeness_gap = feature_gap;
  x.feature_baseline_value = -1.0;
  return x;
}

}  // namespace

int main() {
  if (::access(kPython, X_OK) != 0) {
    std::printf("skipped: %s not found (install python3-h5py to run this test)\n", kPython);
    return kSkip;
  }
  try {
    attend::testing::TempDir dir;
    attend::graph::ExplanationSet set;
    set.method = "integrated-gradients";
    set.steps = 50;
    set.rule = "gauss-legendre";
    set.num_features = 2;
    set.explanations = {
        explanation(4, 1, 1, -0.25, {10, 11}, {1, 2}, {4, 4}, {0.5f, -0.25f}, {1, 2}, 0.01, -2.0, 0.003),
        explanation(7, 0, 2, -1.5, {30}, {7}, {3}, {2.0f}, {3, 4}, -0.02, -3.0, 0.004)};
    std::vector<std::string> names;
    for (int i = 0; i < 8; ++i) names.push_back("n" + std::to_string(i));
    const std::string path = dir.file("explanations.h5");
    attend::graph::save_explanations(path, set, names);
    const std::string script = dir.file("check.py");
    attend::testing::write_text_file(script, kScript);
    return attend::testing::run_python_check(script, {path});
  } catch (const std::exception& error) {
    std::printf("FAILED: %s\n", error.what());
    return 1;
  }
}
