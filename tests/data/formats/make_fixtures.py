#!/usr/bin/env python3
"""Write the small dataset fixtures of tests/graph/test_dataset_formats.cpp: one graph (six
nodes on a ring, three features, three classes, two edge features) in each layout attend
reads besides its own. Standard library only (the .npy files are written by hand from the
format NumPy documents), so the files come out the same on every machine:

    python3 tests/data/formats/make_fixtures.py   # rewrites the files beside it
"""
import gzip
import struct
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
N = 6
PAIRS = [(i, (i + 1) % N) for i in range(N)]                      # the ring, each pair once
EDGE_INDEX = [[u for u, v in PAIRS] + [v for u, v in PAIRS],      # both directions, as PyG
              [v for u, v in PAIRS] + [u for u, v in PAIRS]]
X = [[0.0 if (i + j) % 3 == 0 else i + 0.5 * j for j in range(3)] for i in range(N)]
Y = [i % 3 for i in range(N)]
TRAIN, VAL, TEST = [0, 1, 2], [3], [4, 5]
EDGE_ATTR = [[float(e), 0.25 * e] for e in range(len(PAIRS))]    # of each pair


def npy(descr, shape, fmt, values):
    """A version 1.0 .npy file: magic, version, header padded to 64 bytes, raw elements."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % d for d in shape).rstrip(" ") if len(shape) != 1 else "%d," % shape[0])
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack(
        "<%d%s" % (len(values), fmt), *values)


def arrays():
    edge_attr = EDGE_ATTR + EDGE_ATTR  # the reverse directions repeat their pair's row
    return {
        "edge_index": npy("<i8", (2, 2 * N), "q", EDGE_INDEX[0] + EDGE_INDEX[1]),
        "x": npy("<f4", (N, 3), "f", [v for row in X for v in row]),
        "y": npy("<i8", (N,), "q", Y),
        "train_mask": npy("|b1", (N,), "?", [i in TRAIN for i in range(N)]),
        "val_idx": npy("<i4", (len(VAL),), "i", VAL),
        "test_mask": npy("|b1", (N,), "?", [i in TEST for i in range(N)]),
        "edge_attr": npy("<f8", (2 * N, 2), "d", [v for row in edge_attr for v in row]),
    }


def gz(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:  # mtime 0: the same bytes on every run
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
            g.write(text.encode())


def main():
    data = arrays()
    with zipfile.ZipFile(HERE / "ring.npz", "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, content in data.items():
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with z.open(info, "w", force_zip64=True) as member:  # as numpy.savez does
                member.write(content)
    folder = HERE / "ring_npy"
    folder.mkdir(exist_ok=True)
    for name, content in data.items():
        (folder / (name + ".npy")).write_bytes(content)

    names = "abcdef"
    with open(HERE / "ring.edgelist", "w") as f:
        f.write("# NetworkX write_edgelist(G, data=True)\n")
        for (u, v), (w, k) in zip(PAIRS, EDGE_ATTR):
            f.write("%s %s {'weight': %r, 'kind': %r}\n" % (names[u], names[v], k, w))
    with open(HERE / "ring.csv", "w") as f:
        f.write("source,target,kind,weight\n")
        for (u, v), (w, k) in zip(PAIRS, EDGE_ATTR):
            f.write("%s,%s,%r,%r\n" % (names[u], names[v], w, k))

    ogb = HERE / "ogbn_ring"
    gz(ogb / "raw" / "edge.csv.gz", "".join("%d,%d\n" % p for p in PAIRS))
    gz(ogb / "raw" / "num-node-list.csv.gz", "%d\n" % N)
    gz(ogb / "raw" / "num-edge-list.csv.gz", "%d\n" % len(PAIRS))
    gz(ogb / "raw" / "node-feat.csv.gz", "".join(",".join(repr(v) for v in row) + "\n" for row in X))
    gz(ogb / "raw" / "node-label.csv.gz", "".join("%d\n" % y for y in Y))
    gz(ogb / "raw" / "edge-feat.csv.gz", "".join(",".join(repr(v) for v in row) + "\n" for row in EDGE_ATTR))
    for split, ids in (("train", TRAIN), ("valid", VAL), ("test", TEST)):
        gz(ogb / "split" / "random" / (split + ".csv.gz"), "".join("%d\n" % i for i in ids))


if __name__ == "__main__":
    main()
