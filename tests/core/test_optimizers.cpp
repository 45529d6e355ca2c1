#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "attend/core/adam.hpp"
#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/sgd.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::random_tensor;

namespace {

// One parameter of `n` values in an arena.
struct Problem {
  explicit Problem(const Tensor& init) : p(init, true), arena({{"p", p}}) {}
  Var p;
  ParameterArena arena;
};

// Gradient of sum_i c_i (p_i - t_i)^2 with c_i = 1 + i % 3, t_i = sin(i): a deterministic
// function of the current values.
void quadratic_grad(ParameterArena& arena) {
  for (int64_t i = 0; i < arena.size(); ++i) {
    const float c = 1.0f + float(i % 3);
    arena.grads()[i] = 2.0f * c * (arena.values()[i] - std::sin(float(i)));
  }
}

std::vector<float> values(const ParameterArena& arena) {
  return {arena.values().begin(), arena.values().end()};
}

}  // namespace

TEST_CASE("sgd with momentum, nesterov and weight decay matches a double reference", "[core]") {
  const Tensor p0 = random_tensor({7}, 1);
  const Tensor g1 = random_tensor({7}, 2), g2 = random_tensor({7}, 3);
  for (bool nesterov : {false, true}) {
    const double lr = 0.1, mu = 0.9, wd = 0.01;
    Problem pr(p0);
    Sgd sgd(SgdOptions{lr, mu, nesterov, wd});
    std::vector<double> p(p0.begin(), p0.end()), buf(7, 0.0);
    for (int step = 0; step < 2; ++step) {
      const Tensor& g = step == 0 ? g1 : g2;
      std::copy(g.begin(), g.end(), pr.arena.grads().begin());
      sgd.step(pr.arena);
      for (int i = 0; i < 7; ++i) {
        const double gi = g[i] + wd * p[i];
        buf[i] = step == 0 ? gi : mu * buf[i] + gi;
        p[i] -= lr * (nesterov ? gi + mu * buf[i] : buf[i]);
      }
    }
    for (int i = 0; i < 7; ++i) CHECK(pr.arena.values()[i] == Approx(p[i]).margin(1e-6));
    CHECK(sgd.steps() == 2);
  }
}

TEST_CASE("adam and adamw match a double reference", "[core]") {
  const Tensor p0 = random_tensor({9}, 4);
  for (bool decoupled : {false, true}) {
    const AdamOptions o{0.01, 0.8, 0.95, 1e-6, 0.1};
    Problem pr(p0);
    std::unique_ptr<Optimizer> opt =
        decoupled ? std::unique_ptr<Optimizer>(new AdamW(o)) : std::make_unique<Adam>(o);
    std::vector<double> p(p0.begin(), p0.end()), m(9, 0.0), v(9, 0.0);
    for (int t = 1; t <= 3; ++t) {
      const Tensor g = random_tensor({9}, 10 + t);
      std::copy(g.begin(), g.end(), pr.arena.grads().begin());
      opt->step(pr.arena);
      for (int i = 0; i < 9; ++i) {
        double gi = g[i];
        if (decoupled) {
          p[i] *= 1.0 - o.lr * o.weight_decay;
        } else {
          gi += o.weight_decay * p[i];
        }
        m[i] = o.beta1 * m[i] + (1 - o.beta1) * gi;
        v[i] = o.beta2 * v[i] + (1 - o.beta2) * gi * gi;
        const double mhat = m[i] / (1 - std::pow(o.beta1, t));
        const double vhat = v[i] / (1 - std::pow(o.beta2, t));
        p[i] -= o.lr * mhat / (std::sqrt(vhat) + o.eps);
      }
    }
    for (int i = 0; i < 9; ++i) CHECK(pr.arena.values()[i] == Approx(p[i]).margin(2e-6));
  }
}

TEST_CASE("adam's first step moves every value by lr against its gradient's sign", "[core]") {
  // m_hat = g and v_hat = g^2 after one step, so the update is lr * g / (|g| + eps).
  Problem pr(Tensor({3}, {1.0f, 2.0f, 3.0f}));
  pr.arena.grads()[0] = 0.5f;
  pr.arena.grads()[1] = -4.0f;
  pr.arena.grads()[2] = 0.0f;
  Adam adam(AdamOptions{0.1});
  adam.step(pr.arena);
  CHECK(pr.arena.values()[0] == Approx(0.9).margin(1e-6));
  CHECK(pr.arena.values()[1] == Approx(2.1).margin(1e-6));
  CHECK(pr.arena.values()[2] == 3.0f);
}

