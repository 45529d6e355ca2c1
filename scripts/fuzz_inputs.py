#!/usr/bin/env python3
"""Mutation fuzzing of the `attend` command line's input readers.

Builds tiny valid inputs of every kind `attend` reads (alignments, PDB, contact lists and
predictions, the graph dataset layouts, HDF5 files written by `attend convert` and `--save`,
model JSON files), mutates one input per case (truncation, byte flips, line deletion,
duplication and swaps, numbers replaced by huge, negative, NaN, inf or empty values, empty
file, binary blob, gzip of the mutated text) and runs one small `attend` command on it.

A share of the cases (--hostile) instead get one of the hostile mutations of issue #18: a line
longer than the readers' 16 MiB bound, a gzip file inflating to one 1 GiB line, a truncated
gzip stream, JSON nested 200,000 deep, numbers beyond a double (1e999), a symlink loop, a
symlink to /dev/zero, a folder or /dev/null in place of a file, and in HDF5 files a NaN or
infinite value, a dataset of another shape or an attribute of another type (written by the
test tool attend_hdf5_mutator, built next to the tests).

Oracle, per case (the quality bar of the command line):
  * the exit status is 0 or 2 (bad input), never a signal, never another code;
  * stderr carries no sanitizer report (run it against the ASan + UBSan build);
  * a failing run leaves no file in its output folder (outputs are written atomically);
  * a run that exits 2 names the input file (or its folder) in its message;
  * no line on stderr is longer than 1000 characters (user text is quoted short).
The output kinds (out-*) give a command hostile output paths instead: an input (directly,
through a link, spelt otherwise) or another output (refused, exit 2, nothing changed), a
directory, a device node or fifo (the same); two writers of one --out at once (one run's
whole set, no temporaries); a writer killed at a random moment (its outputs all there or
none; the next run leaves its outputs and no temporary file).
Every HDF5 input passes attend's HDF5 guard first (a child process walks it; a crash or loop
of libhdf5 there is an exit 2): the cases run with ATTEND_HDF5_GUARD_SECONDS at a quarter of
--timeout. ATTEND_HDF5_GUARD=0 in the environment turns the guard off, to see what libhdf5
itself does.
Each distinct failure is saved under --failures/<n>/ with the input, the command and stderr,
and case.json (the command, the verdict, the mutated file and, in original/, the valid file it
was made from), from which scripts/minimise_case.py shrinks the damaged file.

Example (the sanitizer build of main):
  make test-sanitize   # builds build-sanitize/
  scripts/fuzz_inputs.py --attend build-sanitize/apps/attend --seconds 600 --seed 1 \
      --failures fuzz-failures
"""

import argparse
import gzip
import json
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "bio" / "fixtures"
FORMATS = ROOT / "tests" / "data" / "formats"  # make_fixtures.py: one graph in the layouts users have
BROKEN = ROOT / "tests" / "bio" / "broken"
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "runtime error:", "LeakSanitizer",
                   "ERROR: UndefinedBehaviorSanitizer")
NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
ODD_NUMBERS = [b"99999999999999999999", b"9223372036854775807", b"2147483648", b"-1", b"-2",
               b"-2147483649", b"nan", b"NaN", b"inf", b"-inf", b"", b"1e308", b"1e-320",
               b"0", b"-0", b"1.5", b"0x10", b"1e9"]


# ----------------------------------------------------------------------------- seeds
def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def planetoid_folder(folder):
    """8 nodes on a ring plus chords, 4 features, 2 classes; split 4/2/2."""
    n, f = 8, 4
    feats = [(i, (i * 3 + k) % f, 1.0 + 0.5 * k) for i in range(n) for k in range(2)]
    write(folder / "features.coo.txt",
          f"# {n} {f} {len(feats)}\n" + "".join(f"{i} {c} {v}\n" for i, c, v in feats))
    write(folder / "labels.txt", "".join(f"{i % 2}\n" for i in range(n)))
    edges = [(i, (i + 1) % n) for i in range(n)] + [(0, 4), (2, 6)]
    write(folder / "edges.txt", f"# {n} {len(edges)}\n" + "".join(f"{u} {v}\n" for u, v in edges))
    write(folder / "split_train.txt", "0\n1\n2\n3\n")
    write(folder / "split_val.txt", "4\n5\n")
    write(folder / "split_test.txt", "6\n7\n")


def rdf_folder(folder):
    """Six people in two groups, a few relations and a literal; R-GCN split files."""
    lines = []
    for i in range(6):
        lines.append(f"<http://x/p{i}> <http://x/worksWith> <http://x/p{(i + 1) % 6}> .")
        lines.append(f"<http://x/p{i}> <http://x/member> <http://x/g{i % 2}> .")
    lines.append('<http://x/p0> <http://x/name> "Zero \\"quoted\\""@en .')
    lines.append("_:b1 <http://x/about> <http://x/p3> .")
    write(folder / "tiny.nt", "\n".join(lines) + "\n")
    head = "person\tid\tlabel_group\n"
    write(folder / "trainingSet.tsv",
          head + "".join(f"http://x/p{i}\t{i}.0\thttp://x/g{i % 2}\n" for i in range(4)))
    write(folder / "testSet.tsv",
          head + "".join(f"http://x/p{i}\t{i}.0\thttp://x/g{i % 2}\n" for i in range(4, 6)))


def linqs_folder(folder):
    write(folder / "tiny.content",
          "".join(f"p{i}\t{i % 2}\t{(i + 1) % 2}\t1\tc{i % 3}\n" for i in range(6)))
    write(folder / "tiny.cites", "".join(f"p{i}\tp{(i + 2) % 6}\n" for i in range(6)) + "p0\tmissing\n")


TINY_GAT = ('{"layers": [{"type": "gat", "heads": 2, "out_channels": 3, "dropout": 0.1},\n'
            '            {"type": "gat", "heads": 1, "concat": false}],\n'
            ' "activation": "elu", "optimizer": {"type": "adam", "lr": 0.01, "weight_decay": 0.0005},\n'
            ' "epochs": 2, "patience": 1, "stopping": "gat-reference", "normalize_features": true}\n')
