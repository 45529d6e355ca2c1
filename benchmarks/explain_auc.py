#!/usr/bin/env python3
"""Explanation AUC on the four synthetic benchmarks of GNNExplainer (Ying et al. 2019), end to
end with the attend command line (issue #14): for each benchmark and seed s, `attend generate
--seed s`, the benchmark's preset trained with seed s (a GCN: the model the paper explains)
and the `gat` preset trained with seed s (for the attention method: the GCN has no attention
weights), then every method explains the test nodes that lie in a planted motif and
`attend explain eval` scores them: edge AUC against the motif edges, fidelity+ and fidelity-
with the top-k edges (k = the motif's edges: 6 for a house or a 6-cycle, 12 for a 3x3 grid),
beside each model's test accuracy (an AUC counts only for a model at 90 % or better) and the
structure-only degree baseline. Prints the table, with the published AUCs, and writes JSON.

Two choices of the explained nodes (--nodes) and both AUC protocols of `explain eval`
(graph/explain/motif_edge_auc.hpp) on every set:
  test-motif  the test nodes that lie in a motif (every role)
  val-motif   the validation nodes that lie in a motif (for choosing a method's options)
  paper       the nodes the authors' evaluation code explains, from every split: each motif's
              anchor (the node joined to the base graph: GNNExplainer's range(400, 700, 5) on
              BA-Shapes and BA-Community, PGExplainer's range(511, 871, 6) on Tree-Cycles), and
              on Tree-Grid every node of the first 32 grids (PGExplainer's range(511, 800))
  explained-edges  every explained directed edge, pooled (attend's protocol)
  khop-undirected  every undirected edge of each node's 3-hop subgraph, once, scored by the sum
                   of its two directions (the authors' code; 3 = the GCN's graph convolutions,
                   the GAT's 2 layers for attention)

Rows beside the methods: `|input-x-gradient|`, `|integrated-gradients|`, `|occlusion|` and
`|shapley|`, the signed methods' edges ranked by the magnitude of their scores (a copy of the
explanation file with |score|, written with h5py: run under /usr/bin/python3), and `pgexplainer (explained nodes)`,
PGExplainer's MLP trained on the explained nodes as the paper does, where `pgexplainer`
trains it on the training split, and both again with the coefficients of the authors'
notebooks for the benchmark (PG_AUTHORS) instead of PyTorch Geometric's defaults; the
`subgraph` rows score every edge of the computation graph's subgraph (`--scored-edges
subgraph`), and the `authors' code` rows add the rest of the authors' training recipe
(PG_AUTHORS_CODE, PG_RECIPE; `true labels`: trained on the nodes' labels, as their code is).
Pass any of these labels in --methods.

--recipe authors builds tree-cycles and tree-grid as the authors' code built their released
data (`attend generate --recipe authors`: 60 cycles, evenly spaced anchors, 1 % noise edges),
in folders BENCH-authors-SEED; there the paper nodes are the authors' own node ids.

  python3 benchmarks/explain_auc.py --attend build/apps/attend --work /tmp/auc --seeds 0,1,2 --json auc.json
"""
import argparse
import json
import os
import statistics
import subprocess

TOP_K = {"ba-shapes": 6, "ba-community": 6, "tree-cycles": 6, "tree-grid": 12}
# Published AUCs as issue #14 quotes them (GNNExplainer paper, Table 1; PGExplainer paper).
PUBLISHED = {
    "attention": {"ba-shapes": 0.815, "ba-community": 0.739, "tree-cycles": 0.824, "tree-grid": 0.667},
    "gradient": {"ba-shapes": 0.882, "ba-community": 0.750, "tree-cycles": 0.905, "tree-grid": 0.667},
    "gnnexplainer": {"ba-shapes": 0.925, "ba-community": 0.836, "tree-cycles": 0.948, "tree-grid": 0.875},
    "pgexplainer": {"ba-shapes": 0.963, "ba-community": 0.945, "tree-cycles": 0.987, "tree-grid": 0.907},
}
GCN_METHODS = ["saliency", "input-x-gradient", "integrated-gradients", "gnnexplainer", "pgexplainer",
               "pgexplainer (explained nodes)", "pgexplainer (authors' coefficients)",
               "pgexplainer (authors' coefficients; explained nodes)", "occlusion", "occlusion (symmetric)", "shapley",
               "shapley (symmetric)", "degree"]
