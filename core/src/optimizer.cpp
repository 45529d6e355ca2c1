#include "attend/core/optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "attend/core/adam.hpp"
#include "attend/core/error.hpp"
#include "attend/core/quoted_input.hpp"
#include "attend/core/sgd.hpp"

namespace attend {

void Optimizer::set_lr(double lr) {
  ATTEND_CHECK(std::isfinite(lr) && lr >= 0.0, "learning rate must be >= 0, got " << lr);
  lr_ = lr;
}

void Optimizer::prepare(int64_t n, const std::vector<std::vector<float>*>& buffers) const {
  for (std::vector<float>* buffer : buffers) {
    if (buffer->empty() && step_ == 0) buffer->assign(static_cast<std::size_t>(n), 0.0f);
    ATTEND_CHECK(static_cast<int64_t>(buffer->size()) == n,
                 type_name() << " state holds " << buffer->size()
                             << " values per buffer but the parameter arena has " << n
                             << " (a state for another model?)");
  }
}

OptimizerState Optimizer::make_state(const ConstBuffers& buffers) const {
  OptimizerState out;
  // A float holds every whole number up to 2^24 exactly: 16.7 million steps.
  out.emplace_back("step", Tensor(Shape{1}, static_cast<float>(step_)));
  for (const auto& [name, buffer] : buffers) {
    out.emplace_back(name, Tensor(Shape{static_cast<int64_t>(buffer->size())}, *buffer));
  }
  return out;
}

void Optimizer::load_entries(const OptimizerState& state, const Buffers& buffers) {
  const auto refuse = [this](const std::string& what) { throw InputError(type_name() + " state: " + what); };
  std::set<std::string> expected{"step"};
  for (const auto& [name, buffer] : buffers) expected.insert(name);
  std::set<std::string> got;
  for (const auto& [name, tensor] : state) {
    if (expected.count(name) == 0) refuse("an unknown entry " + quoted_input(name));
    if (!got.insert(name).second) refuse("the entry " + quoted_input(name) + " twice");
  }
  for (const std::string& name : expected) {
    if (got.count(name) == 0) refuse("lacks the entry '" + name + "'");
  }
  auto entry = [&state](const std::string& name) -> const Tensor* {
    for (const auto& [key, tensor] : state) {
      if (key == name) return &tensor;
    }
    return nullptr;  // not reached: every expected name was found above
  };
  const Tensor* step = entry("step");
  std::vector<const Tensor*> sources;
  for (const auto& [name, buffer] : buffers) sources.push_back(entry(name));
  if (step->numel() != 1) refuse("'step' must hold one value, got " + shape_to_string(step->shape()));
  const float steps = step->data()[0];
  if (!(std::isfinite(steps) && steps >= 0.0f && std::floor(steps) == steps)) {
    refuse("'step' must be a whole number >= 0, got " + std::to_string(steps));
  }
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (sources[i]->rank() != 1 || sources[i]->numel() != sources[0]->numel()) {
      refuse("'" + buffers[i].first + "' has shape " + shape_to_string(sources[i]->shape()) + ", expected [" +
             std::to_string(sources[0]->numel()) + "] like '" + buffers[0].first + "'");
    }
    if (!std::all_of(sources[i]->begin(), sources[i]->end(), [](float v) { return std::isfinite(v); })) {
      refuse("'" + buffers[i].first + "' holds a non-finite value");
    }
  }
  step_ = static_cast<int64_t>(steps);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    buffers[i].second->assign(sources[i]->begin(), sources[i]->end());
  }
}

void require_optimizer_option(bool ok, const std::string& optimizer, const std::string& what, double value) {
  if (ok) return;
  std::ostringstream message;
  message << optimizer << ": " << what << ", got " << value;
  throw InputError(message.str());
}

std::unique_ptr<Optimizer> make_optimizer(const std::string& type, const Json& config) {
  if (type == "sgd") return std::make_unique<Sgd>(SgdOptions::from_json(config));
  if (type == "adam") return std::make_unique<Adam>(AdamOptions::from_json(config));
  if (type == "adamw") return std::make_unique<AdamW>(AdamOptions::from_json(config));
  throw InputError("unknown optimizer " + quoted_input(type) + "; valid: adam, adamw, sgd");
}

}  // namespace attend
