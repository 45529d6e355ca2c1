#!/usr/bin/env python3
"""Which edges of the khop-undirected protocol an explanation scores (issue #14, session 12).

`attend explain eval --auc-protocol khop-undirected` (graph/explain/motif_edge_auc.hpp) pools,
for each explained node, every undirected edge of its k-hop induced subgraph, scored by the sum
of the explanation's scores of its two directions. An explanation of the computation graph's
explained edges (the edges into nodes within k - 1 hops) holds both directions of an edge
between two such nodes, one direction of an edge out to a node k hops away (the boundary), and
none of an edge joining two nodes k hops away. This splits the pooled edges into those three
parts, counts the motif edges (positives) in each, and recomputes the AUC without the unscored
edges and with the one-way edges' score doubled (what a second direction of the same score
would give), so that the protocol's cost of the missing directions is a number.

  /usr/bin/python3 benchmarks/khop_auc_parts.py --data DIR --explanations X.h5 [--hops 3]
"""
import argparse
import os
from collections import deque

import h5py
import numpy


def roc_auc(positive, score):
    """ROC AUC with ties counted one half (the Mann-Whitney statistic)."""
    positive = numpy.asarray(positive, bool)
    score = numpy.asarray(score, float)
    order = numpy.argsort(score, kind="mergesort")
    ranks = numpy.empty(len(score))
    sorted_score = score[order]
    i = 0
    while i < len(score):
        j = i
        while j + 1 < len(score) and sorted_score[j + 1] == sorted_score[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    n_pos = positive.sum()
    n_neg = len(positive) - n_pos
    return (ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def read_pairs(path):
    with open(path) as f:
        return [tuple(map(int, line.split()[:2])) for line in f if line.strip() and not line.startswith("#")]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="an `attend generate` folder")
    parser.add_argument("--explanations", required=True, help="an `attend explain node` .h5 file")
    parser.add_argument("--hops", type=int, default=3)
    args = parser.parse_args()
    neighbours, undirected = {}, set()
    for a, b in read_pairs(os.path.join(args.data, "edges.txt")):
        if a != b:
            neighbours.setdefault(a, set()).add(b)
            neighbours.setdefault(b, set()).add(a)
            undirected.add((min(a, b), max(a, b)))
    motif = {(min(a, b), max(a, b)) for a, b in read_pairs(os.path.join(args.data, "motif_edges.txt"))}
    label, total, directions = [], [], []
    with h5py.File(args.explanations, "r") as f:
        offset, source, target, score = (f[k][()] for k in ("edges/offset", "edges/source", "edges/target", "edges/score"))
        for t, v in enumerate(f["node"][()]):
            distance, queue = {int(v): 0}, deque([int(v)])
            while queue:
                x = queue.popleft()
                if distance[x] < args.hops:
                    for y in neighbours.get(x, ()):
                        if y not in distance:
                            distance[y] = distance[x] + 1
                            queue.append(y)
            scored = {(int(source[e]), int(target[e])): float(score[e]) for e in range(offset[t], offset[t + 1])}
            for a, b in undirected:
                if a in distance and b in distance:
                    label.append((a, b) in motif)
                    total.append(scored.get((a, b), 0.0) + scored.get((b, a), 0.0))
                    directions.append(((a, b) in scored) + ((b, a) in scored))
    label, total, directions = numpy.array(label), numpy.array(total), numpy.array(directions)
    parts = ", ".join("%s %d (%d motif)" % (name, (directions == k).sum(), label[directions == k].sum())
                      for name, k in (("both directions", 2), ("one", 1), ("none", 0)))
    print("%d edges (%d motif): %s" % (len(label), label.sum(), parts))
    print("AUC %.3f; without the unscored edges %.3f; one-way scores doubled %.3f" % (
        roc_auc(label, total), roc_auc(label[directions > 0], total[directions > 0]),
        roc_auc(label, numpy.where(directions == 1, 2 * total, total))))


if __name__ == "__main__":
    main()
