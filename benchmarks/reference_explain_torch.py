#!/usr/bin/env python3
"""PyTorch reference of attend's node explanations, for benchmarks/compare.py's explain rows.

Usage: /usr/bin/python3 benchmarks/reference_explain_torch.py --data DIR --checkpoint MODEL.h5
           --method integrated-gradients|gnnexplainer [--nodes N] [--steps 50] [--threads T]
           [--repeats R] [--scores OUT.json]

Explains the first N motif nodes of a graph written by `attend generate` (DIR) with the model
`attend node-classify train --save` wrote (MODEL.h5, read with h5py: the ba-shapes preset's
three unnormalised GCN layers without self-loops, each output row L2-normalised then ReLU,
the three concatenated into a linear head), the same way attend's explain_node does:
- the quantity explained is log p(predicted class) of the target;
- each node is explained on its computation graph (graph/explain/computation_graph.hpp):
  the nodes within L in-edge hops of the target, L the model's message-passing layers (3: the
  linear head reads each node alone), and both directions of every stored edge with an end
  within L - 1 hops; the explained edges end within L - 1 hops and are not self-loops;
- integrated-gradients: the midpoint rule with S steps on a soft edge mask (input all ones,
  baseline zero) and on the input features (baseline zero), all S steps of each in one forward
  and one backward pass over S disjoint copies of the computation graph (as attend batches
  them), f(input) and f(baseline) for the completeness gaps; feature scores summed over nodes;
- gnnexplainer: PyTorch Geometric's GNNExplainer (edge mask "object", feature mask
  "common_attributes", 100 epochs of Adam at lr 0.01, edge size 0.005, edge entropy 1.0,
  feature size 1.0, feature entropy 0.1, penalties on the entries with a non-zero gradient in
  the first epoch, from the second epoch on), written out as PyG's _train loop does, with
  the edge mask multiplying each message. The masks start from the same numbers as attend's
  (its xoshiro256** stream for node v, seeded with mix64(v), and Box-Muller, core/random.hpp,
  reproduced below; edges in attend's local order: unique (target, source) pairs ascending),
  so the two sides' masks are comparable value by value.
Prints one JSON line: {"ms_per_node", "cpu_ms_per_node", "seconds": [...], "cpu_seconds": [...],
"nodes"} (medians over --repeats runs; CPU time of the process, all threads). --scores writes the
attributions in bench_explain_nodes' --scores layout.
"""
import argparse
import json
import math
import os
import time

import h5py
import numpy as np
import torch


MASK64 = (1 << 64) - 1


def mix64(x):
    """attend::mix64 (SplitMix64's finaliser)."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


class AttendRng:
    """attend::Rng: xoshiro256** seeded through SplitMix64; normal() by Box-Muller in double."""

    def __init__(self, seed):
        self.s, x = [], seed
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & MASK64
            self.s.append(mix64(x))

    def next_u64(self):
        s = self.s
        rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & MASK64
        result = (rotl((s[1] * 5) & MASK64, 7) * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def normal(self):
        u1 = ((self.next_u64() >> 11) + 1.0) * 2.0 ** -53
        u2 = (self.next_u64() >> 11) * 2.0 ** -53
        return float(np.float32(math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)))

    def normal_logits(self, n, std):
        """attend's normal_logits: float(std * normal()) for n draws."""
        return torch.tensor([float(np.float32(std * self.normal())) for _ in range(n)], dtype=torch.float32)


def read_header_table(path, dtype):
    """Rows of a whitespace table after its '#' header lines."""
    rows = [line.split() for line in open(path) if line.strip() and not line.startswith("#")]
    return np.array(rows, dtype=dtype).reshape(len(rows), -1)


def load_graph(folder):
    """Plain edges (both directions of every stored edge) and the dense features."""
    with open(os.path.join(folder, "edges.txt")) as f:
        n = int(f.readline().split()[1])
    stored = read_header_table(os.path.join(folder, "edges.txt"), np.int64)
    src = np.concatenate([stored[:, 0], stored[:, 1]])
    dst = np.concatenate([stored[:, 1], stored[:, 0]])
    with open(os.path.join(folder, "features.coo.txt")) as f:
        _, n_rows, n_cols, _ = f.readline().split()
    coo = read_header_table(os.path.join(folder, "features.coo.txt"), np.float64)
    x = np.zeros((int(n_rows), int(n_cols)), dtype=np.float32)
    x[coo[:, 0].astype(np.int64), coo[:, 1].astype(np.int64)] = coo[:, 2]
    motif = read_header_table(os.path.join(folder, "motif_nodes.txt"), np.int64)[:, 0]
    assert int(n_rows) == n and len(motif) == n
    return n, src, dst, torch.from_numpy(x), motif


