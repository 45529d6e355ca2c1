#include "attend/core/training_checkpoint.hpp"

#include <algorithm>
#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend {

namespace {
// JSON has no infinities: they travel as the strings "inf" and "-inf".
Json number_to_json(double x) {
  if (std::isinf(x)) return x > 0 ? Json("inf") : Json("-inf");
  return Json(x);
}

double number_from_json(const Json& j) {
  if (j.is_string()) {
    if (j == "inf") return TrainerState::kInf;
    if (j == "-inf") return -TrainerState::kInf;
  }
  if (!j.is_number()) throw InputError("checkpoint trainer state: expected a number, got " + quoted_input(j.dump()));
  return j.get<double>();
}

Json metrics_to_json(const EvalMetrics& m) {
  Json extras = Json::array();
  for (const auto& [name, value] : m.extras) extras.push_back({name, number_to_json(value)});
  return {{"val_loss", number_to_json(m.val_loss)},
          {"val_metric", number_to_json(m.val_metric)},
          {"extras", extras}};
}

EvalMetrics metrics_from_json(const Json& j) {
  EvalMetrics m;
  m.val_loss = number_from_json(j.at("val_loss"));
  m.val_metric = number_from_json(j.at("val_metric"));
  for (const Json& e : j.at("extras")) m.extras.emplace_back(e.at(0).get<std::string>(), number_from_json(e.at(1)));
  return m;
}
}  // namespace

Json trainer_state_to_json(const TrainerState& s) {
  Json history = Json::array();
  for (const EpochRecord& r : s.history) {
    history.push_back({{"epoch", r.epoch}, {"train_loss", number_to_json(r.train_loss)}, {"eval", metrics_to_json(r.eval)}});
  }
  return {{"epoch", s.epoch},
          {"best_epoch", s.best_epoch},
          {"best_val_metric", number_to_json(s.best_val_metric)},
          {"best_val_loss", number_to_json(s.best_val_loss)},
          {"max_val_metric", number_to_json(s.max_val_metric)},
          {"min_val_loss", number_to_json(s.min_val_loss)},
          {"bad_epochs", s.bad_epochs},
          {"stopped", s.stopped},
          {"seconds", s.seconds},
          {"history", history}};
}

TrainerState trainer_state_from_checkpoint(const CheckpointData& data) {
  const Json& j = data.trainer_state;
  TrainerState s;
  if (j.is_null()) return s;
  try {
    s.epoch = j.at("epoch").get<int>();
    s.best_epoch = j.at("best_epoch").get<int>();
    s.best_val_metric = number_from_json(j.at("best_val_metric"));
    s.best_val_loss = number_from_json(j.at("best_val_loss"));
    s.max_val_metric = number_from_json(j.at("max_val_metric"));
    s.min_val_loss = number_from_json(j.at("min_val_loss"));
    s.bad_epochs = j.at("bad_epochs").get<int>();
    s.stopped = j.at("stopped").get<bool>();
    s.seconds = j.at("seconds").get<double>();
    for (const Json& r : j.at("history")) {
      s.history.push_back({r.at("epoch").get<int>(), number_from_json(r.at("train_loss")), metrics_from_json(r.at("eval"))});
    }
  } catch (const Json::exception& e) {
    throw InputError(std::string("checkpoint trainer state is incomplete: ") + e.what());
  }
  if (s.epoch != data.epoch || s.bad_epochs < 0) {
    throw InputError("checkpoint trainer state: epoch " + std::to_string(s.epoch) + " with " +
                     std::to_string(s.bad_epochs) + " epochs without progress does not fit the file's epoch " +
                     std::to_string(data.epoch));
  }
  for (const auto& [name, tensor] : data.trainer_tensors) {
    if (name == "best_parameters") s.best_parameters = tensor;
  }
  return s;
}

CheckpointData capture_checkpoint(const Module& model, const ParameterArena& arena,
                                  const Optimizer* optimizer, const TrainerState* trainer) {
  CheckpointData data;
  data.model = {{"type", model.type_name()}, {"config", model.config()}};
  for (const ArenaSlot& slot : arena.slots()) data.parameters.emplace_back(slot.name, slot.var.value());
  if (optimizer) {
    data.optimizer_type = optimizer->type_name();
    data.optimizer_config = optimizer->config();
    data.optimizer_state = optimizer->state();
  }
  if (trainer) {
    data.epoch = trainer->epoch;
    data.trainer_state = trainer_state_to_json(*trainer);
    if (trainer->best_parameters.numel() > 0) data.trainer_tensors.emplace_back("best_parameters", trainer->best_parameters);
  }
  return data;
}

std::unique_ptr<Module> module_from_checkpoint(const CheckpointData& data, const Registry& registry) {
  if (!data.model.is_object() || !data.model.contains("type") || !data.model["type"].is_string() ||
      !data.model.contains("config")) {
    throw InputError("checkpoint model description needs {\"type\", \"config\"}, got " + quoted_input(data.model.dump()));
  }
  return registry.create(data.model["type"].get<std::string>(), data.model["config"]);
}

void resume_from_checkpoint(const CheckpointData& data, ParameterArena& arena, Optimizer& optimizer, Trainer& trainer) {
  TrainerState state = trainer_state_from_checkpoint(data);
  for (const auto& [name, tensor] : data.optimizer_state) {
    if (name != "step" && (tensor.rank() != 1 || (tensor.numel() != arena.trainable_size() && tensor.numel() != 0))) {
      throw InputError("checkpoint optimizer state " + quoted_input(name) + " has shape " + shape_to_string(tensor.shape()) +
                       ", the model has " + std::to_string(arena.trainable_size()) + " trained parameter values");
    }
  }
  load_parameters(data, arena);
  optimizer.load_state(data.optimizer_state);
  trainer.load_state(std::move(state));
}

void load_parameters(const CheckpointData& data, ParameterArena& arena) {
  if (data.parameters.size() != arena.slots().size()) {
    throw InputError("checkpoint has " + std::to_string(data.parameters.size()) + " parameters, the model " +
                     std::to_string(arena.slots().size()));
  }
  for (const auto& [name, tensor] : data.parameters) {
    const ArenaSlot* slot = arena.find(name);
    if (slot == nullptr) throw InputError("checkpoint parameter " + quoted_input(name) + " is not in the model");
    if (slot->shape != tensor.shape()) {
      throw InputError("checkpoint parameter " + quoted_input(name) + " has shape " + shape_to_string(tensor.shape()) +
                       ", the model expects " + shape_to_string(slot->shape));
    }
    std::copy(tensor.begin(), tensor.end(), arena.values().begin() + slot->offset);
  }
}

}  // namespace attend
