"""attend.Graph from numpy arrays and attend.load_graph."""
import os
import subprocess

import numpy as np
import pytest

import attend


def test_graph_from_arrays_keeps_what_it_was_given():
    edge_index = np.array([[0, 1, 2], [1, 2, 3]])
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    g = attend.Graph(edge_index, x=x, y=np.array([0, 1, 0, 1]), train=np.array([True, True, False, False]),
                     test=np.array([3]))
    assert (g.num_nodes, g.num_edges, g.num_features, g.num_classes) == (4, 3, 2, 2)
    assert np.array_equal(g.edge_index, edge_index)
    assert np.array_equal(g.x, x)
    assert np.array_equal(g.train, [0, 1])
    assert np.array_equal(g.test, [3])
    assert g.val.size == 0
    assert "4 nodes" in repr(g)


def test_to_numpy_gives_the_arrays_a_graph_is_built_from(data_dir):
    typed = attend.Graph(np.array([[0, 1, 2], [1, 2, 0]]), y=np.array([0, 1, -1, 1]), train=np.array([0, 3]),
                         edge_type=np.array([1, 0, 1]), num_nodes=4, directed=True)
    arrays = typed.to_numpy()
    np.testing.assert_array_equal(arrays["edge_type"], [1, 0, 1])
    assert arrays["num_nodes"] == 4 and arrays["directed"] is True and arrays["edge_attr"] is None
    for graph in (typed, attend.load_graph(os.path.join(data_dir, "graphs", "cora"))):
        again = attend.Graph(**graph.to_numpy())
        for name, value in graph.to_numpy().items():
            if isinstance(value, np.ndarray):
                np.testing.assert_array_equal(getattr(again, name), value, err_msg=name)
        assert (again.num_nodes, again.num_edges, again.num_classes) == (graph.num_nodes, graph.num_edges,
                                                                          graph.num_classes)
    assert attend.Graph(np.array([[0], [1]])).edge_type is None