class Gcn3(torch.nn.Module):
    """The ba-shapes preset: three GCN sums (no normalisation, no self-loops), row L2-norm, ReLU,
    jumping knowledge by concatenation, linear head; weights [in, out] as attend stores them."""

    def __init__(self, checkpoint):
        super().__init__()
        with h5py.File(checkpoint, "r") as f:
            config = json.loads(f["model"][()])["config"]
            types = [layer["type"] for layer in config["layers"]]
            assert types == ["gcn", "gcn", "gcn", "node_linear"], f"not the ba-shapes preset: {types}"
            for layer in config["layers"][:3]:
                c = layer["config"]
                assert not c["normalize"] and not c["add_self_loops"] and c["bias"], c
            assert config["jumping_knowledge"] == "cat" and config["normalize_hidden"] and config["activation"] == "relu"
            p = {k: torch.from_numpy(f["parameters"][k][()]) for k in f["parameters"]}
        self.weights = [p[f"layers.{i}.weight"] for i in range(4)]
        self.biases = [p[f"layers.{i}.bias"] for i in range(4)]
        self.hops = 3  # message-passing layers (the linear head reads each node alone)

    def forward(self, x, src, dst, edge_weight):
        """Logits [N, C]; edge_weight [E] scales each message (None: 1)."""
        hidden = []
        h = x
        for w, b in zip(self.weights[:3], self.biases[:3]):
            msg = (h @ w)[src]
            if edge_weight is not None:
                msg = msg * edge_weight.unsqueeze(1)
            out = torch.zeros(h.shape[0], w.shape[1], dtype=h.dtype).index_add_(0, dst, msg) + b
            out = out / out.norm(dim=1, keepdim=True).clamp_min(1e-12)
            h = torch.relu(out)
            hidden.append(h)
        return torch.cat(hidden, dim=1) @ self.weights[3] + self.biases[3]


class ComputationGraph:
    """attend's computation_graph: nodes within `hops` in-edge hops, both directions of every
    stored edge with an end within hops - 1 (src, dst list stored edge i as plain edges i and
    i + M)."""

    def __init__(self, n, src, dst, target, hops):
        dist = np.full(n, -1, dtype=np.int64)
        dist[target] = 0
        for d in range(hops):
            frontier = dist[dst] == d
            new = src[frontier]
            new = new[dist[new] < 0]
            dist[new] = d + 1
        nodes = np.nonzero(dist >= 0)[0]
        local = np.full(n, -1, dtype=np.int64)
        local[nodes] = np.arange(len(nodes))
        m = len(src) // 2
        stored = ((dist[dst[:m]] >= 0) & (dist[dst[:m]] < hops)) | ((dist[src[:m]] >= 0) & (dist[src[:m]] < hops))
        keep = np.concatenate([stored, stored])
        # attend's plain edges: unique (target, source) pairs in ascending order
        pairs = np.unique(np.stack([dst[keep], src[keep]], axis=1), axis=0)
        e_dst, e_src = pairs[:, 0], pairs[:, 1]
        self.num_nodes = len(nodes)
        self.nodes = nodes
        self.target = int(local[target])
        self.src = torch.from_numpy(local[e_src])
        self.dst = torch.from_numpy(local[e_dst])
        explained = (dist[e_dst] < hops) & (e_src != e_dst)
        self.explained = np.nonzero(explained)[0]
        self.edge_src, self.edge_dst = e_src[explained], e_dst[explained]

    def copies(self, k):
        """src, dst of k disjoint copies (copy c's nodes offset by c n)."""
        offset = (torch.arange(k) * self.num_nodes).repeat_interleave(len(self.src))
        return self.src.repeat(k) + offset, self.dst.repeat(k) + offset


def log_probability(model, x, src, dst, edge_weight, rows, cls):
    return torch.log_softmax(model(x, src, dst, edge_weight), dim=1)[rows, cls].sum()


