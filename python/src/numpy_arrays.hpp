#pragma once
// numpy arrays to and from attend's types. Inputs are taken as C-contiguous arrays of the
// wanted dtype (numpy converts only when the layout or dtype differs); results are new arrays.

#include <cstdint>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "attend/core/tensor.hpp"

namespace attend::python {

using FloatArray = pybind11::array_t<float, pybind11::array::c_style | pybind11::array::forcecast>;
using IndexArray = pybind11::array_t<int64_t, pybind11::array::c_style | pybind11::array::forcecast>;

/// A float32 array as a Tensor of the same shape (copied: attend's tensors own their memory).
/// `name` and `rank` (-1: any) make the ValueError of a wrong shape say what was expected.
Tensor to_tensor(const FloatArray& array, const std::string& name, int rank = -1);

/// The array's memory as a Tensor, without a copy: valid only while `array` lives (an argument
/// of the current call), and never written through.
Tensor tensor_view(const FloatArray& array, const std::string& name, int rank = -1);

/// A Tensor as a new float32 array of its shape.
pybind11::array_t<float> to_numpy(const Tensor& tensor);

/// A 1-d int64 array (or list) as a vector.
std::vector<int64_t> to_index_vector(const IndexArray& array, const std::string& name);

/// A vector as a new 1-d int64 array.
pybind11::array_t<int64_t> to_numpy(const std::vector<int64_t>& values);

}  // namespace attend::python
