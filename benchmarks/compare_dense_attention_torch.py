#!/usr/bin/env python3
"""Side by side: attend's fused dense_attention against attention written out in PyTorch,
softmax(q k^T / sqrt(d)) v with full score matrices, forward and forward+backward.

Usage: compare_dense_attention_torch.py --bench build/benchmarks/bench_dense_attention
           [--n 2048] [--heads 8] [--dim 64] [--threads 2] [--repeats 5] [--json FILE]
Needs PyTorch (Debian: python3-torch, run with /usr/bin/python3).
"""
import argparse
import json
import math
import statistics
import subprocess
import tempfile
import time

import torch


def median_seconds(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def written_out(q, k, v):
    return torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]), dim=-1) @ v


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True, help="path to bench_dense_attention")
    parser.add_argument("--n", type=int, default=2048)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    shape = (1, args.heads, args.n, args.dim)
    q, k, v = (torch.rand(shape) * 2 - 1 for _ in range(3))
    seed = torch.rand(shape) * 2 - 1

    def forward():
        with torch.no_grad():
            written_out(q, k, v)

    def forward_backward():
        qq, kk, vv = (t.clone().requires_grad_() for t in (q, k, v))
        written_out(qq, kk, vv).backward(seed)

    torch_fwd = median_seconds(forward, args.repeats)
    torch_fwd_bwd = median_seconds(forward_backward, args.repeats)

    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([args.bench, "--n", str(args.n), "--heads", str(args.heads), "--dim",
                        str(args.dim), "--threads", str(args.threads), "--repeats",
                        str(args.repeats), "--no-naive", "--json", out.name],
                       check=True, stdout=subprocess.DEVNULL)
        ours = json.load(open(out.name))

    result = {
        "n": args.n, "heads": args.heads, "dim": args.dim, "threads": args.threads,
        "torch_version": torch.__version__,
        "torch_forward_ms": torch_fwd * 1e3,
        "torch_forward_backward_ms": torch_fwd_bwd * 1e3,
        "attend_forward_ms": ours["forward_ms"],
        "attend_forward_backward_ms": ours["forward_backward_ms"],
        "speedup_forward": torch_fwd * 1e3 / ours["forward_ms"],
        "speedup_forward_backward": torch_fwd_bwd * 1e3 / ours["forward_backward_ms"],
    }
    print(f"N={args.n} H={args.heads} d={args.dim} threads={args.threads} (torch {torch.__version__})")
    print(f"  forward:          torch {result['torch_forward_ms']:9.2f} ms   attend "
          f"{result['attend_forward_ms']:9.2f} ms   {result['speedup_forward']:.2f}x")
    print(f"  forward+backward: torch {result['torch_forward_backward_ms']:9.2f} ms   attend "
          f"{result['attend_forward_backward_ms']:9.2f} ms   {result['speedup_forward_backward']:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
