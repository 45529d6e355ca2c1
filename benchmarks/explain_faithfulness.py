#!/usr/bin/env python3
"""Faithfulness of every attribution method on a real dataset, and the agreement of attention
with the gradient methods (issue #14): a model with attention layers is trained by attend
(`--model`, seed `--seed`), a seeded sample of its test nodes (or all of them) is explained by
each method, and `attend explain eval` gives fidelity+ / fidelity- with the top-k edges and
features, the characterization score, ERASER's comprehensiveness and sufficiency (AOPC over
1, 5, 10, 20, 50 %), and Kendall's tau-b between every two methods' edge rankings (mean over
the nodes). Prints the table and writes JSON.

  python3 benchmarks/explain_faithfulness.py --data data/graphs/cora --model gat-cora --sample 200 --work /tmp/fc --json cora.json
  python3 benchmarks/explain_faithfulness.py --data data/graphs/aifb --model rgat-aifb --work /tmp/fa --json aifb.json
"""
import argparse
import json
import os
import random
import subprocess

METHODS = ["attention", "saliency", "input-x-gradient", "integrated-gradients", "gnnexplainer", "degree"]


def run(cmd):
    return subprocess.run(["nice", "-n", "10"] + cmd, check=True, capture_output=True, text=True).stdout


def test_node_names(folder):
    """The test split's node names as `--nodes` takes them (Planetoid ids, or AIFB's entity URIs)."""
    plain = os.path.join(folder, "split_test.txt")
    if os.path.exists(plain):
        with open(plain) as f:
            return [line.strip() for line in f if line.strip()]
    with open(os.path.join(folder, "testSet.tsv")) as f:
        return ["<%s>" % line.split("\t")[0] for line in f.readlines()[1:] if line.strip()]  # as the RDF reader names them


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attend", default="build/apps/attend")
    parser.add_argument("--data", required=True)
    parser.add_argument("--model", required=True, help="preset or model file (with attention layers)")
    parser.add_argument("--seed", type=int, default=0, help="training seed and the sample's seed")
    parser.add_argument("--sample", type=int, default=0, help="explain this many test nodes (0: all)")
    parser.add_argument("--top-k", type=int, default=6, help="the hard explanation's edges / features")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--work", required=True)
    parser.add_argument("--resume", action="store_true", help="reuse the checkpoint and explanations already in --work")
    parser.add_argument("--json", help="write the table here")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    checkpoint = os.path.join(args.work, "model.h5")
    train_summary = os.path.join(args.work, "train.json")
    if not (args.resume and os.path.exists(train_summary)):
        run([args.attend, "node-classify", "train", "--data", args.data, "--model", args.model, "--seed",
             str(args.seed), "--save", checkpoint, "--json", train_summary, "--quiet", "--threads", "1"])
    names = test_node_names(args.data)
    if 0 < args.sample < len(names):
        names = sorted(random.Random(args.seed).sample(names, args.sample))
    files = []
    for method in args.methods.split(","):
        out = os.path.join(args.work, method)
        files.append(out + ".h5")
        if args.resume and os.path.exists(out + ".h5"):
            continue
        run([args.attend, "explain", "node", "--data", args.data, "--checkpoint", checkpoint, "--nodes",
             ",".join(names), "--method", method, "--out", out, "--quiet", "--threads", "1"])
    table = os.path.join(args.work, "eval.json")
    cmd = [args.attend, "explain", "eval", "--data", args.data, "--checkpoint", checkpoint, "--top-k",
           str(args.top_k), "--json", table, "--threads", "1"]
    for f in files:
        cmd += ["--explanations", f]
    print(run(cmd))
    if args.json:
        with open(table) as f:
            result = json.load(f)
        result.update({"model": args.model, "seed": args.seed, "nodes": names})
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
