"""attend.NodeClassifier: the same model, checkpoints and accuracy as `attend node-classify`."""
import json
import os
import subprocess

import numpy as np
import pytest

import attend

EPOCHS = 15  # enough to move the weights far from their start, short enough for the suite


def cli(binary, *args):
    return subprocess.run([binary, *args], check=True, capture_output=True, text=True).stdout


def test_cora_from_numpy_arrays_matches_the_command_line(attend_binary, data_dir, cora_arrays, tmp_path):
    g = attend.Graph(cora_arrays["edge_index"], x=cora_arrays["x"], y=cora_arrays["y"],
                     train=cora_arrays["train"], val=cora_arrays["val"], test=cora_arrays["test"], name="cora")
    model = attend.NodeClassifier("gat-cora")
    run = model.fit(g, epochs=EPOCHS, seed=3, threads=2)
    assert run["epochs"] == EPOCHS
    cli(attend_binary, "node-classify", "train", "--data", os.path.join(data_dir, "graphs", "cora"), "--model",
        "gat-cora", "--epochs", str(EPOCHS), "--seed", "3", "--threads", "2", "--quiet",
        "--json", str(tmp_path / "run.json"), "--save", str(tmp_path / "cli.h5"))
    with open(tmp_path / "run.json") as f:
        summary = json.load(f)
    assert run["test_acc"] == summary["runs"][0]["test_acc"]
    assert run["val_acc"] == summary["runs"][0]["val_acc"]
    # The model the command line saved predicts exactly what the fitted one does.
    probabilities = model.predict(g)
    assert probabilities.shape == (2708, 7)
    np.testing.assert_array_equal(attend.NodeClassifier.load(str(tmp_path / "cli.h5")).predict(g), probabilities)
    # And the Python checkpoint is one the command line reads.
    model.save(str(tmp_path / "py.h5"))
    out = cli(attend_binary, "node-classify", "evaluate", "--data", os.path.join(data_dir, "graphs", "cora"),
              "--checkpoint", str(tmp_path / "py.h5"))
    scores = model.evaluate(g)
    assert "test" in out and "%.1f" % (100 * scores["test"]["accuracy"]) in out
    assert scores["test"]["accuracy"] == run["test_acc"]


def test_predictions_do_not_depend_on_the_thread_count(cora_arrays):
    g = attend.Graph(cora_arrays["edge_index"], x=cora_arrays["x"], y=cora_arrays["y"], train=cora_arrays["train"],
                     val=cora_arrays["val"], test=cora_arrays["test"])
    model = attend.NodeClassifier({"layers": [{"type": "gcn", "out_channels": 16}, {"type": "gcn"}],
                                   "activation": "relu", "optimizer": {"type": "adam", "lr": 0.01},
                                   "epochs": 5, "patience": 0})
    model.fit(g, seed=1, threads=1)
    np.testing.assert_array_equal(model.predict(g, threads=1), model.predict(g, threads=2))
    assert model.config["layers"][0]["type"] == "gcn"
    assert model.attention(g) == [None, None]  # gcn layers do not attend


def test_a_graph_prepared_once_predicts_what_a_fresh_one_does(cora_arrays):
    arrays = dict(x=cora_arrays["x"], y=cora_arrays["y"], train=cora_arrays["train"], val=cora_arrays["val"],
                  test=cora_arrays["test"])
    g = attend.Graph(cora_arrays["edge_index"], **arrays)
    model = attend.NodeClassifier({"layers": [{"type": "gat", "out_channels": 8, "heads": 2}, {"type": "gat"}],
                                   "activation": "elu", "optimizer": {"type": "adam", "lr": 0.01},
                                   "epochs": 3, "patience": 0})
    model.fit(g, seed=2)
    # The second call on g reuses the graph the first prepared; a new Graph prepares its own.
    first = model.predict(g)
    np.testing.assert_array_equal(model.predict(g), first)
    np.testing.assert_array_equal(model.predict(attend.Graph(cora_arrays["edge_index"], **arrays)), first)
    # The raw (not normalised) preparation is kept apart from the normalised one.
    raw = attend.NodeClassifier({"layers": [{"type": "gcn"}], "normalize_features": False, "epochs": 2,
                                 "patience": 0})
    raw.fit(g, seed=2)
    np.testing.assert_array_equal(raw.predict(g), raw.predict(attend.Graph(cora_arrays["edge_index"], **arrays)))
    np.testing.assert_array_equal(model.predict(g), first)
    assert model.evaluate(g)["test"]["accuracy"] == model.evaluate(attend.Graph(cora_arrays["edge_index"],
                                                                                 **arrays))["test"]["accuracy"]


def test_attention_weights_sum_to_one_over_each_node_in_edges(cora_arrays):
    g = attend.Graph(cora_arrays["edge_index"], x=cora_arrays["x"], y=cora_arrays["y"], train=cora_arrays["train"])
    model = attend.NodeClassifier("gat-cora")
    model.fit(g, epochs=2)
    layers = model.attention(g)
    assert len(layers) == 2
    first = layers[0]
    assert first["weights"].shape == (first["src"].size, 8)
    sums = np.zeros((g.num_nodes, 8))
    np.add.at(sums, first["dst"], first["weights"])
    np.testing.assert_allclose(sums, 1.0, rtol=1e-5)


def test_model_errors_are_value_errors():
    with pytest.raises(ValueError, match="no-such-preset"):
        attend.NodeClassifier("no-such-preset")
    with pytest.raises(ValueError, match="heads"):
        g = attend.Graph(np.array([[0, 1], [1, 0]]), x=np.ones((2, 3), dtype=np.float32), y=np.array([0, 1]),
                         train=np.array([0, 1]))
        attend.NodeClassifier({"layers": [{"type": "gat", "heads": 0}]}).fit(g)
    with pytest.raises(ValueError, match="not trained"):
        attend.NodeClassifier("gat").predict(g)
    with pytest.raises(ValueError, match="threads must be at least 1"):
        attend.NodeClassifier("gat").fit(g, threads=0)
