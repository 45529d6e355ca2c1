#pragma once
/// Parameter initialisers. Values are drawn from an attend::Rng in row-major order (never from
/// a standard-library distribution), so the same seed gives the same bits everywhere.

#include <cstdint>

#include "attend/core/random.hpp"
#include "attend/core/tensor.hpp"

namespace attend::init {

/// Glorot & Bengio (2010) uniform: U(-a, a) with a = sqrt(6 / (fan_in + fan_out)).
Tensor glorot_uniform(const Shape& shape, int64_t fan_in, int64_t fan_out, Rng& rng);
/// Glorot & Bengio (2010) normal: N(0, 2 / (fan_in + fan_out)) (not truncated, as PyTorch).
Tensor glorot_normal(const Shape& shape, int64_t fan_in, int64_t fan_out, Rng& rng);
/// He et al. (2015) uniform: U(-a, a) with a = sqrt(6 / fan_in).
Tensor he_uniform(const Shape& shape, int64_t fan_in, Rng& rng);
/// He et al. (2015) normal: N(0, 2 / fan_in).
Tensor he_normal(const Shape& shape, int64_t fan_in, Rng& rng);
/// All zeros.
Tensor zeros(const Shape& shape);
/// All ones.
Tensor ones(const Shape& shape);
/// N(0, std^2).
Tensor normal(const Shape& shape, double std, Rng& rng);
/// U(lo, hi).
Tensor uniform(const Shape& shape, double lo, double hi, Rng& rng);

}  // namespace attend::init
