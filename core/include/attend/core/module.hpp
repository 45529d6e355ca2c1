#pragma once
/// Module: the unit models are built from. A module owns named parameters and child modules,
/// reports its registry type name and the JSON config that rebuilds it, and so saves itself
/// through its registry entry (no central serialisation switch).
///
/// Layers are forward-only compositions of ops: the autodiff tape gives their backward.
/// The forward signature belongs to the layer family (a graph layer takes features and a
/// graph, an Evoformer block takes MSA and pair representations), so it is declared by the
/// family's interface, not here.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attend/core/autodiff.hpp"

namespace attend {

using Json = nlohmann::json;

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// Registry name of this module's type ("linear", "gat", ...).
  virtual std::string type_name() const = 0;
  /// Options such that `Registry::create(type_name(), config())` rebuilds this module.
  virtual Json config() const = 0;

  /// Every parameter of this module and its children, by dotted path
  /// (`layers.0.att_src`), in registration order (deterministic).
  std::vector<std::pair<std::string, Var>> named_parameters() const;
  /// Total number of parameter values.
  int64_t parameter_count() const;

  /// Training mode turns dropout on; evaluation mode (the default after `eval()`) off.
  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }

  /// Keeps a plugin library loaded while this module lives (set by the registry).
  void set_library_handle(std::shared_ptr<const void> handle) { library_ = std::move(handle); }

 protected:
  /// Register a parameter initialised to `init` under `name`; returns its Var
  /// (a leaf that requires a gradient).
  Var add_parameter(const std::string& name, Tensor init);
  /// Take ownership of a child module registered under `name`; returns a reference to it.
  template <class M>
  M& add_child(const std::string& name, std::unique_ptr<M> child) {
    M& ref = *child;
    add_child_module(name, std::move(child));
    return ref;
  }

 private:
  void add_child_module(const std::string& name, std::unique_ptr<Module> child);
  void collect(const std::string& prefix, std::vector<std::pair<std::string, Var>>& out) const;

  std::vector<std::pair<std::string, Var>> parameters_;
  std::vector<std::pair<std::string, std::unique_ptr<Module>>> children_;
  bool training_ = true;
  std::shared_ptr<const void> library_;
};

}  // namespace attend
