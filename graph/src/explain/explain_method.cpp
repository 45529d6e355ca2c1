#include "attend/graph/explain/explain_method.hpp"

#include "attend/core/error.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::graph {

const std::vector<std::string>& explain_method_names() {
  static const std::vector<std::string> names{"attention", "saliency", "input-x-gradient", "integrated-gradients",
                                              "degree",    "gnnexplainer", "pgexplainer", "occlusion",
                                              "shapley"};
  return names;
}

ExplainMethod explain_method_from_name(const std::string& name) {
  const std::vector<std::string>& names = explain_method_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<ExplainMethod>(i);
  }
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  throw InputError("unknown explanation method " + quoted_input(name) + " (known: " + known + ")");
}

std::string explain_method_name(ExplainMethod method) { return explain_method_names().at(static_cast<std::size_t>(method)); }

}  // namespace attend::graph
