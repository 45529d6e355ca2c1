#!/usr/bin/env python3
"""PyTorch reference implementations for the side-by-side benchmarks (benchmarks/compare.py).

Each workload is written the way a PyTorch user would write it:
  gat    one GAT layer (Velickovic et al. 2018) following the PyTorch Geometric recipe:
         per-node attention terms, index_select onto edges, scatter softmax over each
         destination's in-edges, scatter-add aggregation of the weighted messages.
  dense  multi-head attention written out: softmax(Q K^T / sqrt(d)) V.
  gemm   torch.mm on two N x N float32 matrices: the rate of the BLAS torch runs on, so that
         compare.py can tell a reference on an optimized BLAS from one on netlib's reference
         BLAS (about 5 GFLOP/s against about 200 on two cores).
Prints one JSON object: {"workload", "ms", "ms_all"} (gemm adds "gflops", "blas" and
"max_relative_error"); peak memory is measured by the caller, which runs every workload in a
process of its own.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch


def random_graph(nodes, edges, seed):
    """Random directed edges plus one self-loop per node (E_total = edges + nodes)."""
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(0, nodes, (edges,), generator=g)
    dst = torch.randint(0, nodes, (edges,), generator=g)
    loops = torch.arange(nodes)
    return torch.cat([src, loops]), torch.cat([dst, loops])


def gat_layer(x, weight, att_src, att_dst, src, dst, heads, channels, slope=0.2):
    n = x.shape[0]
    h = (x @ weight).view(n, heads, channels)                      # [N, H, C]
    a_src = (h * att_src).sum(-1)                                  # [N, H]
    a_dst = (h * att_dst).sum(-1)                                  # [N, H]
    e = a_src.index_select(0, src) + a_dst.index_select(0, dst)    # [E, H]
    e = torch.nn.functional.leaky_relu(e, slope)
    e_max = torch.full((n, heads), float("-inf")).scatter_reduce(
        0, dst.unsqueeze(1).expand(-1, heads), e.detach(), reduce="amax", include_self=True)
    p = (e - e_max.index_select(0, dst)).exp()                     # [E, H]
    denom = torch.zeros(n, heads).index_add_(0, dst, p)            # [N, H]
    alpha = p / denom.index_select(0, dst)                         # [E, H]
    msg = h.index_select(0, src) * alpha.unsqueeze(-1)             # [E, H, C]
    return torch.zeros(n, heads, channels).index_add_(0, dst, msg)  # [N, H, C]


def run_gat(args):
    torch.manual_seed(args.seed)
    src, dst = random_graph(args.nodes, args.edges, args.seed)
    x = torch.randn(args.nodes, args.features)
    weight = (torch.randn(args.features, args.heads * args.channels) * 0.1).requires_grad_()
    att_src = (torch.randn(args.heads, args.channels) * 0.1).requires_grad_()
    att_dst = (torch.randn(args.heads, args.channels) * 0.1).requires_grad_()

    def step():
        out = gat_layer(x, weight, att_src, att_dst, src, dst, args.heads, args.channels)
        if args.backward:
            out.sum().backward()
    return step


def run_dense(args):
    torch.manual_seed(args.seed)
    shape = (1, args.heads, args.n, args.dim)
    grad = args.backward
    q = torch.randn(shape).requires_grad_(grad)
    k = torch.randn(shape).requires_grad_(grad)
    v = torch.randn(shape).requires_grad_(grad)

    def step():
        if grad:
            s = torch.softmax(q @ k.transpose(-1, -2) / args.dim ** 0.5, dim=-1)
            (s @ v).sum().backward()
        else:
            with torch.no_grad():
                s = torch.softmax(q @ k.transpose(-1, -2) / args.dim ** 0.5, dim=-1)
                s @ v
    return step


def loaded_blas():
    """The BLAS libraries mapped into this process (libblas.so.3 resolves to one of them),
    comma-separated, or None."""
    found = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "blas" in os.path.basename(path) and ".so" in path and path not in found:
                found.append(path)
    return ", ".join(found) or None


def run_gemm(args):
    """torch.mm on [N, N] x [N, N]; also checks a few output rows against float64, since a
    BLAS kernel mis-chosen for the processor can be fast and wrong."""
    torch.manual_seed(args.seed)
    a = torch.randn(args.n, args.n)
    b = torch.randn(args.n, args.n)
    rows = slice(0, 8)
    exact = a[rows].double() @ b.double()
    error = ((torch.mm(a, b)[rows].double() - exact).abs().max() / exact.abs().max()).item()
    run_gemm.extra = {"blas": loaded_blas(), "max_relative_error": error}
    return lambda: torch.mm(a, b)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("workload", choices=["gat", "dense", "gemm"])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--backward", action="store_true", help="time forward + backward")
    p.add_argument("--nodes", type=int, default=2708)
    p.add_argument("--edges", type=int, default=10556)
    p.add_argument("--features", type=int, default=1433)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--channels", type=int, default=8)
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--dim", type=int, default=64)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    step = {"gat": run_gat, "dense": run_dense, "gemm": run_gemm}[args.workload](args)
    for _ in range(args.warmup):
        step()
    times = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e3)
    result = {"workload": args.workload, "ms": statistics.median(times), "ms_all": times}
    if args.workload == "gemm":
        result["gflops"] = 2.0 * args.n ** 3 / (result["ms"] * 1e-3) * 1e-9
        result.update(run_gemm.extra)
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
