#include "attend/core/init.hpp"

#include <cmath>

#include "attend/core/error.hpp"

namespace attend::init {

namespace {
void check_fan(int64_t fan, const char* what) {
  ATTEND_CHECK(fan > 0, what << " must be positive, got " << fan);
}
}  // namespace

Tensor uniform(const Shape& shape, double lo, double hi, Rng& rng) {
  ATTEND_CHECK(lo <= hi, "uniform needs lo <= hi, got [" << lo << ", " << hi << ")");
  Tensor t(shape);
  const float l = static_cast<float>(lo), h = static_cast<float>(hi);
  for (float& x : t) x = rng.uniform(l, h);
  return t;
}

Tensor normal(const Shape& shape, double std, Rng& rng) {
  ATTEND_CHECK(std >= 0.0, "normal needs std >= 0, got " << std);
  Tensor t(shape);
  const float s = static_cast<float>(std);
  for (float& x : t) x = s * rng.normal();
  return t;
}

Tensor glorot_uniform(const Shape& shape, int64_t fan_in, int64_t fan_out, Rng& rng) {
  check_fan(fan_in, "fan_in");
  check_fan(fan_out, "fan_out");
  const double a = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  return uniform(shape, -a, a, rng);
}

Tensor glorot_normal(const Shape& shape, int64_t fan_in, int64_t fan_out, Rng& rng) {
  check_fan(fan_in, "fan_in");
  check_fan(fan_out, "fan_out");
  return normal(shape, std::sqrt(2.0 / static_cast<double>(fan_in + fan_out)), rng);
}

Tensor he_uniform(const Shape& shape, int64_t fan_in, Rng& rng) {
  check_fan(fan_in, "fan_in");
  const double a = std::sqrt(6.0 / static_cast<double>(fan_in));
  return uniform(shape, -a, a, rng);
}

Tensor he_normal(const Shape& shape, int64_t fan_in, Rng& rng) {
  check_fan(fan_in, "fan_in");
  return normal(shape, std::sqrt(2.0 / static_cast<double>(fan_in)), rng);
}

Tensor zeros(const Shape& shape) { return Tensor(shape, 0.0f); }

Tensor ones(const Shape& shape) { return Tensor(shape, 1.0f); }

}  // namespace attend::init
