#!/usr/bin/env python3
"""Completeness of integrated gradients (Sundararajan et al. 2017, Prop. 1) for every node
layer that `attend explain node` explains (issue #14): one model per layer, trained by attend
on a real dataset (Cora; AIFB for the relational layers), a seeded sample of its test nodes
explained with `--method integrated-gradients` at each number of steps and each quadrature
rule. For each node the relative gap is
    |sum of attributions - (f(input) - f(baseline))| / |f(input) - f(baseline)|
on the features (zero baseline) and on the edges (edge mask 1 against 0); the table gives its
median and maximum over the sample. With --max-gap the adaptive refinement of `explain node
--max-gap` is run too (steps doubled per node until the gap is below the bound or the cap),
with the steps it used.

graphormer is not in the table: it attends over every node, so a node has no computation
graph and `explain node` refuses it.

  python3 benchmarks/ig_completeness.py --attend build/apps/attend --work /tmp/igc --json igc.json
"""
import argparse
import json
import os
import random
import statistics
import subprocess

# (layer, dataset, model preset or file under benchmarks/models)
MODELS = [
    ("gat", "cora", "gat-cora"),
    ("gatv2", "cora", "gatv2"),
    ("graph_transformer", "cora", "graph-transformer"),
    ("gcn", "cora", "gcn-cora.json"),
    ("node_linear", "cora", "mlp-cora.json"),
    ("rgcn", "aifb", "rgcn-aifb"),
    ("rgat", "aifb", "rgat-aifb"),
    # The GNNExplainer benchmark model (sum aggregation, ReLU, normalised hidden rows) on
    # `attend generate ba-shapes --seed SEED`, where ReLU kinks left gaps of several per cent.
    ("gcn", "ba-shapes", "ba-shapes"),
]


def test_node_names(folder):
    """The test split's node names as `--nodes` takes them (Planetoid ids, or AIFB's entity URIs)."""
    plain = os.path.join(folder, "split_test.txt")
    if os.path.exists(plain):
        with open(plain) as f:
            return [line.strip() for line in f if line.strip()]
    with open(os.path.join(folder, "testSet.tsv")) as f:
        return ["<%s>" % line.split("\t")[0] for line in f.readlines()[1:] if line.strip()]  # as the RDF reader names them


def run(cmd):
    subprocess.run(["nice", "-n", "10"] + cmd, check=True, capture_output=True, text=True)


def relative_gaps(summary, kind):
    gaps = []
    for node in summary["nodes"]:
        if kind not in node:
            continue
        change = abs(node["log_probability"] - node[kind]["baseline_log_probability"])
        gaps.append(abs(node[kind]["completeness_gap"]) / max(change, 1e-12))
    return gaps


def explain(args, data, checkpoint, nodes, prefix, extra):
    summary = prefix + ".json"
    if args.resume and os.path.exists(summary):
        with open(summary) as f:
            return json.load(f)
    run([args.attend, "explain", "node", "--data", data, "--checkpoint", checkpoint, "--nodes", ",".join(nodes),
         "--method", "integrated-gradients", "--out", prefix, "--json", summary, "--quiet", "--threads", "1"] + extra)
    with open(summary) as f:
        return json.load(f)


