#include "attend/core/module.hpp"

#include "attend/core/error.hpp"

namespace attend {

namespace {
void check_name(const std::string& name) {
  ATTEND_CHECK(!name.empty() && name.find('.') == std::string::npos,
               "a parameter or child name must be non-empty and have no '.': '" << name << "'");
}
}  // namespace

Var Module::add_parameter(const std::string& name, Tensor init) {
  check_name(name);
  for (const auto& [n, v] : parameters_) ATTEND_CHECK(n != name, "duplicate parameter '" << name << "'");
  Var v(std::move(init), true);
  parameters_.emplace_back(name, v);
  return v;
}

void Module::add_child_module(const std::string& name, std::unique_ptr<Module> child) {
  check_name(name);
  ATTEND_CHECK(child != nullptr, "null child module '" << name << "'");
  for (const auto& [n, c] : children_) ATTEND_CHECK(n != name, "duplicate child '" << name << "'");
  child->train(training_);
  children_.emplace_back(name, std::move(child));
}

void Module::collect(const std::string& prefix,
                     std::vector<std::pair<std::string, Var>>& out) const {
  for (const auto& [name, var] : parameters_) out.emplace_back(prefix + name, var);
  for (const auto& [name, child] : children_) child->collect(prefix + name + ".", out);
}

std::vector<std::pair<std::string, Var>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Var>> out;
  collect("", out);
  return out;
}

int64_t Module::parameter_count() const {
  int64_t n = 0;
  for (const auto& [name, var] : named_parameters()) n += var.value().numel();
  return n;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [name, child] : children_) child->train(on);
}

}  // namespace attend
