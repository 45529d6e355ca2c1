// attend.ops: the two kernels of the attention core on numpy arrays, forward only. C-contiguous
// float32 inputs are read in place (numpy converts other layouts and dtypes first).
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "attend/core/csr.hpp"
#include "attend/core/error.hpp"
#include "attend/core/ops/dense_attention.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "bindings.hpp"
#include "numpy_arrays.hpp"
#include "thread_count.hpp"

namespace py = pybind11;

namespace attend::python {

void bind_ops(py::module_& m) {
  py::module_ ops = m.def_submodule("ops", "The fused attention kernels on numpy arrays (forward only)");
  ops.def(
      "dense_attention",
      [](const FloatArray& q, const FloatArray& k, const FloatArray& v, const std::optional<FloatArray>& bias,
         const std::optional<FloatArray>& mask, bool causal, float scale, bool return_weights,
         std::optional<int> threads) -> py::object {
        const Var qv(tensor_view(q, "q", 4)), kv(tensor_view(k, "k", 4)), vv(tensor_view(v, "v", 4));
        attend::ops::DenseAttentionOptions o;
        if (bias) o.biases.push_back(Var(tensor_view(*bias, "bias")));
        Tensor key_mask;
        if (mask) {
          key_mask = tensor_view(*mask, "mask", 2);
          o.key_mask = &key_mask;
        }
        o.causal = causal;
        o.scale = scale;
        o.return_weights = return_weights;
        Tensor out, weights;
        {
          py::gil_scoped_release release;
          const ScopedThreadCount thread_count(threads);
          NoGradGuard no_grad;
          out = attend::ops::dense_attention(qv, kv, vv, o, return_weights ? &weights : nullptr).value();
        }
        if (return_weights) return py::make_tuple(to_numpy(out), to_numpy(weights));
        return to_numpy(out);
      },
      py::arg("q"), py::arg("k"), py::arg("v"), py::kw_only(), py::arg("bias") = py::none(),
      py::arg("mask") = py::none(), py::arg("causal") = false, py::arg("scale") = 0.0f,
      py::arg("return_weights") = false, py::arg("threads") = py::none(),
      "softmax(scale q k^T + bias + mask) v for q [B, H, Nq, d], k [B, H, Nk, d], v [B, H, Nk, dv] -> "
      "[B, H, Nq, dv]; bias broadcastable to [B, H, Nq, Nk]; mask [B, Nk] (nonzero: keep); scale 0 = "
      "1/sqrt(d). With return_weights, also the probabilities [B, H, Nq, Nk].");
  ops.def(
      "sparse_attention",
      [](const IndexArray& edge_index, const FloatArray& q, const FloatArray& k, const FloatArray& v,
         std::optional<float> scale, bool return_weights, std::optional<int> threads) -> py::object {
        if (edge_index.ndim() != 2 || edge_index.shape(0) != 2) throw InputError("edge_index must have shape [2, E]");
        const Var qv(tensor_view(q, "q", 3)), kv(tensor_view(k, "k", 3)), vv(tensor_view(v, "v", 3));
        const int64_t n = qv.shape()[0], e = edge_index.shape(1);
        if (kv.shape()[0] != n || vv.shape()[0] != n) throw InputError("q, k and v must have one row per node");
        const std::vector<int64_t> src(edge_index.data(), edge_index.data() + e);
        const std::vector<int64_t> dst(edge_index.data() + e, edge_index.data() + 2 * e);
        for (int64_t i = 0; i < e; ++i) {
          if (src[i] < 0 || src[i] >= n || dst[i] < 0 || dst[i] >= n) {
            throw InputError("edge " + std::to_string(i) + " joins a node outside [0, " + std::to_string(n) + ")");
          }
        }
        attend::ops::SparseAttentionOptions o;
        o.scale = scale;
        Tensor out, weights;
        {
          py::gil_scoped_release release;
          const ScopedThreadCount thread_count(threads);
          NoGradGuard no_grad;
          const Csr graph = Csr::from_edges(n, src, dst);
          out = attend::ops::sparse_attention(graph, attend::ops::SparseScores::dot(qv, kv), vv, o,
                                              return_weights ? &weights : nullptr)
                    .value();
        }
        if (return_weights) return py::make_tuple(to_numpy(out), to_numpy(weights));
        return to_numpy(out);
      },
      py::arg("edge_index"), py::arg("q"), py::arg("k"), py::arg("v"), py::kw_only(), py::arg("scale") = py::none(),
      py::arg("return_weights") = false, py::arg("threads") = py::none(),
      "Scaled dot-product attention over the in-edges of each node: out[i] = sum over edges j -> i of "
      "softmax_j(scale q[i] . k[j]) v[j], for q, k [N, H, D], v [N, H, C] and edge_index [2, E] (row 0 "
      "sources). scale defaults to 1/sqrt(D). With return_weights, also the probabilities [E, H] in the "
      "order of edge_index.");
}

}  // namespace attend::python
