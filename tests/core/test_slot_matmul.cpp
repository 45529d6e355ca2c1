#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "attend/core/ops/slot_matmul.hpp"
#include "attend/core/random.hpp"
#include "grad_check.hpp"
#include "scoped_threads.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

namespace {

/// `pairs` random (node, relation) pairs over `n` nodes and 4 relations, duplicates included.
std::shared_ptr<const ops::RelationSlots> random_slots(uint64_t seed, int pairs = 40, int64_t n = 9) {
  Rng rng(seed);
  std::vector<int64_t> nodes, relations;
  for (int k = 0; k < pairs; ++k) {
    nodes.push_back(static_cast<int64_t>(rng.below(n)));
    relations.push_back(static_cast<int64_t>(rng.below(4)));
  }
  return std::make_shared<const ops::RelationSlots>(
      ops::RelationSlots::from_pairs(n, 4, nodes, relations));
}

/// out[s, c] = sum_k x[node, k] w[k, rel * C + c], written out.
Tensor naive(const Tensor& x, const Tensor& w, const ops::RelationSlots& slots, int64_t c) {
  const int64_t f = x.dim(1);
  Tensor out({slots.size(), c});
  for (int64_t s = 0; s < slots.size(); ++s) {
    for (int64_t q = 0; q < c; ++q) {
      double acc = 0.0;
      for (int64_t k = 0; k < f; ++k) {
        acc += static_cast<double>(x.at({slots.node[s], k})) * w.at({k, slots.relation[s] * c + q});
      }
      out.at({s, q}) = static_cast<float>(acc);
    }
  }
  return out;
}


/// {op(a, b), d a, d b} with the gradient seeded by `seed`, computed on `threads` threads.
template <class Op>
std::vector<Tensor> value_and_gradients(int threads, Op op, const Tensor& a, const Tensor& b, const Tensor& seed) {
  attend::testing::ScopedThreads scoped(threads);
  Var av(a, true), bv(b, true);
  Var y = op(av, bv);
  y.backward(seed);
  return {y.value(), av.grad(), bv.grad()};
}

}  // namespace

TEST_CASE("RelationSlots: sorted distinct pairs, lookups and relation groups", "[core]") {
  const ops::RelationSlots s =
      ops::RelationSlots::from_pairs(4, 3, {2, 0, 2, 3, 0, 2}, {1, 2, 1, 0, 0, 0});
  REQUIRE(s.size() == 5);  // (0,0) (0,2) (2,0) (2,1) (3,0)
  CHECK(s.node == std::vector<int64_t>{0, 0, 2, 2, 3});
  CHECK(s.relation == std::vector<int64_t>{0, 2, 0, 1, 0});
  CHECK(s.node_indptr == std::vector<int64_t>{0, 2, 2, 4, 5});
  CHECK(s.relation_indptr == std::vector<int64_t>{0, 3, 4, 5});
  CHECK(s.by_relation == std::vector<int64_t>{0, 2, 4, 3, 1});
  CHECK(s.find(2, 1) == 3);
  CHECK(s.find(1, 0) == -1);
  CHECK(s.find(0, 1) == -1);
  CHECK_THROWS(ops::RelationSlots::from_pairs(4, 3, {4}, {0}));
  CHECK_THROWS(ops::RelationSlots::from_pairs(4, 3, {0}, {3}));
}

TEST_CASE("slot_matmul matches the written-out product, dense and sparse", "[core]") {
  const auto slots = random_slots(1);
  const Tensor x = random_tensor({9, 5}, 2);
  const Tensor w = random_tensor({5, 4 * 3}, 3);
  const Tensor ref = naive(x, w, *slots, 3);
  CHECK(max_abs_diff(ops::slot_matmul(Var(x), Var(w), slots).value(), ref) < 1e-5f);
  Tensor xs = x;  // a sparse copy with some zeros
  for (int64_t i = 0; i < xs.numel(); i += 3) xs[i] = 0.0f;
  const auto sparse = std::make_shared<const SparseMatrix>(SparseMatrix::from_dense(xs));
  CHECK(max_abs_diff(ops::slot_matmul(sparse, Var(w), slots).value(), naive(xs, w, *slots, 3)) <
        1e-5f);
}