def test_graph_input_errors_are_value_errors_with_one_line():
    with pytest.raises(ValueError, match=r"edge_index must have shape \[2, E\]"):
        attend.Graph(np.zeros((3, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="x has 3 rows, the graph has 4 nodes"):
        attend.Graph(np.array([[0], [3]]), x=np.zeros((3, 2), dtype=np.float32), num_nodes=4)
    with pytest.raises(ValueError, match="one entry per node"):
        attend.Graph(np.array([[0], [1]]), y=np.array([0, 1]), train=np.array([True]))
    with pytest.raises(ValueError) as error:
        attend.Graph(np.array([[0], [1]]), x=np.array([[np.nan], [1.0]], dtype=np.float32))
    assert "\n" not in str(error.value)


def test_load_graph_reads_the_layouts_of_the_command_line(data_dir, cora_arrays):
    g = attend.load_graph(os.path.join(data_dir, "graphs", "cora"))
    assert (g.num_nodes, g.num_features, g.num_classes) == (2708, 1433, 7)
    assert np.array_equal(g.x, cora_arrays["x"])
    assert np.array_equal(g.y, cora_arrays["y"])
    assert np.array_equal(g.test, cora_arrays["test"])
    with pytest.raises(ValueError, match="nowhere"):
        attend.load_graph(os.path.join(data_dir, "nowhere"))


def test_load_graph_reads_what_numpy_saves(tmp_path):
    rng = np.random.default_rng(5)
    edge_index = rng.integers(0, 12, size=(2, 30))
    x = rng.normal(size=(12, 4)).astype(np.float32)
    y = rng.integers(0, 3, size=12)
    train = np.arange(12) < 6
    np.savez_compressed(tmp_path / "g.npz", edge_index=edge_index, x=x, y=y, train_mask=train, test_idx=np.array([7, 9]))
    g = attend.load_graph(str(tmp_path / "g.npz"))
    assert np.array_equal(g.edge_index, edge_index)
    assert np.array_equal(g.x, x)
    assert np.array_equal(g.y, y)
    assert np.array_equal(g.train, np.flatnonzero(train))
    assert np.array_equal(g.test, [7, 9])
    assert g.edge_attr is None
    edge_attr = rng.normal(size=(30, 2)).astype(np.float32)
    np.savez(tmp_path / "e.npz", edge_index=edge_index, edge_attr=edge_attr)
    assert np.array_equal(attend.load_graph(str(tmp_path / "e.npz")).edge_attr, edge_attr)
    assert np.array_equal(attend.Graph(edge_index, edge_attr=edge_attr).edge_attr, edge_attr)
    with pytest.raises(ValueError, match="edge_attr must have one row per edge"):
        attend.Graph(edge_index, edge_attr=edge_attr[:5])
    np.savez(tmp_path / "bad.npz", edge_index=edge_index.T)
    with pytest.raises(ValueError, match=r"edge_index: expected shape \(2, E\), found \(30, 2\)"):
        attend.load_graph(str(tmp_path / "bad.npz"))


def test_layers_lists_the_built_ins():
    names = {layer["name"] for layer in attend.layers()}
    assert {"gat", "gatv2", "gcn", "rgcn", "rgat", "graph_transformer"} <= names
    with pytest.raises(ValueError):
        attend.load_plugin("/nonexistent/plugin.so")


class _Csr:
    """What Graph reads of a scipy.sparse matrix (tocsr, shape, indptr, indices, data), so the
    sparse path is tested without scipy."""

    def __init__(self, dense):
        rows, cols = np.nonzero(dense)
        self.shape = dense.shape
        self.indptr = np.searchsorted(rows, np.arange(dense.shape[0] + 1))
        self.indices = cols
        self.data = dense[rows, cols]

    def tocsr(self):
        return self


def test_sparse_features_read_like_dense_ones():
    dense = np.array([[0, 2, 0], [1, 0, 0], [0, 0, 0], [0, 3, 4]], dtype=np.float32)
    edge_index = np.array([[0, 1, 2], [1, 2, 3]])
    assert np.array_equal(attend.Graph(edge_index, x=_Csr(dense)).x, dense)
    assert np.array_equal(attend.Graph(edge_index, x=dense).x, dense)


def test_an_edge_list_takes_labels_and_features_from_their_own_files(attend_binary, tmp_path):
    (tmp_path / "g.edgelist").write_text("2 0\n0 1\n")  # nodes by first appearance: '2', '0', '1'
    (tmp_path / "labels.txt").write_text("0 4\n2 1\n")
    np.save(tmp_path / "x.npy", np.array([[0, 0], [1, 10], [2, 20]], dtype=np.float32))  # row r: node 'r'
    graph = attend.load_graph(str(tmp_path / "g.edgelist"), labels=str(tmp_path / "labels.txt"),
                              features=str(tmp_path / "x.npy"))
    np.testing.assert_array_equal(graph.y, [1, 4, -1])
    np.testing.assert_array_equal(graph.x, [[2, 20], [0, 0], [1, 10]])
    # attend convert stores the same.
    subprocess.run([attend_binary, "convert", "--graph", str(tmp_path / "g.edgelist"), "--labels",
                    str(tmp_path / "labels.txt"), "--features", str(tmp_path / "x.npy"), "--to",
                    str(tmp_path / "g.h5"), "--quiet"], check=True, capture_output=True)
    stored = attend.load_graph(str(tmp_path / "g.h5"))
    np.testing.assert_array_equal(stored.y, graph.y)
    np.testing.assert_array_equal(stored.x, graph.x)
    (tmp_path / "bad.txt").write_text("0 4\nq 1\n")
    with pytest.raises(ValueError, match="bad.txt:2: node 'q' is not in the graph"):
        attend.load_graph(str(tmp_path / "g.edgelist"), labels=str(tmp_path / "bad.txt"))
