"""OpenBLAS's thread count after attend's products, in a process that imports torch too: both
use the same libopenblas.so.0, and attend (which holds the count at 1 while it calls OpenBLAS)
must leave torch's matrix products the threads they had. Runs in a fresh interpreter without
this machine's OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, which would keep attend on Eigen."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

CHILD = r"""
import ctypes, json
import numpy as np
import torch
import attend

path = next(line.split()[-1] for line in open("/proc/self/maps") if "libopenblas" in line)
openblas = ctypes.CDLL(path)  # the library already loaded, not a second copy
openblas.openblas_set_num_threads(2)
rng = np.random.default_rng(0)
n = 400
edge_index = rng.integers(0, n, size=(2, 4 * n)).astype(np.int64)
x = rng.standard_normal((n, 150)).astype(np.float32)
y = rng.integers(0, 5, size=n).astype(np.int64)
g = attend.Graph(edge_index, x=x, y=y, train=np.arange(0, 200), val=np.arange(200, 300),
                 test=np.arange(300, 400))
# 200 output channels: x W is 400 x 200 x 150, not a narrow product, so OpenBLAS does it.
model = attend.NodeClassifier({"layers": [{"type": "gcn", "out_channels": 200}, {"type": "gcn"}],
                               "activation": "relu", "optimizer": {"type": "adam", "lr": 0.01},
                               "epochs": 2, "patience": 0})
model.fit(g, seed=1, threads=2)
after_fit = openblas.openblas_get_num_threads()
probabilities = model.predict(g, threads=2)
after_predict = openblas.openblas_get_num_threads()
a = torch.ones(512, 512)
torch.mm(a, a)
print(json.dumps({"after_fit": after_fit, "after_predict": after_predict,
                  "after_torch": openblas.openblas_get_num_threads(),
                  "rows": int(probabilities.shape[0])}))
"""


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="no torch in this interpreter")
def test_attend_leaves_openblas_threads_to_torch():
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    run = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    counts = json.loads(run.stdout.strip().splitlines()[-1])
    assert counts == {"after_fit": 2, "after_predict": 2, "after_torch": 2, "rows": 400}
