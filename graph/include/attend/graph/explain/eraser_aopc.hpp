#pragma once
/// ERASER's comprehensiveness and sufficiency (DeYoung et al. 2020, Sec. 4.2) as the area over
/// the perturbation curve (AOPC) over k in {1, 5, 10, 20, 50} % of the items (here the edges
/// or features of a target's explanation), for the probability p of the explained class:
///   comprehensiveness = mean over k of p(input) - p(input without the top k %)
///   sufficiency       = mean over k of p(input) - p(only the top k %)
/// High comprehensiveness: the top items were needed; low sufficiency: they were enough.
/// The top k % of n items are the ceil(k n / 100) highest scores (at least one), ties broken
/// by the lower index.

#include <cstdint>
#include <vector>

namespace attend::graph {

/// The bins of DeYoung et al.: 1, 5, 10, 20, 50 (percent).
const std::vector<int>& aopc_percentages();

/// ceil(percent n / 100), at least 1, at most n.
int64_t top_count(int percent, int64_t n);

/// keep[i] = 1 for the `k` highest `scores` (ties: lower index first), 0 elsewhere.
std::vector<char> top_k_mask(const std::vector<float>& scores, int64_t k);

/// The mean of p_full - p_perturbed[b] over the bins b.
double aopc(double p_full, const std::vector<double>& p_perturbed);

}  // namespace attend::graph