TEST_CASE("adamw decays decoupled from the moments, adam through the gradient", "[core]") {
  const Tensor p0 = random_tensor({50}, 5);
  const double lr = 0.05, wd = 0.2;
  Problem w(p0), w_manual(p0), a(p0), a_manual(p0);
  AdamW adamw(AdamOptions{lr, 0.9, 0.999, 1e-8, wd});
  Adam plain_for_w(AdamOptions{lr, 0.9, 0.999, 1e-8, 0.0});
  Adam adam(AdamOptions{lr, 0.9, 0.999, 1e-8, wd});
  Adam plain_for_a(AdamOptions{lr, 0.9, 0.999, 1e-8, 0.0});
  const float decay = float(1.0 - lr * wd);
  for (int t = 0; t < 5; ++t) {
    const Tensor g = random_tensor({50}, 100 + t);
    for (Problem* pr : {&w, &w_manual, &a, &a_manual}) {
      std::copy(g.begin(), g.end(), pr->arena.grads().begin());
    }
    adamw.step(w.arena);
    // AdamW = shrink the weights, then a plain Adam step on the unchanged gradient.
    for (float& x : w_manual.arena.values()) x *= decay;
    plain_for_w.step(w_manual.arena);
    adam.step(a.arena);
    // Adam = a plain Adam step on the gradient plus wd * p.
    for (int64_t i = 0; i < 50; ++i) {
      a_manual.arena.grads()[i] += float(wd) * a_manual.arena.values()[i];
    }
    plain_for_a.step(a_manual.arena);
  }
  CHECK(values(w.arena) == values(w_manual.arena));
  CHECK(values(a.arena) == values(a_manual.arena));
  CHECK(values(w.arena) != values(a.arena));
}

TEST_CASE("adam minimises a quadratic", "[core]") {
  Problem pr(Tensor({20}, 3.0f));
  Adam adam(AdamOptions{0.05});
  for (int step = 0; step < 1500; ++step) {
    quadratic_grad(pr.arena);
    adam.step(pr.arena);
  }
  for (int64_t i = 0; i < 20; ++i) {
    CHECK(pr.arena.values()[i] == Approx(std::sin(float(i))).margin(1e-3));
  }
}

TEST_CASE("optimizer state round trip continues bit-identically", "[core]") {
  const Tensor p0 = random_tensor({40}, 6);
  const std::vector<std::pair<std::string, Json>> kinds{
      {"adam", {{"lr", 0.02}, {"weight_decay", 0.01}}},
      {"adamw", {{"lr", 0.02}, {"weight_decay", 0.1}}},
      {"sgd", {{"lr", 0.01}, {"momentum", 0.9}, {"nesterov", true}}}};
  for (const auto& [type, config] : kinds) {
    INFO(type);
    Problem whole(p0);
    auto opt = make_optimizer(type, config);
    for (int s = 0; s < 12; ++s) {
      quadratic_grad(whole.arena);
      opt->step(whole.arena);
    }

    Problem first(p0);
    auto opt1 = make_optimizer(type, config);
    for (int s = 0; s < 5; ++s) {
      quadratic_grad(first.arena);
      opt1->step(first.arena);
    }
    const OptimizerState saved = opt1->state();
    const Tensor saved_values = first.arena.snapshot();

    Problem second(Tensor({40}, 0.0f));
    second.arena.restore(saved_values);
    auto opt2 = make_optimizer(opt1->type_name(), opt1->config());
    opt2->load_state(saved);
    CHECK(opt2->steps() == 5);
    for (int s = 0; s < 7; ++s) {
      quadratic_grad(second.arena);
      opt2->step(second.arena);
    }
    CHECK(values(second.arena) == values(whole.arena));
  }
}

