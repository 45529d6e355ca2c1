#include "attend/bio/potts_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "attend/bio/alphabet.hpp"
#include "attend/core/error.hpp"
#include "attend/core/memory_budget.hpp"
#include "attend/core/parallel.hpp"

namespace attend::bio {

namespace {

constexpr int kStates = kNumStates;               // 21
constexpr int kPad = 24;                          // states padded to three 8-float vectors
constexpr int64_t kBlock = int64_t{kStates} * kPad;  // one expanded (i, j) block

// Eight floats in one AVX register (GCC/Clang vector extension); a padded state row is three.
// Without -mavx (ATTEND_NATIVE off) GCC warns that passing such vectors by value changes the
// ABI; these helpers have internal linkage, so no ABI is involved.
#pragma GCC diagnostic ignored "-Wpsabi"
using V8 = float __attribute__((vector_size(32)));
using V8i = int32_t __attribute__((vector_size(32)));

inline V8 load8(const float* p) {
  V8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store8(float* p, V8 v) { std::memcpy(p, &v, sizeof v); }

// Lanes 21..23 of the third vector of a row are padding.
constexpr V8 kLastMask = {1, 1, 1, 1, 1, 0, 0, 0};
// Added to the padding lanes of the fields so they never win the maximum.
constexpr float kPadLogit = -1e30f;

// exp(x) lane by lane in plain arithmetic: x = n ln2 + r with |r| <= ln2 / 2 (n rounded to
// nearest by the 1.5 * 2^23 trick), exp(r) by the Cephes single-precision polynomial
// (relative error ~1e-7), 2^n built in the exponent bits. Callers pass logit - max <= 0;
// x is clamped below at -87, so exp(-87) ~ 1.6e-38 stands for anything smaller.
inline V8 exp8(V8 x) {
  const V8 lo = V8{} - 87.0f;
  x = x < lo ? lo : x;
  const V8 n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const V8 r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  V8 p = V8{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const V8i bits = (__builtin_convertvector(n, V8i) + 127) << 23;
  return p * std::bit_cast<V8>(bits);
}

inline float lane_max(V8 v) {
  float m = v[0];
  for (int k = 1; k < 8; ++k) m = std::max(m, v[k]);
  return m;
}
inline float lane_sum(V8 v) {
  return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

int64_t pair_index(int64_t i, int64_t j, int64_t L) { return i * L - i * (i + 1) / 2 + (j - i - 1); }

}  // namespace

double ccmpred_lambda_pair(int64_t length, double factor) {
  return factor * static_cast<double>(length - 1);
}

PottsObjective::PottsObjective(const Alignment& alignment, std::vector<float> weights,
                               const PottsRegularization& regularization)
    : length_(alignment.length),
      num_sequences_(alignment.num_sequences()),
      codes_(alignment.codes),
      weights_(std::move(weights)),
      regularization_(regularization) {
  ATTEND_CHECK(length_ >= 2, "a Potts model needs at least 2 columns, got " << length_);
  ATTEND_CHECK(num_sequences_ >= 1, "a Potts model needs at least one sequence");
  ATTEND_CHECK(static_cast<int64_t>(weights_.size()) == num_sequences_,
               "expected " << num_sequences_ << " weights, got " << weights_.size());
  for (uint8_t c : codes_) ATTEND_CHECK(c < kStates, "alignment code " << int{c} << " out of range");
  // The expanded couplings and their gradient, then L-BFGS's (2 * history + 7) vectors of the
  // parameters (lbfgs.hpp, default history 5): L = 4000 columns ask for about 90 GiB.
  const auto columns = static_cast<double>(length_);
  require_memory(4.0 * (2.0 * columns * columns * kBlock + 17.0 * static_cast<double>(num_parameters())),
                 "a Potts model of " + std::to_string(length_) + " columns");
  const auto L = static_cast<std::size_t>(length_);
  expanded_.assign(L * L * kBlock, 0.0f);
  expanded_grad_.assign(L * L * kBlock, 0.0f);
  fields_.assign(L * kPad, 0.0f);
  field_grad_.assign(L * kPad, 0.0);
  position_f_.assign(L, 0.0);
}

int64_t PottsObjective::num_parameters() const {
  return length_ * kFieldStates + length_ * (length_ - 1) / 2 * kPairBlock;
}

int64_t PottsObjective::coupling_index(int64_t i, int64_t j, int a, int b) const {
  return length_ * kFieldStates + pair_index(i, j, length_) * kPairBlock + a * kStates + b;
}

std::vector<float> PottsObjective::initial_parameters() const {
  std::vector<float> x(static_cast<std::size_t>(num_parameters()), 0.0f);
  const int64_t L = length_;
  for (int64_t i = 0; i < L; ++i) {
    double counts[kStates];
    std::fill(counts, counts + kStates, 1.0);  // pseudocount
    for (int64_t n = 0; n < num_sequences_; ++n) counts[codes_[n * L + i]] += weights_[n];
    // Frequencies share one denominator, so log f(a) - log f(gap) = log count(a) - log count(gap).
    const double log_gap = std::log(counts[kGapCode]);
    for (int a = 0; a < kFieldStates; ++a) {
      x[field_index(i, a)] = static_cast<float>(std::log(counts[a]) - log_gap);
    }
  }
  return x;
}

// Both copies of every pair block, padded: expanded[i][j][b][a] = J(i has a, j has b).
void PottsObjective::expand(const float* x) {
  const int64_t L = length_;
  parallel_for(0, L, [&](int64_t i) {
    for (int a = 0; a < kFieldStates; ++a) fields_[i * kPad + a] = x[field_index(i, a)];
    for (int64_t j = 0; j < L; ++j) {
      if (j == i) continue;  // diagonal blocks stay 0
      float* block = expanded_.data() + (i * L + j) * kBlock;
      if (i < j) {
        const float* p = x + coupling_index(i, j, 0, 0);  // [a_i][b_j]
        for (int b = 0; b < kStates; ++b)
          for (int a = 0; a < kStates; ++a) block[b * kPad + a] = p[a * kStates + b];
      } else {
        const float* p = x + coupling_index(j, i, 0, 0);  // [b_j][a_i]
        for (int b = 0; b < kStates; ++b)
          for (int a = 0; a < kStates; ++a) block[b * kPad + a] = p[b * kStates + a];
      }
    }
  });
}

// The negative weighted log conditional of position i over all sequences; writes the rows
// expanded_grad_[i, :, :, :] and field_grad_[i, :].
//
// Cache blocking: sequences are taken kSeqBlock at a time and neighbours j kChunk at a time,
// so the kChunk coupling (or gradient) blocks in use, 2 KB each, stay in L1 while the block of
// sequences passes over them; the logits and residuals of the sequence block live in small
// local arrays. The logit of a sequence is h_i + sum over chunks (sum over the chunk's j), an
// order fixed by L alone.
double PottsObjective::position_term(int64_t i) {
  constexpr int64_t kSeqBlock = 32;
  constexpr int64_t kChunk = 8;
  const int64_t L = length_;
  const int64_t N = num_sequences_;
  const float* e_i = expanded_.data() + i * L * kBlock;
  float* g_i = expanded_grad_.data() + i * L * kBlock;
  std::fill(g_i, g_i + L * kBlock, 0.0f);
  const float* h_i = fields_.data() + i * kPad;
  const V8 h0 = load8(h_i), h1 = load8(h_i + 8);
  const V8 h2 = load8(h_i + 16) + V8{0, 0, 0, 0, 0, 1, 1, 1} * kPadLogit;

  alignas(32) float logits[kSeqBlock][kPad];
  alignas(32) float resid[kSeqBlock][kPad];
  double grad_h[kPad] = {};
  double f = 0.0;
  for (int64_t n0 = 0; n0 < N; n0 += kSeqBlock) {
    const int64_t nb = std::min(kSeqBlock, N - n0);
    const uint8_t* block_codes = codes_.data() + n0 * L;
    for (int64_t b = 0; b < nb; ++b) {
      store8(logits[b], h0);
      store8(logits[b] + 8, h1);
      store8(logits[b] + 16, h2);
    }
    for (int64_t j0 = 0; j0 < L; j0 += kChunk) {
      const int64_t j1 = std::min(L, j0 + kChunk);  // j == i adds the zero diagonal block
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* x = block_codes + b * L;
        V8 a0{}, a1{}, a2{};
        for (int64_t j = j0; j < j1; ++j) {
          const float* r = e_i + j * kBlock + x[j] * kPad;
          a0 += load8(r);
          a1 += load8(r + 8);
          a2 += load8(r + 16);
        }
        store8(logits[b], load8(logits[b]) + a0);
        store8(logits[b] + 8, load8(logits[b] + 8) + a1);
        store8(logits[b] + 16, load8(logits[b] + 16) + a2);
      }
    }
    for (int64_t b = 0; b < nb; ++b) {
      const int xi = block_codes[b * L + i];
      const float w = weights_[n0 + b];
      const V8 l0 = load8(logits[b]), l1 = load8(logits[b] + 8), l2 = load8(logits[b] + 16);
      V8 top = l0 > l1 ? l0 : l1;
      top = top > l2 ? top : l2;
      const float m = lane_max(top);
      const V8 p0 = exp8(l0 - m), p1 = exp8(l1 - m), p2 = exp8(l2 - m) * kLastMask;
      const float z = lane_sum((p0 + p1) + p2);
      f += static_cast<double>(w) * (static_cast<double>(m) + std::log(static_cast<double>(z)) -
                                     static_cast<double>(logits[b][xi]));
      // Residual w * (P(a) - [a == x_i]): the gradient of this term w.r.t. every logit.
      const float scale = w / z;
      store8(resid[b], p0 * scale);
      store8(resid[b] + 8, p1 * scale);
      store8(resid[b] + 16, p2 * scale);
      resid[b][xi] -= w;
      for (int a = 0; a < kStates; ++a) grad_h[a] += resid[b][a];
    }
    for (int64_t j0 = 0; j0 < L; j0 += kChunk) {
      const int64_t j1 = std::min(L, j0 + kChunk);
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* x = block_codes + b * L;
        const V8 r0 = load8(resid[b]), r1 = load8(resid[b] + 8), r2 = load8(resid[b] + 16);
        for (int64_t j = j0; j < j1; ++j) {
          float* g = g_i + j * kBlock + x[j] * kPad;
          store8(g, load8(g) + r0);
          store8(g + 8, load8(g + 8) + r1);
          store8(g + 16, load8(g + 16) + r2);
        }
      }
    }
  }
  std::copy(grad_h, grad_h + kPad, field_grad_.data() + i * kPad);
  return f;
}

double PottsObjective::evaluate(const float* x, float* grad) {
  const int64_t L = length_;
  expand(x);
  parallel_for(0, L, [&](int64_t i) { position_f_[i] = position_term(i); });

  // Assemble the gradient and the penalties, one row of pairs per task; penalties are kept
  // per row and added in row order.
  const double lambda_h = regularization_.lambda_single;
  const double lambda_j = regularization_.lambda_pair;
  std::vector<double> penalty(static_cast<std::size_t>(L), 0.0);
  parallel_for(0, L, [&](int64_t i) {
    double reg = 0.0;
    for (int a = 0; a < kFieldStates; ++a) {
      const int64_t k = field_index(i, a);
      reg += lambda_h * static_cast<double>(x[k]) * x[k];
      grad[k] = static_cast<float>(field_grad_[i * kPad + a] + 2.0 * lambda_h * x[k]);
    }
    for (int64_t j = i + 1; j < L; ++j) {
      const float* g_ij = expanded_grad_.data() + (i * L + j) * kBlock;  // [b_j][a_i]
      const float* g_ji = expanded_grad_.data() + (j * L + i) * kBlock;  // [a_i][b_j]
      const int64_t base = coupling_index(i, j, 0, 0);
      for (int a = 0; a < kStates; ++a) {
        for (int b = 0; b < kStates; ++b) {
          const int64_t k = base + a * kStates + b;
          const double v = x[k];
          reg += lambda_j * v * v;
          grad[k] = static_cast<float>(static_cast<double>(g_ij[b * kPad + a]) +
                                       static_cast<double>(g_ji[a * kPad + b]) + 2.0 * lambda_j * v);
        }
      }
    }
    penalty[static_cast<std::size_t>(i)] = reg;
  });
  double f = 0.0;
  for (int64_t i = 0; i < L; ++i) f += position_f_[i] + penalty[static_cast<std::size_t>(i)];
  return f;
}

Tensor PottsObjective::fields(const float* x) const {
  Tensor out({length_, kStates});
  for (int64_t i = 0; i < length_; ++i)
    for (int a = 0; a < kFieldStates; ++a) out[i * kStates + a] = x[field_index(i, a)];
  return out;
}

Tensor PottsObjective::couplings(const float* x) const {
  const int64_t L = length_;
  Tensor out({L, L, kStates, kStates});  // [L, L, 21, 21]
  parallel_for(0, L, [&](int64_t i) {
    for (int64_t j = 0; j < L; ++j) {
      if (j == i) continue;
      float* block = out.data() + (i * L + j) * kPairBlock;
      for (int a = 0; a < kStates; ++a) {
        for (int b = 0; b < kStates; ++b) {
          block[a * kStates + b] = i < j ? x[coupling_index(i, j, a, b)] : x[coupling_index(j, i, b, a)];
        }
      }
    }
  });
  return out;
}

}  // namespace attend::bio
