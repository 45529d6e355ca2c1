// attend_hdf5_mutator: damages one object of an HDF5 file in place, for scripts/fuzz_inputs.py
// (Python's standard library cannot write HDF5, and h5py is optional). Test tool only.
//
//   attend_hdf5_mutator FILE MUTATION SEED
//
// MUTATION is one of
//   nan, inf    one value of a floating-point dataset becomes NaN / +infinity
//   shape       a dataset is replaced by one of the same type and another shape (zeros)
//   attr-type   an attribute is replaced by one of another type (string <-> int64, a float
//               pair for a number)
// SEED picks the object (and the element). Prints what it did; exit 1 when the file has no
// object the mutation applies to, 2 on a usage or HDF5 error.
#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Objects {
  std::vector<std::string> float_datasets, datasets;
  std::vector<std::pair<std::string, std::string>> attributes;  // (object, attribute name)
};

herr_t collect_attribute(hid_t, const char* name, const H5A_info_t*, void* data) {
  auto* found = static_cast<std::pair<Objects*, std::string>*>(data);
  found->first->attributes.emplace_back(found->second, name);
  return 0;
}

herr_t collect(hid_t root, const char* name, const H5O_info_t* info, void* data) {
  auto* objects = static_cast<Objects*>(data);
  const std::string path = std::string("/") + (std::string(name) == "." ? "" : name);
  std::pair<Objects*, std::string> owner{objects, path};
  hid_t object = H5Oopen(root, name, H5P_DEFAULT);
  if (object >= 0) {
    H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_attribute, &owner);
    H5Oclose(object);
  }
  if (info->type != H5O_TYPE_DATASET) return 0;
  objects->datasets.push_back(path);
  hid_t dataset = H5Dopen2(root, name, H5P_DEFAULT);
  hid_t type = H5Dget_type(dataset);
  if (H5Tget_class(type) == H5T_FLOAT) objects->float_datasets.push_back(path);
  H5Tclose(type);
  H5Dclose(dataset);
  return 0;
}

std::vector<hsize_t> dims_of(hid_t dataset) {
  hid_t space = H5Dget_space(dataset);
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank > 0 ? rank : 0));
  if (rank > 0) H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  H5Sclose(space);
  return dims;
}

// One element of a float dataset set to `value` (a scalar or an empty dataset: none).
bool poison_value(hid_t file, const std::string& path, double value, unsigned seed) {
  hid_t dataset = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  const std::vector<hsize_t> dims = dims_of(dataset);
  hsize_t total = 1;
  for (hsize_t d : dims) total *= d;
  bool done = false;
  if (total > 0) {
    std::vector<hsize_t> at(dims.size());
    hsize_t flat = seed % total;
    for (std::size_t i = dims.size(); i-- > 0;) {
      at[i] = flat % dims[i];
      flat /= dims[i];
    }
    hid_t space = H5Dget_space(dataset);
    const hsize_t one = 1;
    if (!dims.empty()) H5Sselect_elements(space, H5S_SELECT_SET, 1, at.data());
    hid_t memory = H5Screate_simple(1, &one, nullptr);
    done = H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, &value) >= 0;
    H5Sclose(memory);
    H5Sclose(space);
  }
  H5Dclose(dataset);
  return done;
}

