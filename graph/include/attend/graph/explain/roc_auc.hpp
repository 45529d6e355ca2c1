#pragma once
/// Area under the ROC curve of scores against a ground-truth set, as the Mann-Whitney
/// statistic: AUC = P(score of a random positive > score of a random negative) + 1/2 P(tie),
/// computed with mid-ranks (tied scores share the mean of their ranks), O(n log n).

#include <vector>

namespace attend::graph {

/// NaN when there is no positive or no negative.
double roc_auc(const std::vector<float>& scores, const std::vector<bool>& positive);

}  // namespace attend::graph
