// Checks that h5py reads the contact explanation file (attend.contact_explanation) as
// docs/hdf5-schema.md describes it: a hand-made explanation, each value compared in Python.
//
// Runs Debian's /usr/bin/python3 (which has python3-h5py), as core/h5py_interop.cpp does.
// Exit status: 0 pass, 1 fail, 77 skipped (no /usr/bin/python3 or no h5py).

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>

#include "attend/bio/contact_explanation_files.hpp"
#include "python_check.hpp"
#include "temp_dir.hpp"

namespace {

using attend::testing::kPython;
using attend::testing::kSkip;

const std::string kScript = std::string(attend::testing::kH5pyPrelude) + R"PY(

L = 30
with h5py.File(sys.argv[1], "r") as f:
    expect(f.attrs["schema"] == "attend.contact_explanation" and int(f.attrs["schema_version"]) == 1, "schema")
    expect(f.attrs["method"] == "evoformer" and int(f.attrs["length"]) == L, "method, length")
    expect(f["query"].asstr()[()] == "ACDEFGHIKLMNPQRSTVWY-ACDEFGHIK", "query")
    expect(f["scores"].shape == (L, L) and f["scores"][0, 29] == 0.75, "scores")
    expect(list(f["heads/name"].asstr()[()]) == ["block 0 head 0", "block 0 head 1"], "head names")
    attention = f["heads/attention"][()]
    expect(attention.shape == (2, L, L) and attention.dtype == np.float32 and attention[1, 2, 3] == 0.5, "attention")
    scores = f["heads/scores"][()]
    expect(scores.shape == (2, L, L) and scores[0, 1, 27] == 2.0 and scores[0, 27, 1] == 2.0, "head scores")
    expect(f["heads/top_pair"][()].tolist() == [[1, 27], [0, 29]], "top pairs %s" % f["heads/top_pair"][()].tolist())
    expect(np.allclose(f["precision/long_top_l5"][()], [0.5, 0.25, 1.0]), "long P@L/5")
    expect(np.allclose(f["precision/short_top_l5"][()], [0.0, 0.125, 0.375]), "short P@L/5")
    a = f["attribution"]
    expect(list(a["pair"][()]) == [0, 29], "pair")
    expect(int(a.attrs["steps"]) == 50 and a.attrs["rule"] == "gauss-legendre" and a.attrs["value"] == 1.5 and a.attrs["baseline_value"] == -0.5, "steps, values")
    expect(np.isclose(a.attrs["completeness_gap"], 0.001), "gap")
    expect(a["msa_features"].shape == (2, L, 42) and a["msa_features"][1, 3, 41] == 0.25, "msa features")
    expect(a["pair_features"].shape == (L, L, 4) and a["pair_features"][0, 29, 2] == 1.75, "pair features")
    expect(a["pair_map"].shape == (L, L) and a["pair_map"][0, 29] == 1.75 and a["pair_map"][29, 0] == 0, "pair map")
    expect(a.attrs["msa_total"] == 0.25 and a.attrs["pair_total"] == 1.75, "totals")
    expect(np.allclose(a["per_sequence"][()], [1.25, 0.75]), "per sequence")
    expect(a["per_column"].shape == (L,) and a["per_column"][3] == 0.25, "per column")
    expect(list(a["sequence_row"][()]) == [0, 17], "rows")
    expect(list(a["sequence_name"].asstr()[()]) == ["query", "other"], "names")
print("h5py reads attend contact explanation files")
)PY";

}  // namespace

int main() {
  if (::access(kPython, X_OK) != 0) {
    std::printf("skipped: %s not found (install python3-h5py to run this test)\n", kPython);
    return kSkip;
  }
  try {
    using namespace attend;
    const int64_t L = 30;
    bio::ContactExplanation x;
    x.method = "evoformer";
    x.query = "ACDEFGHIKLMNPQRSTVWY-ACDEFGHIK";
    x.scores = Tensor({L, L}, 0.0f);
    x.scores[0 * L + 29] = x.scores[29 * L + 0] = 0.75f;
    x.heads.names = {"block 0 head 0", "block 0 head 1"};
    x.heads.attention = Tensor({2, L, L}, 0.0f);
    x.heads.attention[(1 * L + 2) * L + 3] = 0.5f;
    x.heads.scores = Tensor({2, L, L}, 0.0f);
    x.heads.scores[(0 * L + 1) * L + 27] = x.heads.scores[(0 * L + 27) * L + 1] = 2.0f;
    x.heads.scores[(1 * L + 0) * L + 29] = 1.0f;
    bio::ContactPrecision p0, p1, all;
    p0.long_range.top_l5 = 0.5;
    p1.long_range.top_l5 = 0.25;
    p1.short_range.top_l5 = 0.125;
    all.long_range.top_l5 = 1.0;
    all.short_range.top_l5 = 0.375;
    x.head_precision = {p0, p1};
    x.precision = all;
    bio::ContactAttribution a;
    a.i = 0;
    a.j = 29;
    a.steps = 50;
    a.rule = attend::QuadratureKind::kGaussLegendre;
    a.value = 1.5;
    a.baseline_value = -0.5;
    a.completeness_gap = 0.001;
    a.msa_attribution = Tensor({2, L, 42}, 0.0f);
    a.msa_attribution[(1 * L + 3) * 42 + 41] = 0.25f;
    a.pair_attribution = Tensor({L, L, 4}, 0.0f);
    a.pair_attribution[(0 * L + 29) * 4 + 2] = 1.75f;
    a.pair_map = Tensor({L, L}, 0.0f);
    a.pair_map[0 * L + 29] = 1.75f;
    a.msa_total = 0.25;
    a.pair_total = 1.75;
    a.per_sequence = {1.25, 0.75};
    a.per_column.assign(L, 0.0);
    a.per_column[3] = 0.25;
    x.attribution = a;
    x.sequence_rows = {0, 17};
    x.sequence_names = {"query", "other"};
    attend::testing::TempDir dir;
    const std::string path = dir.file("explain.h5");
    bio::save_contact_explanation(path, x);
    const std::string script = dir.file("check.py");
    attend::testing::write_text_file(script, kScript);
    return attend::testing::run_python_check(script, {path});
  } catch (const std::exception& error) {
    std::printf("FAILED: %s\n", error.what());
    return 1;
  }
}
