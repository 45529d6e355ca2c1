#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <utility>

#include "attend/core/ops.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::random_tensor;

// Gradients accumulate: a second backward without zero_grad must double every input gradient.
// An op whose backward assigns instead of adding passes a single finite-difference check but
// fails here.
TEST_CASE("every op adds into existing gradients", "[core][grad]") {
  using Op = std::function<Var(const std::vector<Var>&)>;
  const Tensor x = random_tensor({4, 6}, 1, 0.2f, 1.0f), c6 = random_tensor({6}, 2),
               y = random_tensor({4, 6}, 3);
  const std::vector<int64_t> idx{3, 0, 3, 1};
  const std::vector<std::pair<std::string, Op>> cases{
      {"add", [](const std::vector<Var>& v) { return ops::add(v[0], v[1]); }},
      {"sub", [](const std::vector<Var>& v) { return ops::sub(v[0], v[1]); }},
      {"mul", [](const std::vector<Var>& v) { return ops::mul(v[0], v[1]); }},
      {"scale", [](const std::vector<Var>& v) { return ops::scale(v[0], 3.0f); }},
      {"linear",
       [](const std::vector<Var>& v) {
         return ops::linear(v[2], ops::reshape(v[0], {6, 4}), ops::split(v[1], {4, 2})[0]);
       }},
      {"relu", [](const std::vector<Var>& v) { return ops::relu(v[0]); }},
      {"elu", [](const std::vector<Var>& v) { return ops::elu(ops::sub(v[0], v[2])); }},
      {"leaky_relu",
       [](const std::vector<Var>& v) { return ops::leaky_relu(ops::sub(v[0], v[2])); }},
      {"sigmoid", [](const std::vector<Var>& v) { return ops::sigmoid(v[0]); }},
      {"tanh", [](const std::vector<Var>& v) { return ops::tanh(v[0]); }},
      {"softmax", [](const std::vector<Var>& v) { return ops::softmax(v[0]); }},
      {"log_softmax", [](const std::vector<Var>& v) { return ops::log_softmax(v[0]); }},
      {"layer_norm", [](const std::vector<Var>& v) { return ops::layer_norm(v[0], v[1], v[1]); }},
      {"l2_normalize", [](const std::vector<Var>& v) { return ops::l2_normalize(v[0]); }},
      {"dropout", [](const std::vector<Var>& v) { return ops::dropout(v[0], 0.5f, 3, true); }},
      {"concat",
       [](const std::vector<Var>& v) {
         return ops::concat({v[0], v[2]});
       }},
      {"split",
       [](const std::vector<Var>& v) {
         return ops::split(v[0], {2, 4})[1];
       }},
      {"reshape", [](const std::vector<Var>& v) { return ops::reshape(v[0], {-1}); }},
      {"permute",
       [](const std::vector<Var>& v) {
         return ops::permute(v[0], {1, 0});
       }},
      {"gather_rows", [&](const std::vector<Var>& v) { return ops::gather_rows(v[0], idx); }},
      {"scatter_add_rows",
       [&](const std::vector<Var>& v) { return ops::scatter_add_rows(v[0], idx, 5); }},
      {"embedding", [&](const std::vector<Var>& v) { return ops::embedding(v[0], idx); }},
      {"sum", [](const std::vector<Var>& v) { return ops::sum(v[0]); }},
      {"mean", [](const std::vector<Var>& v) { return ops::mean(v[0]); }},
      {"cross_entropy",
       [](const std::vector<Var>& v) {
         return ops::cross_entropy(v[0], {1, 0, 5, 2}, {0, 2, 3});
       }},
      {"bce",
       [&](const std::vector<Var>& v) { return ops::binary_cross_entropy_with_logits(v[0], y); }},
  };
  for (const auto& [name, op] : cases) {
    INFO(name);
    const std::vector<Var> inputs{Var(x, true), Var(c6, true), Var(y, true)};
    Var out = op(inputs);
    const Tensor seed = random_tensor(out.shape(), 4);
    out.backward(seed);
    std::vector<Tensor> first;
    for (const Var& v : inputs) first.push_back(v.grad());
    op(inputs).backward(seed);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      for (int64_t e = 0; e < first[i].numel(); ++e)
        CHECK(inputs[i].grad()[e] == Approx(2.0 * first[i][e]).margin(1e-6));
    }
  }
}
