#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

#include "attend/core/error.hpp"
#include "attend/core/optimizer.hpp"
#include "attend/core/module.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/parameter_arena.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::random_tensor;

namespace {

// Two parameters of its own and a child with one: exercises dotted paths.
class Leaf : public Module {
 public:
  explicit Leaf(uint64_t seed) { w = add_parameter("w", random_tensor({3, 2}, seed)); }
  std::string type_name() const override { return "leaf"; }
  Json config() const override { return Json::object(); }
  Var w;
};

class Net : public Module {
 public:
  Net() {
    a = add_parameter("a", random_tensor({4, 3}, 1));
    b = add_parameter("b", random_tensor({2}, 2));
    child = &add_child("child", std::make_unique<Leaf>(3));
  }
  std::string type_name() const override { return "net"; }
  Json config() const override { return Json::object(); }
  // sum((x a) child.w + b) weighted by r: every parameter gets a gradient.
  Var loss(const Tensor& x, const Tensor& r) const {
    Var y = ops::linear(ops::matmul(Var(x), a), child->w, b);  // [5, 2]
    double s = 0.0;
    for (int64_t i = 0; i < r.numel(); ++i) s += double(y.value()[i]) * r[i];
    return Var::from_op(Tensor::scalar(float(s)), {y}, [y, r](const Tensor&, const Tensor& g) {
      Tensor& gy = y.grad_mut();
      for (int64_t i = 0; i < r.numel(); ++i) gy[i] += g[0] * r[i];
    });
  }
  Var a, b;
  Leaf* child;
};

}  // namespace

TEST_CASE("arena packs parameters in order and the Vars become views", "[core]") {
  Net net;
  const Tensor a0 = net.a.value(), b0 = net.b.value(), w0 = net.child->w.value();
  ParameterArena arena(net.named_parameters());
  REQUIRE(arena.size() == 12 + 2 + 6);
  REQUIRE(arena.slots().size() == 3);
  CHECK(arena.slots()[0].name == "a");
  CHECK(arena.slots()[1].name == "b");
  CHECK(arena.slots()[2].name == "child.w");
  CHECK(arena.slots()[1].offset == 12);
  CHECK(arena.slots()[2].offset == 14);
  CHECK(arena.slots()[2].shape == Shape{3, 2});
  REQUIRE(arena.find("child.w") != nullptr);
  CHECK(arena.find("child.w")->offset == 14);
  CHECK(arena.find("nope") == nullptr);

  // Values were copied in, in slot order.
  for (int64_t i = 0; i < 12; ++i) CHECK(arena.values()[i] == a0[i]);
  for (int64_t i = 0; i < 2; ++i) CHECK(arena.values()[12 + i] == b0[i]);
  for (int64_t i = 0; i < 6; ++i) CHECK(arena.values()[14 + i] == w0[i]);
  CHECK(net.a.value().is_view());
  CHECK(net.child->w.value().data() == arena.values().data() + 14);

  // Writes go both ways.
  arena.values()[13] = 42.0f;
  CHECK(net.b.value()[1] == 42.0f);
  net.child->w.value()[0] = -7.0f;
  CHECK(arena.values()[14] == -7.0f);

  // snapshot / restore.
  const Tensor snap = arena.snapshot();
  CHECK(snap.shape() == Shape{20});
  arena.values()[0] = 99.0f;
  arena.restore(snap);
  CHECK(net.a.value()[0] == a0[0]);
  CHECK_THROWS_AS(arena.restore(Tensor({3})), Error);

  // snapshot_into: resized once, then the same memory is reused.
  Tensor into({3});
  arena.snapshot_into(into);
  CHECK(bitwise_equal(into, snap));
  const float* memory = into.data();
  arena.values()[0] = 5.0f;
  arena.snapshot_into(into);
  CHECK(into.data() == memory);
  CHECK(into[0] == 5.0f);
}

TEST_CASE("state values (no gradient) are packed after the trained parameters and no optimizer moves them", "[core]") {
  for (const std::string type : {"adam", "sgd", "adamw"}) {
    Net net;
    net.b.set_requires_grad(false);  // b plays a running statistic
    const Tensor b0 = net.b.value();
    ParameterArena arena(net.named_parameters());
    REQUIRE(arena.size() == 20);
    CHECK(arena.trainable_size() == 18);
    CHECK(arena.slots()[1].name == "b");  // slots keep their order, offsets do not
    CHECK(arena.slots()[2].offset == 12);
    CHECK(arena.slots()[1].offset == 18);
    CHECK(net.b.value().data() == arena.values().data() + 18);
    for (float& g : arena.grads()) g = 0.5f;  // even a gradient written into a state value is ignored
    Json config = {{"lr", 0.1}, {"weight_decay", 0.01}};
    if (type == "sgd") config["momentum"] = 0.9;
    auto optimizer = make_optimizer(type, config);
    const Tensor before = arena.snapshot();
    optimizer->step(arena);
    CHECK(bitwise_equal(net.b.value(), b0));
    CHECK(arena.values()[0] != before[0]);  // the trained ones moved
    for (const auto& [name, buffer] : optimizer->state()) {
      if (name != "step") CHECK(buffer.numel() == 18);  // the optimizer's state covers the trained values
    }
  }
}

