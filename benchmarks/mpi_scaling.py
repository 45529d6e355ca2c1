#!/usr/bin/env python3
"""Data-parallel scaling of `attend contacts train` and `attend node-classify train` (sampled
mini-batches) under mpirun, one thread per rank.

For each rank count K (--ranks 1,2) the script runs

    mpirun -np K attend contacts train --families TRAIN --val VAL --epochs E
           --steps-per-epoch S --crop C ... --json OUT --quiet

(with OMP_NUM_THREADS=1; root may run mpirun only with --allow-run-as-root, which the script
passes when it runs as root) and reports the training seconds the summary records, families per
second (E x S x families / seconds, validation included) and the CPU seconds of all ranks
together (user + system of the children; steadier than wall time on a shared machine). Then

    mpirun -np K attend node-classify train --data NODE_DATA --fanouts F --batch-size B
           --shards SHARDS --epochs E --patience 0 --json OUT --quiet [--model M]
           [--max-batches N] [--inference I] [--features-out-of-core --feature-cache-mb C]

and seeds per second two ways: over the mini-batch steps alone (the seeds trained / the
summary's batch_seconds: sampling, reading rows, forward, backward and the gradients'
all-gather, waiting for the slower rank included), and over the whole training time
(validation after every epoch included). With --max-batches N each epoch stops after its
first N batches: a short run on a large graph. Then it runs benchmarks' bench_shard_reduction
at each K for the gradient sizes given by --values (the contact model's and the GAT models'
parameter counts): the all-gather of one step's gradients alone and the whole gradient sum,
the communication time per step. --parts chooses which of the three to run.

The products-shaped run (about 3 minutes on a quiet 2-core machine; the graph from `attend
generate large-graph --chunk-rows 0`, docs/performance.md):

    python3 benchmarks/mpi_scaling.py --parts nodes,sums --node-data products.h5
        --node-model benchmarks/models/gat-large-graph.json --fanouts 25,10 --batch-size 1024
        --shards 2 --node-epochs 1 --max-batches 40 --inference sampled --out-of-core
        --values 9741

Usage: mpi_scaling.py [--attend build/apps/attend] [--bench build/benchmarks/bench_shard_reduction]
           [--ranks 1,2] [--parts contacts,nodes,sums] [--epochs 3] [--steps 4] [--crop 64]
           [--node-data data/graphs/cora] [--node-model gat] [--fanouts 10,5] [--batch-size 64]
           [--shards 4] [--node-epochs 20] [--max-batches 0] [--inference full]
           [--out-of-core] [--feature-cache-mb 256] [--values P1,P2,...] [--json OUT]
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def mpirun(ranks):
    command = [shutil.which("mpirun") or "mpirun", "--oversubscribe", "-np", str(ranks)]
    if os.geteuid() == 0:
        command.insert(1, "--allow-run-as-root")
    return command


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def train(args, ranks, folder):
    proteins = ROOT / "data" / "proteins"
    summary = Path(folder) / f"train{ranks}.json"
    command = mpirun(ranks) + [
        args.attend, "contacts", "train", "--families", str(proteins / "contact_train.txt"),
        "--val", str(proteins / "contact_val.txt"), "--out", str(Path(folder) / f"model{ranks}.h5"),
        "--epochs", str(args.epochs), "--steps-per-epoch", str(args.steps), "--crop", str(args.crop),
        "--quiet", "--json", str(summary)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    cpu_before, wall_before = children_cpu(), time.monotonic()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    cpu, wall = children_cpu() - cpu_before, time.monotonic() - wall_before
    result = json.loads(summary.read_text())
    families = len(result["families"])
    return {"ranks": ranks, "families": families, "seconds": result["seconds"], "wall": wall, "cpu": cpu,
            "families_per_second": args.epochs * args.steps * families / result["seconds"]}


def node_classify(args, ranks, folder):
    summary = Path(folder) / f"nodes{ranks}.json"
    command = mpirun(ranks) + [
        args.attend, "node-classify", "train", "--data", args.node_data, "--model", args.node_model,
        "--fanouts", args.fanouts, "--batch-size", str(args.batch_size), "--shards", str(args.shards),
        "--epochs", str(args.node_epochs), "--patience", "0", "--max-batches", str(args.max_batches),
        "--inference", args.inference, "--quiet", "--json", str(summary)]
    if args.out_of_core:
        command += ["--features-out-of-core", "--feature-cache-mb", str(args.feature_cache_mb)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    cpu_before, wall_before = children_cpu(), time.monotonic()
    out = subprocess.run(command, check=True, env=env, capture_output=True, text=True).stdout
    cpu, wall = children_cpu() - cpu_before, time.monotonic() - wall_before
    train_nodes = int(out.split("split ")[1].split("/")[0])  # "split TRAIN/VAL/TEST"
    per_epoch = min(train_nodes, args.batch_size * args.max_batches) if args.max_batches > 0 else train_nodes
    run = json.loads(summary.read_text())["runs"][0]
    seeds = args.node_epochs * per_epoch
    return {"ranks": ranks, "seeds_per_epoch": per_epoch, "seconds": run["seconds"], "batches": run["batches"],
            "batch_seconds": run["batch_seconds"], "wall": wall, "cpu": cpu,
            "seconds_per_step": run["batch_seconds"] / run["batches"],
            "step_seeds_per_second": seeds / run["batch_seconds"], "seeds_per_second": seeds / run["seconds"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attend", default=str(ROOT / "build" / "apps" / "attend"))
    parser.add_argument("--bench", default=str(ROOT / "build" / "benchmarks" / "bench_shard_reduction"))
    parser.add_argument("--ranks", default="1,2")
    parser.add_argument("--parts", default="contacts,nodes,sums")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--crop", type=int, default=64)
    parser.add_argument("--values", default="9741,17939,92373,1000000")
    parser.add_argument("--node-data", default=str(ROOT / "data" / "graphs" / "cora"))
    parser.add_argument("--node-model", default="gat")
    parser.add_argument("--fanouts", default="10,5",
                        help="one per message-passing layer of --node-model (every layer of the gat models)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--node-epochs", type=int, default=20)
    parser.add_argument("--max-batches", type=int, default=0)
    parser.add_argument("--inference", default="full")
    parser.add_argument("--out-of-core", action="store_true")
    parser.add_argument("--feature-cache-mb", type=float, default=256)
    parser.add_argument("--json")
    args = parser.parse_args()
    ranks = [int(k) for k in args.ranks.split(",")]
    parts = set(args.parts.split(","))

    runs, nodes, sums = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        for k in ranks if "contacts" in parts else []:
            runs.append(train(args, k, folder))
        if runs:
            print(f"contacts train: {args.epochs} epochs x {args.steps} steps, crop {args.crop}, 1 thread per rank")
            print(" ranks  families  train s  families/s  wall s  CPU s (all ranks)")
        for r in runs:
            print(f"{r['ranks']:6d}  {r['families']:8d}  {r['seconds']:7.2f}  {r['families_per_second']:10.2f}"
                  f"  {r['wall']:6.2f}  {r['cpu']:6.2f}")
        for k in ranks if "nodes" in parts else []:
            nodes.append(node_classify(args, k, folder))
        if nodes:
            print(f"node-classify train {args.node_data}: model {args.node_model}, fan-outs {args.fanouts}, "
                  f"batch {args.batch_size}, {args.shards} shards, {args.node_epochs} epochs"
                  f"{f' of {args.max_batches} batches' if args.max_batches > 0 else ''}, 1 thread per rank")
            print(" ranks  seeds/epoch  steps  s/step  seeds/s (steps)  train s  seeds/s (train)  wall s  CPU s (all ranks)")
        for r in nodes:
            print(f"{r['ranks']:6d}  {r['seeds_per_epoch']:11d}  {r['batches']:5d}  {r['seconds_per_step']:6.3f}"
                  f"  {r['step_seeds_per_second']:15.1f}  {r['seconds']:7.2f}  {r['seeds_per_second']:15.1f}"
                  f"  {r['wall']:6.2f}  {r['cpu']:6.2f}")
        for k in ranks if "sums" in parts else []:
            out = Path(folder) / f"sum{k}.json"
            subprocess.run(mpirun(k) + [args.bench, "--values", *args.values.split(","), "--json", str(out)],
                           check=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
            sums.append(json.loads(out.read_text()))
    if args.json:
        Path(args.json).write_text(
            json.dumps({"contacts_train": runs, "node_classify_train": nodes, "shard_sum": sums}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
