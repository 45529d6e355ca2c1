#!/usr/bin/env python3
"""Counts of a benchmark folder written by `attend generate` (issue #14): nodes, motifs,
undirected edges by kind (base-base, base-motif, motif-motif and those inside one motif),
the ground-truth edges, and the base nodes each motif's anchor (its lowest node id) is joined
to: the table "Tree-Cycles and Tree-Grid on the authors' graphs" in docs/results.md.

  python3 benchmarks/motif_graph_counts.py tree-cycles-authors-0 tree-grid-authors-0
"""
import os
import sys


def rows(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip() and not line.startswith("#")]


def counts(folder):
    motif = [int(r[0]) for r in rows(os.path.join(folder, "motif_nodes.txt"))]
    edges = [(int(r[0]), int(r[1])) for r in rows(os.path.join(folder, "edges.txt"))]
    truth = rows(os.path.join(folder, "motif_edges.txt"))
    anchor = {}
    for v, m in enumerate(motif):
        anchor.setdefault(m, v)
    anchors = {v for m, v in anchor.items() if m >= 0}
    joined = sorted(b for u, v in edges for a, b in ((u, v), (v, u)) if a in anchors and motif[b] < 0)
    in_base = [motif[u] < 0 and motif[v] < 0 for u, v in edges]
    in_motifs = [motif[u] >= 0 and motif[v] >= 0 for u, v in edges]
    return {"nodes": len(motif), "motifs": len(anchors), "edges": len(edges), "base-base": sum(in_base),
            "base-motif": len(edges) - sum(in_base) - sum(in_motifs), "motif-motif": sum(in_motifs),
            "in one motif": sum(motif[u] >= 0 and motif[u] == motif[v] for u, v in edges),
            "ground truth": len(truth), "anchors joined to": "%d base nodes, %s .. %s" % (
                len(joined), ", ".join(map(str, joined[:4])), joined[-1] if joined else "-")}


def main():
    for folder in sys.argv[1:]:
        print(os.path.basename(os.path.normpath(folder)) + ": " + ", ".join(
            "%s %s" % (k, v) for k, v in counts(folder).items()))


if __name__ == "__main__":
    main()
