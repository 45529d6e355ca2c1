#pragma once
/// Tensor: a contiguous, row-major float32 buffer with a shape of rank 0..6 and no strides.
///
/// A tensor normally owns its values. A *view* (made by `Tensor::view`) points into memory
/// owned elsewhere, such as the parameter arena; assigning to a view copies values into that
/// memory, so a parameter stays in its arena. Copying any tensor gives an owning copy.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attend/core/heap.hpp"

namespace attend {

namespace detail {
/// std::allocator whose value-less construct leaves a float uninitialised, so that
/// Tensor::uninitialized skips the zero fill (and the page faults it would cause early), and
/// whose memory comes from detail::allocate_storage (heap.hpp).
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT: rebinding
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  /// Through the large-block cache of heap.hpp (reuse of freed blocks of 32 MiB and more).
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_storage(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { release_storage(p, n * sizeof(T)); }
};
}  // namespace detail

/// Dimensions, outermost first. `{}` is a scalar.
using Shape = std::vector<int64_t>;

/// "[2, 3, 4]".
std::string shape_to_string(const Shape& shape);
/// Product of the dimensions (1 for a scalar).
int64_t shape_numel(const Shape& shape);

class Tensor {
 public:
  static constexpr int kMaxRank = 6;

  /// An empty tensor of shape [0].
  Tensor();
  /// A tensor of `shape` filled with `fill`.
  explicit Tensor(Shape shape, float fill = 0.0f);
  /// A tensor of `shape` holding `values` (row-major; sizes must agree).
  Tensor(Shape shape, std::vector<float> values);
  /// A scalar.
  static Tensor scalar(float value);
  /// A tensor of `shape` whose values are unspecified: for ops that write every element.
  static Tensor uninitialized(Shape shape);
  /// A non-owning view of `data` (which must outlive the view).
  static Tensor view(float* data, Shape shape);

  Tensor(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  /// Owning tensors take the other's shape and values; views copy values in (same numel).
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other);
  ~Tensor() = default;

  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  /// Size of `axis`; negative axes count from the end.
  int64_t dim(int axis) const;
  int64_t numel() const { return numel_; }
  bool is_view() const { return view_; }

  float* data() { return data_; }
  const float* data() const { return data_; }
  float* begin() { return data_; }
  float* end() { return data_ + numel_; }
  const float* begin() const { return data_; }
  const float* end() const { return data_ + numel_; }
  float& operator[](int64_t i) { return data_[i]; }
  float operator[](int64_t i) const { return data_[i]; }
  /// Element at a full multi-index (bounds checked; for tests and small code).
  float& at(std::initializer_list<int64_t> index);
  float at(std::initializer_list<int64_t> index) const;
  /// The single value of a one-element tensor.
  float item() const;

  void fill(float value);
  /// Change the shape in place; the element count must not change.
  void reshape(Shape shape);
  /// An owning copy with another shape of the same element count.
  Tensor reshaped(Shape shape) const;
  /// Copy values from `other` (same element count) into this tensor's memory.
  void copy_from(const Tensor& other);

 private:
  int64_t flat_index(std::initializer_list<int64_t> index) const;

  Shape shape_;
  int64_t numel_ = 0;
  std::vector<float, detail::DefaultInitAllocator<float>> owned_;
  float* data_ = nullptr;
  bool view_ = false;
};

/// True when both have the same shape and bit-identical values.
bool bitwise_equal(const Tensor& a, const Tensor& b);
/// Largest |a - b| over all elements (shapes must match).
float max_abs_diff(const Tensor& a, const Tensor& b);

}  // namespace attend
