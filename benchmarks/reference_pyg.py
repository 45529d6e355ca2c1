#!/usr/bin/env python3
"""PyTorch Geometric reference of attend's full-batch GAT training epoch, for benchmarks/compare.py's
gat_model_epoch_pyg row (bench_gat_epoch on the other side).

Usage: /usr/bin/python3 benchmarks/reference_pyg.py --pyg PYG_SOURCE_TREE --data GRAPH.h5
           --checkpoint INIT.h5 --model MODEL.json [--threads T] [--repeats R] [--seed S] [--check]

PYG_SOURCE_TREE is a PyTorch Geometric source tree (the folder holding `torch_geometric/`, e.g.
`git archive 2.3.1` of its repository; 2.3.1 runs on Debian's torch 1.13 with its pure-Python
scatter, without torch_scatter or torch_sparse). The model is the one bench_gat_epoch wrote into
INIT.h5 (`/model`, `/parameters`: read with h5py), built from PyG's GATConv layer by layer as
PyG's GAT example writes it: dropout on each layer's input, GATConv (attention dropout, self-loops,
bias), the activation between layers; its weights are attend's initial ones (attend's weight
[in, H*C] is GATConv's lin_src.weight transposed, att_src [H, C] its att_src [1, H, C]). The
optimizer (Adam, learning rate, weight decay) comes from MODEL.json, the graph from GRAPH.h5
(attend's graph file: dense or CSR features, labels, the training split; the edges coalesced as
attend holds them: a repeated pair once, an undirected graph's in both directions). An epoch: zero the gradients, forward in training mode,
cross-entropy over the training split, backward, optimizer step; the median of R epochs after
one warm-up.
Prints one JSON line: {"ms", "cpu_ms", "seconds", "losses", "parameter_count", "parameters"
(name: shape, in attend's names), "pyg_version"}; with --check, which times nothing,
"initial_loss" (the evaluation-mode training loss of the initial weights) and "step_loss" (the
same after one Adam step without dropout) in place of the times, as bench_gat_epoch --check.
"""
import argparse
import json
import statistics
import sys
import time

import h5py
import numpy as np
import torch

# Layer options attend's gat has and PyG's GATConv does not; the reference refuses a model using them.
NOT_IN_PYG = {"value_dropout": 0.0, "attention_bias": False, "residual": False, "input_dropout_per_head": False}


def load_graph(path, utils):
    """(x [N, F] float32, edge_index [2, E], labels [N], train ids) of an attend graph file; the
    edges as attend's graph holds them: repeated pairs once (coalesced, with PyG's `utils`), an
    undirected graph's in both directions."""
    with h5py.File(path, "r") as f:
        n = int(f.attrs["num_nodes"])
        feats = f["features"]
        if "dense" in feats:
            x = torch.from_numpy(feats["dense"][()])
        else:
            indptr, indices, values = feats["indptr"][()], feats["indices"][()], feats["values"][()]
            x = torch.zeros(n, int(feats.attrs["cols"]))
            rows = np.repeat(np.arange(n), np.diff(indptr))
            x[torch.from_numpy(rows), torch.from_numpy(indices)] = torch.from_numpy(values)
        edge_index = torch.from_numpy(np.stack([f["edges"]["src"][()], f["edges"]["dst"][()]]))
        undirected = not int(f.attrs["directed"])
        labels = torch.from_numpy(f["labels"][()])
        train = torch.from_numpy(f["splits"]["train"][()])
    edge_index = utils.to_undirected(edge_index, num_nodes=n) if undirected else utils.coalesce(edge_index, num_nodes=n)
    return x, edge_index, labels, train


