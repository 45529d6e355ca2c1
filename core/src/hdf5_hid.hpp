#pragma once
/// Hid: owns one HDF5 identifier and closes it with the matching H5?close function.
/// Private to attend_core (it needs the HDF5 headers, which public headers never include).

#include <hdf5.h>

#include <utility>

namespace attend::detail {

class Hid {
 public:
  /// H5Fclose, H5Gclose, H5Dclose, H5Oclose, H5Aclose, H5Tclose, H5Sclose or H5Pclose.
  using Closer = herr_t (*)(hid_t);

  Hid() = default;
  /// Take ownership of `id` (must be valid: callers check for errors first).
  Hid(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Hid(Hid&& other) noexcept : id_(std::exchange(other.id_, -1)), closer_(other.closer_) {}
  Hid& operator=(Hid&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, -1);
      closer_ = other.closer_;
    }
    return *this;
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  ~Hid() { reset(); }

  hid_t get() const { return id_; }
  /// Close now (errors are ignored: HDF5 reports them again when the file closes).
  void reset() {
    if (id_ >= 0) closer_(id_);
    id_ = -1;
  }

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

}  // namespace attend::detail
