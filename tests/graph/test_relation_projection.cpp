#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "attend/core/ops/slot_matmul.hpp"
#include "attend/core/random.hpp"
#include "attend/graph/layers/relation_projection.hpp"
#include "attend/graph/node_features.hpp"
#include "grad_check.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::random_tensor;

namespace {

/// `pairs` random (node, relation) pairs over n nodes and r relations.
std::shared_ptr<const ops::RelationSlots> random_slots(uint64_t seed, int pairs, int64_t n, int64_t r) {
  Rng rng(seed);
  std::vector<int64_t> nodes, relations;
  for (int k = 0; k < pairs; ++k) {
    nodes.push_back(static_cast<int64_t>(rng.below(n)));
    relations.push_back(static_cast<int64_t>(rng.below(r)));
  }
  return std::make_shared<const ops::RelationSlots>(ops::RelationSlots::from_pairs(n, r, nodes, relations));
}

/// Fresh leaf parameters with the given values, so two paths accumulate separate gradients.
RelationWeights weights(int64_t in, int64_t width, int64_t r, const Tensor& basis, const Tensor& comp) {
  return RelationWeights{in, width, r, comp.dim(1), {}, Var(basis, true), Var(comp, true)};
}

/// The path before bases_first existed: every W_r built, then one row of x times W_r per slot.
Var weight_first(const RelationWeights& w, const NodeFeatures& x, std::shared_ptr<const ops::RelationSlots> slots) {
  return x.is_sparse() ? ops::slot_matmul(x.sparse, w.full_weight(), std::move(slots))
                       : ops::slot_matmul(x.dense, w.full_weight(), std::move(slots));
}

}  // namespace

TEST_CASE("project_slots with the bases first equals the full weight path, forward and backward",
          "[graph]") {
  const int64_t n = 60, width = 4, r = 7, b = 3;
  const auto slots = random_slots(1, 300, n, r);
  const auto eye = identity_features(n);
  const auto dropped = dropout(NodeFeatures(eye), 0.3f, 5, true);  // scaled values, some zero
  const Tensor dense_x = random_tensor({n, 200}, 6);
  struct Case {
    const char* name;
    NodeFeatures x;
  };
  for (const Case& c : {Case{"identity", NodeFeatures(eye)}, Case{"identity after dropout", dropped},
                        Case{"wide dense", NodeFeatures(Var(dense_x))}}) {
    INFO(c.name);
    const int64_t in = c.x.cols();
    const Tensor basis = random_tensor({in, b * width}, 2), comp = random_tensor({r, b}, 3);
    const Tensor seed = random_tensor({slots->size(), width}, 4);
    const RelationWeights fast = weights(in, width, r, basis, comp), slow = weights(in, width, r, basis, comp);
    REQUIRE(fast.bases_first(c.x, *slots));
    Var y_fast = fast.project_slots(c.x, slots);
    Var y_slow = weight_first(slow, c.x, slots);
    y_fast.backward(seed);
    y_slow.backward(seed);
    // The two paths sum up to 200 products per output in different orders (and in different
    // GEMM blocks): float rounding relative to the outputs' size.
    const float scale = std::max(1.0f, max_abs_diff(y_slow.value(), Tensor(y_slow.value().shape())));
    CHECK(max_abs_diff(y_fast.value(), y_slow.value()) < 1e-5f * scale);
    CHECK(max_abs_diff(fast.basis.grad(), slow.basis.grad()) < 1e-5f);
    CHECK(max_abs_diff(fast.comp.grad(), slow.comp.grad()) < 1e-4f);
  }
}

TEST_CASE("project_slots keeps the full weight on narrow dense features and without bases", "[graph]") {
  const int64_t n = 200, r = 3;
  const auto slots = random_slots(7, 300, n, r);
  const NodeFeatures narrow(Var(random_tensor({n, 4}, 8)));
  CHECK_FALSE(weights(4, 5, r, random_tensor({4, 2 * 5}, 9), random_tensor({r, 2}, 10)).bases_first(narrow, *slots));
  const RelationWeights plain{n, 5, r, 0, Var(random_tensor({n, r * 5}, 11)), {}, {}};
  CHECK_FALSE(plain.bases_first(NodeFeatures(identity_features(n)), *slots));
}
