#!/usr/bin/env python3
"""Side-by-side benchmark: attend's bench programs against PyTorch references.

Usage: python3 benchmarks/compare.py [--quick] [--threads 2] [--build build] [--only NAMES] [--pyg PATH] --json OUT.json

Each side runs in a process of its own per workload and times the median of repeated runs
inside that one invocation; each side's peak memory is the ru_maxrss of that fresh child
(os.wait4), so neither side's inputs or allocator history leak into the other's number.
The reference is benchmarks/reference_torch.py run with an interpreter that has torch
(Debian's /usr/bin/python3 with python3-torch, or any python3 given by --torch-python); with
none, attend is reported alone.

Workloads
  gat_cora        GAT layer fwd+bwd, 2708 nodes, 10556 random edges + self-loops, 1433 -> 8 x 8
  gat_100k        GAT layer fwd+bwd, 100k nodes, 1M edges + self-loops, 128 -> 8 x 16
  gat_1m          GAT layer fwd+bwd, 1M nodes, 10M edges + self-loops, 64 -> 4 x 16
                  (skipped under --quick, or when the reference would not fit in memory)
  dense_fwd_N     dense attention forward, B=1, H=8, d=64, N = 512, 2048, 4096 (not 4096
                  under --quick)
  dense_fwdbwd_N  dense attention forward + backward, same shapes
  evoformer_block_fwd     one Evoformer block forward (inference), n_seq 128, n_res 256,
                  c_m = c_z = 64, 8 MSA / 4 pair heads: bench_evoformer (block intermediates
                  recomputed in the backward) against reference_evoformer_torch.py
  evoformer_block_fwdbwd  the same block forward + backward (training mode, dropout on)
                  (both skipped under --quick)
  gat_model_epoch_pyg  one full-batch training epoch of a two-layer GAT (benchmarks/models/gat-epoch.json:
                  8 heads x 8, ELU, 1 head; dropout 0.6 on inputs and attention; Adam lr 0.005,
                  weight decay 5e-4) on `attend generate large-graph --nodes 100000 --edges 500000
                  --features 128 --seed 0` (1M directed edges, 47 classes): bench_gat_epoch against
                  PyTorch Geometric's GATConv (reference_pyg.py) from the same initial weights;
                  only with --pyg PATH, a PyTorch Geometric source tree (skipped with a note
                  without). Before a speedup is printed the two models must have the same
                  parameters (names, shapes) and the same evaluation-mode loss of those weights
                  and after one Adam step without dropout (to 1e-4, relative); ms columns are per epoch (median after a warm-up), the row
                  also gives CPU ms per epoch
  gat_100k_scaling  attend's GAT 100k fwd+bwd at 1 thread (reference_ms column) against
                  --threads threads (attend_ms column); speedup is the scaling ratio
  explain_ig      explaining 100 BA-Shapes motif nodes with integrated gradients (50 midpoint
                  steps, edges and features); ms columns are per explained node
  explain_gnnexplainer  the same nodes with GNNExplainer (PyG's defaults, 100 epochs)
                  Both sides explain the same nodes with the same weights: `attend generate
                  ba-shapes --seed 0` and the ba-shapes preset trained by `attend node-classify
                  train --seed 0` in a temporary folder; attend is bench_explain_nodes
                  (explain_node, the path of `attend explain node` without its files), the
                  reference reference_explain_torch.py (the same computation graphs, steps and
                  GNNExplainer settings). Both run on 1 thread (a computation graph of about 50
                  nodes is too small to split). Before a speedup is printed the attributions
                  are compared: integrated gradients must agree to 1e-4 of the largest score,
                  GNNExplainer's masks (which the reference starts from attend's random
                  numbers) to 1e-3; the row also gives the median Spearman correlation of each
                  node's edge scores between the sides.
                  Each row also gives CPU ms per node (cpu_ms columns; steadier than wall time
                  on a loaded machine) and their ratio.
The reference's BLAS is checked before anything is timed: torch.mm on 2048^3 (reference_torch.py
gemm) must run at least half as fast as attend::gemm on the same threads and agree with a
float64 product; otherwise the reference is crippled (torch on netlib's reference BLAS runs
at about 5 GFLOP/s) and compare.py stops with exit 2 instead of printing speedups against it
(--allow-slow-reference times both sides and prints no speedup). OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE are removed from both sides' environments (a machine may pin OpenBLAS to an
older kernel family with them; a user's torch runs without, and attend::gemm's large products
go through OpenBLAS too), unless --keep-openblas-env.
machine.attend_gemm_gflops and machine.reference_gemm_gflops are the two rates; dense and
Evoformer rows give attend's rate as a share of the better of the two.
Each side's OpenMP threads wait as they would for a user: attend's programs bound libgomp's
spinning themselves, torch keeps libgomp's default (an OMP_WAIT_POLICY or GOMP_SPINCOUNT in the
environment reaches both sides; --passive sets OMP_WAIT_POLICY=passive for both).
machine.attend_openmp_waiting and machine.reference_openmp_waiting record what each ran with,
machine.other_jobs_busy_cores how many cores other processes kept busy at the start.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "reference_torch.py")
REFERENCE_EVOFORMER = os.path.join(HERE, "reference_evoformer_torch.py")
REFERENCE_EXPLAIN = os.path.join(HERE, "reference_explain_torch.py")
REFERENCE_PYG = os.path.join(HERE, "reference_pyg.py")
MODEL_EPOCH = os.path.join(HERE, "models", "gat-epoch.json")
# The graph of gat_model_epoch_pyg: 500k undirected pairs are 1M directed edges.
MODEL_EPOCH_GRAPH = ["--nodes", "100000", "--edges", "500000", "--features", "128", "--seed", "0"]
# The two sides' evaluation-mode losses of the same initial weights, and after one Adam step
# without dropout, must agree to this (relative).
MAX_MODEL_EPOCH_LOSS_ERROR = 1e-4
# Integrated gradients of the two sides must agree to this share of the largest attribution,
# GNNExplainer's masks (in [0, 1], after 100 Adam steps in float) to this absolute error.
MAX_EXPLAIN_IG_ERROR = 1e-4
MAX_EXPLAIN_MASK_ERROR = 1e-3
EXPLAIN_NODES = 100
# A reference whose GEMM runs below this share of attend's is not an honest baseline.
MIN_REFERENCE_GEMM_SHARE = 0.5
# torch.mm must agree with a float64 product to this relative error (a wrong kernel is fast).
MAX_REFERENCE_GEMM_ERROR = 1e-4
GEMM_N = 2048
# Set on some machines to pin OpenBLAS to an older kernel family; removed for the reference.
OPENBLAS_OVERRIDES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
EVOFORMER_SHAPE = ["--n-seq", "128", "--n-res", "256", "--c-m", "64", "--c-z", "64", "--heads-msa", "8",
                   "--heads-pair", "4"]


def run_child(cmd, env):
    """Runs cmd to completion; returns (stdout text, peak RSS in MiB) or raises."""
    with tempfile.TemporaryFile(mode="w+") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, env=env, text=True)
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {err.strip()[-500:]}")
        out.seek(0)
        return out.read(), usage.ru_maxrss / 1024.0  # KiB on Linux


def find_torch_python(given):
    candidates = [given] if given else [sys.executable, "/usr/bin/python3", shutil.which("python3")]
    for py in candidates:
        if py and os.path.exists(py):
            ok = subprocess.run([py, "-c", "import torch"], capture_output=True).returncode == 0
            if ok:
                return py
    return None


def available_mib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024.0
    return float("inf")


def load_average():
    return os.getloadavg()[0]


def busy_cores(seconds=1.0):
    """Cores that other processes keep busy: /proc/stat's non-idle time over `seconds` while this
    script sleeps. Unlike the 1-minute load average it does not lag, and it does not count the
    benchmark rows that this script ran just before."""
    def sample():
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
        return sum(fields), fields[3] + fields[4]  # total, idle + iowait
    total0, idle0 = sample()
    time.sleep(seconds)
    total1, idle1 = sample()
    if total1 == total0:
        return 0.0
    return os.cpu_count() * (1.0 - (idle1 - idle0) / (total1 - total0))


def openmp_waiting(cmd, env):
    """How libgomp makes `cmd`'s waiting threads wait, as it printed its settings when the
    program started (OMP_DISPLAY_ENV=verbose; attend's programs print twice, the second time
    after choosing their own): "GOMP_SPINCOUNT=N" (0 is passive), or None when `cmd` loaded
    no libgomp."""
    run = subprocess.run(cmd, env=dict(env, OMP_DISPLAY_ENV="verbose"), capture_output=True, text=True)
    counts = re.findall(r"^  GOMP_SPINCOUNT = '(\d+)'$", run.stderr, re.M)
    return f"GOMP_SPINCOUNT={counts[-1]}" if counts else None


class Runner:
    def __init__(self, args, torch_python):
        self.args = args
        self.torch_python = torch_python
        self.bench_sparse = os.path.join(args.build, "benchmarks", "bench_sparse_attention")
        self.bench_dense = os.path.join(args.build, "benchmarks", "bench_dense_attention")
        for b in (self.bench_sparse, self.bench_dense):
            if not os.path.exists(b):
                sys.exit(f"{b} not found: build first (cmake --build {args.build})")

    def env(self, threads):
        """Both sides' environment: attend's products go through OpenBLAS as the reference's do."""
        e = dict(os.environ, OMP_NUM_THREADS=str(threads))
        if self.args.passive:
            e["OMP_WAIT_POLICY"] = "passive"
        if not self.args.keep_openblas_env:
            for name in OPENBLAS_OVERRIDES:
                e.pop(name, None)
        return e

    def reference_gemm(self, threads):
        """torch.mm on GEMM_N^3: {"gflops", "blas", "max_relative_error"}, or None without torch."""
        if not self.torch_python:
            return None
        cmd = [self.torch_python, REFERENCE, "gemm", "--n", str(GEMM_N), "--threads", str(threads),
               "--repeats", "5"]
        out, _ = run_child(cmd, self.env(threads))
        return json.loads(out.strip().splitlines()[-1])

    def attend_gat(self, shape, threads, repeats):
        with tempfile.NamedTemporaryFile(suffix=".json") as j:
            cmd = [self.bench_sparse, "--nodes", str(shape["nodes"]), "--edges", str(shape["edges"]),
                   "--in-features", str(shape["features"]), "--heads", str(shape["heads"]),
                   "--channels", str(shape["channels"]), "--threads", str(threads),
                   "--repeats", str(repeats), "--training-only", "--json", j.name]
            _, rss = run_child(cmd, self.env(threads))
            data = json.load(open(j.name))
        return data["results"][0]["forward_backward_ms"], rss

    def attend_dense(self, n, measure, threads, repeats):
        with tempfile.NamedTemporaryFile(suffix=".json") as j:
            cmd = [self.bench_dense, "--n", str(n), "--heads", "8", "--dim", "64", "--batch", "1",
                   "--threads", str(threads), "--repeats", str(repeats), "--measure", measure,
                   "--json", j.name]
            _, rss = run_child(cmd, self.env(threads))
            data = json.load(open(j.name))
        key = {"forward": "forward_ms", "forward_backward": "forward_backward_ms",
               "gemm": "gemm_gflops"}[measure]
        return data[key], rss

    def attend_evoformer(self, threads, repeats):
        """bench_evoformer once: {"fwd": (ms, peak MiB, GFLOP/s), "fwdbwd": (...)}; the peaks are the
        process's own after each phase (the forward runs first), the rates its useful FLOPs
        (benchmarks/evoformer_flops.hpp) per wall second."""
        bench = os.path.join(self.args.build, "benchmarks", "bench_evoformer")
        if not os.path.exists(bench):
            sys.exit(f"{bench} not found: build first (cmake --build {self.args.build})")
        with tempfile.NamedTemporaryFile(suffix=".json") as j:
            cmd = [bench] + EVOFORMER_SHAPE + ["--threads", str(threads), "--repeats", str(repeats), "--json", j.name]
            run_child(cmd, self.env(threads))
            data = json.load(open(j.name))
        return {"fwd": (data["forward_ms"], data["peak_rss_mib_forward"], data["forward_gflop_per_s"]),
                "fwdbwd": (data["forward_backward_ms"], data["peak_rss_mib_forward_backward"],
                           data["forward_backward_gflop_per_s"])}

    def reference_evoformer(self, mode, threads, repeats):
        if not self.torch_python:
            return None, None
        cmd = [self.torch_python, REFERENCE_EVOFORMER, "--mode", mode, "--threads", str(threads),
               "--repeats", str(repeats)] + EVOFORMER_SHAPE
        out, rss = run_child(cmd, self.env(threads))
        return json.loads(out.strip().splitlines()[-1])["ms"], rss

    def reference(self, workload, extra, threads, repeats):
        if not self.torch_python:
            return None, None
        cmd = [self.torch_python, REFERENCE, workload, "--threads", str(threads),
               "--repeats", str(repeats)] + extra
        out, rss = run_child(cmd, self.env(threads))
        return json.loads(out.strip().splitlines()[-1])["ms"], rss


