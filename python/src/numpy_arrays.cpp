#include "numpy_arrays.hpp"

#include <algorithm>

#include "attend/core/error.hpp"

namespace py = pybind11;

namespace attend::python {

namespace {

Shape checked_shape(const FloatArray& array, const std::string& name, int rank) {
  if (rank >= 0 && array.ndim() != rank) {
    throw InputError(name + " must have " + std::to_string(rank) + " dimensions, got " + std::to_string(array.ndim()));
  }
  return Shape(array.shape(), array.shape() + array.ndim());
}

}  // namespace

Tensor to_tensor(const FloatArray& array, const std::string& name, int rank) {
  Tensor t = Tensor::uninitialized(checked_shape(array, name, rank));
  std::copy(array.data(), array.data() + array.size(), t.data());
  return t;
}

Tensor tensor_view(const FloatArray& array, const std::string& name, int rank) {
  // The kernels read their inputs only; the const is dropped because Tensor has no const view.
  return Tensor::view(const_cast<float*>(array.data()), checked_shape(array, name, rank));
}

py::array_t<float> to_numpy(const Tensor& tensor) {
  py::array_t<float> out(std::vector<py::ssize_t>(tensor.shape().begin(), tensor.shape().end()));
  std::copy(tensor.data(), tensor.data() + tensor.numel(), out.mutable_data());
  return out;
}

std::vector<int64_t> to_index_vector(const IndexArray& array, const std::string& name) {
  if (array.ndim() != 1) throw InputError(name + " must be one-dimensional, got " + std::to_string(array.ndim()) + " dimensions");
  return std::vector<int64_t>(array.data(), array.data() + array.size());
}

py::array_t<int64_t> to_numpy(const std::vector<int64_t>& values) {
  py::array_t<int64_t> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

}  // namespace attend::python
