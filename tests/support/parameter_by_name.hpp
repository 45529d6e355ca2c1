#pragma once
/// A module's parameter value looked up by its name, for tests that set or read weights.

#include <string>

#include <catch2/catch.hpp>

#include "attend/core/module.hpp"
#include "attend/core/tensor.hpp"

namespace attend::testing {

/// The value of `m`'s parameter `name` (a tensor sharing its storage); fails the test when
/// `m` has no such parameter.
inline Tensor parameter(const Module& m, const std::string& name) {
  for (const auto& [n, v] : m.named_parameters()) {
    if (n == name) return v.value();
  }
  FAIL("no parameter " << name);
  return {};
}

}  // namespace attend::testing