TINY_TRANSFORMER = ('{"layers": [{"type": "graph_transformer", "heads": 2, "out_channels": 2, "beta": true},\n'
                    '            {"type": "gatv2", "heads": 1, "share_weights": true}],\n'
                    ' "optimizer": {"type": "adam", "lr": 0.01}, "epochs": 2}\n')
TINY_EDGE_TRANSFORMER = ('{"layers": [{"type": "graph_transformer", "heads": 2, "out_channels": 2, "edge_dim": 2},\n'
                         '            {"type": "graph_transformer", "heads": 1, "edge_dim": 2}], "epochs": 2}\n')
TINY_GRAPHORMER = ('{"layers": [{"type": "graphormer", "heads": 2, "out_channels": 4, "max_distance": 3},\n'
                   '            {"type": "gat"}], "epochs": 2}\n')
TINY_RGCN = ('{"layers": [{"type": "rgcn", "num_relations": "auto", "out_channels": 4, "num_bases": 2},\n'
             '            {"type": "rgat", "num_relations": "auto", "heads": 2, "concat": false}],\n'
             ' "activation": "relu", "epochs": 2}\n')


def tiny_truth(path, length=8):
    rows = [f"{i}\t{j}\t{abs(i - j) * 1.5:.3f}\t{int(abs(i - j) < 4)}\n"
            for i in range(1, length + 1) for j in range(i + 1, length + 1)]
    return write(path, f"#id tiny\n#L {length}\n#columns i j dist contact\n" + "".join(rows))


