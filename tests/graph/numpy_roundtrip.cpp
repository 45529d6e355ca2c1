// NumPy's own files read back: Debian's /usr/bin/python3 (python3-numpy) writes random
// arrays with numpy.savez_compressed, numpy.savez and numpy.save (several dtypes), and the
// same values as plain text (some arrays in Fortran order); attend reads both and they must
// agree exactly.
//
// Exit status: 0 pass, 1 fail, 77 skipped (no /usr/bin/python3 or no numpy).

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>

#include "attend/core/io/line_reader.hpp"
#include "attend/graph/numpy_dataset.hpp"
#include "attend/graph/planetoid_text.hpp"
#include "python_check.hpp"
#include "temp_dir.hpp"

namespace {

using attend::testing::kPython;
using attend::testing::kSkip;

const char* kScript = R"PY(
import os
import sys
try:
    import numpy as np
except ImportError as error:
    print("skipped: numpy is not installed for /usr/bin/python3 (%s)" % error)
    sys.exit(77)

out = sys.argv[1]
rng = np.random.default_rng(int(sys.argv[2]))
n, f, e = 40, 7, 90
x = rng.normal(size=(n, f)).astype(np.float32)
x[rng.random(size=(n, f)) < 0.6] = 0
edge_index = rng.integers(0, n, size=(2, e), dtype=np.int64)
y = rng.integers(0, 4, size=n, dtype=np.int64)
order = rng.permutation(n)
train, val, test = np.sort(order[:20]), np.sort(order[20:30]), np.sort(order[30:])
mask = lambda ids: np.isin(np.arange(n), ids)
edge_attr = rng.normal(size=(e, 3))  # float64

np.savez_compressed(os.path.join(out, "deflated.npz"), edge_index=edge_index, x=x, y=y, train_mask=mask(train),
                    val_mask=mask(val), test_mask=mask(test), edge_attr=edge_attr)
np.savez(os.path.join(out, "stored.npz"), edge_index=edge_index.astype(np.uint16), x=x.astype(np.float64),
         y=y.reshape(n, 1).astype(np.int8), train_idx=train, val_idx=val.astype(np.int32), test_idx=test,
         edge_attr=edge_attr)
folder = os.path.join(out, "folder")
os.mkdir(folder)
# Fortran-order arrays (a transposed array saved as it is) where the folder has two dimensions.
for name, array in dict(edge_index=np.asfortranarray(edge_index.astype(np.int32)), x=np.asfortranarray(x),
                        y=y.astype(np.int16), train_mask=mask(train), val_mask=mask(val).astype(np.uint8),
                        test_mask=mask(test), edge_attr=edge_attr.T.copy().T).items():
    np.save(os.path.join(folder, name + ".npy"), array)

# The same values as the plain-text layout (and the edge features, one row per line).
text = os.path.join(out, "text")
os.mkdir(text)
nz = np.argwhere(x != 0)
with open(os.path.join(text, "features.coo.txt"), "w") as t:
    t.write("# %d %d %d\n" % (n, f, len(nz)))
    t.writelines("%d %d %r\n" % (i, j, float(x[i, j])) for i, j in nz)
with open(os.path.join(text, "labels.txt"), "w") as t:
    t.writelines("%d\n" % v for v in y)
with open(os.path.join(text, "edges.txt"), "w") as t:
    t.write("# %d %d\n" % (n, e))
    t.writelines("%d %d\n" % (u, v) for u, v in edge_index.T)
for name, ids in (("train", train), ("val", val), ("test", test)):
    with open(os.path.join(text, "split_%s.txt" % name), "w") as t:
        t.writelines("%d\n" % v for v in ids)
with open(os.path.join(out, "edge_attr.txt"), "w") as t:
    t.writelines(" ".join(repr(float(v)) for v in row) + "\n" for row in edge_attr)
)PY";

bool same(const attend::graph::NodeDataset& a, const attend::graph::NodeDataset& b, const std::string& what) {
  const attend::Tensor xa = a.features.to_dense(), xb = b.features.to_dense();  // [N, F]
  const std::vector<std::pair<const char*, bool>> checks = {
      {"nodes", a.num_nodes == b.num_nodes},
      {"features", xa.shape() == xb.shape() && std::equal(xa.begin(), xa.end(), xb.begin())},
      {"labels", a.labels == b.labels && a.num_classes == b.num_classes},
      {"edges", a.edge_src == b.edge_src && a.edge_dst == b.edge_dst},
      {"splits", a.train == b.train && a.val == b.val && a.test == b.test}};
  bool ok = true;
  for (const auto& [field, equal] : checks) {
    if (!equal) std::printf("FAILED: the %s of %s differ from the text layout's\n", field, what.c_str());
    ok = ok && equal;
  }
  return ok;
}

}  // namespace

int main() {
  if (::access(kPython, X_OK) != 0) {
    std::printf("skipped: %s not found (install python3-numpy to run this test)\n", kPython);
    return kSkip;
  }
  try {
    attend::testing::TempDir dir;
    const std::string script = dir.file("write.py");
    attend::testing::write_text_file(script, kScript);
    int failures = 0;
    for (const char* seed : {"1", "2", "3"}) {
      attend::testing::TempDir out;
      const int status = attend::testing::run_python_check(script, {out.path().string(), seed});
      if (status != 0) return status;
      const attend::graph::NodeDataset text = attend::graph::load_planetoid_text(out.file("text"));
      std::vector<float> edge_attr;  // [E, 3]
      attend::io::LineReader reader(out.file("edge_attr.txt"));
      std::string line;
      while (reader.next(line)) {
        for (const std::string& token : attend::io::split_whitespace(line)) {
          edge_attr.push_back(static_cast<float>(std::strtod(token.c_str(), nullptr)));
        }
      }
      for (const char* name : {"deflated.npz", "stored.npz", "folder"}) {
        const attend::graph::NodeDataset d = attend::graph::load_numpy_dataset(out.file(name));
        failures += !same(d, text, std::string(name) + " (seed " + seed + ")");
        if (d.edge_feature_dim != 3 || d.edge_features != edge_attr) {
          std::printf("FAILED: the edge features of %s (seed %s)\n", name, seed);
          ++failures;
        }
      }
    }
    if (failures == 0) std::printf("attend reads what numpy.savez, savez_compressed and save write\n");
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& error) {
    std::printf("FAILED: %s\n", error.what());
    return 1;
  }
}
