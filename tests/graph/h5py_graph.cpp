// Checks that h5py reads the graph file (attend.graph): the shipped Cora (CSR features, and
// dense ones chunked and contiguous) and a small knowledge graph from TSV triples, each
// compared in Python with its source text files.
//
// Runs Debian's /usr/bin/python3 (which has python3-h5py), as core/h5py_interop.cpp does.
// Exit status: 0 pass, 1 fail, 77 skipped (no /usr/bin/python3 or no h5py).

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "attend/graph/graph_store.hpp"
#include "attend/graph/load_dataset.hpp"
#include "attend/graph/tsv_triples.hpp"
#include "python_check.hpp"
#include "temp_dir.hpp"

namespace {

using attend::testing::kPython;
using attend::testing::kSkip;

// Reads the source files itself (gzip text, TSV) and compares every array of the graph files.
const std::string kScript = std::string(attend::testing::kH5pyPrelude) + R"PY(
import gzip

cora_dir, cora_h5, tsv, kg_h5, dense_h5, contiguous_h5 = sys.argv[1:7]

def numbers(path):
    with gzip.open(path, "rt") as f:
        return [line.split() for line in f if line.strip() and not line.startswith("#")]

with h5py.File(cora_h5, "r") as f:
    expect(f.attrs["schema"] == "attend.graph", "schema %r" % (f.attrs["schema"],))
    expect(int(f.attrs["schema_version"]) == 1, "schema_version")
    expect(f.attrs["name"] == "cora", "name %r" % (f.attrs["name"],))
    n = int(f.attrs["num_nodes"])
    expect(n == 2708 and int(f.attrs["num_classes"]) == 7, "counts")
    expect(int(f.attrs["directed"]) == 0, "directed")
    g = f["features"]
    for name in ("indptr", "indices"):
        expect(g[name].dtype == np.int64, name + " dtype %s" % g[name].dtype)
    expect(g["values"].dtype == np.float32, "values dtype")
    expect(g["indices"].compression == "gzip" and g["indices"].shuffle, "indices not compressed")
    indptr, indices, values = g["indptr"][()], g["indices"][()], g["values"][()]
    dense = np.zeros((int(g.attrs["rows"]), int(g.attrs["cols"])), dtype=np.float32)
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    dense[rows, indices] = values
    expected = np.zeros((2708, 1433), dtype=np.float32)
    for r, c, v in numbers(cora_dir + "/features.coo.txt.gz"):
        expected[int(r), int(c)] += np.float32(v)
    expect(np.array_equal(dense, expected), "features")
    labels = np.array([int(x[0]) for x in numbers(cora_dir + "/labels.txt.gz")])
    expect(f["labels"].dtype == np.int64 and np.array_equal(f["labels"][()], labels), "labels")
    edges = np.array([[int(u), int(v)] for u, v in numbers(cora_dir + "/edges.txt.gz")])
    expect(np.array_equal(f["edges/src"][()], edges[:, 0]), "edge sources")
    expect(np.array_equal(f["edges/dst"][()], edges[:, 1]), "edge destinations")
    expect("type" not in f["edges"] and "names" not in f, "untyped, unnamed")
    for split in ("train", "val", "test"):
        with open("%s/split_%s.txt" % (cora_dir, split)) as s:
            ids = [int(line) for line in s if line.strip()]
        expect(list(f["splits"][split][()]) == ids, "split " + split)

# The dense layout (version 2): the same matrix in row chunks, or contiguous; whole or by rows.
for path, chunks in ((dense_h5, (64, 1433)), (contiguous_h5, None)):
    with h5py.File(path, "r") as d:
        expect(int(d.attrs["schema_version"]) == 2, "dense schema_version")
        x = d["features/dense"]
        expect(x.dtype == np.float32 and x.shape == (2708, 1433) and x.chunks == chunks, "dense %s" % (x.chunks,))
        expect("indptr" not in d["features"], "dense files have no CSR arrays")
        expect(np.array_equal(x[()], expected), "dense features")
        expect(np.array_equal(x[[3, 17, 2000]], expected[[3, 17, 2000]]), "dense rows")

nodes, relations, src, dst, types = [], [], [], [], []
def intern(names, key):
    if key not in names:
        names.append(key)
    return names.index(key)
with open(tsv, encoding="utf-8") as t:
    for line in t:
        h, r, d = line.rstrip("\n").split("\t")
        src.append(intern(nodes, h))
        types.append(intern(relations, r))
        dst.append(intern(nodes, d))
with h5py.File(kg_h5, "r") as f:
    expect(int(f.attrs["directed"]) == 1 and int(f.attrs["num_classes"]) == 0, "kg attributes")
    expect(list(f["names/nodes"].asstr()[()]) == nodes, "node names")
    expect(list(f["names/relations"].asstr()[()]) == relations, "relation names")
    expect(list(f["edges/src"][()]) == src and list(f["edges/dst"][()]) == dst, "kg edges")
    expect(list(f["edges/type"][()]) == types, "relation ids")
    expect(int(f["features"].attrs["cols"]) == 0 and len(f["features/values"]) == 0, "featureless")
    expect(list(f["labels"][()]) == [-1] * len(nodes), "no labels")
print("h5py reads attend graph files")
)PY";

}  // namespace

int main() {
  if (::access(kPython, X_OK) != 0) {
    std::printf("skipped: %s not found (install python3-h5py to run this test)\n", kPython);
    return kSkip;
  }
  try {
    attend::testing::TempDir dir;
    const std::string cora_dir = ATTEND_DATA_DIR "/graphs/cora";
    const std::string cora_h5 = dir.file("cora.h5");
    attend::graph::save_node_dataset(cora_h5, attend::graph::load_node_dataset(cora_dir));

    const std::string tsv = dir.file("kg.tsv");
    attend::testing::write_text_file(tsv, "\xce\xb1\tp\tb\nb\tq\tc\nc\tp\t\xce\xb1\nd\tr\td\n");
    const std::string kg_h5 = dir.file("kg.h5");
    attend::graph::save_node_dataset(kg_h5, attend::graph::load_tsv_triples({tsv}));

    const std::string script = dir.file("check.py");
    attend::testing::write_text_file(script, kScript);
    const std::string dense_h5 = dir.file("cora_dense.h5");
    const std::string contiguous_h5 = dir.file("cora_contiguous.h5");
    const attend::graph::NodeDataset cora = attend::graph::load_node_dataset(cora_dir);
    attend::graph::save_node_dataset(dense_h5, cora, {attend::graph::FeatureLayout::kDense, 64, true});
    attend::graph::save_node_dataset(contiguous_h5, cora, {attend::graph::FeatureLayout::kDense, 0, false});
    return attend::testing::run_python_check(script, {cora_dir, cora_h5, tsv, kg_h5, dense_h5, contiguous_h5});
  } catch (const std::exception& error) {
    std::printf("FAILED: %s\n", error.what());
    return 1;
  }
}