def run_quiet(attend, args, cwd):
    result = subprocess.run([attend] + args, cwd=cwd, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        sys.exit(f"seed command failed: attend {' '.join(args)}\n{result.stderr}")


def build_seeds(attend, base):
    """Write the seed inputs under `base`; returns the targets: (kind, seeds, command builder)."""
    seeds = base
    planetoid_folder(seeds / "planetoid")
    rdf_folder(seeds / "rdf")
    linqs_folder(seeds / "linqs")
    write(seeds / "triples.tsv", "a\tknows\tb\nb\tknows\tc\nc\tlikes\ta\nd\tlikes\ta\n")
    for name in ("ring.npz", "ring.edgelist", "ring.csv"):
        shutil.copy(FORMATS / name, seeds / name)
    for name in ("ring_npy", "ogbn_ring"):
        shutil.copytree(FORMATS / name, seeds / name)
    write(seeds / "ring_labels.txt", "# node label\na 0\nb 1\nc 0\nd 1\ne 2\nf 2\n")
    write(seeds / "ring_features.txt", "".join(f"{n} {i * 0.5} {i % 2}\n" for i, n in enumerate("abcdef")))
    planetoid_folder(seeds / "edge-features")
    write(seeds / "edge-features" / "edge_features.txt",
          "".join(f"{i} {(i + 1) % 8} {i * 0.5} 1\n" for i in range(8)) + "0 4 2 0\n2 6 3 0\n")
    linqs_folder(seeds / "linqs-split")
    write(seeds / "linqs-split" / "split_train.txt", "p0\np1\np2\n")
    write(seeds / "linqs-split" / "split_val.txt", "p3\n")
    write(seeds / "linqs-split" / "split_test.txt", "p4\np5\n")
    models = [write(seeds / "json" / name, text) for name, text in
              [("gat.json", TINY_GAT), ("transformer.json", TINY_TRANSFORMER),
               ("graphormer.json", TINY_GRAPHORMER)]]
    rgcn_model = write(seeds / "json" / "rgcn.json", TINY_RGCN)
    edge_model = write(seeds / "json" / "edge_transformer.json", TINY_EDGE_TRANSFORMER)
    truth = tiny_truth(seeds / "truth.tsv")
    families = write(seeds / "families.txt", f"{FIXTURES / 'tiny.fasta'} {truth}\n"
                                             f"{FIXTURES / 'tiny.a3m'} {truth}\n")
    h5 = seeds / "h5"
    h5.mkdir(parents=True, exist_ok=True)
    run_quiet(attend, ["convert", "--graph", str(seeds / "planetoid"), "--to", str(h5 / "planetoid.h5")], base)
    run_quiet(attend, ["convert", "--graph", str(seeds / "rdf"), "--to", str(h5 / "rdf.h5")], base)
    run_quiet(attend, ["convert", "--triples", str(seeds / "triples.tsv"), "--to", str(h5 / "triples.h5")], base)
    # The dense feature layout (/features/dense in row chunks), plain and compressed, and a
    # generated large graph (dense by construction).
    run_quiet(attend, ["convert", "--graph", str(seeds / "planetoid"), "--to", str(h5 / "planetoid_dense.h5"),
                       "--features-layout", "dense", "--chunk-rows", "2"], base)
    run_quiet(attend, ["convert", "--graph", str(seeds / "planetoid"), "--to", str(h5 / "planetoid_zipped.h5"),
                       "--features-layout", "dense", "--chunk-rows", "3", "--compress-features"], base)
    run_quiet(attend, ["convert", "--graph", str(seeds / "planetoid"), "--to", str(h5 / "planetoid_contiguous.h5"),
                       "--features-layout", "dense", "--chunk-rows", "0"], base)
    run_quiet(attend, ["generate", "large-graph", "--nodes", "40", "--edges", "120", "--features", "3",
                       "--classes", "2", "--chunk-rows", "8", "--out", str(h5 / "large_graph.h5"), "--quiet"], base)
    run_quiet(attend, ["convert", "--msa", str(FIXTURES / "tiny.fasta"), "--to", str(h5 / "msa.h5"),
                       "--with-scores"], base)
    run_quiet(attend, ["node-classify", "train", "--data", str(seeds / "planetoid"), "--model", str(models[0]),
                       "--epochs", "2", "--quiet", "--save", str(h5 / "gat_checkpoint.h5")], base)
    run_quiet(attend, ["node-classify", "train", "--data", str(seeds / "rdf"), "--model", "rgcn-aifb",
                       "--epochs", "2", "--quiet", "--save", str(h5 / "rgcn_checkpoint.h5")], base)
    # A synthetic benchmark with its ground truth, a model on it and explanations of two nodes.
    bas = seeds / "ba-shapes"
    run_quiet(attend, ["generate", "ba-shapes", "--seed", "0", "--out", str(bas), "--quiet"], base)
    truth_folder = seeds / "ground-truth"
    truth_folder.mkdir(parents=True, exist_ok=True)
    for name in ("motif_edges.txt", "motif_nodes.txt"):
        shutil.copy(bas / name, truth_folder / name)
    run_quiet(attend, ["node-classify", "train", "--data", str(bas), "--model", str(models[0]), "--epochs", "2",
                       "--quiet", "--save", str(h5 / "ba_shapes_gat.h5")], base)
    run_quiet(attend, ["explain", "node", "--data", str(bas), "--checkpoint", str(h5 / "ba_shapes_gat.h5"),
                       "--nodes", "300,301", "--method", "integrated-gradients", "--steps", "4",
                       "--out", str(h5 / "explanations"), "--quiet"], base)
    # Edge scores only (no /features group): PGExplainer's file.
    run_quiet(attend, ["explain", "node", "--data", str(bas), "--checkpoint", str(h5 / "ba_shapes_gat.h5"),
                       "--nodes", "300,301", "--method", "pgexplainer", "--epochs", "2", "--train-on", "explained",
                       "--out", str(h5 / "explanations_pg"), "--quiet"], base)
    # A checkpoint with state values (batch_norm's running statistics), jumping knowledge and a
    # node_linear head: the ba-community preset.
    run_quiet(attend, ["node-classify", "train", "--data", str(bas), "--model", "ba-community", "--epochs", "2",
                       "--quiet", "--save", str(h5 / "ba_shapes_batch_norm.h5")], base)
    run_quiet(attend, ["contacts", "predict", "--msa", str(FIXTURES / "tiny.fasta"), "--out", str(seeds / "pred"),
                       "--max-iterations", "3", "--quiet"], base)
    run_quiet(attend, ["contacts", "train", "--families", str(families), "--out", str(h5 / "contact_model.h5"),
                       "--epochs", "1", "--c-m", "4", "--c-z", "4", "--crop", "8", "--msa-depth", "4",
                       "--quiet"], base)

    alignments = sorted(p for p in FIXTURES.iterdir() if p.suffix != ".pdb" and p.is_file())
    for sub in ("a3m", "fasta", "aln", "stockholm"):
        alignments += sorted((BROKEN / sub).iterdir())
    pdbs = [FIXTURES / "small.pdb"] + sorted((BROKEN / "pdb").iterdir())
    contact_lists = [truth] + sorted((BROKEN / "contacts").iterdir())
    predictions = [seeds / "pred.mat", seeds / "pred.rr", seeds / "pred.h5"]

    def alignment_cmd(rng, f, out):
        return rng.choice([
            ["contacts", "predict", "--msa", f, "--out", f"{out}/p", "--max-iterations", "3", "--quiet",
             "--json", f"{out}/fit.json"],
            ["contacts", "predict", "--msa", f, "--out", f"{out}/p", "--method", "factored", "--heads", "2",
             "--max-iterations", "3", "--quiet"],
            ["convert", "--msa", f, "--to", f"{out}/msa.h5", "--with-scores"],
            ["explain", "contacts", "--msa", f, "--method", "factored", "--heads", "2", "--max-iterations", "3",
             "--out", f"{out}/x", "--quiet"],
        ])

    def graph_train(model):
        return lambda rng, d, out: ["node-classify", "train", "--data", d, "--model", model, "--epochs", "2",
                                    "--quiet", "--save", f"{out}/m.h5", "--json", f"{out}/r.json"]

    def graph_convert_or_train(rng, f, out):  # the ring fixtures have edge features: the transformer reads them
        if rng.random() < 0.5:
            return ["convert", "--graph", f, "--to", f"{out}/g.h5"]
        return graph_train(str(edge_model))(rng, f, out)

    def graph_h5_cmd(rng, f, out):
        if "triples" in Path(f).name or rng.random() < 0.3:  # no labels: convert only
            return ["convert", "--graph", f, "--to", f"{out}/g.h5"]
        train = graph_train("rgcn-aifb" if "rdf" in Path(f).name else str(models[0]))(rng, f, out)
        if rng.random() < 0.4:  # the edges read in blocks straight into the compact in-edge index
            train += ["--features-out-of-core", "--fanouts", "3,3", "--batch-size", "8", "--inference", "layerwise"]
        return train

    def graph_h5_dense_cmd(rng, f, out):
        draw = rng.random()
        # the rows read out of core, through the row cache
        out_of_core = ["--inference", rng.choice(["sampled", "layerwise"]), "--fanouts", "3,3",
                       "--features-out-of-core", "--feature-cache-mb", rng.choice(["0", "0.0001", "1"])]
        if draw < 0.35:
            return ["node-classify", "train", "--data", f, "--model", str(models[0]), "--epochs", "2",
                    "--batch-size", "4", "--quiet", "--save", f"{out}/m.h5"] + out_of_core
        if draw < 0.6 and "planetoid" in Path(f).name:  # the graphs gat_checkpoint.h5 was trained on
            scored = ["--data", f, "--checkpoint", str(h5 / "gat_checkpoint.h5")] + out_of_core
            return rng.choice([["node-classify", "evaluate", "--json", f"{out}/e.json"] + scored,
                               ["node-classify", "predict", "--out", f"{out}/p.tsv"] + scored])
        return graph_h5_cmd(rng, f, out)

    def node_attributes_cmd(rng, f, out):  # the same files through convert and through node-classify train
        given = ["--labels" if "labels" in Path(f).name else "--features", f]
        if rng.random() < 0.5:
            return ["convert", "--graph", str(seeds / "ring.edgelist"), "--to", f"{out}/g.h5", "--quiet"] + given
        other = ["--features", str(seeds / "ring_features.txt")] if "labels" in Path(f).name else \
            ["--labels", str(seeds / "ring_labels.txt")]
        return ["node-classify", "train", "--data", str(seeds / "ring.edgelist"), "--epochs", "2", "--quiet",
                "--split-fractions", "0.5,0.25", "--save", f"{out}/m.h5"] + given + other

    def checkpoint_cmd(rng, f, out):
        name = Path(f).name
        data = seeds / "rdf" if "rgcn" in name else bas if "ba_shapes" in name else seeds / "planetoid"
        return ["node-classify", "predict", "--data", str(data), "--checkpoint", f, "--out", f"{out}/p.tsv",
                "--export-attention", f"{out}/att.h5"]

    # kind -> (seed files or folders, command(rng, input path, out folder) -> argv)
    return {
        "alignment": (alignments, alignment_cmd),
        "pdb": (pdbs, lambda rng, f, out: ["contacts", "eval", "--pred", str(seeds / "pred.h5"), "--pdb", f,
                                           "--json", f"{out}/e.json"]),
        "contacts-tsv": (contact_lists, lambda rng, f, out: ["contacts", "eval", "--pred", str(seeds / "pred.h5"),
                                                             "--truth", f, "--json", f"{out}/e.json"]),
        "prediction": (predictions, lambda rng, f, out: ["contacts", "eval", "--pred", f, "--truth", str(truth),
                                                         "--json", f"{out}/e.json"]),
        "alignment-h5": ([h5 / "msa.h5"], lambda rng, f, out: ["contacts", "predict", "--msa", f,
                                                               "--out", f"{out}/p", "--quiet"]),
        "contact-model": ([h5 / "contact_model.h5"], lambda rng, f, out: rng.choice([
            ["contacts", "predict", "--method", "evoformer", "--model", f, "--msa", str(h5 / "msa.h5"),
             "--out", f"{out}/p", "--quiet"],
            ["explain", "contacts", "--method", "evoformer", "--model", f, "--msa", str(h5 / "msa.h5"),
             "--steps", "2", "--out", f"{out}/x", "--quiet"]])),
        "families": ([families], lambda rng, f, out: [
            "contacts", "train", "--families", f, "--out", f"{out}/m.h5", "--epochs", "1", "--c-m", "4",
            "--c-z", "4", "--crop", "8", "--msa-depth", "4", "--quiet"]),
        "planetoid": ([seeds / "planetoid"], graph_train(str(models[0]))),
        "rdf": ([seeds / "rdf"], graph_train("rgcn-aifb")),
        "linqs": ([seeds / "linqs"], lambda rng, d, out: ["convert", "--graph", d, "--to", f"{out}/g.h5"]),
        "tsv-triples": ([seeds / "triples.tsv"], lambda rng, f, out: ["convert", "--triples", f,
                                                                      "--to", f"{out}/g.h5"]),
        "numpy-npz": ([seeds / "ring.npz"], graph_convert_or_train),
        "numpy-npy": ([seeds / "ring_npy"], graph_convert_or_train),
        "ogb-folder": ([seeds / "ogbn_ring"], graph_convert_or_train),
        "edge-list": ([seeds / "ring.edgelist", seeds / "ring.csv"], lambda rng, f, out: [
            "convert", "--graph", f, "--to", f"{out}/g.h5", "--quiet"]),
        "node-attributes": ([seeds / "ring_labels.txt", seeds / "ring_features.txt"], node_attributes_cmd),
        "edge-features": ([seeds / "edge-features"], lambda rng, d, out: rng.choice([
            ["convert", "--graph", d, "--to", f"{out}/g.h5"],
            graph_train(str(edge_model))(rng, d, out)])),
        "linqs-split": ([seeds / "linqs-split"], lambda rng, d, out: rng.choice([
            ["convert", "--graph", d, "--to", f"{out}/g.h5", "--split-fractions", "0.5,0.25"],
            graph_train(str(models[0]))(rng, d, out)])),
        "graph-h5": ([h5 / "planetoid.h5", h5 / "rdf.h5", h5 / "triples.h5"], graph_h5_cmd),
        "graph-h5-dense": ([h5 / "planetoid_dense.h5", h5 / "planetoid_zipped.h5", h5 / "large_graph.h5",
                            h5 / "planetoid_contiguous.h5"], graph_h5_dense_cmd),
        "model-json": (models + [rgcn_model], lambda rng, f, out: graph_train(f)(
            rng, str(seeds / ("rdf" if "rgcn" in f else "planetoid")), out)),
        "checkpoint": ([h5 / "gat_checkpoint.h5", h5 / "rgcn_checkpoint.h5", h5 / "ba_shapes_batch_norm.h5"],
                       checkpoint_cmd),
        "explanations-h5": ([h5 / "explanations.h5", h5 / "explanations_pg.h5"], lambda rng, f, out: [
            "explain", "eval", "--data", str(bas), "--checkpoint", str(h5 / "ba_shapes_gat.h5"),
            "--explanations", f, "--json", f"{out}/e.json"]),
        "ground-truth": ([truth_folder], lambda rng, d, out: rng.choice([
            ["explain", "eval", "--data", str(bas), "--checkpoint", str(h5 / "ba_shapes_gat.h5"),
             "--explanations", str(h5 / "explanations.h5"), "--ground-truth", d],
            ["explain", "node", "--data", str(bas), "--checkpoint", str(h5 / "ba_shapes_gat.h5"), "--nodes", "300",
             "--method", "degree", "--ground-truth", d, "--out", f"{out}/x", "--quiet"]])),
    }


# ----------------------------------------------------------------------------- mutations
def read_plain(path):
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data), True
        except (OSError, EOFError):
            pass
    return data, False