GAT_METHODS = ["attention", "degree"]
# PGExplainer's coefficients in the authors' notebooks (BA-shapes.ipynb etc.: coff_size,
# coff_ent, eepochs, elr), where they differ from PyTorch Geometric's defaults.
PG_AUTHORS = {"ba-shapes": ["--epochs", "10"], "ba-community": ["--epochs", "20"],
              "tree-cycles": ["--edge-size", "0.0001", "--edge-entropy", "0.01", "--epochs", "20"],
              "tree-grid": ["--edge-size", "0.01", "--lr", "0.01"]}
# The rest of the authors' training recipe (the notebooks' train(), codes/Explainer.py): the
# temperature each notebook uses (BA-Shapes 1 -> 0.05; BA-Community 1 and Tree-Cycles, Tree-Grid 5,
# held), BA-Community's sample_bias 0.5 (no noise), one Adam step per epoch on the summed loss
# with each gradient entry clipped to [-2, 2] (PG_RECIPE), and the notebooks' epochs (Tree-Grid
# 30); the rows add which edges are scored.
PG_AUTHORS_CODE = {"ba-shapes": ["--temperature-start", "1", "--temperature-end", "0.05"],
                   "ba-community": ["--temperature-start", "1", "--temperature-end", "1", "--sample-bias", "0.5"],
                   "tree-cycles": ["--temperature-start", "5", "--temperature-end", "5"],
                   "tree-grid": ["--temperature-start", "5", "--temperature-end", "5", "--epochs", "30"]}
PG_RECIPE = ["--update", "epoch", "--gradient-clip", "2"]
# Rows that are not a method of their own: the command-line method and options behind them.
VARIANTS = {"pgexplainer (explained nodes)": ("pgexplainer", lambda bench: ["--train-on", "explained"]),
            "pgexplainer (authors' coefficients)": ("pgexplainer", lambda bench: PG_AUTHORS[bench]),
            "pgexplainer (authors' coefficients; explained nodes)":
                ("pgexplainer", lambda bench: PG_AUTHORS[bench] + ["--train-on", "explained"]),
            "pgexplainer (subgraph)": ("pgexplainer", lambda bench: ["--scored-edges", "subgraph"]),
            "pgexplainer (authors' coefficients; subgraph)":
                ("pgexplainer", lambda bench: PG_AUTHORS[bench] + ["--scored-edges", "subgraph"]),
            "pgexplainer (authors' coefficients; subgraph; explained nodes)":
                ("pgexplainer", lambda bench: PG_AUTHORS[bench] + ["--scored-edges", "subgraph", "--train-on", "explained"]),
            "pgexplainer (authors' code; explained nodes)":
                ("pgexplainer", lambda bench: PG_AUTHORS[bench] + PG_AUTHORS_CODE[bench] + PG_RECIPE +
                 ["--scored-edges", "subgraph", "--train-on", "explained"]),
            "pgexplainer (authors' coefficients; khop; explained nodes)":
                ("pgexplainer", lambda bench: PG_AUTHORS[bench] + ["--scored-edges", "khop", "--train-on", "explained"]),
            "pgexplainer (authors' code; khop; explained nodes)":
                ("pgexplainer", lambda bench: PG_AUTHORS[bench] + PG_AUTHORS_CODE[bench] + PG_RECIPE +
                 ["--scored-edges", "khop", "--train-on", "explained"]),
            "pgexplainer (authors' code; true labels; explained nodes)":
                ("pgexplainer", lambda bench: PG_AUTHORS[bench] + PG_AUTHORS_CODE[bench] + PG_RECIPE +
                 ["--scored-edges", "subgraph", "--train-on", "explained", "--train-label", "true"])}
