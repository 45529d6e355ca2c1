#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "attend/bio/alphabet.hpp"
#include "attend/bio/potts_model.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"

using namespace attend;
using namespace attend::bio;

namespace {

Alignment random_alignment(int64_t n, int64_t L, uint64_t seed) {
  Rng rng(seed);
  Alignment a;
  a.length = L;
  for (int64_t k = 0; k < n; ++k) a.names.push_back(std::to_string(k));
  a.codes.resize(static_cast<std::size_t>(n * L));
  for (auto& c : a.codes) c = static_cast<uint8_t>(rng.below(kNumStates));
  return a;
}

std::vector<float> random_weights(int64_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> w(static_cast<std::size_t>(n));
  for (auto& v : w) v = rng.uniform(0.2f, 1.0f);
  return w;
}

// The objective written directly from its definition, in double, with the couplings read
// through the documented parameter layout.
double reference_objective(const Alignment& a, const std::vector<float>& w,
                           const PottsRegularization& reg, const std::vector<double>& x) {
  const int64_t L = a.length;
  auto field = [&](int64_t i, int s) { return s == kGapCode ? 0.0 : x[i * 20 + s]; };
  auto pair_offset = [&](int64_t i, int64_t j) {
    int64_t p = 0;
    for (int64_t u = 0; u < L; ++u)
      for (int64_t v = u + 1; v < L; ++v, ++p)
        if (u == i && v == j) return L * 20 + p * 441;
    return int64_t{-1};
  };
  auto coupling = [&](int64_t i, int64_t j, int s, int t) {  // state s at i, t at j
    return i < j ? x[pair_offset(i, j) + s * 21 + t] : x[pair_offset(j, i) + t * 21 + s];
  };
  double f = 0.0;
  for (int64_t n = 0; n < a.num_sequences(); ++n) {
    const uint8_t* seq = a.row(n);
    for (int64_t i = 0; i < L; ++i) {
      double logits[21];
      double z = 0.0;
      for (int s = 0; s < 21; ++s) {
        logits[s] = field(i, s);
        for (int64_t j = 0; j < L; ++j)
          if (j != i) logits[s] += coupling(i, j, s, seq[j]);
        z += std::exp(logits[s]);
      }
      f -= w[n] * (logits[seq[i]] - std::log(z));
    }
  }
  for (int64_t k = 0; k < L * 20; ++k) f += reg.lambda_single * x[k] * x[k];
  for (std::size_t k = static_cast<std::size_t>(L * 20); k < x.size(); ++k) f += reg.lambda_pair * x[k] * x[k];
  return f;
}

}  // namespace

TEST_CASE("Potts objective and gradient match finite differences of the definition", "[bio][grad]") {
  const Alignment a = random_alignment(7, 5, 11);
  const std::vector<float> w = random_weights(7, 12);
  const PottsRegularization reg{0.01, 0.2 * 4};
  PottsObjective objective(a, w, reg);
  REQUIRE(objective.num_parameters() == 5 * 20 + 10 * 441);

  Rng rng(13);
  std::vector<float> x(static_cast<std::size_t>(objective.num_parameters()));
  for (auto& v : x) v = 0.5f * rng.normal();
  std::vector<float> grad(x.size());
  const double f = objective.evaluate(x.data(), grad.data());

  std::vector<double> xd(x.begin(), x.end());
  const double f_ref = reference_objective(a, w, reg, xd);
  CHECK(f == Approx(f_ref).epsilon(1e-5));

  // Central differences of the double-precision definition, every parameter.
  const double h = 1e-4;
  int failures = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    const double saved = xd[k];
    xd[k] = saved + h;
    const double up = reference_objective(a, w, reg, xd);
    xd[k] = saved - h;
    const double down = reference_objective(a, w, reg, xd);
    xd[k] = saved;
    const double numeric = (up - down) / (2 * h);
    if (std::abs(numeric - grad[k]) > 1e-4 + 1e-4 * std::abs(numeric)) {
      if (++failures <= 5) FAIL_CHECK("parameter " << k << ": analytic " << grad[k] << ", numeric " << numeric);
    }
  }
  CHECK(failures == 0);
}

TEST_CASE("Potts objective is bit-identical for 1 and 2 threads", "[bio]") {
  const Alignment a = random_alignment(150, 23, 21);
  const std::vector<float> w = random_weights(150, 22);
  PottsObjective objective(a, w, {0.01, 0.2 * 22});
  Rng rng(23);
  std::vector<float> x = objective.initial_parameters();
  for (std::size_t k = 23 * 20; k < x.size(); ++k) x[k] = 0.1f * rng.normal();

  const int saved = num_threads();
  std::vector<float> g1(x.size()), g2(x.size());
  set_num_threads(1);
  const double f1 = objective.evaluate(x.data(), g1.data());
  set_num_threads(2);
  const double f2 = objective.evaluate(x.data(), g2.data());
  set_num_threads(saved);
  CHECK(std::memcmp(&f1, &f2, sizeof f1) == 0);
  CHECK(g1 == g2);
}

TEST_CASE("Potts initial fields and the coupling tensor follow the documented layout", "[bio]") {
  // Column 0: A A A C, uniform weights -> counts (+1 pseudocount) A 4, C 2, gap 1.
  Alignment a;
  a.length = 3;
  a.names = {"0", "1", "2", "3"};
  a.codes = {0, 0, 20, 0, 1, 20, 0, 2, 20, 4, 3, 20};
  PottsObjective objective(a, std::vector<float>(4, 1.0f), {0.01, 0.4});
  const std::vector<float> x0 = objective.initial_parameters();
  CHECK(x0[objective.field_index(0, 0)] == Approx(std::log(4.0)));
  CHECK(x0[objective.field_index(0, 4)] == Approx(std::log(2.0)));
  CHECK(x0[objective.field_index(0, 1)] == Approx(0.0).margin(1e-7));
  for (std::size_t k = 60; k < x0.size(); ++k) REQUIRE(x0[k] == 0.0f);

  std::vector<float> x(x0.size());
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(k);
  const Tensor J = objective.couplings(x.data());  // [3, 3, 21, 21]
  CHECK(J.at({0, 2, 4, 7}) == static_cast<float>(objective.coupling_index(0, 2, 4, 7)));
  CHECK(J.at({2, 0, 7, 4}) == static_cast<float>(objective.coupling_index(0, 2, 4, 7)));
  CHECK(J.at({1, 1, 3, 3}) == 0.0f);
  const Tensor h = objective.fields(x.data());  // [3, 21]
  CHECK(h.at({2, 5}) == static_cast<float>(objective.field_index(2, 5)));
  CHECK(h.at({2, 20}) == 0.0f);
}

TEST_CASE("a Potts model larger than the memory is an input error naming its columns", "[bio]") {
  // Issue #18: a 2 x 4000 alignment surfaced as std::bad_alloc; 65535 columns (the most an
  // alignment may have) ask for terabytes on any machine.
  Alignment a;
  a.length = kMaxAlignmentColumns;
  a.names = {"q", "s"};
  a.codes.assign(2 * static_cast<std::size_t>(a.length), 0);
  CHECK_THROWS_WITH(PottsObjective(a, {1.0f, 1.0f}, {0.01, 0.2}),
                    Catch::Contains("a Potts model of 65535 columns needs"));
}