def mutate_bytes(rng, data):
    """One mutation of `data`; returns (new bytes, its name)."""
    lines = data.split(b"\n")
    choice = rng.randrange(11)
    if choice == 0 and data:
        cut = rng.randrange(len(data))
        return data[:cut], f"truncate@{cut}"
    if choice == 1 and data:
        out = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(out))
            out[i] = rng.randrange(256) if rng.random() < 0.5 else out[i] ^ (1 << rng.randrange(8))
        return bytes(out), "flip"
    if choice == 2 and len(lines) > 1:
        i = rng.randrange(len(lines))
        return b"\n".join(lines[:i] + lines[i + 1:]), f"delete-line{i + 1}"
    if choice == 3 and lines:
        i = rng.randrange(len(lines))
        return b"\n".join(lines[:i + 1] + lines[i:]), f"duplicate-line{i + 1}"
    if choice == 4 and len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines), f"swap-lines{i + 1},{j + 1}"
    if choice in (5, 6, 7):
        numbers = list(NUMBER.finditer(data))
        if numbers:
            m = rng.choice(numbers)
            value = rng.choice(ODD_NUMBERS)
            return data[:m.start()] + value + data[m.end():], f"number@{m.start()}={value.decode()}"
    if choice == 8:
        return b"", "empty"
    if choice == 9:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 600))), "blob"
    if choice == 10 and data:
        i = rng.randrange(len(data))
        return data[:i] + b"A" * rng.choice([1, 70000]) + data[i:], f"insert@{i}"
    return mutate_bytes(rng, data)