# attend's additions (session 13): the MLP's first samples at 0.9 (--initial-mask) and the best
# of 5 MLPs by the noise-free training objective (--restarts), with PyG's or the authors'
# coefficients; `size only`: without the entropy term; `symmetric mask`: the authors' (m_ij + m_ji) / 2
# in training (--symmetric-mask).
PG_START = ["--initial-mask", "0.9"]
PG_RESTARTS = ["--restarts", "5"]
VARIANTS.update({
    "pgexplainer (initial mask 0.9; explained nodes)":
        ("pgexplainer", lambda bench: PG_START + ["--train-on", "explained"]),
    "pgexplainer (initial mask 0.9; restarts 5)": ("pgexplainer", lambda bench: PG_START + PG_RESTARTS),
    "pgexplainer (initial mask 0.9; restarts 5; explained nodes)":
        ("pgexplainer", lambda bench: PG_START + PG_RESTARTS + ["--train-on", "explained"]),
    "pgexplainer (size only; initial mask 0.9; restarts 5; explained nodes)":
        ("pgexplainer", lambda bench: ["--edge-entropy", "0"] + PG_START + PG_RESTARTS + ["--train-on", "explained"]),
    "pgexplainer (authors' coefficients; subgraph; restarts 5; explained nodes)":
        ("pgexplainer", lambda bench: PG_AUTHORS[bench] + PG_RESTARTS + ["--scored-edges", "subgraph", "--train-on",
                                                                         "explained"]),
    "pgexplainer (authors' coefficients; subgraph; initial mask 0.9; restarts 5; explained nodes)":
        ("pgexplainer", lambda bench: PG_AUTHORS[bench] + PG_START + PG_RESTARTS +
         ["--scored-edges", "subgraph", "--train-on", "explained"]),
    "pgexplainer (symmetric mask; size only; initial mask 0.9; restarts 5; explained nodes)":
        ("pgexplainer", lambda bench: ["--symmetric-mask", "--edge-entropy", "0"] + PG_START + PG_RESTARTS +
         ["--train-on", "explained"]),
    "pgexplainer (authors' coefficients; subgraph; symmetric mask; explained nodes)":
        ("pgexplainer", lambda bench: PG_AUTHORS[bench] + ["--symmetric-mask", "--scored-edges", "subgraph",
                                                           "--train-on", "explained"]),
})
# The `size only` row's wider screen on Tree-Grid (session 14): one setting changed at a time.
SIZE_ONLY_SWEEP = ([("size only; initial mask 0.9; restarts 20", PG_START + ["--restarts", "20"])] +
                   [(f"size only; initial mask {m0}; restarts 5", ["--initial-mask", m0] + PG_RESTARTS)
                    for m0 in ("0.8", "0.95", "0.99")] +
                   [(f"size {size} only; initial mask 0.9; restarts 5", ["--edge-size", size] + PG_START + PG_RESTARTS)
                    for size in ("0.01", "0.1", "0.2", "0.5", "1")])
for setting, args in SIZE_ONLY_SWEEP:
    VARIANTS[f"pgexplainer ({setting}; explained nodes)"] = (
        "pgexplainer", lambda bench, args=args: ["--edge-entropy", "0"] + args + ["--train-on", "explained"])
# The restarts averaged (session 15): every restart's MLP kept and an edge scored by the mean of
# their masks (--restart-combine mean) instead of the MLP of the lowest objective.
PG_MEAN_ROWS = [("size only; initial mask 0.9; restarts 5", PG_START + PG_RESTARTS),
                ("size only; initial mask 0.9; restarts 10", PG_START + ["--restarts", "10"]),
                ("size 0.5 only; initial mask 0.9; restarts 5", ["--edge-size", "0.5"] + PG_START + PG_RESTARTS),
                ("size 0.5 only; initial mask 0.9; restarts 10", ["--edge-size", "0.5"] + PG_START + ["--restarts", "10"])]
for setting, args in PG_MEAN_ROWS:
    VARIANTS[f"pgexplainer ({setting}; mean of restarts; explained nodes)"] = (
        "pgexplainer", lambda bench, args=args: ["--edge-entropy", "0"] + args + ["--restart-combine", "mean",
                                                                                  "--train-on", "explained"])
