#include "attend/core/ops/loss.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "attend/core/error.hpp"
#include "support.hpp"

namespace attend::ops {

Var cross_entropy(const Var& logits, const std::vector<int64_t>& labels,
                  const std::vector<int64_t>& rows) {
  const Tensor& x = logits.value();
  ATTEND_CHECK(x.rank() == 2 && x.dim(1) > 0,
               "cross_entropy needs logits [N, C], got " << shape_to_string(x.shape()));
  const int64_t n = x.dim(0), c = x.dim(1);
  ATTEND_CHECK(static_cast<int64_t>(labels.size()) == n,
               "cross_entropy: " << labels.size() << " labels for " << n << " rows of logits");
  ATTEND_CHECK(!rows.empty(), "cross_entropy over no rows");
  std::vector<int> count(static_cast<std::size_t>(n), 0);  // how often each row is listed
  for (int64_t r : rows) {
    ATTEND_CHECK(r >= 0 && r < n, "cross_entropy: row " << r << " is outside [0, " << n << ")");
    ATTEND_CHECK(labels[r] >= 0 && labels[r] < c, "cross_entropy: label " << labels[r] << " of row "
                                                                          << r << " is outside [0, "
                                                                          << c << ")");
    ++count[static_cast<std::size_t>(r)];
  }
  const float* xp = x.data();
  const double total = detail::block_sum(
      static_cast<int64_t>(rows.size()), detail::rows_per_block(c), [&](int64_t p) {
        const int64_t r = rows[static_cast<std::size_t>(p)];
        return detail::log_sum_exp(xp + r * c, c) - xp[r * c + labels[r]];
      });
  const double inv_rows = 1.0 / static_cast<double>(rows.size());
  Tensor out = Tensor::scalar(static_cast<float>(total * inv_rows));  // []
  return Var::from_op(std::move(out), {logits},
                      [logits, labels, count, inv_rows, n, c](const Tensor&, const Tensor& gy) {
                        const float* xp = logits.value().data();
                        float* gx = logits.grad_mut().data();
                        const double g = static_cast<double>(gy.item()) * inv_rows;
                        detail::for_each_row(n, c, [&](int64_t off) {
                          const int64_t r = off / c;
                          if (count[static_cast<std::size_t>(r)] == 0) return;
                          const double lse = detail::log_sum_exp(xp + off, c);
                          const double w = g * count[static_cast<std::size_t>(r)];
                          for (int64_t j = 0; j < c; ++j) {
                            const double p = std::exp(static_cast<double>(xp[off + j]) - lse);
                            gx[off + j] += static_cast<float>(w * (j == labels[r] ? p - 1.0 : p));
                          }
                        });
                      });
}

Var binary_cross_entropy_with_logits(const Var& logits, const Tensor& targets,
                                     const Tensor* weights) {
  const Tensor& x = logits.value();
  ATTEND_CHECK(targets.shape() == x.shape(), "binary_cross_entropy_with_logits: targets "
                                                 << shape_to_string(targets.shape())
                                                 << " for logits " << shape_to_string(x.shape()));
  ATTEND_CHECK(!weights || weights->shape() == x.shape(),
               "binary_cross_entropy_with_logits: weights " << shape_to_string(weights->shape())
                                                            << " for logits "
                                                            << shape_to_string(x.shape()));
  ATTEND_CHECK(x.numel() > 0, "binary_cross_entropy_with_logits of an empty tensor");
  auto t = std::make_shared<const Tensor>(targets);
  auto w = weights ? std::make_shared<const Tensor>(*weights) : nullptr;
  const float* xp = x.data();
  const double total = detail::block_sum(x.numel(), detail::kBlock, [&](int64_t i) {
    const double v = xp[i];
    const double term = std::max(v, 0.0) - v * (*t)[i] + std::log1p(std::exp(-std::fabs(v)));
    return w ? term * (*w)[i] : term;
  });
  const double inv_n = 1.0 / static_cast<double>(x.numel());
  Tensor out = Tensor::scalar(static_cast<float>(total * inv_n));  // []
  return Var::from_op(
      std::move(out), {logits}, [logits, t, w, inv_n](const Tensor&, const Tensor& gy) {
        const float* xp = logits.value().data();
        float* gx = logits.grad_mut().data();
        const float g = static_cast<float>(gy.item() * inv_n);
        parallel_for_blocks(logits.value().numel(), detail::kBlock, [&](int64_t lo, int64_t hi) {
          for (int64_t i = lo; i < hi; ++i) {
            const float d = g * (detail::stable_sigmoid(xp[i]) - (*t)[i]);
            gx[i] += w ? d * (*w)[i] : d;
          }
        });
      });
}

}  // namespace attend::ops