def mutate_file(rng, path):
    """Mutate `path` in place; returns the mutation's name (the file may be renamed to .gz)."""
    data, packed = read_plain(path)
    if packed and rng.random() < 0.3:  # mutate the compressed bytes themselves
        data, name = mutate_bytes(rng, path.read_bytes())
        path.write_bytes(data)
        return path, "gz-raw:" + name
    data, name = mutate_bytes(rng, data)
    if rng.random() < 0.25 and data[:1] not in (b"\x89",) and path.suffix != ".h5" and not packed:
        # gzip of the mutated text: readers take `.gz` files
        packed = True
        new = path.with_name(path.name + ".gz")
        path.unlink()
        path = new
    path.write_bytes(gzip.compress(data) if packed else data)
    return path, ("gzip:" if packed else "") + name


# ----------------------------------------------------------------------------- hostile inputs
# Issue #18: inputs built to hurt rather than damaged at random. Each names itself in the
# saved case; see the module docstring for the list.
LONG_LINE_BYTES = (16 << 20) + 1024  # just over the readers' line bound (line_reader.hpp)
BOMB_LINE_BYTES = 1 << 30            # one line, as a gzip stream of about 1 MB
DEEP_JSON_LEVELS = 200_000
HUGE_NUMBERS = [b"1e999", b"-1e999", b"1E+400", b"2e308"]
HDF5_MUTATIONS = ["nan", "inf", "shape", "attr-type"]
LONG_MESSAGE_CHARS = 1000
_gzip_bomb = []


