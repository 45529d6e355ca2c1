#!/usr/bin/env python3
"""PGExplainer's setting chosen on validation nodes (issue #14): on the graph and trained GCN
checkpoint that benchmarks/explain_auc.py left in --work (BENCH-SEED/gcn.h5, SEED = --tune-seed;
BENCH-authors-SEED with --recipe authors, as explain_auc.py names its folders),
each setting (explain_auc.py's pgexplainer rows: PyTorch Geometric's coefficients or the
authors' notebooks', the MLP trained on the training split or on the explained nodes, scoring
the explained edges or the whole subgraph, PyG's training or the authors' recipe) explains
the motif nodes of the validation split with `attend explain node`, and `attend explain eval`
scores them under both AUC protocols. The setting with the best khop-undirected AUC (the
papers' protocol; ties: the earlier, PyG's defaults on the training split first) is the one
whose row of explain_auc.py's table counts. Prints and writes JSON.

Any row label of explain_auc.py can be screened (--settings), GNNExplainer's too; with
--magnitudes each signed row (explain_auc.py's SIGNED) is followed by its `|row|`, the same
explanation ranked by the magnitude of its scores. With several
--tune-seed graphs each setting explains each graph's validation motif nodes and the choice
takes the mean of the graphs' khop-undirected AUCs; --exclude-paper-nodes leaves out the
validation nodes that are also papers' nodes (explain_auc.py --nodes paper), so the test rows
explain no node the choice saw.

  python3 benchmarks/tune_pg_explainer.py --attend build/apps/attend --work /tmp/auc --json tune_pg.json
"""
import argparse
import json
import os
import subprocess
import tempfile

import statistics

from explain_auc import PG_AUTHORS, SIGNED, TOP_K, VARIANTS, paper_nodes, read_motifs, write_magnitudes

SETTINGS = ["pgexplainer", "pgexplainer (explained nodes)", "pgexplainer (authors' coefficients)",
            "pgexplainer (authors' coefficients; explained nodes)", "pgexplainer (subgraph)",
            "pgexplainer (authors' coefficients; subgraph)",
            "pgexplainer (authors' coefficients; subgraph; explained nodes)",
            "pgexplainer (authors' code; explained nodes)", "pgexplainer (authors' code; true labels; explained nodes)",
            "pgexplainer (authors' coefficients; khop; explained nodes)",
            "pgexplainer (authors' code; khop; explained nodes)",
            "pgexplainer (initial mask 0.9; explained nodes)", "pgexplainer (initial mask 0.9; restarts 5)",
            "pgexplainer (initial mask 0.9; restarts 5; explained nodes)",
            "pgexplainer (size only; initial mask 0.9; restarts 5; explained nodes)",
            "pgexplainer (authors' coefficients; subgraph; restarts 5; explained nodes)",
            "pgexplainer (authors' coefficients; subgraph; initial mask 0.9; restarts 5; explained nodes)",
            "pgexplainer (symmetric mask; size only; initial mask 0.9; restarts 5; explained nodes)",
            "pgexplainer (authors' coefficients; subgraph; symmetric mask; explained nodes)"]


def validation_motif_nodes(folder, excluded=()):
    motif = read_motifs(folder)
    with open(os.path.join(folder, "split_val.txt")) as f:
        return [line.strip() for line in f if line.strip() and motif[int(line)] != -1 and line.strip() not in excluded]