TEST_CASE("optimizer state loading checks what it gets", "[core]") {
  Problem pr(random_tensor({10}, 7));
  Adam adam;
  quadratic_grad(pr.arena);
  adam.step(pr.arena);
  const OptimizerState good = adam.state();
  REQUIRE(good.size() == 3);
  CHECK(good[0].first == "step");
  CHECK(good[0].second[0] == 1.0f);
  CHECK(good[1].second.numel() == 10);

  Adam other;
  OptimizerState missing(good.begin(), good.begin() + 2);
  CHECK_THROWS_WITH(other.load_state(missing), Catch::Contains("lacks the entry 'v'"));
  OptimizerState extra = good;
  extra.emplace_back("w", Tensor({10}));
  CHECK_THROWS_WITH(other.load_state(extra), Catch::Contains("unknown entry 'w'"));
  OptimizerState mismatched = good;
  mismatched[2].second = Tensor({9});
  CHECK_THROWS_WITH(other.load_state(mismatched), Catch::Contains("'v' has shape [9]"));
  OptimizerState fractional = good;
  fractional[0].second = Tensor({1}, 1.5f);
  CHECK_THROWS_WITH(other.load_state(fractional), Catch::Contains("whole number"));
  OptimizerState not_finite = good;
  not_finite[1].second[4] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(other.load_state(not_finite), Catch::Contains("'m' holds a non-finite value"));
  // The state comes from a checkpoint file: what is wrong with it is bad input (exit 2).
  CHECK_THROWS_AS(other.load_state(mismatched), InputError);
  CHECK(other.steps() == 0);  // nothing was taken from a rejected state

  // A state for another arena size is refused at the next step.
  other.load_state(good);
  Problem bigger(random_tensor({11}, 8));
  CHECK_THROWS_WITH(other.step(bigger.arena), Catch::Contains("arena has 11"));
}

TEST_CASE("optimizers are built from their config", "[core]") {
  Sgd sgd(SgdOptions{0.3, 0.5, false, 0.0});
  auto copy = make_optimizer(sgd.type_name(), sgd.config());
  CHECK(copy->type_name() == "sgd");
  CHECK(copy->config() == sgd.config());
  AdamW adamw(AdamOptions{0.004, 0.85});
  CHECK(make_optimizer("adamw", adamw.config())->config() == adamw.config());
  CHECK(make_optimizer("adam", Json())->lr() == Approx(1e-3));
  CHECK_THROWS_AS(make_optimizer("rmsprop", Json::object()), InputError);
  CHECK_THROWS_AS(make_optimizer("adam", Json{{"betta1", 0.9}}), InputError);
  CHECK_THROWS_AS(make_optimizer("sgd", Json{{"lr", "fast"}}), InputError);
  CHECK_THROWS_AS(Sgd(SgdOptions{0.1, 0.0, true}), InputError);
  // Found by scripts/fuzz_inputs.py: option values out of range in a model file are bad input.
  CHECK_THROWS_WITH(make_optimizer("adam", Json{{"lr", -1.0}}), Catch::Contains("adam: option 'lr' must be > 0, got '-1.0'"));
  CHECK_THROWS_WITH(make_optimizer("sgd", Json{{"lr", 0}}), Catch::Contains("sgd: option 'lr' must be > 0, got '0'"));
  // Options built in code are checked against the same ranges.
  CHECK_THROWS_WITH(Adam(AdamOptions{0.1, 1.0}), "adam: option 'beta1' must be [0, 1), got 1");
  CHECK_THROWS_WITH(Sgd(SgdOptions{-0.5}), "sgd: option 'lr' must be > 0, got -0.5");
  CHECK_THROWS_AS(make_optimizer("adamw", Json{{"beta2", 1.0}}), InputError);
  CHECK_THROWS_AS(make_optimizer("sgd", Json{{"momentum", 1e308}}), InputError);
}

TEST_CASE("optimizer steps are bit-identical for 1 and 2 threads", "[core]") {
  const Tensor p0 = random_tensor({70000}, 9), g = random_tensor({70000}, 10);
  auto run = [&](int threads) {
    set_num_threads(threads);
    Problem pr(p0);
    Adam adam(AdamOptions{0.01, 0.9, 0.999, 1e-8, 0.01});
    for (int s = 0; s < 3; ++s) {
      std::copy(g.begin(), g.end(), pr.arena.grads().begin());
      adam.step(pr.arena);
    }
    return values(pr.arena);
  };
  const int before = num_threads();
  const auto one = run(1), two = run(2);
  set_num_threads(before);
  CHECK(one == two);
}