def integrated_gradients(model, cg, x, cls, steps):
    """Edge and feature attributions (midpoint rule, zero baseline, all steps batched) and gaps."""
    n, e = cg.num_nodes, len(cg.src)
    alphas = (torch.arange(steps, dtype=torch.float64) + 0.5) / steps
    rows = torch.arange(steps) * n + cg.target
    src_k, dst_k = cg.copies(steps)
    with torch.no_grad():
        f_input = log_probability(model, x, cg.src, cg.dst, None, [cg.target], cls).item()
        f_no_edges = log_probability(model, x, cg.src, cg.dst, torch.zeros(e), [cg.target], cls).item()
        f_no_features = log_probability(model, torch.zeros_like(x), cg.src, cg.dst, None, [cg.target], cls).item()
    mask = alphas.float().repeat_interleave(e).requires_grad_()  # [S E]
    log_probability(model, x.repeat(steps, 1), src_k, dst_k, mask, rows, cls).backward()
    edge_attr = mask.grad.view(steps, e).double().sum(0) / steps  # input 1
    points = (alphas.float().view(steps, 1, 1) * x.unsqueeze(0)).reshape(steps * n, -1).requires_grad_()
    log_probability(model, points, src_k, dst_k, None, rows, cls).backward()
    feature_attr = x.double() * points.grad.view(steps, n, -1).double().sum(0) / steps  # [n, F]
    return {"edges": edge_attr[cg.explained].float().tolist(),
            "features": feature_attr.sum(0).float().tolist(),
            "log_probability": f_input,
            "edge_completeness_gap": edge_attr.sum().item() - (f_input - f_no_edges),
            "feature_completeness_gap": feature_attr.sum().item() - (f_input - f_no_features)}


def penalty(logits, hard, size, summed, entropy, eps=1e-15):
    m = logits[hard].sigmoid()
    ent = -m * torch.log(m + eps) - (1 - m) * torch.log(1 - m + eps)
    return size * (m.sum() if summed else m.mean()) + entropy * ent.mean()


def gnn_explainer(model, cg, x, node, cls, epochs=100, lr=0.01):
    """PyG's GNNExplainer._train for one node on its computation graph, from attend's initial masks."""
    n, e = cg.num_nodes, len(cg.src)
    std = torch.nn.init.calculate_gain("relu") * math.sqrt(2.0 / (2 * n))
    rng = AttendRng(mix64(int(node)))  # attend's Rng(mix64(seed ^ node)), seed 0
    edge_logits = torch.nn.Parameter(rng.normal_logits(e, std))
    feature_logits = torch.nn.Parameter(rng.normal_logits(x.shape[1], 0.1).view(1, -1))
    optimizer = torch.optim.Adam([feature_logits, edge_logits], lr=lr)
    hard_edges = hard_features = None
    for epoch in range(epochs):
        optimizer.zero_grad()
        h = x * feature_logits.sigmoid()
        loss = -log_probability(model, h, cg.src, cg.dst, edge_logits.sigmoid(), [cg.target], cls)
        if hard_edges is not None:
            loss = loss + penalty(edge_logits, hard_edges, 0.005, True, 1.0)
            loss = loss + penalty(feature_logits[0], hard_features, 1.0, False, 0.1)
        loss.backward()
        optimizer.step()
        if epoch == 0:
            hard_edges = edge_logits.grad != 0
            hard_features = feature_logits.grad[0] != 0
    with torch.no_grad():
        edge_mask = torch.where(hard_edges, edge_logits.sigmoid(), torch.zeros(e))
        feature_mask = torch.where(hard_features, feature_logits[0].sigmoid(), torch.zeros(x.shape[1]))
    return {"edges": edge_mask[cg.explained].tolist(), "features": feature_mask.tolist()}


def explain(model, n, src, dst, x, node, method, steps):
    cg = ComputationGraph(n, src, dst, node, model.hops)
    xs = x[torch.from_numpy(cg.nodes)]
    with torch.no_grad():
        cls = int(model(xs, cg.src, cg.dst, None)[cg.target].argmax())
    if method == "integrated-gradients":
        out = integrated_gradients(model, cg, xs, cls, steps)
    else:
        out = gnn_explainer(model, cg, xs, node, cls)
    out["edges"] = [[int(a), int(b), s] for a, b, s in zip(cg.edge_src, cg.edge_dst, out["edges"])]
    return dict(out, node=int(node), **{"class": cls})


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True)
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--method", required=True, choices=["integrated-gradients", "gnnexplainer"])
    p.add_argument("--nodes", type=int, default=100)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--scores")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    n, src, dst, x, motif = load_graph(args.data)
    model = Gcn3(args.checkpoint)
    targets = np.nonzero(motif >= 0)[0][:args.nodes]
    seconds, cpu_seconds = [], []  # wall, and CPU time of the process (all threads)
    for _ in range(args.repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        explained = [explain(model, n, src, dst, x, v, args.method, args.steps) for v in targets]
        cpu_seconds.append(time.process_time() - cpu_start)
        seconds.append(time.perf_counter() - start)
    if args.scores:
        with open(args.scores, "w") as f:
            json.dump({"method": args.method, "explanations": explained}, f)
    def per_node_ms(runs):
        return 1e3 * sorted(runs)[len(runs) // 2] / len(targets)
    print(json.dumps({"ms_per_node": per_node_ms(seconds), "cpu_ms_per_node": per_node_ms(cpu_seconds),
                      "seconds": seconds, "cpu_seconds": cpu_seconds, "nodes": len(targets)}))


if __name__ == "__main__":
    main()
