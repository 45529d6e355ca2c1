#pragma once
/// Every autodiff op of attend::ops, for code that uses many of them.

#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/batched_matmul.hpp"
#include "attend/core/ops/dense_attention.hpp"
#include "attend/core/ops/dropout.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/head_dot.hpp"
#include "attend/core/ops/head_mean.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/ops/layer_norm.hpp"
#include "attend/core/ops/loss.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/ops/reduction.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/ops/softmax.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "attend/core/ops/sparse_matmul.hpp"
