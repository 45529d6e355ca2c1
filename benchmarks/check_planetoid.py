#!/usr/bin/env python3
"""Check a shipped Planetoid graph folder against the original Planetoid pickles.

Reads `ind.<name>.{x,y,tx,ty,ally,graph,test.index}` (Yang et al. 2016, as loaded by the GAT
and GCN authors' `load_data`) with the standard library only (numpy and scipy objects in the
pickles are decoded by hand), rebuilds what the authors' code builds (labels in node order,
the public split, the undirected graph of `nx.from_dict_of_lists`), and compares it with
attend's text files (`edges.txt`, `labels.txt`, `features.coo.txt`, `split_*.txt`, plain or
.gz). Prints counts and the checks; exits 1 when one fails.

    python3 benchmarks/check_planetoid.py --planetoid PLANETOID_DATA_DIR \
        --name pubmed --data data/graphs/pubmed

PLANETOID_DATA_DIR is a folder with the original files, which attend does not ship: the
`data/` folder of a checkout of kimiyoung/planetoid (or tkipf/gcn's `gcn/data/`), at the
commits data/graphs/<name>/SOURCE.md names.
"""
import argparse
import gzip
import os
import pickle
import struct
import sys


class _Obj:
    """Stands in for a numpy or scipy object; keeps the pickled state."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.state = None

    def __setstate__(self, state):
        self.state = state


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if module == "collections" and name == "defaultdict":
            import collections
            return collections.defaultdict
        if name == "_reconstruct":
            return lambda *args: _Obj(*args)
        if module.startswith("numpy") or module.startswith("scipy"):
            return _Obj
        return super().find_class(module, name)


def _array(obj):
    """The values of a pickled numpy ndarray as a flat list, and its shape."""
    _, shape, dtype, _, raw = obj.state
    code = dtype.args[0]
    order = dtype.state[1] if dtype.state and dtype.state[1] in "<>" else "<"
    if isinstance(raw, str):
        raw = raw.encode("latin1")
    fmt = {"f4": "f", "f8": "d", "i4": "i", "i8": "q", "u1": "B", "b1": "?"}[code]
    count = len(raw) // struct.calcsize(fmt)
    return list(struct.unpack(order + str(count) + fmt, raw)), tuple(shape)


def _load(folder, name, part):
    with open(os.path.join(folder, "ind.%s.%s" % (name, part)), "rb") as f:
        return _Unpickler(f, encoding="latin1").load()


def _dense_rows(obj):
    values, shape = _array(obj)
    return [values[r * shape[1]:(r + 1) * shape[1]] for r in range(shape[0])]


def _csr_rows(obj):
    s = obj.state
    indptr, _ = _array(s["indptr"])
    indices, _ = _array(s["indices"])
    data, _ = _array(s["data"])
    return [dict(zip(indices[indptr[r]:indptr[r + 1]], data[indptr[r]:indptr[r + 1]]))
            for r in range(len(indptr) - 1)]


def _open_text(folder, base):
    path = os.path.join(folder, base)
    if os.path.exists(path):
        return open(path)
    return gzip.open(path + ".gz", "rt")


def _ints(folder, base):
    with _open_text(folder, base) as f:
        return [int(line) for line in f if line.strip() and not line.startswith("#")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--planetoid", required=True, help="folder with ind.<name>.* files")
    ap.add_argument("--name", required=True, help="cora, citeseer or pubmed")
    ap.add_argument("--data", required=True, help="attend's text folder")
    a = ap.parse_args()

    failures = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    graph = _load(a.planetoid, a.name, "graph")
    with open(os.path.join(a.planetoid, "ind.%s.test.index" % a.name)) as f:
        test_index = [int(line) for line in f if line.strip()]
    y = _dense_rows(_load(a.planetoid, a.name, "y"))
    ty = _dense_rows(_load(a.planetoid, a.name, "ty"))
    ally = _dense_rows(_load(a.planetoid, a.name, "ally"))
    x = _csr_rows(_load(a.planetoid, a.name, "x"))
    tx = _csr_rows(_load(a.planetoid, a.name, "tx"))

    # The authors' load_data: labels = vstack(ally, ty), test rows put back in node order.
    n = max(len(graph), max(test_index) + 1)
    labels = [None] * n
    for i, row in enumerate(ally):
        labels[i] = row.index(max(row)) if max(row) > 0 else None
    for k, node in enumerate(test_index):
        labels[node] = ty[k].index(max(ty[k])) if max(ty[k]) > 0 else None
    entries = sum(len(v) for v in graph.values())
    pairs = set()
    for u, vs in graph.items():
        for v in vs:
            pairs.add((min(u, v), max(u, v)))
    loops = sum(1 for u, v in pairs if u == v)
    isolated = n - len({u for p in pairs for u in p if p[0] != p[1]})
    print("planetoid: %d nodes, %d adjacency-list entries, %d undirected pairs (%d self-loops), "
          "%d directed edges without self-loops, %d nodes without a neighbour"
          % (n, entries, len(pairs), loops, 2 * (len(pairs) - loops), isolated))

    with _open_text(a.data, "edges.txt") as f:
        shipped = set()
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            u, v = map(int, line.split())
            shipped.add((min(u, v), max(u, v)))
    check(shipped == pairs, "edges.txt holds the same undirected pairs (%d)" % len(shipped))

    shipped_labels = _ints(a.data, "labels.txt")
    known = [i for i in range(n) if labels[i] is not None]
    check(all(shipped_labels[i] == labels[i] for i in known),
          "labels.txt equals ally/ty in node order (%d labelled nodes)" % len(known))
    train = _ints(a.data, "split_train.txt")
    val = _ints(a.data, "split_val.txt")
    test = _ints(a.data, "split_test.txt")
    check(train == list(range(len(y))), "train = nodes 0..%d (len(y))" % (len(y) - 1))
    check(val == list(range(len(y), len(y) + 500)), "val = nodes %d..%d" % (len(y), len(y) + 499))
    check(sorted(test) == sorted(test_index) and len(test) == 1000, "test = test.index (1000 nodes)")
    check(all(y[i].index(max(y[i])) == shipped_labels[i] for i in train), "train labels equal y")

    wanted = set(range(len(x))) | set(test_index)
    rows = {}
    with _open_text(a.data, "features.coo.txt") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            r, c, v = line.split()
            r = int(r)
            if r in wanted:
                rows.setdefault(r, {})[int(c)] = float(v)
    worst = 0.0
    same_pattern = True
    for r, row in list(enumerate(x)) + [(test_index[k], tx[k]) for k in range(len(tx))]:
        got = rows.get(r, {})
        same_pattern &= set(got) == {c for c, v in row.items() if v != 0.0}
        for c, v in row.items():
            worst = max(worst, abs(got.get(c, 0.0) - v))
    check(same_pattern and worst < 1e-6,
          "features of the train and test rows equal x/tx (max abs diff %.2g)" % worst)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
