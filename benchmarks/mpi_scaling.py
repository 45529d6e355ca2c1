#!/usr/bin/env python3
"""Data-parallel scaling of `attend contacts train` under mpirun, one thread per rank.

For each rank count K (--ranks 1,2) the script runs

    mpirun -np K attend contacts train --families TRAIN --val VAL --epochs E
           --steps-per-epoch S --crop C ... --json OUT --quiet

(with OMP_NUM_THREADS=1; root may run mpirun only with --allow-run-as-root, which the script
passes when it runs as root) and reports the training seconds the summary records, families per
second (E x S x families / seconds, validation included) and the CPU seconds of all ranks
together (user + system of the children; steadier than wall time on a shared machine). Then it
runs benchmarks' bench_shard_reduction at each K for the gradient sizes given by --values
(the contact model's and the GAT presets' parameter counts) and prints its table.

Usage: mpi_scaling.py [--attend build/apps/attend] [--bench build/benchmarks/bench_shard_reduction]
           [--ranks 1,2] [--epochs 3] [--steps 4] [--crop 64] [--json OUT]
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attend", default=str(ROOT / "build" / "apps" / "attend"))
    parser.add_argument("--bench", default=str(ROOT / "build" / "benchmarks" / "bench_shard_reduction"))
    parser.add_argument("--ranks", default="1,2")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--crop", type=int, default=64)
    parser.add_argument("--values", default="9741,17939,92373,1000000")
    parser.add_argument("--json")
    args = parser.parse_args()
    ranks = [int(k) for k in args.ranks.split(",")]

    runs, sums = [], []
    with tempfile.TemporaryDirectory() as folder:
        for k in ranks:
            runs.append(train(args, k, folder))
        print(f"contacts train: {args.epochs} epochs x {args.steps} steps, crop {args.crop}, 1 thread per rank")
        print(" ranks  families  train s  families/s  wall s  CPU s (all ranks)")
        for r in runs:
            print(f"{r['ranks']:6d}  {r['families']:8d}  {r['seconds']:7.2f}  {r['families_per_second']:10.2f}"
                  f"  {r['wall']:6.2f}  {r['cpu']:6.2f}")
        for k in ranks:
            out = Path(folder) / f"sum{k}.json"
            subprocess.run(mpirun(k) + [args.bench, "--values", *args.values.split(","), "--json", str(out)],
                           check=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
            sums.append(json.loads(out.read_text()))
    if args.json:
        Path(args.json).write_text(json.dumps({"contacts_train": runs, "shard_sum": sums}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
