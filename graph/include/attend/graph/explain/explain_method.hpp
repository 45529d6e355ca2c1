#pragma once
/// The attribution methods of `attend explain node` and their names.

#include <string>
#include <vector>

namespace attend::graph {

enum class ExplainMethod {
  kAttention,            ///< attention rollout over the layers (attention_rollout.hpp); edges
  kSaliency,             ///< |gradient| of the explained quantity (Simonyan et al. 2014)
  kInputXGradient,       ///< input * gradient (Shrikumar et al. 2016)
  kIntegratedGradients,  ///< Sundararajan et al. 2017, zero baseline (integrated_gradients.hpp)
  kDegree,               ///< structure only: edge j -> i scores 1 / in-degree(i); no model
  kGnnExplainer,         ///< learned edge and feature masks, Ying et al. 2019 (gnn_explainer.hpp)
  kPgExplainer,          ///< an edge-mask MLP trained over many nodes, Luo et al. 2020 (pg_explainer.hpp)
  kOcclusion,            ///< f(input) - f(one edge or feature taken away), Zeiler & Fergus 2014 (occlusion.hpp)
  kShapley,              ///< Shapley values by permutation sampling, Castro et al. 2009 (shapley_sampling.hpp)
};

/// "attention", "saliency", "input-x-gradient", "integrated-gradients", "degree", "gnnexplainer",
/// "pgexplainer", "occlusion", "shapley".
const std::vector<std::string>& explain_method_names();
/// The method of a name; throws attend::InputError naming the known ones.
ExplainMethod explain_method_from_name(const std::string& name);
std::string explain_method_name(ExplainMethod method);

}  // namespace attend::graph
