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
           --shards SHARDS --epochs E --patience 0 --json OUT --quiet

and seeds per second (E x training nodes / seconds, the validation scoring after every epoch
included). Then it
runs benchmarks' bench_shard_reduction at each K for the gradient sizes given by --values
(the contact model's and the GAT presets' parameter counts) and prints its table.

Usage: mpi_scaling.py [--attend build/apps/attend] [--bench build/benchmarks/bench_shard_reduction]
           [--ranks 1,2] [--epochs 3] [--steps 4] [--crop 64] [--node-data data/graphs/cora]
           [--fanouts 10,5] [--batch-size 64] [--shards 4] [--node-epochs 20] [--json OUT]
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
        args.attend, "node-classify", "train", "--data", args.node_data, "--fanouts", args.fanouts,
        "--batch-size", str(args.batch_size), "--shards", str(args.shards), "--epochs", str(args.node_epochs),
        "--patience", "0", "--quiet", "--json", str(summary)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    cpu_before, wall_before = children_cpu(), time.monotonic()
    out = subprocess.run(command, check=True, env=env, capture_output=True, text=True).stdout
    cpu, wall = children_cpu() - cpu_before, time.monotonic() - wall_before
    seeds = int(out.split("split ")[1].split("/")[0])  # "split TRAIN/VAL/TEST"
    seconds = json.loads(summary.read_text())["runs"][0]["seconds"]
    return {"ranks": ranks, "seeds_per_epoch": seeds, "seconds": seconds, "wall": wall, "cpu": cpu,
            "seeds_per_second": args.node_epochs * seeds / seconds}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attend", default=str(ROOT / "build" / "apps" / "attend"))
    parser.add_argument("--bench", default=str(ROOT / "build" / "benchmarks" / "bench_shard_reduction"))
    parser.add_argument("--ranks", default="1,2")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--crop", type=int, default=64)
    parser.add_argument("--values", default="9741,17939,92373,1000000")
    parser.add_argument("--node-data", default=str(ROOT / "data" / "graphs" / "cora"))
    parser.add_argument("--fanouts", default="10,5")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--node-epochs", type=int, default=20)
    parser.add_argument("--json")
    args = parser.parse_args()
    ranks = [int(k) for k in args.ranks.split(",")]

    runs, nodes, sums = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        for k in ranks:
            runs.append(train(args, k, folder))
        print(f"contacts train: {args.epochs} epochs x {args.steps} steps, crop {args.crop}, 1 thread per rank")
        print(" ranks  families  train s  families/s  wall s  CPU s (all ranks)")
        for r in runs:
            print(f"{r['ranks']:6d}  {r['families']:8d}  {r['seconds']:7.2f}  {r['families_per_second']:10.2f}"
                  f"  {r['wall']:6.2f}  {r['cpu']:6.2f}")
        for k in ranks:
            nodes.append(node_classify(args, k, folder))
        print(f"node-classify train {args.node_data}: fan-outs {args.fanouts}, batch {args.batch_size}, "
              f"{args.shards} shards, {args.node_epochs} epochs, 1 thread per rank")
        print(" ranks  seeds/epoch  train s  seeds/s  wall s  CPU s (all ranks)")
        for r in nodes:
            print(f"{r['ranks']:6d}  {r['seeds_per_epoch']:11d}  {r['seconds']:7.2f}  {r['seeds_per_second']:7.1f}"
                  f"  {r['wall']:6.2f}  {r['cpu']:6.2f}")
        for k in ranks:
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