# Occlusion (session 14): each directed edge alone, or with its reverse (`--symmetric`).
VARIANTS["occlusion (symmetric)"] = ("occlusion", lambda bench: ["--symmetric"])
# Shapley values by permutation sampling (session 15): each directed edge a player, or each
# undirected edge (`--symmetric`); the default permutation count.
VARIANTS["shapley (symmetric)"] = ("shapley", lambda bench: ["--symmetric"])
SIGNED = ["input-x-gradient", "integrated-gradients", "occlusion", "occlusion (symmetric)", "shapley",
          "shapley (symmetric)"]  # each also gets a |score| row
# GNNExplainer from a held prediction (session 14): every edge mask starts at M0 (--initial-mask)
# instead of PyG's random start near 0.5; `size only`: without the entropy term; `authors' lr and
# start`: the authors' code's Adam lr 0.1 and first mask sigmoid(1) = 0.731 (their logits start
# at N(1, std^2); RexYing/gnn-model-explainer, explainer/explain.py and explainer_main.py).
GNN_START = ["--initial-mask", "0.9"]
GNN_AUTHORS = ["--lr", "0.1", "--initial-mask", "0.731"]
VARIANTS.update({
    "gnnexplainer (initial mask 0.9)": ("gnnexplainer", lambda bench: GNN_START),
    "gnnexplainer (size only; initial mask 0.9)": ("gnnexplainer", lambda bench: ["--edge-entropy", "0"] + GNN_START),
    "gnnexplainer (authors' lr and start)": ("gnnexplainer", lambda bench: GNN_AUTHORS),
    "gnnexplainer (size only; authors' lr and start)":
        ("gnnexplainer", lambda bench: ["--edge-entropy", "0"] + GNN_AUTHORS),
    "gnnexplainer (size only; initial mask 0.9; lr 0.1)":
        ("gnnexplainer", lambda bench: ["--edge-entropy", "0", "--lr", "0.1"] + GNN_START),
    "gnnexplainer (size only; initial mask 0.9; 300 epochs)":
        ("gnnexplainer", lambda bench: ["--edge-entropy", "0", "--epochs", "300"] + GNN_START),
    "gnnexplainer (size 0.05 only; initial mask 0.9)":
        ("gnnexplainer", lambda bench: ["--edge-entropy", "0", "--edge-size", "0.05"] + GNN_START),
})
# The authors' entropy term reads 0.98 m + 0.01 (codes/Explainer.py: scale 0.99), session 14.
PG_MARGIN = ["--entropy-margin", "0.01"]
VARIANTS.update({
    "pgexplainer (authors' coefficients; entropy margin; explained nodes)":
        ("pgexplainer", lambda bench: PG_AUTHORS[bench] + PG_MARGIN + ["--train-on", "explained"]),
    "pgexplainer (authors' coefficients; subgraph; symmetric mask; entropy margin; explained nodes)":
        ("pgexplainer", lambda bench: PG_AUTHORS[bench] + PG_MARGIN + ["--symmetric-mask", "--scored-edges", "subgraph",
                                                                       "--train-on", "explained"]),
    "pgexplainer (authors' coefficients; subgraph; initial mask 0.9; restarts 5; entropy margin; explained nodes)":
        ("pgexplainer", lambda bench: PG_AUTHORS[bench] + PG_START + PG_RESTARTS + PG_MARGIN +
         ["--scored-edges", "subgraph", "--train-on", "explained"]),
    "pgexplainer (authors' code; symmetric mask; entropy margin; explained nodes)":
        ("pgexplainer", lambda bench: PG_AUTHORS[bench] + PG_AUTHORS_CODE[bench] + PG_RECIPE + PG_MARGIN +
         ["--symmetric-mask", "--scored-edges", "subgraph", "--train-on", "explained"]),
})
PAPER_GRIDS = 32  # PGExplainer explains Tree-Grid's nodes 511..799: its first 32 grids (and one node)


def run(cmd):
    subprocess.run(["nice", "-n", "10"] + cmd, check=True, capture_output=True, text=True)


def read_motifs(folder):
    with open(os.path.join(folder, "motif_nodes.txt")) as f:
        return [int(line) for line in f if not line.startswith("#")]


def motif_split_nodes(folder, split):
    """Nodes of split `split` (test or val) whose motif_nodes.txt entry is not -1 (node ids
    0..N-1 are their names)."""
    motif = read_motifs(folder)
    with open(os.path.join(folder, "split_%s.txt" % split)) as f:
        return [line.strip() for line in f if line.strip() and motif[int(line)] != -1]