def gzip_bomb():
    """A gzip stream of BOMB_LINE_BYTES of 'A' with no line break (made once, streamed)."""
    if not _gzip_bomb:
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)
        block = b"A" * (1 << 20)
        chunks = [packer.compress(block) for _ in range(BOMB_LINE_BYTES // len(block))]
        _gzip_bomb.append(b"".join(chunks) + packer.flush())
    return _gzip_bomb[0]


def hostile_text(rng, data):
    """A hostile mutation of text `data`: (bytes, name, gzip the result?)."""
    lines = data.split(b"\n")
    choice = rng.randrange(5)
    if choice == 0:
        i = rng.randrange(len(lines))
        return b"\n".join(lines[:i] + [b"A" * LONG_LINE_BYTES] + lines[i:]), f"long-line@{i + 1}", False
    if choice == 1:
        return gzip_bomb(), "gzip-bomb-line", None
    if choice == 2 and data:
        packed = gzip.compress(data)
        cut = rng.randrange(10, max(11, len(packed) - 8))
        return packed[:cut], f"gzip-truncated@{cut}", None
    if choice == 3:
        numbers = list(NUMBER.finditer(data))
        if numbers:
            m = rng.choice(numbers)
            value = rng.choice(HUGE_NUMBERS)
            return data[:m.start()] + value + data[m.end():], f"huge-number@{m.start()}={value.decode()}", False
    if data.lstrip()[:1] in (b"{", b"["):  # JSON: nest it deep
        return b"[" * DEEP_JSON_LEVELS + data + b"]" * DEEP_JSON_LEVELS, "deep-json", False
    return hostile_text(rng, data)


def hostile_path(rng, path):
    """Put something that is not a readable file where `path` was; returns the name."""
    path.unlink()
    choice = rng.choice(["symlink-loop", "symlink-dev-zero", "folder", "dev-null"])
    if choice == "symlink-loop":
        path.symlink_to(path.name)
    elif choice == "symlink-dev-zero":
        path.symlink_to("/dev/zero")
    elif choice == "folder":
        path.mkdir()
    else:
        path.symlink_to("/dev/null")
    return choice


def hostile_hdf5(rng, path, mutator):
    """Damage one object of the HDF5 file `path` with attend_hdf5_mutator; the name, or None
    when the tool is missing or the file has nothing the drawn mutation applies to."""
    if not mutator:
        return None
    mutation = rng.choice(HDF5_MUTATIONS)
    done = subprocess.run([mutator, str(path), mutation, str(rng.randrange(1 << 30))],
                          capture_output=True, text=True)
    return "hdf5-" + done.stdout.strip().replace(" ", ":") if done.returncode == 0 else None


def stage_hostile_input(rng, seed, case_in, mutator):
    """As stage_input, with a hostile mutation: (path to pass, victim file, mutation name)."""
    target = case_in / seed.name
    if seed.is_dir():
        shutil.copytree(seed, target)
        victim = rng.choice(sorted(p for p in target.rglob("*") if p.is_file()))
    else:
        shutil.copy(seed, target)
        victim = target
    if rng.random() < 0.25:
        return target, victim, hostile_path(rng, victim)
    if victim.read_bytes()[:4] == b"\x89HDF":
        name = hostile_hdf5(rng, victim, mutator)
        if name:
            return target, victim, name
        return target, victim, hostile_path(rng, victim)
    data, _ = read_plain(victim)
    data, name, packed = hostile_text(rng, data)
    if packed is None and not victim.name.endswith(".gz"):  # gzip streams go to a .gz name
        victim.unlink()
        renamed = victim.with_name(victim.name + ".gz")
        target = renamed if victim == target else target
        victim = renamed
    victim.write_bytes(data)
    return target, victim, name


def hostile_verdict(err):
    """Issue #18's message oracle: a line of stderr longer than LONG_MESSAGE_CHARS echoes user
    text in full."""
    longest = max((len(line) for line in err.splitlines()), default=0)
    if longest > LONG_MESSAGE_CHARS:
        return "long-message", f"a stderr line of {longest} characters"
    return None


def default_mutator(attend):
    """attend_hdf5_mutator of the same build (build/tests/), or None."""
    tool = Path(attend).resolve().parent.parent / "tests" / "attend_hdf5_mutator"
    return str(tool) if tool.is_file() else None


# ----------------------------------------------------------------------------- running
def stage_input(rng, seed, case_in):
    """Copy the seed into the case folder and mutate one file; returns (path to pass, mutated file)."""
    if seed.is_dir():
        target = case_in / seed.name
        shutil.copytree(seed, target)
        victim = rng.choice(sorted(p for p in target.rglob("*") if p.is_file()))
        victim, name = mutate_file(rng, victim)
        return target, victim, name
    target = case_in / seed.name
    shutil.copy(seed, target)
    target, name = mutate_file(rng, target)
    return target, target, name


def run_case(attend, argv, cwd, timeout):
    # The HDF5 guard's time limit well inside the case's, so that a file libhdf5 loops on is
    # seen as attend's refusal (exit 2), and a guard that fails to stop it as a timeout.
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive",
               ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=3000",
               UBSAN_OPTIONS="print_stacktrace=1", ATTEND_HDF5_GUARD_SECONDS=str(max(1.0, timeout / 4)))
    proc = subprocess.Popen([attend] + argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=timeout)
        return proc.returncode, err.decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        return "timeout", err.decode(errors="replace")


def verdict(rc, err, out_dir, names):
    """The oracle: a failure category and a one-line symptom, or None."""
    for mark in SANITIZER_MARKS:
        if mark in err:
            line = next(l for l in err.splitlines() if mark in l)
            frame = next((l.strip() for l in err.splitlines()
                          if re.match(r"\s*#\d+ .* in attend::", l)), "")
            # a report whose first frame outside the sanitizer runtime and libc (a memmove
            # called by libhdf5) is in libhdf5
            first = next((l for l in err.splitlines() if re.match(r"\s*#\d+ ", l)
                          and "libsanitizer" not in l and "__interceptor" not in l
                          and "sysdeps/" not in l and "libc.so" not in l), "")
            where = "sanitizer-in-libhdf5" if "libhdf5" in first else "sanitizer"
            return where, f"{line.strip()} | {frame}"
    if rc == "timeout":
        return "timeout", "no exit within the time limit"
    if rc not in (0, 2):
        tail = err.strip().splitlines()[-1] if err.strip() else ""
        return ("signal" if rc < 0 else "exit-code"), f"exit {rc}: {tail}"
    if rc != 0:
        left = sorted(p.name for p in out_dir.rglob("*") if p.is_file())
        if left:
            return "partial-output", "left " + ", ".join(left)
        if not any(n in err for n in names):
            return "unnamed-file", err.strip().splitlines()[-1] if err.strip() else "(no message)"
    return None


# ----------------------------------------------------------------------------- outputs
# The output side (issue #18): instead of a mutated input, a case gives a command hostile
# output paths (an input, another output, a directory, a device or fifo), runs two writers of
# one --out at once, or kills a writer, and checks what is left on disk.
OUTPUT_KINDS = ("out-same-path", "out-directory", "out-device", "out-concurrent", "out-killed")
PREDICTION_SUFFIXES = (".h5", ".mat", ".rr", ".png")
EXPLANATION_SUFFIXES = (".h5", ".edges.tsv", ".features.tsv", ".node300.svg")  # explain node --nodes 300
CONTACT_EXPLANATION_SUFFIXES = (".h5", ".heads.tsv", ".columns.tsv", ".sequences.tsv", ".columns.svg", ".pairs.tsv",
                                ".pairs.png")


def random_alignment(path, rng, length=30, rows=40):
    """A PSICOV alignment of random sequences (two of them differ, so do their predictions)."""
    amino = "ACDEFGHIKLMNPQRSTVWY"
    return write(path, "".join("".join(rng.choice(amino) for _ in range(length)) + "\n" for _ in range(rows)))


def output_writers(seeds, case):
    """Commands that write files: (arguments, {input option: path}, {output option: path}, prefix
    option or None, the suffixes the prefix option writes). Inputs are copies in case/in, so a
    case may aim an output at them."""
    inp, out = case / "in", case / "out"
    for name in ("planetoid", "ba-shapes"):
        shutil.copytree(seeds / name, inp / name)
    for name in ("json/gat.json", "h5/gat_checkpoint.h5", "h5/msa.h5", "pred.h5", "truth.tsv", "h5/ba_shapes_gat.h5"):
        shutil.copy(seeds / name, inp / Path(name).name)
    shutil.copy(FIXTURES / "tiny.fasta", inp / "tiny.fasta")
    planetoid, checkpoint = str(inp / "planetoid"), str(inp / "gat_checkpoint.h5")
    return [
        (["contacts", "predict", "--max-iterations", "3", "--quiet"], {"--msa": str(inp / "msa.h5")},
         {"--out": f"{out}/p", "--json": f"{out}/fit.json"}, "--out", PREDICTION_SUFFIXES),
        (["node-classify", "predict"], {"--data": planetoid, "--checkpoint": checkpoint},
         {"--out": f"{out}/p.tsv", "--export-attention": f"{out}/att.h5"}, None, ()),
        (["node-classify", "train", "--epochs", "2", "--quiet"], {"--data": planetoid, "--model": str(inp / "gat.json")},
         {"--save": f"{out}/m.h5", "--json": f"{out}/r.json"}, None, ()),
        (["node-classify", "evaluate"], {"--data": planetoid, "--checkpoint": checkpoint}, {"--json": f"{out}/e.json"},
         None, ()),
        (["contacts", "eval"], {"--pred": str(inp / "pred.h5"), "--truth": str(inp / "truth.tsv")},
         {"--json": f"{out}/e.json"}, None, ()),
        (["convert"], {"--msa": str(inp / "tiny.fasta")}, {"--to": f"{out}/msa.h5"}, None, ()),
        (["explain", "node", "--nodes", "300", "--method", "degree"],
         {"--data": str(inp / "ba-shapes"), "--checkpoint": str(inp / "ba_shapes_gat.h5")},
         {"--out": f"{out}/x", "--json": f"{out}/x.json"}, "--out", EXPLANATION_SUFFIXES),
        (["explain", "contacts", "--method", "evoformer", "--steps", "2", "--quiet"], {"--msa": str(inp / "msa.h5")},
         {"--out": f"{out}/c", "--json": f"{out}/c.json"}, "--out", CONTACT_EXPLANATION_SUFFIXES),
    ]


def writer_argv(base, inputs, outputs):
    return base + [x for pair in list(inputs.items()) + list(outputs.items()) for x in pair]


def files_of(path):
    """Every file under `path` (hidden temporaries included), relative, sorted."""
    return sorted(str(p.relative_to(path)) for p in Path(path).rglob("*") if not p.is_dir())


def snapshot(paths):
    """Bytes (or the kind, for a folder, device or fifo) of each path, to see what a run changed."""
    state = {}
    for p in map(Path, paths):
        if p.is_dir():
            state[p] = ("dir", tuple(files_of(p)))
        elif p.is_char_device() or p.is_fifo() or p.is_block_device():
            state[p] = ("special", p.stat().st_rdev)
        elif p.exists():
            state[p] = ("file", p.read_bytes())
    return state


def aim(outputs, prefix, suffixes, option, target):
    """Set `option` so that it writes `target` (a prefix option: as PREFIX + one of its
    `suffixes`); False when a prefix cannot name `target`."""
    if option != prefix:
        outputs[option] = target
        return True
    for suffix in suffixes:
        if target.endswith(suffix):
            outputs[option] = target[:-len(suffix)]
            return True
    return False


def hostile_output_case(kind, rng, attend, seeds, case, timeout):
    """same-path, directory, device: the command must refuse (exit 2) and change nothing.
    Returns (found or None, argv, stderr, what was done)."""
    base, inputs, outputs, prefix, suffixes = rng.choice(output_writers(seeds, case))
    written = {o: [v + s for s in suffixes] if o == prefix else [v] for o, v in outputs.items()}
    if kind == "out-same-path":  # an input (as given, through a link, spelt otherwise) or another output
        targets = [str(v) for v in inputs.values() if Path(v).is_file()]
        choices = [(o, t) for o in outputs for t in targets + [f for other in outputs if other != o
                                                               for f in written[other]]
                   if t.endswith(suffixes) or o != prefix]
        option, target = rng.choice(choices)
        how = rng.randrange(3)
        if target in targets and how == 1:
            link = case / "out" / ("link-" + Path(target).name)
            link.symlink_to(target)
            target = str(link)
        elif target in targets and how == 2:
            target = str(Path(target).parent / ".." / Path(target).parent.name / Path(target).name)
    else:
        option = rng.choice(sorted(outputs))
        target = case / "out" / ("folder" + (rng.choice(suffixes) if option == prefix else ""))
        if kind == "out-directory":
            target.mkdir()
        else:  # out-device: a device node beside the outputs (a private /dev/null), else a fifo
            try:
                os.mknod(target, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
            except PermissionError:  # not root, or no CAP_MKNOD
                os.mkfifo(target)
        target = str(target)
    aim(outputs, prefix, suffixes, option, target)
    argv = writer_argv(base, inputs, outputs)
    watched = list(inputs.values()) + [target]
    before, files_before = snapshot(watched), files_of(case / "out")
    rc, err = run_case(attend, argv, case, timeout)
    what = f"{option} -> {target.replace(str(case), '.')}"
    found = sanitizer_report(err)
    if not found and rc != 2:
        found = ("exit-code", f"exit {rc} for {kind} ({what})")
    if not found and snapshot(watched) != before:
        found = ("overwrote-input", f"{what} changed the file it names")
    if not found and files_of(case / "out") != files_before:
        found = ("partial-output", f"{what} left " + ", ".join(sorted(set(files_of(case / "out")) - set(files_before))))
    return found, argv, err, what


def prediction_set(prefix):
    return [Path(str(prefix) + s).read_bytes() if Path(str(prefix) + s).exists() else None
            for s in (".mat", ".rr", ".png")]


def concurrent_output_case(rng, attend, case, timeout):
    """Two contacts predict runs with one --out at once, on two alignments of one length (so
    they take the same time): the prefix must then hold one run's whole set, and nothing else."""
    inp, out = case / "in", case / "out"
    msas = [random_alignment(inp / f"{k}.aln", rng) for k in ("a", "b")]
    iterations = str(rng.randint(2, 8))
    predict = lambda msa, prefix: ["--threads", "1", "contacts", "predict", "--msa", str(msa), "--out", str(prefix),
                                   "--max-iterations", iterations, "--quiet"]
    for k, msa in zip("ab", msas):
        run_case(attend, predict(msa, inp / f"ref_{k}"), case, timeout)
    argv = predict(msas[0], out / "p")
    procs = [subprocess.Popen([attend] + predict(msa, out / "p"), cwd=case, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, start_new_session=True) for msa in msas]
    errs, codes = [], []
    for proc in procs:
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
        errs.append(err.decode(errors="replace"))
        codes.append(proc.returncode)
    err = "\n".join(errs)
    found = sanitizer_report(err)
    if not found and codes != [0, 0]:
        found = ("exit-code", f"exits {codes} of two concurrent writers")
    expected = ["p" + s for s in sorted(PREDICTION_SUFFIXES)]
    if not found and files_of(out) != expected:
        found = ("stale-temporary", "left " + ", ".join(files_of(out)))
    if not found and prediction_set(out / "p") not in (prediction_set(inp / "ref_a"), prediction_set(inp / "ref_b")):
        found = ("mixed-set", "the .mat, .rr and .png come from different runs")
    return found, argv, err, "two writers of one --out"


def killed_output_case(rng, attend, seeds, case, timeout):
    """A writer killed (SIGKILL) at a random moment: its outputs are all there or none, and the
    next run of the command leaves its outputs and no temporary file."""
    base, inputs, outputs, prefix, suffixes = rng.choice(output_writers(seeds, case))
    argv = writer_argv(base, inputs, outputs)
    delay = rng.uniform(0.0, 0.4)
    proc = subprocess.Popen([attend] + argv, cwd=case, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    time.sleep(delay)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:  # it had finished
        pass
    _, err = proc.communicate()
    err = err.decode(errors="replace")
    expected = sorted(Path(v + (s if o == prefix else "")).name
                      for o, v in outputs.items() for s in (suffixes if o == prefix else ("",)))
    visible = [f for f in files_of(case / "out") if not f.startswith(".")]
    what = f"killed after {delay:.2f} s"
    found = sanitizer_report(err)
    if not found and visible not in ([], expected):
        found = ("partial-set-after-kill", f"{what}: left " + ", ".join(visible))
    rc, err2 = run_case(attend, argv, case, timeout)
    err += "\n" + err2
    if not found:
        found = sanitizer_report(err2)
    if not found and rc != 0:
        found = ("exit-code", f"exit {rc} rerunning after a writer was {what}")
    if not found and files_of(case / "out") != expected:
        found = ("stale-temporary", f"{what}, the rerun left " + ", ".join(files_of(case / "out")))
    return found, argv, err, what


def run_output_case(kind, rng, attend, seeds, case, timeout):
    if kind == "out-concurrent":
        return concurrent_output_case(rng, attend, case, timeout)
    if kind == "out-killed":
        return killed_output_case(rng, attend, seeds, case, timeout)
    return hostile_output_case(kind, rng, attend, seeds, case, timeout)


def sanitizer_report(err):
    for mark in SANITIZER_MARKS:
        if mark in err:
            return "sanitizer", next(l for l in err.splitlines() if mark in l).strip()
    return None


def signature(kind, category, symptom):
    """What makes two failures the same: numbers, paths and quoted names (the mutated
    text) do not count, and a message without a file counts once per layer or reader."""
    text = re.sub(r"'[^']*'|\[[^]]*\]", "Q", symptom)
    text = re.sub(r"0x[0-9a-f]+|\d+", "N", text)
    text = re.sub(r"/\S*/", "", text)
    if category == "unnamed-file":
        text = " ".join(text.split()[:3])
    return (kind, category, text[:160])


def original_of(seed, case, victim):
    """The unmutated file the mutated `victim` was made from (a seed file, or a file of a seed
    folder), or None (a folder, a link or a device put in its place)."""
    if not victim.is_file() or victim.is_symlink():
        return None
    original = seed / victim.relative_to(case / "in" / seed.name) if seed.is_dir() else seed
    if not original.exists() and original.name.endswith(".gz"):  # gzipped by the mutation
        original = original.with_name(original.name[:-3])
    return original if original.is_file() else None


def save_case_record(keep, case, kind, found, argv, timeout, staged):
    """case.json beside command.sh, for scripts/minimise_case.py: the command (paths relative to
    the case folder), the verdict, and for a mutated file its path in the case and a copy of the
    file it was made from (original/)."""
    record = {"kind": kind, "category": found[0], "symptom": found[1], "timeout": timeout,
              "argv": [str(a).replace(str(case), ".") for a in argv]}
    if staged:
        seed, victim = staged
        original = original_of(seed, case, victim)
        if original:
            (keep / "original").mkdir()
            shutil.copy(original, keep / "original" / victim.name)
            record["input"] = str(victim.relative_to(case))
            record["original"] = f"original/{victim.name}"
    (keep / "case.json").write_text(json.dumps(record, indent=1) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attend", default=str(ROOT / "build" / "apps" / "attend"), help="attend binary")
    parser.add_argument("--seconds", type=float, default=300, help="time budget (wall seconds)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the mutations")
    parser.add_argument("--failures", default="fuzz-failures", help="folder for the failing cases")
    parser.add_argument("--kinds", default="", help="comma list of input kinds and out-* kinds (default: all)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per case")
    parser.add_argument("--hostile", type=float, default=0.3,
                        help="share of the cases that get a hostile mutation (issue #18)")
    parser.add_argument("--hdf5-mutator", default=None,
                        help="attend_hdf5_mutator (default: build/tests/ beside --attend)")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    failures = Path(args.failures).resolve()
    failures.mkdir(parents=True, exist_ok=True)
    attend = str(Path(args.attend).resolve())
    mutator = args.hdf5_mutator or default_mutator(attend)
    if not mutator:
        print("no attend_hdf5_mutator: HDF5 files get no hostile value, shape or type mutations")
    seeds_home = failures / "seeds"  # kept: the saved commands name these files
    shutil.rmtree(seeds_home, ignore_errors=True)
    seeds_home.mkdir()
    targets = build_seeds(attend, seeds_home)
    with tempfile.TemporaryDirectory(prefix="attend-fuzz-") as tmp:
        base = Path(tmp)
        kinds = args.kinds.split(",") if args.kinds else sorted(targets) + list(OUTPUT_KINDS)
        ran, failed, seen = Counter(), Counter(), {}
        start = time.time()
        n = 0
        while time.time() - start < args.seconds:
            kind = kinds[n % len(kinds)]
            n += 1
            case = base / f"case{n}"
            (case / "in").mkdir(parents=True)
            (case / "out").mkdir()
            if kind in OUTPUT_KINDS:
                found, argv, err, mutation = run_output_case(kind, rng, attend, seeds_home, case, args.timeout)
                seed = victim = Path(kind)
            else:
                seeds, command = targets[kind]
                seed = rng.choice(seeds)
                if rng.random() < args.hostile:
                    passed, victim, mutation = stage_hostile_input(rng, seed, case / "in", mutator)
                else:
                    passed, victim, mutation = stage_input(rng, seed, case / "in")
                argv = [str(a) for a in command(rng, str(passed), str(case / "out"))]
                rc, err = run_case(attend, argv, case, args.timeout)
                found = verdict(rc, err, case / "out", {victim.name, passed.name}) or hostile_verdict(err)
            ran[kind] += 1
            if found:
                sig = signature(kind, *found)
                if sig not in seen:
                    keep = failures / f"{len(seen) + 1:03d}-{kind}-{found[0]}"
                    shutil.rmtree(keep, ignore_errors=True)
                    shutil.copytree(case / "in", keep / "in", symlinks=True)  # a loop, /dev/zero
                    (keep / "command.sh").write_text(
                        "# run from this folder; seed " + seed.name + ", mutation " + mutation + "\n"
                        + " ".join(f"'{a}'" for a in ["attend"] + argv).replace(str(case), ".") + "\n")
                    (keep / "stderr.txt").write_text(err)
                    save_case_record(keep, case, kind, found, argv, args.timeout,
                                     None if kind in OUTPUT_KINDS else (seed, victim))
                    seen[sig] = keep
                    print(f"[{kind}] {found[0]}: {found[1][:200]}\n    saved {keep}", flush=True)
                failed[kind] += 1
            shutil.rmtree(case, ignore_errors=True)
        print(f"\n{sum(ran.values())} cases in {time.time() - start:.0f} s; distinct failures {len(seen)}")
        for kind in kinds:
            print(f"  {kind:14s} ran {ran[kind]:5d}  failing {failed[kind]:4d}")


if __name__ == "__main__":
    main()
