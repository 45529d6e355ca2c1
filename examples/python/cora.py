#!/usr/bin/env python3
"""GAT on Cora from numpy arrays built from the dataset's own files, then predictions,
attention weights and a saved model that `attend node-classify` reads.

  PYTHONPATH=build/python python3 examples/python/cora.py [data/graphs/cora]
"""
import gzip
import os
import sys

import numpy as np

import attend


def rows(path):
    with gzip.open(path, "rt") as f:
        return [line.split() for line in f if not line.startswith("#")]


root = sys.argv[1] if len(sys.argv) > 1 else "data/graphs/cora"
edge_index = np.array(rows(os.path.join(root, "edges.txt.gz")), dtype=np.int64).T        # [2, E]
labels = np.array([int(r[0]) for r in rows(os.path.join(root, "labels.txt.gz"))])       # [N]
coo = np.array(rows(os.path.join(root, "features.coo.txt.gz")), dtype=np.float64)
x = np.zeros((labels.size, 1433), dtype=np.float32)                                      # [N, F]
x[coo[:, 0].astype(int), coo[:, 1].astype(int)] = coo[:, 2]
split = {name: np.loadtxt(os.path.join(root, "split_%s.txt" % name), dtype=np.int64) for name in ("train", "val", "test")}

graph = attend.Graph(edge_index, x=x, y=labels, name="cora", **split)
print(graph)
model = attend.NodeClassifier("gat-cora")
run = model.fit(graph, seed=0, progress=True)
print("test accuracy %.1f %% after %d epochs (best %d)" % (100 * run["test_acc"], run["epochs"], run["best_epoch"] + 1))

probabilities = model.predict(graph)                      # [N, 7]
print("node 0: class %d with probability %.2f" % (probabilities[0].argmax(), probabilities[0].max()))
first_layer = model.attention(graph)[0]                   # weights [E', heads] over the self-looped edges
print("first layer: %d edges x %d heads" % first_layer["weights"].shape)
model.save("cora_gat.h5")                                 # attend node-classify predict --checkpoint cora_gat.h5