TEST_CASE("slot_matmul gradients", "[core][grad]") {
  const auto slots = random_slots(4);
  auto dense = check_gradients(
      [slots](const std::vector<Var>& v) { return ops::slot_matmul(v[0], v[1], slots); },
      {random_tensor({9, 5}, 5), random_tensor({5, 8}, 6)});
  INFO(dense.report);
  CHECK(dense.ok);
  const auto x = std::make_shared<const SparseMatrix>(SparseMatrix::from_dense(random_tensor({9, 5}, 7)));
  auto sparse = check_gradients(
      [slots, x](const std::vector<Var>& v) { return ops::slot_matmul(x, v[0], slots); },
      {random_tensor({5, 8}, 8)});
  INFO(sparse.report);
  CHECK(sparse.ok);
}

TEST_CASE("slot_matmul is bit-identical for 1 and 2 threads", "[core]") {
  const auto slots = random_slots(9, 3000, 700);  // several blocks of slots and of nodes
  const Tensor x = random_tensor({700, 6}, 10), w = random_tensor({6, 4 * 5}, 11);
  const Tensor seed = random_tensor({slots->size(), 5}, 12);
  auto op = [&](const Var& a, const Var& b) { return ops::slot_matmul(a, b, slots); };
  const std::vector<Tensor> one = value_and_gradients(1, op, x, w, seed);
  const std::vector<Tensor> two = value_and_gradients(2, op, x, w, seed);
  for (int k = 0; k < 3; ++k) CHECK(bitwise_equal(one[k], two[k]));
}

namespace {

/// out[s, c] = sum_b comp[rel, b] h[node, b * C + c], written out in double.
Tensor naive_combine(const Tensor& h, const Tensor& comp, const ops::RelationSlots& slots) {
  const int64_t b = comp.dim(1), c = h.dim(1) / b;
  Tensor out({slots.size(), c});
  for (int64_t s = 0; s < slots.size(); ++s) {
    for (int64_t q = 0; q < c; ++q) {
      double acc = 0.0;
      for (int64_t k = 0; k < b; ++k) {
        acc += static_cast<double>(comp.at({slots.relation[s], k})) * h.at({slots.node[s], k * c + q});
      }
      out.at({s, q}) = static_cast<float>(acc);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("slot_basis_combine matches the written-out mix and checks shapes", "[core]") {
  const auto slots = random_slots(13);
  const Tensor comp = random_tensor({4, 3}, 15);
  for (int64_t c : {5, 16, 37}) {  // under, at and over the 16 columns summed in registers
    const Tensor wide = random_tensor({9, 3 * c}, 14);
    INFO("C = " << c);
    CHECK(max_abs_diff(ops::slot_basis_combine(Var(wide), Var(comp), slots).value(),
                       naive_combine(wide, comp, *slots)) < 1e-5f);
  }
  const Tensor h = random_tensor({9, 3 * 5}, 14);
  CHECK_THROWS(ops::slot_basis_combine(Var(random_tensor({9, 14}, 16)), Var(comp), slots));  // 14 % 3
  CHECK_THROWS(ops::slot_basis_combine(Var(random_tensor({8, 15}, 16)), Var(comp), slots));  // 8 nodes
  CHECK_THROWS(ops::slot_basis_combine(Var(h), Var(random_tensor({3, 3}, 17)), slots));      // 3 relations
}

TEST_CASE("slot_basis_combine gradients", "[core][grad]") {
  const auto slots = random_slots(18);
  auto result = check_gradients(
      [slots](const std::vector<Var>& v) { return ops::slot_basis_combine(v[0], v[1], slots); },
      {random_tensor({9, 3 * 4}, 19), random_tensor({4, 3}, 20)});
  INFO(result.report);
  CHECK(result.ok);
}

TEST_CASE("slot_basis_combine is bit-identical for 1 and 2 threads", "[core]") {
  const auto slots = random_slots(25, 3000, 700);  // several blocks of slots and of nodes
  const Tensor h = random_tensor({700, 3 * 5}, 26), comp = random_tensor({4, 3}, 27);
  const Tensor seed = random_tensor({slots->size(), 5}, 28);
  auto op = [&](const Var& a, const Var& b) { return ops::slot_basis_combine(a, b, slots); };
  const std::vector<Tensor> one = value_and_gradients(1, op, h, comp, seed);
  const std::vector<Tensor> two = value_and_gradients(2, op, h, comp, seed);
  for (int k = 0; k < 3; ++k) CHECK(bitwise_equal(one[k], two[k]));
}
