"""attend.contacts (the matrix `contacts predict` writes) and attend.ops (against numpy)."""
import gzip
import os
import subprocess

import numpy as np
import pytest

import attend


def test_contacts_predict_returns_the_matrix_the_command_line_writes(attend_binary, data_dir, tmp_path):
    msa = os.path.join(data_dir, "proteins", "psicov_subset", "aln", "1atzA.aln.gz")
    scores = attend.contacts.predict(msa, method="potts", max_iterations=10)
    subprocess.run([attend_binary, "contacts", "predict", "--msa", msa, "--max-iterations", "10", "--quiet",
                    "--out", str(tmp_path / "p")], check=True, capture_output=True)
    mat = np.loadtxt(tmp_path / "p.mat", dtype=np.float32)
    np.testing.assert_array_equal(scores, mat)
    # The same alignment given as rows.
    with gzip.open(msa, "rt") as f:
        rows = [line.strip() for line in f if line.strip()]
    np.testing.assert_array_equal(attend.contacts.predict(rows, method="potts", max_iterations=10), scores)
    truth = os.path.join(data_dir, "proteins", "psicov_subset", "contacts", "1atzA.tsv.gz")
    precision = attend.contacts.evaluate(scores, truth=truth)
    assert precision["L"] == scores.shape[0]
    assert 0.0 <= precision["long"]["P@L/5"] <= 1.0


def test_contacts_options_are_the_user_guide_keys(attend_binary, data_dir, tmp_path):
    msa = os.path.join(data_dir, "proteins", "psicov_subset", "aln", "1atzA.aln.gz")
    scores = attend.contacts.predict(msa, options={"lambda_single": 0.05, "max_iterations": 8,
                                                   "max_column_gap_fraction": 0.5})
    subprocess.run([attend_binary, "contacts", "predict", "--msa", msa, "--lambda-single", "0.05", "--max-iterations",
                    "8", "--max-column-gaps", "0.5", "--quiet", "--out", str(tmp_path / "p")],
                   check=True, capture_output=True)
    np.testing.assert_array_equal(scores, np.loadtxt(tmp_path / "p.mat", dtype=np.float32))
    # The keyword arguments apply over the dict.
    np.testing.assert_array_equal(
        attend.contacts.predict(msa, options={"lambda_single": 0.05, "max_iterations": 3, "max_column_gap_fraction": 0.5},
                                max_iterations=8), scores)
    rows = ["ACDEFGHIK", "ACDEYGHIK", "ACNEFGHLK", "GCDEFGHIK"]
    factored = attend.contacts.predict(rows, method="factored", options={"n_heads": 2, "c_hidden": 4,
                                                                         "max_iterations": 3})
    np.testing.assert_array_equal(
        attend.contacts.predict(rows, method="factored", options={"c_hidden": 4}, heads=2, max_iterations=3), factored)
    with pytest.raises(ValueError, match="potts: unknown option 'lambda'"):
        attend.contacts.predict(rows, options={"lambda": 1.0})
    with pytest.raises(ValueError, match="factored: option 'value_states' must be \\[20, 21\\], got '19'"):
        attend.contacts.predict(rows, method="factored", options={"value_states": 19})


def test_contacts_input_errors():
    with pytest.raises(ValueError, match="row 2 has 3 aligned columns, row 1 has 4"):
        attend.contacts.predict(["ACDE", "ACD"])
    with pytest.raises(ValueError, match="choose potts, factored or evoformer"):
        attend.contacts.predict(["ACDE", "ACDE"], method="pots")


def numpy_attention(q, k, v, bias=0.0):
    logits = np.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(q.shape[-1]) + bias
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bhqk,bhkd->bhqd", p, v)


def test_dense_attention_matches_numpy():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 3, n, 8)).astype(np.float32) for n in (5, 7, 7))
    bias = rng.standard_normal((2, 1, 5, 7)).astype(np.float32)
    out = attend.ops.dense_attention(q, k, v, bias=bias)
    np.testing.assert_allclose(out, numpy_attention(q, k, v, bias), rtol=1e-4, atol=1e-5)
    # Other layouts and dtypes are converted first (contiguous float32 is read in place).
    q_strided = np.swapaxes(np.swapaxes(q, 2, 3).copy(), 2, 3)
    assert not q_strided.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(attend.ops.dense_attention(q_strided, k, v.astype(np.float64), bias=bias), out)
    with pytest.raises(ValueError, match="q must have 4 dimensions"):
        attend.ops.dense_attention(q[0], k, v)


def test_sparse_attention_matches_a_loop_over_edges():
    rng = np.random.default_rng(1)
    n, h, d = 6, 2, 4
    edge_index = np.array([[0, 1, 2, 3, 4, 5, 0, 2], [1, 1, 1, 2, 2, 3, 5, 5]])
    q, k, v = (rng.standard_normal((n, h, d)).astype(np.float32) for _ in range(3))
    out, weights = attend.ops.sparse_attention(edge_index, q, k, v, return_weights=True)
    expected = np.zeros((n, h, d), dtype=np.float64)
    for i in range(n):
        incoming = np.where(edge_index[1] == i)[0]
        if incoming.size == 0:
            continue
        s = np.einsum("hd,ehd->eh", q[i], k[edge_index[0, incoming]]) / np.sqrt(d)
        p = np.exp(s - s.max(0))
        p /= p.sum(0)
        np.testing.assert_allclose(weights[incoming], p, rtol=1e-5)
        expected[i] = np.einsum("eh,ehd->hd", p, v[edge_index[0, incoming]])
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="outside"):
        attend.ops.sparse_attention(np.array([[0], [9]]), q, k, v)
