#!/usr/bin/env python3
"""How long `attend convert` takes to read a large graph in each layout users already have
(issue #16, part 3): one random graph (N nodes, E undirected edges, F dense node features,
D edge features, 3 classes, a 50/25/25 split) written as a NumPy .npz (compressed and
stored), a folder of .npy files, OGB's node-property folder (gzip CSV), a NetworkX edge list
and a CSV edge list, then `attend convert --graph ... --to g.h5 --quiet` timed on each
(wall seconds, best of --repeats). Needs Debian's python3-numpy.

  /usr/bin/python3 benchmarks/dataset_loading.py --attend build/apps/attend [--nodes 100000]
"""
import argparse
import gzip
import json
import os
import subprocess
import tempfile
import time

import numpy as np


def write_layouts(root, n, e, f, d, seed):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, size=e)
    dst = (src + 1 + rng.integers(0, n - 1, size=e)) % n  # no self-loops
    x = rng.normal(size=(n, f)).astype(np.float32)
    y = rng.integers(0, 3, size=n)
    order = rng.permutation(n)
    train, val, test = np.sort(order[: n // 2]), np.sort(order[n // 2: 3 * n // 4]), np.sort(order[3 * n // 4:])
    edge_attr = rng.normal(size=(e, d)).astype(np.float32)
    arrays = dict(edge_index=np.stack([src, dst]), x=x, y=y, train_idx=train, val_idx=val, test_idx=test,
                  edge_attr=edge_attr)
    paths = {}
    paths["npz (deflated)"] = os.path.join(root, "g.npz")
    np.savez_compressed(paths["npz (deflated)"], **arrays)
    paths["npz (stored)"] = os.path.join(root, "stored.npz")
    np.savez(paths["npz (stored)"], **arrays)
    paths["npy folder"] = os.path.join(root, "npy")
    os.mkdir(paths["npy folder"])
    for name, array in arrays.items():
        np.save(os.path.join(paths["npy folder"], name + ".npy"), array)

    ogb = os.path.join(root, "ogbn_random")
    os.makedirs(os.path.join(ogb, "raw"))
    os.makedirs(os.path.join(ogb, "split", "random"))

    def gz(path, rows, fmt):
        with gzip.open(os.path.join(ogb, path), "wt", compresslevel=6) as out:
            np.savetxt(out, rows, fmt=fmt, delimiter=",")

    gz("raw/edge.csv.gz", np.stack([src, dst], axis=1), "%d")
    gz("raw/num-node-list.csv.gz", np.array([n]), "%d")
    gz("raw/num-edge-list.csv.gz", np.array([e]), "%d")
    gz("raw/node-feat.csv.gz", x, "%.9g")
    gz("raw/node-label.csv.gz", y, "%d")
    gz("raw/edge-feat.csv.gz", edge_attr, "%.9g")
    for name, ids in (("train", train), ("valid", val), ("test", test)):
        gz("split/random/%s.csv.gz" % name, ids, "%d")
    paths["OGB folder"] = ogb

    paths["NetworkX edge list"] = os.path.join(root, "g.edgelist")
    with open(paths["NetworkX edge list"], "w") as out:
        for u, v, a in zip(src, dst, edge_attr):
            out.write("%d %d {%s}\n" % (u, v, ", ".join("'f%d': %r" % (k, float(a[k])) for k in range(d))))
    paths["CSV edge list"] = os.path.join(root, "g.csv")
    with open(paths["CSV edge list"], "w") as out:
        out.write("source,target," + ",".join("f%d" % k for k in range(d)) + "\n")
        np.savetxt(out, np.column_stack([src, dst, edge_attr]), fmt=["%d", "%d"] + ["%.9g"] * d, delimiter=",")
    return paths


def size_of(path):
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(dirpath, name)) for dirpath, _, names in os.walk(path) for name in names)
    return os.path.getsize(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attend", default="build/apps/attend")
    parser.add_argument("--nodes", type=int, default=100000)
    parser.add_argument("--edges", type=int, default=1000000)
    parser.add_argument("--features", type=int, default=32)
    parser.add_argument("--edge-features", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as root:
        paths = write_layouts(root, args.nodes, args.edges, args.features, args.edge_features, args.seed)
        print("%d nodes, %d edges, %d node features, %d edge features" %
              (args.nodes, args.edges, args.features, args.edge_features))
        print("%-20s %10s %10s" % ("layout", "MB", "seconds"))
        for layout, path in paths.items():
            best = float("inf")
            for _ in range(args.repeats):
                start = time.perf_counter()
                subprocess.run([args.attend, "convert", "--graph", path, "--to", os.path.join(root, "g.h5"), "--quiet"],
                               check=True, stdout=subprocess.DEVNULL)
                best = min(best, time.perf_counter() - start)
            results.append({"layout": layout, "bytes": size_of(path), "seconds": best})
            print("%-20s %10.1f %10.2f" % (layout, size_of(path) / 1e6, best))
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"nodes": args.nodes, "edges": args.edges, "features": args.features,
                       "edge_features": args.edge_features, "results": results}, out, indent=1)


if __name__ == "__main__":
    main()