// The dataset at `path` replaced by zeros of its type in another shape.
bool reshape(hid_t file, const std::string& path, unsigned seed) {
  hid_t dataset = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  hid_t type = H5Dget_type(dataset);
  std::vector<hsize_t> dims = dims_of(dataset);
  H5Dclose(dataset);
  switch (seed % 3) {
    case 0: dims.push_back(2); break;                                  // an extra axis
    case 1: if (!dims.empty()) dims.pop_back(); else dims = {3}; break;  // one axis less
    default: if (!dims.empty()) dims[seed % dims.size()] += 1 + seed % 5; else dims = {2, 2};  // a longer axis
  }
  bool done = false;
  if (H5Ldelete(file, path.c_str(), H5P_DEFAULT) >= 0) {
    hid_t space = dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t fresh = H5Dcreate2(file, path.c_str(), type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    done = fresh >= 0;
    if (done) H5Dclose(fresh);
    H5Pclose(lcpl);
    H5Sclose(space);
  }
  H5Tclose(type);
  return done;
}

// The attribute replaced by one of another type: a string by an int64, a number by a string,
// anything else by a pair of floats.
bool retype_attribute(hid_t file, const std::string& object, const std::string& name) {
  hid_t attribute = H5Aopen_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  hid_t type = H5Aget_type(attribute);
  const H5T_class_t type_class = H5Tget_class(type);
  H5Tclose(type);
  H5Aclose(attribute);
  if (H5Adelete_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT) < 0) return false;
  hid_t scalar = H5Screate(H5S_SCALAR);
  bool done = false;
  if (type_class == H5T_STRING) {
    const int64_t value = 7;
    hid_t fresh = H5Acreate_by_name(file, object.c_str(), name.c_str(), H5T_STD_I64LE, scalar, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    done = fresh >= 0 && H5Awrite(fresh, H5T_NATIVE_INT64, &value) >= 0;
    if (fresh >= 0) H5Aclose(fresh);
  } else if (type_class == H5T_INTEGER || type_class == H5T_FLOAT) {
    hid_t text = H5Tcopy(H5T_C_S1);
    H5Tset_size(text, H5T_VARIABLE);
    const char* value = "not a number";
    hid_t fresh = H5Acreate_by_name(file, object.c_str(), name.c_str(), text, scalar, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    done = fresh >= 0 && H5Awrite(fresh, text, &value) >= 0;
    if (fresh >= 0) H5Aclose(fresh);
    H5Tclose(text);
  } else {
    const hsize_t two = 2;
    const float values[2] = {1.0f, 2.0f};
    hid_t pair = H5Screate_simple(1, &two, nullptr);
    hid_t fresh = H5Acreate_by_name(file, object.c_str(), name.c_str(), H5T_IEEE_F32LE, pair, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    done = fresh >= 0 && H5Awrite(fresh, H5T_NATIVE_FLOAT, values) >= 0;
    if (fresh >= 0) H5Aclose(fresh);
    H5Sclose(pair);
  }
  H5Sclose(scalar);
  return done;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s FILE nan|inf|shape|attr-type SEED\n", argv[0]);
    return 2;
  }
  const std::string mutation = argv[2];
  const auto seed = static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10));
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  hid_t file = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) {
    std::fprintf(stderr, "%s: cannot open for writing\n", argv[1]);
    return 2;
  }
  Objects objects;
  H5Ovisit(file, H5_INDEX_NAME, H5_ITER_INC, collect, &objects);
  bool done = false;
  std::string what;
  if ((mutation == "nan" || mutation == "inf") && !objects.float_datasets.empty()) {
    what = objects.float_datasets[seed % objects.float_datasets.size()];
    done = poison_value(file, what, mutation == "nan" ? std::nan("") : HUGE_VAL, seed / 7);
  } else if (mutation == "shape" && !objects.datasets.empty()) {
    what = objects.datasets[seed % objects.datasets.size()];
    done = reshape(file, what, seed / 7);
  } else if (mutation == "attr-type" && !objects.attributes.empty()) {
    const auto& [object, name] = objects.attributes[seed % objects.attributes.size()];
    what = object + "@" + name;
    done = retype_attribute(file, object, name);
  } else if (mutation != "nan" && mutation != "inf" && mutation != "shape" && mutation != "attr-type") {
    std::fprintf(stderr, "unknown mutation '%s'\n", mutation.c_str());
    H5Fclose(file);
    return 2;
  }
  H5Fclose(file);
  if (!done) return 1;
  std::printf("%s %s\n", mutation.c_str(), what.c_str());
  return 0;
}
