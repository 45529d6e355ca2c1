#!/usr/bin/env python3
"""The cost of calling attend from Python (issue #16): GAT on Cora trained through
attend.NodeClassifier.fit, against the same training run by `attend node-classify train`
(same preset, seed, epochs and threads). Prints a table and writes JSON.

The training time inside the library (the run's `seconds`, the same clock in both front ends)
is compared with the wall time of the whole call: for Python, fit() alone (the Graph is built
before); for the command line, the process (which also parses the dataset's text files).

  PYTHONPATH=build/python python3 benchmarks/python_overhead.py --build build [--epochs 200]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build", help="build folder (its python/ is put on sys.path)")
    parser.add_argument("--data", default="data/graphs/cora", help="the Cora folder")
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import attend

    graph = attend.load_graph(args.data)
    rows = []
    for repeat in range(args.repeats):
        model = attend.NodeClassifier("gat-cora")
        start = time.perf_counter()
        run = model.fit(graph, epochs=args.epochs, seed=0, threads=args.threads)
        python_wall = time.perf_counter() - start
        with tempfile.TemporaryDirectory() as tmp:
            summary = os.path.join(tmp, "run.json")
            start = time.perf_counter()
            subprocess.run([os.path.join(args.build, "apps", "attend"), "node-classify", "train", "--data", args.data,
                            "--model", "gat-cora", "--epochs", str(args.epochs), "--seed", "0", "--threads",
                            str(args.threads), "--quiet", "--json", summary], check=True, capture_output=True)
            cli_wall = time.perf_counter() - start
            with open(summary) as f:
                cli_run = json.load(f)["runs"][0]
        rows.append({"python_fit_s": python_wall, "python_train_s": run["seconds"], "cli_process_s": cli_wall,
                     "cli_train_s": cli_run["seconds"], "same_test_acc": run["test_acc"] == cli_run["test_acc"]})
    print("repeat  python fit s  (in library)  cli process s  (in library)  overhead of the Python call")
    for i, r in enumerate(rows):
        overhead = r["python_fit_s"] / r["python_train_s"] - 1.0
        print("%6d  %12.3f  %12.3f  %13.3f  %12.3f  %6.2f %%" % (i + 1, r["python_fit_s"], r["python_train_s"],
                                                                r["cli_process_s"], r["cli_train_s"], 100 * overhead))
    best = min(rows, key=lambda r: r["python_fit_s"])
    print("best python fit / best cli training: %.3f" % (best["python_fit_s"] / min(r["cli_train_s"] for r in rows)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"epochs": args.epochs, "threads": args.threads, "runs": rows}, f, indent=1)


if __name__ == "__main__":
    main()