TEST_CASE("backward writes into the arena's gradient buffer", "[core][grad]") {
  const Tensor x = random_tensor({5, 4}, 10), r = random_tensor({5, 2}, 11);
  // Reference gradients from a net without an arena.
  Net reference;
  reference.loss(x, r).backward();

  Net net;
  ParameterArena arena(net.named_parameters());
  net.loss(x, r).backward();
  const auto check_grads = [&](float factor) {
    const std::vector<Var> ref{reference.a, reference.b, reference.child->w};
    int64_t offset = 0;
    for (const Var& v : ref) {
      for (int64_t i = 0; i < v.grad().numel(); ++i) {
        CHECK(arena.grads()[offset + i] == Approx(factor * v.grad()[i]).margin(1e-6));
      }
      offset += v.grad().numel();
    }
  };
  check_grads(1.0f);
  CHECK(net.a.grad().data() == arena.grads().data());

  // Gradients accumulate until zero_grad.
  net.loss(x, r).backward();
  check_grads(2.0f);
  arena.zero_grad();
  for (float g : arena.grads()) CHECK(g == 0.0f);
  net.loss(x, r).backward();
  check_grads(1.0f);
}

TEST_CASE("gradient norm and clipping", "[core]") {
  Net net;
  ParameterArena arena(net.named_parameters());
  double sum = 0.0;
  for (int64_t i = 0; i < arena.size(); ++i) {
    arena.grads()[i] = float(i % 7) - 3.0f;
    sum += double(arena.grads()[i]) * arena.grads()[i];
  }
  const double norm = std::sqrt(sum);
  CHECK(arena.global_grad_norm() == Approx(norm).epsilon(1e-12));

  // A limit above the norm changes nothing.
  const std::vector<float> before(arena.grads().begin(), arena.grads().end());
  CHECK(arena.clip_grad_norm(norm * 2) == Approx(norm).epsilon(1e-12));
  for (int64_t i = 0; i < arena.size(); ++i) CHECK(arena.grads()[i] == before[i]);

  // A limit below scales every gradient by the same factor to the limit.
  CHECK(arena.clip_grad_norm(1.5) == Approx(norm).epsilon(1e-12));
  CHECK(arena.global_grad_norm() == Approx(1.5).epsilon(1e-5));
  for (int64_t i = 0; i < arena.size(); ++i) {
    CHECK(arena.grads()[i] == Approx(before[i] * 1.5 / norm).margin(1e-6));
  }
  CHECK_THROWS_AS(arena.clip_grad_norm(0.0), Error);
}

TEST_CASE("gradient norm and clipping are bit-identical for 1 and 2 threads", "[core]") {
  // Large enough for several blocks of the flat buffer.
  Var big(random_tensor({300, 200}, 20), true);
  ParameterArena arena({{"big", big}});
  const Tensor g = random_tensor({300, 200}, 21);
  auto run = [&](int threads) {
    set_num_threads(threads);
    std::copy(g.begin(), g.end(), arena.grads().begin());
    const double norm = arena.global_grad_norm();
    arena.clip_grad_norm(norm / 3);
    return std::make_pair(norm, Tensor(Shape{arena.size()},
                                       std::vector<float>(arena.grads().begin(),
                                                          arena.grads().end())));
  };
  const int before = num_threads();
  const auto one = run(1), two = run(2);
  set_num_threads(before);
  CHECK(one.first == two.first);
  CHECK(bitwise_equal(one.second, two.second));
}

TEST_CASE("arena moves, and parameters outlive it with their values", "[core]") {
  Net net;
  const Tensor a0 = net.a.value();
  {
    ParameterArena first(net.named_parameters());
    first.values()[0] = 5.0f;
    ParameterArena moved(std::move(first));
    CHECK(first.size() == 0);
    CHECK(net.a.value()[0] == 5.0f);
    moved.values()[1] = 6.0f;
    CHECK(net.a.value()[1] == 6.0f);
    ParameterArena assigned;
    assigned = std::move(moved);
    assigned.values()[2] = 7.0f;
    CHECK(net.a.value()[2] == 7.0f);
  }
  // The arena is gone: the parameter owns its memory again and kept its values.
  CHECK_FALSE(net.a.value().is_view());
  CHECK(net.a.value()[0] == 5.0f);
  CHECK(net.a.value()[2] == 7.0f);
  CHECK(net.a.value()[3] == a0[3]);

  // A second arena over the same parameters takes them over; dropping the first later
  // leaves them in the second.
  auto old_arena = std::make_unique<ParameterArena>(net.named_parameters());
  ParameterArena second(net.named_parameters());
  old_arena.reset();
  second.values()[0] = 11.0f;
  CHECK(net.a.value()[0] == 11.0f);
}

TEST_CASE("arena rejects duplicate names and shared Vars", "[core]") {
  Var v(Tensor({2}, 1.0f), true), u(Tensor({2}, 1.0f), true);
  CHECK_THROWS_AS(ParameterArena({{"x", v}, {"x", u}}), Error);
  CHECK_THROWS_AS(ParameterArena({{"x", v}, {"y", v}}), Error);
}