def score(args, bench, data, nodes, label, tmp):
    """{label: AUCs}, and with --magnitudes for a signed row also {|label|: AUCs} of the same
    explanation ranked by |score|."""
    method, options = VARIANTS.get(label, (label, lambda bench: []))
    out = os.path.join(tmp, "x")
    checkpoint = os.path.join(data, "gcn.h5")
    subprocess.run(["nice", "-n", "10", args.attend, "explain", "node", "--data", data, "--checkpoint", checkpoint,
                    "--nodes", ",".join(nodes), "--method", method, "--out", out, "--quiet", "--no-pictures",
                    "--threads", "1"] + options(bench), check=True, capture_output=True)
    files = {label: out + ".h5"}
    if args.magnitudes and label in SIGNED:
        files["|%s|" % label] = out + ".abs.h5"
        write_magnitudes(out + ".h5", out + ".abs.h5")
    result = {}
    for row, path in files.items():
        aucs = result[row] = {}
        for protocol in ("khop-undirected", "explained-edges"):
            table = os.path.join(tmp, protocol + ".json")
            subprocess.run(["nice", "-n", "10", args.attend, "explain", "eval", "--data", data, "--checkpoint",
                            checkpoint, "--ground-truth", data, "--top-k", str(TOP_K[bench]), "--auc-protocol",
                            protocol, "--auc-hops", "3", "--explanations", path, "--json", table, "--threads", "1"],
                           check=True, capture_output=True)
            with open(table) as f:
                aucs[protocol] = next(r["auc"] for r in json.load(f)["rows"] if r["kind"] == "edges")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attend", default="build/apps/attend")
    parser.add_argument("--work", required=True, help="explain_auc.py's --work folder")
    parser.add_argument("--tune-seed", default="0", help="the graphs whose validation nodes choose, comma-separated")
    parser.add_argument("--exclude-paper-nodes", action="store_true",
                        help="leave out the validation nodes that explain_auc.py --nodes paper explains")
    parser.add_argument("--benchmarks", default=",".join(PG_AUTHORS))
    parser.add_argument("--settings", default="|".join(SETTINGS), help="the settings screened, '|'-separated")
    parser.add_argument("--magnitudes", action="store_true",
                        help="screen |row| (scores by magnitude) after each signed row, from the same explanation")
    parser.add_argument("--recipe", choices=["paper", "authors"], default="paper",
                        help="the graphs explain_auc.py --recipe built: the paper's text, or the authors' released "
                             "data (tree-cycles and tree-grid only)")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.recipe == "authors" and set(args.benchmarks.split(",")) - {"tree-cycles", "tree-grid"}:
        parser.error("--recipe authors builds tree-cycles and tree-grid only")
    results = []
    seeds = [int(s) for s in args.tune_seed.split(",")]
    for bench in args.benchmarks.split(","):
        graphs = []  # (seed, folder, validation nodes)
        for seed in seeds:
            folder = "%s-%d" % (bench, seed) if args.recipe == "paper" else "%s-%s-%d" % (bench, args.recipe, seed)
            data = os.path.join(args.work, folder)
            excluded = set(paper_nodes(data, bench)) if args.exclude_paper_nodes else set()
            graphs.append((seed, data, validation_motif_nodes(data, excluded)))
        screen = []
        for label in args.settings.split("|"):
            per_graph = {}  # row -> one entry per graph
            for seed, data, nodes in graphs:
                with tempfile.TemporaryDirectory() as tmp:
                    for row, aucs in score(args, bench, data, nodes, label, tmp).items():
                        per_graph.setdefault(row, []).append({"seed": seed, "nodes": len(nodes), **aucs})
                        print("%-13s graph %d val (%d motif nodes) %-52s AUC khop %.3f, explained-edges %.3f" % (
                            bench, seed, len(nodes), row, aucs["khop-undirected"], aucs["explained-edges"]), flush=True)
            for row, entries in per_graph.items():
                screen.append({"setting": row, "graphs": entries,
                               **{p: statistics.mean(g[p] for g in entries) for p in ("khop-undirected", "explained-edges")}})
                if len(graphs) > 1:
                    print("%-13s mean over graphs %s %-52s AUC khop %.3f, explained-edges %.3f" % (
                        bench, seeds, row, screen[-1]["khop-undirected"], screen[-1]["explained-edges"]), flush=True)
        best = max(screen, key=lambda s: s["khop-undirected"])  # the first of equals
        print("%-13s chosen: %s" % (bench, best["setting"]), flush=True)
        results.append({"benchmark": bench, "recipe": args.recipe, "seeds": seeds,
                        "exclude_paper_nodes": args.exclude_paper_nodes, "screen": screen, "chosen": best["setting"]})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
