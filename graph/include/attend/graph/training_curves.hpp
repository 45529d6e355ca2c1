#pragma once
/// The training curves of a node-classification run as a PNG picture (`node-classify train
/// --plot`): two panels side by side, the loss per epoch on the left (from 0 to the largest
/// loss) and the accuracy per epoch on the right (from 0 to 1), the training split in blue
/// (31, 119, 180), the validation split in orange (255, 127, 14); epochs run left to right,
/// grey grid lines mark quarters of each panel's range. Text in attend's bitmap font
/// (core/bitmap_font.hpp): each panel's title ("loss", "accuracy") above it, "epoch" under
/// it, the grid lines' values left of it (the accuracy in %), the first, middle and last epoch
/// under it, and a legend (train, validation: the series that have values) at the top right.

#include <string>
#include <vector>

#include "attend/core/png_image.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::graph {

/// The picture of `history` (960 x 400 pixels); NaN values (no validation split) draw nothing.
RgbImage training_curves_image(const std::vector<NodeEpoch>& history);

/// training_curves_image written to `path` (atomically; InputError when it cannot be written).
void write_training_curves(const std::string& path, const std::vector<NodeEpoch>& history);

}  // namespace attend::graph