def summarise(summary):
    row = {}
    for kind in ("features", "edges"):
        gaps = relative_gaps(summary, kind)
        if gaps:
            row[kind] = {"median": statistics.median(gaps), "max": max(gaps), "nodes": len(gaps)}
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attend", default="build/apps/attend")
    parser.add_argument("--data", default="data/graphs", help="folder holding cora/ and aifb/")
    parser.add_argument("--models", default="benchmarks/models", help="folder of the model files")
    parser.add_argument("--work", required=True, help="folder for checkpoints and explanations")
    parser.add_argument("--nodes", type=int, default=20, help="test nodes sampled per model")
    parser.add_argument("--relational-nodes", type=int, default=5,
                        help="test nodes sampled on AIFB (a node's two-hop graph there holds most of the graph)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample and of the training")
    parser.add_argument("--steps", default="50,200", help="comma-separated step counts")
    parser.add_argument("--rules", default="midpoint,gauss-legendre")
    parser.add_argument("--max-gap", type=float, help="also run explain node --max-gap with this bound")
    parser.add_argument("--max-steps", type=int, default=1600, help="the step cap of --max-gap")
    parser.add_argument("--layers", help="comma-separated subset of the layers")
    parser.add_argument("--resume", action="store_true", help="reuse the checkpoints and summaries already in --work")
    parser.add_argument("--json", help="write the table here")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    wanted = set(args.layers.split(",")) if args.layers else None
    results = []
    for layer, dataset, model in MODELS:
        if wanted is not None and layer not in wanted:
            continue
        data = os.path.join(args.data, dataset)
        if dataset == "ba-shapes":
            data = os.path.join(args.work, "ba-shapes-%d" % args.seed)
            if not os.path.exists(data):
                run([args.attend, "generate", "ba-shapes", "--seed", str(args.seed), "--out", data, "--quiet"])
            layer = "gcn-ba-shapes"
        model_arg = os.path.join(args.models, model) if model.endswith(".json") else model
        checkpoint = os.path.join(args.work, layer + ".h5")
        train_summary = os.path.join(args.work, layer + ".train.json")
        if not (args.resume and os.path.exists(train_summary)):
            run([args.attend, "node-classify", "train", "--data", data, "--model", model_arg, "--seed", str(args.seed),
                 "--save", checkpoint, "--json", train_summary, "--quiet", "--threads", "1"])
        with open(train_summary) as f:
            test_accuracy = json.load(f)["runs"][0]["test_acc"]
        names = test_node_names(data)
        count = args.relational_nodes if dataset == "aifb" else args.nodes
        nodes = sorted(random.Random(args.seed).sample(names, min(count, len(names))))
        entry = {"layer": layer, "dataset": dataset, "model": model, "test_accuracy": test_accuracy,
                 "nodes": nodes, "rows": []}
        for rule in args.rules.split(","):
            for steps in [int(s) for s in args.steps.split(",")]:
                prefix = os.path.join(args.work, "%s.%s.%d" % (layer, rule, steps))
                summary = explain(args, data, checkpoint, nodes, prefix, ["--rule", rule, "--steps", str(steps)])
                entry["rows"].append(dict(rule=rule, steps=steps, **summarise(summary)))
            if args.max_gap is not None:
                prefix = os.path.join(args.work, "%s.%s.adaptive" % (layer, rule))
                plain = os.path.join(args.work, "%s.%s.50.json" % (layer, rule))
                within = os.path.exists(plain) and all(r["max"] <= args.max_gap for r in summarise(json.load(open(plain))).values())
                # Every node within the bound at 50 steps: the adaptive run is that run, bit for bit.
                summary = json.load(open(plain)) if within else explain(
                    args, data, checkpoint, nodes, prefix,
                    ["--rule", rule, "--steps", "50", "--max-gap", str(args.max_gap), "--max-steps", str(args.max_steps)])
                used = [n[kind]["steps"] for n in summary["nodes"] for kind in ("features", "edges") if kind in n]
                entry["rows"].append(dict(rule=rule, steps="adaptive", max_gap=args.max_gap,
                                          steps_median=statistics.median(used), steps_max=max(used),
                                          **summarise(summary)))
        results.append(entry)
        print_entry(entry)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "sample": args.nodes, "models": results}, f, indent=1)


def percent(row, kind, key):
    return "%.4f" % (100 * row[kind][key]) if kind in row else "-"


def print_entry(e):
    print("%s on %s (test accuracy %.1f %%), %d test nodes" % (e["layer"], e["dataset"], 100 * e["test_accuracy"],
                                                             len(e["nodes"])))
    print("  rule            steps       features median / max %   edges median / max %")
    for r in e["rows"]:
        steps = str(r["steps"]) if r["steps"] != "adaptive" else "<=%.3g: %g..%g" % (r["max_gap"], r["steps_median"],
                                                                                    r["steps_max"])
        print("  %-15s %-11s %10s / %-10s %10s / %s" % (r["rule"], steps, percent(r, "features", "median"),
                                                      percent(r, "features", "max"), percent(r, "edges", "median"),
                                                      percent(r, "edges", "max")))


if __name__ == "__main__":
    main()
