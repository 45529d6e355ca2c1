#!/usr/bin/python3
"""One Evoformer block (AF2 supplement, Alg. 6-15) in plain PyTorch, the reference for
bench_evoformer. Written out the OpenFold way (one module per algorithm, gated attention with a
list of additive biases) but without fused kernels: attention logits are materialised.

Prints one JSON object: {"ms": median milliseconds, "cpu_ms": ..., "peak_rss_mib": ...}.
Run with Debian's torch: /usr/bin/python3 benchmarks/reference_evoformer_torch.py --mode fwd
"""
import argparse
import json
import math
import resource
import time

import torch
from torch import nn


class GatedAttention(nn.Module):
    def __init__(self, c_in, c_hidden, n_heads):
        super().__init__()
        self.c_hidden, self.n_heads = c_hidden, n_heads
        hc = c_hidden * n_heads
        self.linear_q = nn.Linear(c_in, hc, bias=False)
        self.linear_k = nn.Linear(c_in, hc, bias=False)
        self.linear_v = nn.Linear(c_in, hc, bias=False)
        self.linear_g = nn.Linear(c_in, hc)
        self.linear_o = nn.Linear(hc, c_in)

    def forward(self, x, biases):  # x [B, N, c_in], biases broadcast to [B, H, N, N]
        b, n, _ = x.shape
        def heads(t):
            return t.view(b, n, self.n_heads, self.c_hidden).transpose(1, 2)  # [B, H, N, c]
        q, k, v = heads(self.linear_q(x)), heads(self.linear_k(x)), heads(self.linear_v(x))
        logits = q @ k.transpose(-1, -2) / math.sqrt(self.c_hidden)  # [B, H, N, N]
        for bias in biases:
            logits = logits + bias
        o = torch.softmax(logits, dim=-1) @ v  # [B, H, N, c]
        o = torch.sigmoid(heads(self.linear_g(x))) * o
        return self.linear_o(o.transpose(1, 2).reshape(b, n, -1))


class MsaRowAttention(nn.Module):  # Alg. 7
    def __init__(self, c_m, c_z, c_hidden, n_heads):
        super().__init__()
        self.layer_norm_m, self.layer_norm_z = nn.LayerNorm(c_m), nn.LayerNorm(c_z)
        self.linear_z = nn.Linear(c_z, n_heads, bias=False)
        self.mha = GatedAttention(c_m, c_hidden, n_heads)

    def forward(self, m, z):
        bias = self.linear_z(self.layer_norm_z(z)).permute(2, 0, 1).unsqueeze(0)  # [1, H, N, N]
        return self.mha(self.layer_norm_m(m), [bias])


class MsaColumnAttention(nn.Module):  # Alg. 8
    def __init__(self, c_m, c_hidden, n_heads):
        super().__init__()
        self.layer_norm_m = nn.LayerNorm(c_m)
        self.mha = GatedAttention(c_m, c_hidden, n_heads)

    def forward(self, m):
        mt = m.transpose(0, 1)
        return self.mha(self.layer_norm_m(mt), []).transpose(0, 1)


class Transition(nn.Module):  # Alg. 9 and 15
    def __init__(self, c, n=4):
        super().__init__()
        self.layer_norm = nn.LayerNorm(c)
        self.linear_1, self.linear_2 = nn.Linear(c, n * c), nn.Linear(n * c, c)

    def forward(self, x):
        return self.linear_2(torch.relu(self.linear_1(self.layer_norm(x))))


class OuterProductMean(nn.Module):  # Alg. 10
    def __init__(self, c_m, c_z, c_hidden=32):
        super().__init__()
        self.layer_norm = nn.LayerNorm(c_m)
        self.linear_a, self.linear_b = nn.Linear(c_m, c_hidden), nn.Linear(c_m, c_hidden)
        self.linear_out = nn.Linear(c_hidden * c_hidden, c_z)

    def forward(self, m):
        x = self.layer_norm(m)
        a, b = self.linear_a(x), self.linear_b(x)  # [S, N, C]
        outer = torch.einsum("sic,sjd->ijcd", a, b) / m.shape[0]  # [N, N, C, C]
        return self.linear_out(outer.reshape(outer.shape[0], outer.shape[1], -1))


