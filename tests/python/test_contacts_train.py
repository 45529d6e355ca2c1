"""attend.contacts.train: the run `attend contacts train` makes, from Python."""
import json
import os
import subprocess

import numpy as np
import pytest

import attend

AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"


def write_family(folder):
    """A 12-column alignment whose first and last columns agree, and its truth (1-12 in contact)."""
    rng = np.random.default_rng(3)
    rows = []
    for _ in range(60):
        s = [AMINO_ACIDS[i] for i in rng.integers(0, 20, size=12)]
        s[11] = s[0]
        rows.append("".join(s))
    (folder / "a.aln").write_text("\n".join(rows) + "\n")
    (folder / "t.tsv").write_text("#L 12\n1\t12\t5.0\t1\n1\t8\t12.0\t0\n2\t9\tNA\t0\n3\t10\t9.5\t0\n")
    (folder / "list.txt").write_text("a.aln t.tsv\n")
    return str(folder / "list.txt")


def without_seconds(summary):
    return {k: v for k, v in summary.items() if k not in ("seconds", "model")}


def test_contacts_train_writes_the_model_the_command_line_writes(attend_binary, tmp_path):
    families = write_family(tmp_path)
    options = ["--epochs", "2", "--crop", "8", "--msa-depth", "4", "--c-m", "4", "--c-z", "4", "--seed", "5",
               "--neighbour-scores"]
    subprocess.run([attend_binary, "--threads", "1", "contacts", "train", "--families", families, "--out",
                    str(tmp_path / "cli.h5"), "--json", str(tmp_path / "cli.json"), "--quiet", *options],
                   check=True, capture_output=True)
    summary = attend.contacts.train(families, out=str(tmp_path / "py.h5"), json=str(tmp_path / "py.json"), epochs=2,
                                    crop=8, msa_depth=4, c_m=4, c_z=4, seed=5, neighbour_scores=True, threads=1)
    with open(tmp_path / "cli.json") as f:
        cli_summary = json.load(f)
    with open(tmp_path / "py.json") as f:
        py_summary = json.load(f)
    assert without_seconds(py_summary) == without_seconds(cli_summary)  # the losses to the bit
    # The returned summary is the file's (whose numbers are written as float32).
    assert summary["model"] == str(tmp_path / "py.h5")
    assert summary["families"] == py_summary["families"] and summary["epochs"] == 2
    assert [np.float32(e["train_loss"]) for e in summary["history"]] == \
        [np.float32(e["train_loss"]) for e in py_summary["history"]]
    # The two model files predict the same scores: the same parameters.
    msa = str(tmp_path / "a.aln")
    cli_scores = attend.contacts.predict(msa, method="evoformer", model=str(tmp_path / "cli.h5"), threads=1)
    py_scores = attend.contacts.predict(msa, method="evoformer", model=str(tmp_path / "py.h5"), threads=1)
    np.testing.assert_array_equal(py_scores, cli_scores)
    # Another seed trains another model.
    attend.contacts.train(families, out=str(tmp_path / "other.h5"), epochs=2, crop=8, msa_depth=4, c_m=4, c_z=4,
                          seed=6, neighbour_scores=True, threads=1)
    other = attend.contacts.predict(msa, method="evoformer", model=str(tmp_path / "other.h5"), threads=1)
    assert not np.array_equal(other, cli_scores)


def test_contacts_train_input_errors_are_value_errors(tmp_path):
    families = write_family(tmp_path)
    (tmp_path / "bad.txt").write_text("a.aln t.tsv\nmissing.aln t.tsv\n")
    with pytest.raises(ValueError, match="bad.txt:2"):
        attend.contacts.train(str(tmp_path / "bad.txt"), out=str(tmp_path / "m.h5"), epochs=1)
    with pytest.raises(ValueError, match="--resume needs --checkpoint"):
        attend.contacts.train(families, out=str(tmp_path / "m.h5"), resume=True)
    assert sorted(os.listdir(tmp_path)) == ["a.aln", "bad.txt", "list.txt", "t.tsv"]
