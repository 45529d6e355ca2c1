// The Evoformer block (AF2 Alg. 6) against the composition of the plain references.
#include "attend/bio/evoformer/evoformer_block.hpp"
#include "attend/core/error.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/parallel.hpp"
#include "evoformer_reference.hpp"

using namespace attend;
using namespace attend::evoref;

namespace {

constexpr int64_t kCm = 4, kCz = 4, kChMsa = 2, kChOpm = 2, kChMul = 3, kChPair = 2, kHm = 2, kHp = 2, kT = 2;

bio::EvoformerBlockOptions block_options(int64_t chunk, bool checkpoint = true) {
  bio::EvoformerBlockOptions o;
  o.checkpoint = checkpoint;
  o.c_m = kCm;
  o.c_z = kCz;
  o.c_hidden_msa_att = kChMsa;
  o.c_hidden_opm = kChOpm;
  o.c_hidden_mul = kChMul;
  o.c_hidden_pair_att = kChPair;
  o.n_heads_msa = kHm;
  o.n_heads_pair = kHp;
  o.transition_n = kT;
  o.chunk_size = chunk;
  o.seed = 28;
  return o;
}

// Output = concat(m, z) flattened, so the generic checks see one tensor.
Var run_block(const Module& module, const std::vector<Var>& x, uint64_t seed) {
  const auto state = static_cast<const bio::EvoformerBlock&>(module).forward(x[0], x[1], seed);
  return ops::concat({ops::reshape(state.m, {1, -1}), ops::reshape(state.z, {1, -1})});
}

ModuleCase block_case(bool training) {
  ModuleCase mc;
  mc.make = [training](int64_t chunk) {
    auto b = std::make_unique<bio::EvoformerBlock>(block_options(chunk));
    b->train(training);
    return b;
  };
  mc.run = [](const Module& m, const std::vector<Var>& x) { return run_block(m, x, 5); };
  mc.reference = [](const std::map<std::string, Tensor>& pv, const std::vector<Tensor>& x) {
    const int64_t s = x[0].dim(0), n = x[0].dim(1);
    const Params p{&pv, ""};
    Vec m = to_vec(x[0]), z = to_vec(x[1]);
    auto add = [](Vec& a, const Vec& b) { for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i]; };
    add(m, msa_row_attention(m, z, s, n, kCm, kCz, kHm, kChMsa, p.sub("msa_row_attention")));
    add(m, msa_column_attention(m, s, n, kCm, kHm, kChMsa, p.sub("msa_column_attention")));
    add(m, transition(m, kCm, p.sub("msa_transition")));
    add(z, outer_product_mean(m, s, n, kCm, kChOpm, p.sub("outer_product_mean")));
    add(z, triangle_multiplication(z, n, kCz, kChMul, true, p.sub("tri_mul_out")));
    add(z, triangle_multiplication(z, n, kCz, kChMul, false, p.sub("tri_mul_in")));
    add(z, triangle_attention(z, n, kCz, kHp, kChPair, true, p.sub("tri_att_start")));
    add(z, triangle_attention(z, n, kCz, kHp, kChPair, false, p.sub("tri_att_end")));
    add(z, transition(z, kCz, p.sub("pair_transition")));
    m.insert(m.end(), z.begin(), z.end());
    return m;
  };
  mc.input_shapes = {{3, 4, kCm}, {4, 4, kCz}};
  return mc;
}

}  // namespace

TEST_CASE("evoformer_block (evaluation) matches the composition of AF2 Alg. 7-15", "[bio]") {
  check_forward(block_case(false), 1e-4);
}

TEST_CASE("evoformer_block gradients with dropout on: inputs and parameters", "[bio][grad]") {
  check_module_grads(block_case(true), 3);  // every module is checked in full in its own test
}

TEST_CASE("evoformer_block dropout: row-wise on m, row- and column-wise on z, seeded", "[bio]") {
  const ModuleCase mc = block_case(true);
  auto module = mc.make(0);
  randomize_parameters(*module, 8);
  const auto xs = as_vars(random_inputs(mc.input_shapes, 2), false);
  const Tensor a = run_block(*module, xs, 5).value(), b = run_block(*module, xs, 5).value();
  CHECK(bitwise_equal(a, b));
  CHECK_FALSE(bitwise_equal(a, run_block(*module, xs, 6).value()));
  module->eval();
  CHECK_FALSE(bitwise_equal(a, run_block(*module, xs, 5).value()));
}

TEST_CASE("evoformer_block: 1 vs 2 threads and chunked vs unchunked give the same bits", "[bio]") {
  const ModuleCase mc = block_case(true);
  const std::vector<Shape> shapes = {{3, 66, kCm}, {66, 66, kCz}};
  auto module = mc.make(0);
  randomize_parameters(*module, 6);
  set_num_threads(1);
  const RunResult one = run_with_grads(mc, *module, shapes);
  set_num_threads(2);
  const RunResult two = run_with_grads(mc, *module, shapes);
  require_bitwise_equal(one, two);
  check_chunking(mc, shapes);
}

TEST_CASE("evoformer_block: recomputing each module (checkpoint) gives the same output and gradients", "[bio]") {
  ModuleCase with = block_case(true), without = block_case(true);
  without.make = [](int64_t chunk) {
    auto b = std::make_unique<bio::EvoformerBlock>(block_options(chunk, false));
    b->train(true);
    return b;
  };
  const std::vector<Shape> shapes = {{3, 9, kCm}, {9, 9, kCz}};
  auto a = with.make(0), b = without.make(0);
  randomize_parameters(*a, 12);
  randomize_parameters(*b, 12);
  const RunResult ra = run_with_grads(with, *a, shapes), rb = run_with_grads(without, *b, shapes);
  CHECK(bitwise_equal(ra.out, rb.out));
  REQUIRE(ra.grads.size() == rb.grads.size());
  for (std::size_t i = 0; i < ra.grads.size(); ++i) {
    INFO("gradient " << i);
    CHECK(max_abs_diff(ra.grads[i], rb.grads[i]) <= 1e-5f * (1.0f + max_abs_diff(rb.grads[i], Tensor(rb.grads[i].shape()))));
  }
}

TEST_CASE("evoformer_block registry round trip and option errors", "[bio]") {
  check_round_trip(block_case(false));
  Registry registry;
  bio::register_evoformer_layers(registry);
  CHECK_THROWS_AS(registry.create("evoformer_block", Json{{"c_m", 4}}), InputError);
  CHECK_THROWS_AS(registry.create("evoformer_block", Json{{"c_m", 4}, {"c_z", 4}, {"pair_dropout", 1.5}}),
                  InputError);
  CHECK_THROWS_AS(registry.create("evoformer_block", Json{{"c_m", 4}, {"c_z", 4}, {"heads", 2}}), InputError);
}