def paper_nodes(folder, bench):
    """Each motif's anchor, its lowest node id (attend generate joins a motif to the base graph
    from its node 0 and numbers a motif's nodes consecutively); on tree-grid every node of the
    first PAPER_GRIDS grids."""
    motif = read_motifs(folder)
    if bench == "tree-grid":
        return [str(v) for v, m in enumerate(motif) if 0 <= m < PAPER_GRIDS]
    first = {}
    for v, m in enumerate(motif):
        if m >= 0 and m not in first:
            first[m] = v
    return [str(v) for v in sorted(first.values())]


def train(args, data, model, seed, checkpoint):
    summary = checkpoint + ".train.json"
    if not (args.resume and os.path.exists(summary)):
        run([args.attend, "node-classify", "train", "--data", data, "--model", model, "--seed", str(seed), "--save",
             checkpoint, "--json", summary, "--quiet", "--threads", "1"])
    with open(summary) as f:
        return json.load(f)["runs"][0]["test_acc"]


def write_magnitudes(source, target):
    """A copy of the explanation file `source` with every edge score replaced by its magnitude."""
    import h5py  # Debian's /usr/bin/python3 has it
    import numpy
    import shutil
    shutil.copyfile(source, target)
    with h5py.File(target, "r+") as f:
        if "score" in f["edges"]:
            f["edges/score"][...] = numpy.abs(f["edges/score"][()])


def scores_every_file(table, files):
    """Whether the `explain eval --json` table holds a row of each explanation file."""
    with open(table) as f:
        return {r["file"] for r in json.load(f)["rows"]} >= set(files)


def explain_and_score(args, bench, data, checkpoint, nodes, methods, top_k, hops, prefix):
    row_of_file = {}  # explanation file -> its row's name
    for label in methods:
        method, options = VARIANTS.get(label, (label, lambda bench: []))
        options = options(bench)
        out = "%s.%s" % (prefix, "".join(c for c in label.replace(" ", "_") if c not in "(),;'"))
        row_of_file[out + ".h5"] = label
        if not (args.resume and os.path.exists(out + ".h5")):
            run([args.attend, "explain", "node", "--data", data, "--checkpoint", checkpoint, "--nodes", ",".join(nodes),
                 "--method", method, "--out", out, "--quiet", "--no-pictures", "--threads", "1"] + options)
        if label in SIGNED:
            row_of_file[out + ".abs.h5"] = "|%s|" % label
            write_magnitudes(out + ".h5", out + ".abs.h5")
    files = list(row_of_file)
    scores = {}
    for protocol, key in (("explained-edges", "auc"), ("khop-undirected", "auc_khop")):
        table = "%s.eval.%s.json" % (prefix, protocol)
        cmd = [args.attend, "explain", "eval", "--data", data, "--checkpoint", checkpoint, "--ground-truth", data,
               "--top-k", str(top_k), "--auc-protocol", protocol, "--auc-hops", str(hops), "--json", table,
               "--threads", "1"]
        for f in files:
            cmd += ["--explanations", f]
        if not (args.resume and os.path.exists(table) and scores_every_file(table, files)):
            if os.path.exists(table):  # in the data folder: attend refuses to replace a file of its input
                os.remove(table)
            run(cmd)
        with open(table) as f:
            for r in json.load(f)["rows"]:
                if r["kind"] == "edges":
                    scores.setdefault(row_of_file[r["file"]], {"fidelity_plus": r["fidelity_plus"],
                                                    "fidelity_minus": r["fidelity_minus"]})[key] = r["auc"]
    return scores


