"""Shared fixtures of the Python module's tests: the built package is on PYTHONPATH (ctest
sets it), ATTEND_BINARY is the command line built alongside, ATTEND_SOURCE_DATA the data/."""
import gzip
import os

import numpy as np
import pytest


@pytest.fixture(scope="session")
def attend_binary():
    return os.environ["ATTEND_BINARY"]


@pytest.fixture(scope="session")
def data_dir():
    return os.environ["ATTEND_SOURCE_DATA"]


def _numbers(path):
    with gzip.open(path, "rt") as f:
        return [line.split() for line in f if not line.startswith("#")]


@pytest.fixture(scope="session")
def cora_arrays(data_dir):
    """Cora as a numpy user builds it from the dataset's own files (no attend reader)."""
    root = os.path.join(data_dir, "graphs", "cora")
    edges = np.array(_numbers(os.path.join(root, "edges.txt.gz")), dtype=np.int64).T  # [2, E]
    coo = np.array(_numbers(os.path.join(root, "features.coo.txt.gz")), dtype=np.float64)
    labels = np.array([int(r[0]) for r in _numbers(os.path.join(root, "labels.txt.gz"))], dtype=np.int64)
    x = np.zeros((labels.size, int(coo[:, 1].max()) + 1), dtype=np.float32)
    x[coo[:, 0].astype(np.int64), coo[:, 1].astype(np.int64)] = coo[:, 2]
    splits = {}
    for name in ("train", "val", "test"):
        with open(os.path.join(root, "split_%s.txt" % name)) as f:
            splits[name] = np.array([int(line) for line in f if line.strip()], dtype=np.int64)
    return {"edge_index": edges, "x": x, "y": labels, **splits}
