#include "attend/core/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "attend/core/error.hpp"

namespace attend {

std::string shape_to_string(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

int64_t shape_numel(const Shape& shape) {
  for (int64_t d : shape) ATTEND_CHECK(d >= 0, "negative dimension in shape " << shape_to_string(shape));
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  int64_t n = 1;
  for (int64_t d : shape) {
    // Sizes come from the user's data and settings: too large is bad input, as running out of
    // memory is (heap.hpp).
    if (n > std::numeric_limits<int64_t>::max() / d) {
      throw InputError("shape " + shape_to_string(shape) + " has more elements than int64 counts");
    }
    n *= d;
  }
  return n;
}

namespace {
void check_rank(const Shape& shape) {
  ATTEND_CHECK(shape.size() <= static_cast<std::size_t>(Tensor::kMaxRank),
               "rank " << shape.size() << " exceeds the maximum of " << Tensor::kMaxRank);
}
}  // namespace

Tensor::Tensor() : Tensor(Shape{0}) {}

Tensor::Tensor(Shape shape, float fill) : shape_(std::move(shape)) {
  check_rank(shape_);
  numel_ = shape_numel(shape_);
  owned_.assign(static_cast<std::size_t>(numel_), fill);
  data_ = owned_.data();
}

Tensor::Tensor(Shape shape, std::vector<float> values)
    : shape_(std::move(shape)), owned_(values.begin(), values.end()) {
  check_rank(shape_);
  numel_ = shape_numel(shape_);
  ATTEND_CHECK(static_cast<int64_t>(owned_.size()) == numel_,
               "shape " << shape_to_string(shape_) << " needs " << numel_ << " values, got "
                        << owned_.size());
  data_ = owned_.data();
}

Tensor Tensor::scalar(float value) { return Tensor(Shape{}, value); }

Tensor Tensor::uninitialized(Shape shape) {
  Tensor t(Shape{0});
  check_rank(shape);
  t.shape_ = std::move(shape);
  t.numel_ = shape_numel(t.shape_);
  t.owned_.resize(static_cast<std::size_t>(t.numel_));  // default-initialised: no fill
  t.data_ = t.owned_.data();
  return t;
}

Tensor Tensor::view(float* data, Shape shape) {
  Tensor t(Shape{0});
  check_rank(shape);
  t.shape_ = std::move(shape);
  t.numel_ = shape_numel(t.shape_);
  ATTEND_CHECK(data != nullptr || t.numel_ == 0, "view of a null pointer");
  t.data_ = data;
  t.view_ = true;
  return t;
}

Tensor::Tensor(const Tensor& other)
    : shape_(other.shape_), numel_(other.numel_), owned_(other.begin(), other.end()) {
  data_ = owned_.data();
}

Tensor::Tensor(Tensor&& other) noexcept
    : shape_(std::move(other.shape_)),
      numel_(other.numel_),
      owned_(std::move(other.owned_)),
      data_(other.view_ ? other.data_ : owned_.data()),
      view_(other.view_) {
  other.shape_ = Shape{0};
  other.numel_ = 0;
  other.data_ = other.owned_.data();
  other.view_ = false;
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this == &other) return *this;
  if (view_) {
    copy_from(other);
    return *this;
  }
  shape_ = other.shape_;
  numel_ = other.numel_;
  owned_.assign(other.begin(), other.end());
  data_ = owned_.data();
  return *this;
}

Tensor& Tensor::operator=(Tensor&& other) {
  if (this == &other) return *this;
  if (view_) {
    copy_from(other);
    return *this;
  }
  shape_ = std::move(other.shape_);
  numel_ = other.numel_;
  owned_ = std::move(other.owned_);
  data_ = other.view_ ? other.data_ : owned_.data();
  view_ = other.view_;
  other.shape_ = Shape{0};
  other.numel_ = 0;
  other.data_ = other.owned_.data();
  other.view_ = false;
  return *this;
}

int64_t Tensor::dim(int axis) const {
  const int r = rank();
  const int a = axis < 0 ? axis + r : axis;
  ATTEND_CHECK(a >= 0 && a < r, "axis " << axis << " out of range for shape "
                                        << shape_to_string(shape_));
  return shape_[static_cast<std::size_t>(a)];
}

int64_t Tensor::flat_index(std::initializer_list<int64_t> index) const {
  ATTEND_CHECK(static_cast<int>(index.size()) == rank(),
               "index of rank " << index.size() << " for shape " << shape_to_string(shape_));
  int64_t flat = 0;
  std::size_t axis = 0;
  for (int64_t i : index) {
    ATTEND_CHECK(i >= 0 && i < shape_[axis], "index " << i << " out of range on axis " << axis
                                                      << " of " << shape_to_string(shape_));
    flat = flat * shape_[axis] + i;
    ++axis;
  }
  return flat;
}

float& Tensor::at(std::initializer_list<int64_t> index) { return data_[flat_index(index)]; }
float Tensor::at(std::initializer_list<int64_t> index) const { return data_[flat_index(index)]; }

float Tensor::item() const {
  ATTEND_CHECK(numel_ == 1, "item() of a tensor with " << numel_ << " elements");
  return data_[0];
}

void Tensor::fill(float value) { std::fill(begin(), end(), value); }

void Tensor::reshape(Shape shape) {
  check_rank(shape);
  ATTEND_CHECK(shape_numel(shape) == numel_, "cannot reshape " << shape_to_string(shape_)
                                                               << " to " << shape_to_string(shape));
  shape_ = std::move(shape);
}

Tensor Tensor::reshaped(Shape shape) const {
  Tensor out(*this);
  out.reshape(std::move(shape));
  return out;
}

void Tensor::copy_from(const Tensor& other) {
  ATTEND_CHECK(other.numel_ == numel_, "copying " << shape_to_string(other.shape_) << " into "
                                                  << shape_to_string(shape_));
  if (numel_ > 0) std::memmove(data_, other.data_, sizeof(float) * static_cast<std::size_t>(numel_));
}

bool bitwise_equal(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  return a.numel() == 0 ||
         std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<std::size_t>(a.numel())) == 0;
}

float max_abs_diff(const Tensor& a, const Tensor& b) {
  ATTEND_CHECK(a.shape() == b.shape(), "shapes differ: " << shape_to_string(a.shape()) << " vs "
                                                         << shape_to_string(b.shape()));
  float m = 0.0f;
  for (int64_t i = 0; i < a.numel(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

}  // namespace attend