def mean_sd(values):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return "%.3f +- %.3f" % (statistics.mean(values), sd)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attend", default="build/apps/attend")
    parser.add_argument("--work", required=True, help="folder for the graphs, checkpoints and explanations")
    parser.add_argument("--seeds", default="0,1,2", help="graph and model seeds, comma-separated")
    parser.add_argument("--benchmarks", default=",".join(TOP_K))
    parser.add_argument("--nodes", choices=["test-motif", "val-motif", "paper"], default="test-motif",
                        help="explain the test (or validation) nodes in a motif, or the nodes the authors' code "
                             "explains")
    parser.add_argument("--methods", default=",".join(GCN_METHODS),
                        help="the rows of the benchmark's GCN preset, comma-separated (default: all)")
    parser.add_argument("--models", default="gcn,gat", help="gcn (the benchmark's preset), gat (attention) or both")
    parser.add_argument("--resume", action="store_true",
                        help="reuse the graphs, checkpoints, explanations and tables already in --work")
    parser.add_argument("--json", help="write every run and the summary here")
    parser.add_argument("--recipe", choices=["paper", "authors"], default="paper",
                        help="`attend generate --recipe`: the paper's text, or the authors' released data "
                             "(tree-cycles and tree-grid only)")
    args = parser.parse_args()
    if args.recipe == "authors" and set(args.benchmarks.split(",")) - {"tree-cycles", "tree-grid"}:
        parser.error("--recipe authors builds tree-cycles and tree-grid only")
    os.makedirs(args.work, exist_ok=True)
    runs = []
    for bench in args.benchmarks.split(","):
        for seed in [int(s) for s in args.seeds.split(",")]:
            folder = "%s-%d" % (bench, seed) if args.recipe == "paper" else "%s-%s-%d" % (bench, args.recipe, seed)
            data = os.path.join(args.work, folder)
            if not (args.resume and os.path.exists(data)):
                run([args.attend, "generate", bench, "--seed", str(seed), "--recipe", args.recipe, "--out", data,
                     "--quiet"])
            nodes = (paper_nodes(data, bench) if args.nodes == "paper"
                     else motif_split_nodes(data, "val" if args.nodes == "val-motif" else "test"))
            entry = {"benchmark": bench, "recipe": args.recipe, "seed": seed, "nodes": args.nodes,
                     "explained_nodes": len(nodes), "models": {}}
            models = [m for m in (("gcn", bench, args.methods.split(","), 3), ("gat", "gat", GAT_METHODS, 2))
                      if m[0] in args.models.split(",")]
            for model, preset, methods, hops in models:
                checkpoint = os.path.join(data, model + ".h5")
                accuracy = train(args, data, preset, seed, checkpoint)
                scores = explain_and_score(args, bench, data, checkpoint, nodes, methods, TOP_K[bench], hops,
                                           os.path.join(data, "%s.%s" % (model, args.nodes)))
                entry["models"][model] = {"preset": preset, "test_accuracy": accuracy, "methods": scores}
            runs.append(entry)
            print("%s seed %d: %d nodes, %s" % (bench, seed, len(nodes), ", ".join(
                "%s %.1f %%" % (m, 100 * e["test_accuracy"]) for m, e in entry["models"].items())), flush=True)
    summary = print_summary(runs)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": runs, "summary": summary, "published": PUBLISHED}, f, indent=1)


def print_summary(runs):
    summary = []
    print("\nbenchmark     model (test acc %, lowest)   method                         AUC (explained)  AUC (khop)       "
          "fid+             fid-")
    for bench in dict.fromkeys(r["benchmark"] for r in runs):
        mine = [r for r in runs if r["benchmark"] == bench]
        for model in mine[0]["models"]:
            acc = [r["models"][model]["test_accuracy"] for r in mine]
            label = "%s (%.1f, %.1f)" % (model, 100 * statistics.mean(acc), 100 * min(acc))
            for method in mine[0]["models"][model]["methods"]:
                cells = {k: [r["models"][model]["methods"][method][k] for r in mine]
                         for k in ("auc", "auc_khop", "fidelity_plus", "fidelity_minus")}
                print("%-13s %-28s %-30s %-16s %-16s %-16s %s" % (
                    bench, label, method, mean_sd(cells["auc"]), mean_sd(cells["auc_khop"]),
                    mean_sd(cells["fidelity_plus"]), mean_sd(cells["fidelity_minus"])))
                summary.append({"benchmark": bench, "model": model, "test_accuracy": acc, "method": method,
                                "seeds": [r["seed"] for r in mine], **cells})
        print("%-13s published AUC: %s" % (bench, ", ".join("%s %.3f" % (m, PUBLISHED[m][bench]) for m in PUBLISHED)))
    return summary


if __name__ == "__main__":
    main()