class TriangleMultiplication(nn.Module):  # Alg. 11 and 12
    def __init__(self, c_z, c_hidden, outgoing):
        super().__init__()
        self.outgoing = outgoing
        self.layer_norm_in, self.layer_norm_out = nn.LayerNorm(c_z), nn.LayerNorm(c_hidden)
        self.linear_a_p, self.linear_a_g = nn.Linear(c_z, c_hidden), nn.Linear(c_z, c_hidden)
        self.linear_b_p, self.linear_b_g = nn.Linear(c_z, c_hidden), nn.Linear(c_z, c_hidden)
        self.linear_g, self.linear_z = nn.Linear(c_z, c_z), nn.Linear(c_hidden, c_z)

    def forward(self, z):
        z = self.layer_norm_in(z)
        a = torch.sigmoid(self.linear_a_g(z)) * self.linear_a_p(z)
        b = torch.sigmoid(self.linear_b_g(z)) * self.linear_b_p(z)
        if self.outgoing:
            x = torch.einsum("ikc,jkc->ijc", a, b)
        else:
            x = torch.einsum("kic,kjc->ijc", a, b)
        return torch.sigmoid(self.linear_g(z)) * self.linear_z(self.layer_norm_out(x))


class TriangleAttention(nn.Module):  # Alg. 13 and 14
    def __init__(self, c_z, c_hidden, n_heads, starting):
        super().__init__()
        self.starting = starting
        self.layer_norm = nn.LayerNorm(c_z)
        self.linear_b = nn.Linear(c_z, n_heads, bias=False)
        self.mha = GatedAttention(c_z, c_hidden, n_heads)

    def forward(self, z):
        if not self.starting:
            z = z.transpose(0, 1)
        z = self.layer_norm(z)
        bias = self.linear_b(z).permute(2, 0, 1).unsqueeze(0)  # [1, H, N, N]
        o = self.mha(z, [bias])
        return o if self.starting else o.transpose(0, 1)


def shared_dropout(x, p, shared_dim, training):
    if not training or p == 0:
        return x
    shape = list(x.shape)
    shape[shared_dim] = 1
    mask = torch.bernoulli(torch.full(shape, 1 - p, dtype=x.dtype)) / (1 - p)
    return x * mask


class EvoformerBlock(nn.Module):  # Alg. 6
    def __init__(self, c_m, c_z, heads_msa, heads_pair):
        super().__init__()
        self.msa_row = MsaRowAttention(c_m, c_z, 32, heads_msa)
        self.msa_col = MsaColumnAttention(c_m, 32, heads_msa)
        self.msa_transition = Transition(c_m)
        self.opm = OuterProductMean(c_m, c_z)
        self.tri_mul_out = TriangleMultiplication(c_z, 128, True)
        self.tri_mul_in = TriangleMultiplication(c_z, 128, False)
        self.tri_att_start = TriangleAttention(c_z, 32, heads_pair, True)
        self.tri_att_end = TriangleAttention(c_z, 32, heads_pair, False)
        self.pair_transition = Transition(c_z)

    def forward(self, m, z):
        t = self.training
        m = m + shared_dropout(self.msa_row(m, z), 0.15, 0, t)
        m = m + self.msa_col(m)
        m = m + self.msa_transition(m)
        z = z + self.opm(m)
        z = z + shared_dropout(self.tri_mul_out(z), 0.25, 0, t)
        z = z + shared_dropout(self.tri_mul_in(z), 0.25, 0, t)
        z = z + shared_dropout(self.tri_att_start(z), 0.25, 0, t)
        z = z + shared_dropout(self.tri_att_end(z), 0.25, 1, t)
        z = z + self.pair_transition(z)
        return m, z


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-seq", type=int, default=128)
    ap.add_argument("--n-res", type=int, default=256)
    ap.add_argument("--c-m", type=int, default=64)
    ap.add_argument("--c-z", type=int, default=64)
    ap.add_argument("--heads-msa", type=int, default=8)
    ap.add_argument("--heads-pair", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-warmup", action="store_true")
    ap.add_argument("--mode", choices=["fwd", "fwd_bwd"], default="fwd")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    block = EvoformerBlock(args.c_m, args.c_z, args.heads_msa, args.heads_pair)
    m = torch.rand(args.n_seq, args.n_res, args.c_m) * 2 - 1
    z = torch.rand(args.n_res, args.n_res, args.c_z) * 2 - 1
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0

    def step():
        if args.mode == "fwd":
            block.eval()
            with torch.no_grad():
                block(m, z)
        else:
            block.train()
            mi, zi = m.clone().requires_grad_(), z.clone().requires_grad_()
            mo, zo = block(mi, zi)
            (mo.sum() + zo.sum()).backward()
            block.zero_grad(set_to_none=True)

    if not args.no_warmup:
        step()
    walls, cpus = [], []
    for _ in range(args.repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        step()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    walls.sort()
    cpus.sort()
    print(json.dumps({"mode": args.mode, "n_seq": args.n_seq, "n_res": args.n_res, "threads": args.threads,
                      "ms": walls[len(walls) // 2] * 1e3, "cpu_ms": cpus[len(cpus) // 2] * 1e3,
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                      "rss_before_mib": rss_before}))


if __name__ == "__main__":
    main()