def average_ranks(values):
    """Ranks 1..n of values, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def spearman(a, b):
    """Spearman's rank correlation of two equal-length lists (None when either is constant)."""
    ra, rb = average_ranks(a), average_ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va, vb = sum((x - ma) ** 2 for x in ra), sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va > 0 and vb > 0 else None


def explanation_agreement(attend_scores, reference_scores):
    """Compares two --scores files node by node: the same nodes, classes and explained edges;
    returns {"max_abs_error", "max_abs_score", "median_spearman", "min_spearman"} (edge scores
    and feature scores pooled for the errors, edge scores per node for the correlations)."""
    a = {x["node"]: x for x in json.load(open(attend_scores))["explanations"]}
    r = {x["node"]: x for x in json.load(open(reference_scores))["explanations"]}
    if sorted(a) != sorted(r):
        raise RuntimeError(f"the sides explained different nodes: {sorted(a)[:5]}... against {sorted(r)[:5]}...")
    error, largest, rhos = 0.0, 0.0, []
    for node, x in a.items():
        y = r[node]
        if x["class"] != y["class"]:
            raise RuntimeError(f"node {node}: attend explains class {x['class']}, the reference {y['class']}")
        ex = {(s, t): v for s, t, v in x["edges"]}
        ey = {(s, t): v for s, t, v in y["edges"]}
        if sorted(ex) != sorted(ey):
            raise RuntimeError(f"node {node}: the sides explain different edges ({len(ex)} and {len(ey)})")
        keys = sorted(ex)
        pairs = [(ex[k], ey[k]) for k in keys] + list(zip(x["features"], y["features"]))
        error = max([error] + [abs(u - v) for u, v in pairs])
        largest = max([largest] + [abs(u) for u, _ in pairs])
        rho = spearman([ex[k] for k in keys], [ey[k] for k in keys]) if len(keys) > 1 else None
        if rho is not None:
            rhos.append(rho)
    rhos.sort()
    return {"max_abs_error": error, "max_abs_score": largest,
            "median_spearman": rhos[len(rhos) // 2] if rhos else None, "min_spearman": rhos[0] if rhos else None}


def explain_rows(runner, repeats, work):
    """The explain_ig and explain_gnnexplainer rows (issue #14), on 1 thread each side."""
    attend = os.path.join(runner.args.build, "apps", "attend")
    bench = os.path.join(runner.args.build, "benchmarks", "bench_explain_nodes")
    for b in (attend, bench):
        if not os.path.exists(b):
            sys.exit(f"{b} not found: build first (cmake --build {runner.args.build})")
    data, model = os.path.join(work, "ba-shapes"), os.path.join(work, "ba-shapes.h5")
    run_child([attend, "generate", "ba-shapes", "--seed", "0", "--out", data], runner.env(1))
    run_child([attend, "node-classify", "train", "--data", data, "--model", "ba-shapes", "--seed", "0", "--save", model],
              runner.env(1))
    rows = []
    for method, tag in (("integrated-gradients", "ig"), ("gnnexplainer", "gnnexplainer")):
        common = ["--data", data, "--checkpoint", model, "--method", method, "--nodes", str(EXPLAIN_NODES),
                  "--steps", "50", "--repeats", str(repeats)]
        a_scores, r_scores = os.path.join(work, f"{tag}.attend.json"), os.path.join(work, f"{tag}.reference.json")
        a_json = os.path.join(work, f"{tag}.attend.timing.json")
        _, a_rss = run_child([bench] + common + ["--threads", "1", "--scores", a_scores, "--json", a_json], runner.env(1))
        a = json.load(open(a_json))
        r, r_rss, agreement = None, None, None
        if runner.torch_python:
            out, r_rss = run_child([runner.torch_python, REFERENCE_EXPLAIN] + common +
                                   ["--threads", "1", "--scores", r_scores], runner.env(1))
            r = json.loads(out.strip().splitlines()[-1])
            agreement = explanation_agreement(a_scores, r_scores)
        note = (f"{EXPLAIN_NODES} BA-Shapes motif nodes, {method}, 1 thread each side; ms per node")
        x = row(f"explain_{tag}", a["ms_per_node"], r["ms_per_node"] if r else None, a_rss, r_rss, note)
        x["attend_cpu_ms"] = a["cpu_ms_per_node"]
        x["reference_cpu_ms"] = r["cpu_ms_per_node"] if r else None
        x["cpu_speedup"] = x["reference_cpu_ms"] / x["attend_cpu_ms"] if r else None
        x["agreement"] = agreement
        bound = None
        if agreement:
            bound = MAX_EXPLAIN_IG_ERROR * agreement["max_abs_score"] if tag == "ig" else MAX_EXPLAIN_MASK_ERROR
        if bound is not None and agreement["max_abs_error"] > bound:
            x["note"] += (f"; NOT THE SAME WORK: the attributions differ by {agreement['max_abs_error']:.2e} "
                          f"(bound {bound:.2e}), no speedup printed")
            x["speedup"] = x["cpu_speedup"] = None
        rows.append(x)
        print(f"  explain_{tag}: attend {a['ms_per_node']:.1f} ms/node (CPU {a['cpu_ms_per_node']:.1f}), reference "
              f"{fmt(r['ms_per_node'] if r else None, '.1f')} ms/node (CPU {fmt(x['reference_cpu_ms'], '.1f')}); "
              f"agreement {agreement}", flush=True)
    return rows


def check_pyg_tree(path):
    """Exits 2 unless `path` (--pyg) is a PyTorch Geometric source tree."""
    if not os.path.isfile(os.path.join(path, "torch_geometric", "__init__.py")):
        print(f"compare.py: --pyg {path}: not a PyTorch Geometric source tree (no torch_geometric/__init__.py "
              "in it); give the folder that holds torch_geometric/, e.g. one `git archive 2.3.1` of "
              "pyg-team/pytorch_geometric extracted", file=sys.stderr)
        sys.exit(2)


def gat_model_epoch_row(runner, threads, repeats, work):
    """The gat_model_epoch_pyg row (issue #17): attend's full GAT training epoch against PyTorch
    Geometric's, from the same initial weights on the same graph file."""
    attend = os.path.join(runner.args.build, "apps", "attend")
    bench = os.path.join(runner.args.build, "benchmarks", "bench_gat_epoch")
    for b in (attend, bench):
        if not os.path.exists(b):
            sys.exit(f"{b} not found: build first (cmake --build {runner.args.build})")
    graph, init, a_check, a_json = (os.path.join(work, name) for name in
                                    ("graph.h5", "init.h5", "attend.check.json", "attend.json"))
    run_child([attend, "generate", "large-graph"] + MODEL_EPOCH_GRAPH + ["--chunk-rows", "0", "--quiet", "--out", graph],
              runner.env(1))
    common = ["--data", graph, "--model", MODEL_EPOCH, "--threads", str(threads)]
    # The checks run in processes of their own, so that each timed process's peak is its epochs'.
    run_child([bench] + common + ["--check", "--init-checkpoint", init, "--json", a_check], runner.env(threads))
    _, a_rss = run_child([bench] + common + ["--repeats", str(repeats), "--json", a_json], runner.env(threads))
    a, a_check = json.load(open(a_json)), json.load(open(a_check))
    r, r_rss, check = None, None, None
    if runner.torch_python:
        reference = [runner.torch_python, REFERENCE_PYG, "--pyg", runner.args.pyg, "--checkpoint", init] + common
        out, _ = run_child(reference + ["--check"], runner.env(threads))
        r_check = json.loads(out.strip().splitlines()[-1])
        out, r_rss = run_child(reference + ["--repeats", str(repeats)], runner.env(threads))
        r = json.loads(out.strip().splitlines()[-1])
        check = {"parameter_count": [a["parameter_count"], r["parameter_count"]],
                 "same_parameters": a["parameters"] == r["parameters"],
                 "initial_loss": [a_check["initial_loss"], r_check["initial_loss"]],
                 "step_loss": [a_check["step_loss"], r_check["step_loss"]], "pyg_version": r["pyg_version"]}
    x = row("gat_model_epoch_pyg", a["epoch_ms"], r["ms"] if r else None, a_rss, r_rss,
            f"full GAT training epoch ({os.path.basename(MODEL_EPOCH)}), 100k nodes, 1M edges, 128 features; "
            f"ms per epoch; reference PyTorch Geometric {r['pyg_version'] if r else '-'} GATConv")
    x["attend_epoch_cpu_ms"] = a["epoch_cpu_ms"]
    x["reference_epoch_cpu_ms"] = r["cpu_ms"] if r else None
    x["model_check"] = check
    if check:
        loss_error = max(abs(u - v) / abs(v) for u, v in (check["initial_loss"], check["step_loss"]))
        if not check["same_parameters"] or loss_error > MAX_MODEL_EPOCH_LOSS_ERROR:
            x["note"] += (f"; NOT THE SAME MODEL: parameters {'equal' if check['same_parameters'] else 'differ'}, "
                          f"losses (attend, reference) initial {check['initial_loss']}, after a step "
                          f"{check['step_loss']}; no speedup printed")
            x["speedup"] = None
    print(f"  gat_model_epoch_pyg: attend {a['epoch_ms']:.0f} ms/epoch (CPU {a['epoch_cpu_ms']:.0f}), PyG "
          f"{fmt(r['ms'] if r else None, '.0f')} ms/epoch (CPU {fmt(x['reference_epoch_cpu_ms'], '.0f')}); "
          f"check {check}", flush=True)
    return x


def check_reference_blas(attend_gflops, reference, allow_slow):
    """True when speedups against the reference may be printed. Exits 2 when the reference's
    GEMM is crippled or wrong, unless allow_slow (then False: times only)."""
    if reference is None:
        return False
    problems = []
    if reference["gflops"] < MIN_REFERENCE_GEMM_SHARE * attend_gflops:
        problems.append(f"torch.mm {GEMM_N}^3 runs at {reference['gflops']:.1f} GFLOP/s, below "
                        f"{MIN_REFERENCE_GEMM_SHARE:.0%} of attend::gemm's {attend_gflops:.1f} GFLOP/s")
    if reference["max_relative_error"] > MAX_REFERENCE_GEMM_ERROR:
        problems.append(f"torch.mm differs from a float64 product by {reference['max_relative_error']:.1e} "
                        f"(relative; at most {MAX_REFERENCE_GEMM_ERROR:.0e} expected)")
    if not problems:
        return True
    message = ("compare.py: the reference is not an honest baseline: " + "; ".join(problems) +
               f". BLAS libraries in the reference process: {reference['blas'] or 'none found'}. torch calls libblas.so.3, which "
               "is netlib's slow reference BLAS unless an optimized one is installed. Fix: "
               "install OpenBLAS (sudo apt-get install libopenblas0-pthread, or make bench), check "
               "with update-alternatives --display libblas.so.3-x86_64-linux-gnu, and run again.")
    if not allow_slow:
        print(message, file=sys.stderr)
        sys.exit(2)
    print(message.replace("compare.py: ", "note: ") + " Speedups are not printed (--allow-slow-reference).")
    return False


def row(name, attend_ms, reference_ms, attend_rss, reference_rss, note=""):
    speedup = reference_ms / attend_ms if reference_ms and attend_ms else None
    return {"name": name, "attend_ms": attend_ms, "reference_ms": reference_ms, "speedup": speedup,
            "attend_peak_mb": attend_rss, "reference_peak_mb": reference_rss,
            "load_average": round(load_average(), 2), "note": note}


def evoformer_block_rows(runner, threads, repeats):
    """The evoformer_block_fwd and evoformer_block_fwdbwd rows (issue #6)."""
    attend = runner.attend_evoformer(threads, repeats)
    rows = []
    for tag, mode, what in (("fwd", "fwd", "forward"), ("fwdbwd", "fwd_bwd", "forward+backward")):
        a_ms, a_rss, a_gflops = attend[tag]
        r_ms, r_rss = runner.reference_evoformer(mode, threads, repeats)
        rows.append(row(f"evoformer_block_{tag}", a_ms, r_ms, a_rss, r_rss,
                        f"Evoformer block {what}, n_seq 128 n_res 256 c_m=c_z=64 heads 8/4"))
        rows[-1]["attend_gflops"] = a_gflops
        print(f"  evoformer_block_{tag}: attend {a_ms:.0f} ms, reference {fmt(r_ms, '.0f')} ms", flush=True)
    return rows


def fmt(v, spec):
    return format(v, spec) if isinstance(v, (int, float)) and v is not None else "-"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer repeats; no 1M-node GAT, dense N = 4096 or Evoformer block (under 2 minutes on 2 idle cores)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--build", default="build", help="attend build folder")
    p.add_argument("--json", required=True, help="write the results here")
    p.add_argument("--torch-python", help="interpreter with torch (default: search)")
    p.add_argument("--passive", action="store_true",
                   help="OMP_WAIT_POLICY=passive for both sides (by default each side waits as it "
                        "does for a user: attend's programs bound their spinning, torch keeps libgomp's default)")
    p.add_argument("--only", help="comma-separated workload names or prefixes to run (e.g. gat_100k,dense_fwdbwd)")
    p.add_argument("--allow-slow-reference", action="store_true",
                   help="time both sides even when the reference's GEMM is crippled, printing no speedups")
    p.add_argument("--pyg", metavar="PATH",
                   help="a PyTorch Geometric source tree (the folder holding torch_geometric/, e.g. `git archive "
                        "2.3.1` of its repository; it runs on torch 1.13 without torch_scatter): adds the "
                        "gat_model_epoch_pyg row, a full GAT training epoch against its GATConv; without it that "
                        "row is skipped")
    p.add_argument("--keep-openblas-env", action="store_true",
                   help="keep OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE in both sides' environments")
    args = p.parse_args()
    wanted = [w for w in (args.only or "").split(",") if w]
    if args.pyg:
        check_pyg_tree(args.pyg)

    def selected(name):
        return not wanted or any(name.startswith(w) for w in wanted)
    # Recorded, not acted on: each side waits for its threads as it would for a user
    # (docs/performance.md, "Under load"), unless --passive.
    other_jobs = busy_cores()
    if other_jobs >= 0.5:
        print(f"other processes keep {other_jobs:.1f} of {os.cpu_count()} cores busy")
    torch_python = find_torch_python(args.torch_python)
    if not torch_python:
        print("no python3 with torch found: reporting attend alone")
    runner = Runner(args, torch_python)
    t = args.threads
    attend_waiting = openmp_waiting([runner.bench_sparse, "--help"], runner.env(t))
    reference_waiting = (openmp_waiting([torch_python, "-c", "import torch"], runner.env(t))
                         if torch_python else None)
    print(f"OpenMP waiting: attend {attend_waiting}, reference {reference_waiting}")
    gemm_gflops, _ = runner.attend_dense(GEMM_N, "gemm", t, 3)
    reference_gemm = runner.reference_gemm(t)
    honest = check_reference_blas(gemm_gflops, reference_gemm, args.allow_slow_reference)
    best_gemm = max(gemm_gflops, reference_gemm["gflops"] if reference_gemm else 0.0)
    if reference_gemm:
        print(f"gemm {GEMM_N}^3 on {t} threads: attend {gemm_gflops:.1f} GFLOP/s, reference "
              f"{reference_gemm['gflops']:.1f} GFLOP/s ({reference_gemm['blas']})", flush=True)
    reps = 2 if args.quick else 7
    rows, notes = [], []

    gat_shapes = [
        ("gat_cora", dict(nodes=2708, edges=10556, features=1433, heads=8, channels=8)),
        ("gat_100k", dict(nodes=100000, edges=1000000, features=128, heads=8, channels=16)),
        ("gat_1m", dict(nodes=1000000, edges=10000000, features=64, heads=4, channels=16)),
    ]
    for name, shape in gat_shapes:
        if not selected(name):
            continue
        r = (10 if args.quick else 20) if name == "gat_cora" else (2 if args.quick else 5)
        if name == "gat_1m":
            if args.quick:
                notes.append("gat_1m skipped under --quick")
                continue
            # The reference keeps about six [E, H, C] float tensors alive in its backward.
            need = 6 * (shape["edges"] + shape["nodes"]) * shape["heads"] * shape["channels"] * 4 / 2**20
            if need > 0.8 * available_mib():
                notes.append(f"gat_1m skipped: the reference needs about {need:.0f} MiB, "
                             f"{available_mib():.0f} MiB available")
                continue
            r = 2 if args.quick else 3
        extra = ["--backward"] + [f"--{k}={v}" for k, v in shape.items()]
        a_ms, a_rss = runner.attend_gat(shape, t, r)
        r_ms, r_rss = runner.reference("gat", extra, t, r)
        rows.append(row(name, a_ms, r_ms, a_rss, r_rss, "GAT layer forward+backward"))
        print(f"  {name}: attend {a_ms:.1f} ms, reference {fmt(r_ms, '.1f')} ms", flush=True)

    if args.quick:
        notes.append("dense N = 4096 skipped under --quick (the reference alone needs minutes)")
    for n in (512, 2048) if args.quick else (512, 2048, 4096):
        for measure, tag, backward in (("forward", "fwd", []), ("forward_backward", "fwdbwd", ["--backward"])):
            if not selected(f"dense_{tag}_{n}"):
                continue
            r = reps if n < 4096 else 3
            a_ms, a_rss = runner.attend_dense(n, measure, t, r)
            r_ms, r_rss = runner.reference("dense", ["--n", str(n), "--heads", "8", "--dim", "64"] + backward, t, r)
            rows.append(row(f"dense_{tag}_{n}", a_ms, r_ms, a_rss, r_rss,
                            f"dense attention {measure.replace('_', '+')}, B=1 H=8 d=64"))
            print(f"  dense_{tag}_{n}: attend {a_ms:.2f} ms, reference {fmt(r_ms, '.2f')} ms", flush=True)

    # The median of 3 timed runs after a warm-up per side: one run alone spread by 1.3x between
    # two quiet runs of the same binary (docs/performance.md, session 11). The block takes
    # seconds per pass on 2 cores (the reference about 10 s quiet, minutes under load).
    if selected("evoformer_block"):
        if args.quick:
            notes.append("evoformer_block skipped under --quick")
        else:
            rows += evoformer_block_rows(runner, t, 3)

    if selected("explain"):
        with tempfile.TemporaryDirectory(prefix="compare-explain-") as work:
            rows += explain_rows(runner, 1 if args.quick else 3, work)

    if selected("gat_model_epoch_pyg"):
        if not args.pyg:
            notes.append("gat_model_epoch_pyg skipped: give --pyg PATH, a PyTorch Geometric source tree")
        else:
            with tempfile.TemporaryDirectory(prefix="compare-epoch-") as work:
                rows.append(gat_model_epoch_row(runner, t, 2 if args.quick else 5, work))

    if selected("gat_100k_scaling"):
        shape = gat_shapes[1][1]
        r = 2 if args.quick else 5
        one_ms, one_rss = runner.attend_gat(shape, 1, r)
        many_ms, many_rss = runner.attend_gat(shape, t, r)
        rows.append(row("gat_100k_scaling", many_ms, one_ms, many_rss, one_rss,
                        f"attend only: reference_ms = 1 thread, attend_ms = {t} threads"))

    if not honest:  # times only; the scaling row compares attend with itself
        for x in rows:
            if x["name"] != "gat_100k_scaling":
                x["speedup"] = None
                if "cpu_speedup" in x:
                    x["cpu_speedup"] = None
    for x in rows:  # attend's dense rate against the better of the two GEMM rates
        if x["name"].startswith("dense_"):
            _, tag, n = x["name"].split("_")
            flops = 4.0 * 8 * int(n) ** 2 * 64 * (3.5 if tag == "fwdbwd" else 1.0)
            x["attend_gflops"] = flops / (x["attend_ms"] * 1e-3) * 1e-9
        if "attend_gflops" in x:
            x["attend_percent_of_best_gemm"] = 100.0 * x["attend_gflops"] / best_gemm
    machine = {"threads": t, "attend_gemm_gflops": gemm_gflops,
               "reference_gemm_gflops": reference_gemm["gflops"] if reference_gemm else None,
               "reference_blas": reference_gemm["blas"] if reference_gemm else None,
               "reference_gemm_max_relative_error": reference_gemm["max_relative_error"] if reference_gemm else None,
               "speedups_printed": honest, "cores": os.cpu_count(),
               "load_average": round(load_average(), 2), "omp_wait_policy_passive": args.passive,
               "other_jobs_busy_cores": round(other_jobs, 2),
               "attend_openmp_waiting": attend_waiting, "reference_openmp_waiting": reference_waiting,
               "reference_python": torch_python,
               "openblas_env_removed": not args.keep_openblas_env}

    print(f"\n{'workload':<18} {'attend ms':>10} {'ref ms':>10} {'speedup':>8} "
          f"{'attend MiB':>11} {'ref MiB':>9} {'load':>5}")
    for x in rows:
        print(f"{x['name']:<18} {fmt(x['attend_ms'], '10.2f')} {fmt(x['reference_ms'], '10.2f')} "
              f"{fmt(x['speedup'], '8.2f')} {fmt(x['attend_peak_mb'], '11.0f')} "
              f"{fmt(x['reference_peak_mb'], '9.0f')} {x['load_average']:5.1f}")
    print(f"best gemm {GEMM_N}^3: {best_gemm:.1f} GFLOP/s on {t} threads (flops: dense forward "
          f"4 B H N^2 d, forward+backward 3.5 x that; Evoformer: benchmarks/evoformer_flops.hpp, "
          f"forward+backward 3 x the forward)")
    for x in rows:
        if "cpu_speedup" in x:
            print(f"  {x['name']}: CPU ms per node attend {fmt(x['attend_cpu_ms'], '.2f')}, reference "
                  f"{fmt(x['reference_cpu_ms'], '.2f')}, ratio {fmt(x['cpu_speedup'], '.2f')}; agreement {x['agreement']}")
    for x in rows:
        if "attend_epoch_cpu_ms" in x:
            print(f"  {x['name']}: CPU ms per epoch attend {fmt(x['attend_epoch_cpu_ms'], '.0f')}, reference "
                  f"{fmt(x['reference_epoch_cpu_ms'], '.0f')}; model check {x['model_check']}")
    for x in rows:
        if "attend_gflops" in x:
            print(f"  {x['name']}: {x['attend_gflops']:.1f} GFLOP/s = "
                  f"{x['attend_percent_of_best_gemm']:.0f} % of the best gemm")
    for n in notes:
        print("note:", n)
    with open(args.json, "w") as f:
        json.dump({"workloads": rows, "machine": machine, "notes": notes}, f, indent=2)


if __name__ == "__main__":
    main()