class PygGat(torch.nn.Module):
    """attend's node_classifier of gat layers, made of PyG's GATConv."""

    def __init__(self, checkpoint, gat_conv):
        super().__init__()
        with h5py.File(checkpoint, "r") as f:
            model = json.loads(f["model"][()])
            params = {k: torch.from_numpy(f["parameters"][k][()]) for k in f["parameters"]}
        config = model["config"]
        if model["type"] != "node_classifier" or config.get("jumping_knowledge", "none") != "none" \
                or config.get("normalize_hidden", False):
            sys.exit(f"reference_pyg.py: not a plain stack of layers: {json.dumps(config)[:300]}")
        self.activation = {"elu": torch.nn.functional.elu, "relu": torch.nn.functional.relu}[config["activation"]]
        self.convs, self.input_dropout = torch.nn.ModuleList(), []
        for i, layer in enumerate(config["layers"]):
            c = layer["config"]
            if layer["type"] != "gat" or any(c.get(k, v) != v for k, v in NOT_IN_PYG.items()):
                sys.exit(f"reference_pyg.py: layer {i} is not a PyG GATConv: {json.dumps(layer)}")
            conv = gat_conv(c["in_channels"], c["out_channels"], heads=c["heads"], concat=c["concat"],
                            negative_slope=c["negative_slope"], dropout=c["dropout"],
                            add_self_loops=c["add_self_loops"], bias=c["bias"])
            with torch.no_grad():
                conv.lin_src.weight.copy_(params[f"layers.{i}.weight"].t())
                conv.att_src.copy_(params[f"layers.{i}.att_src"].unsqueeze(0))
                conv.att_dst.copy_(params[f"layers.{i}.att_dst"].unsqueeze(0))
                if c["bias"]:
                    conv.bias.copy_(params[f"layers.{i}.bias"])
            self.convs.append(conv)
            self.input_dropout.append(c["input_dropout"])

    def forward(self, x, edge_index):
        for i, conv in enumerate(self.convs):
            x = torch.nn.functional.dropout(x, p=self.input_dropout[i], training=self.training)
            x = conv(x, edge_index)
            if i + 1 < len(self.convs):
                x = self.activation(x)
        return x

    def attend_parameters(self):
        """{attend's parameter name: shape} of this model (for the check against attend's)."""
        out = {}
        for i, conv in enumerate(self.convs):
            out[f"layers.{i}.weight"] = list(conv.lin_src.weight.t().shape)
            out[f"layers.{i}.att_src"] = list(conv.att_src.shape[1:])
            out[f"layers.{i}.att_dst"] = list(conv.att_dst.shape[1:])
            if conv.bias is not None:
                out[f"layers.{i}.bias"] = list(conv.bias.shape)
        return out


def check_losses(model, optimizer, x, edge_index, labels, train):
    """As bench_gat_epoch --check: the evaluation-mode (no dropout) training loss of the initial
    weights, and again after one optimizer step taken without dropout."""
    def eval_loss():
        with torch.no_grad():
            return torch.nn.functional.cross_entropy(model(x, edge_index)[train], labels[train]).item()
    model.eval()
    initial_loss = eval_loss()
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(model(x, edge_index)[train], labels[train]).backward()
    optimizer.step()
    return {"initial_loss": initial_loss, "step_loss": eval_loss()}


def time_epochs(model, optimizer, x, edge_index, labels, train, repeats):
    """Median wall and CPU ms of `repeats` training epochs after one warm-up."""
    seconds, cpu_seconds, losses = [], [], []
    for epoch in range(repeats + 1):
        start, cpu_start = time.perf_counter(), time.process_time()
        model.train()
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x, edge_index)[train], labels[train])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if epoch > 0:  # the first is a warm-up
            cpu_seconds.append(time.process_time() - cpu_start)
            seconds.append(time.perf_counter() - start)
    return {"ms": 1e3 * statistics.median(seconds), "cpu_ms": 1e3 * statistics.median(cpu_seconds),
            "seconds": seconds, "losses": losses}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pyg", required=True, help="PyTorch Geometric source tree (holds torch_geometric/)")
    p.add_argument("--data", required=True)
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--model", required=True, help="the model JSON (its optimizer)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seed", type=int, default=0, help="seeds torch's dropout masks")
    p.add_argument("--check", action="store_true",
                   help="time nothing: the check losses (a process of its own, as bench_gat_epoch --check)")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    sys.path.insert(0, args.pyg)
    import torch_geometric
    from torch_geometric import utils
    from torch_geometric.nn import GATConv

    x, edge_index, labels, train = load_graph(args.data, utils)
    model = PygGat(args.checkpoint, GATConv)
    with open(args.model) as f:
        opt = json.load(f).get("optimizer", {"type": "adam", "lr": 0.005, "weight_decay": 5e-4})
    if opt["type"] != "adam":
        sys.exit(f"reference_pyg.py: optimizer {opt['type']}: only adam is written here")
    optimizer = torch.optim.Adam(model.parameters(), lr=opt.get("lr", 1e-3), weight_decay=opt.get("weight_decay", 0.0))
    out = {"parameter_count": sum(q.numel() for q in model.parameters()), "parameters": model.attend_parameters(),
           "pyg_version": torch_geometric.__version__}
    if args.check:
        out.update(check_losses(model, optimizer, x, edge_index, labels, train))
    else:
        out.update(time_epochs(model, optimizer, x, edge_index, labels, train, args.repeats))
    print(json.dumps(out))

if __name__ == "__main__":
    main()
