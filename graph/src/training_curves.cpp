#include "attend/graph/training_curves.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace attend::graph {

namespace {

struct Colour {
  uint8_t r, g, b;
};
constexpr Colour kTrain{31, 119, 180}, kValidation{255, 127, 14}, kFrame{90, 90, 90}, kGrid{225, 225, 225};
constexpr int64_t kWidth = 960, kHeight = 400, kMargin = 30;

/// A panel's box in pixels and the value range its height spans.
struct Panel {
  int64_t left, top, right, bottom;
  double low, high;
  int64_t x(std::size_t epoch, std::size_t epochs) const {
    if (epochs < 2) return (left + right) / 2;
    return left + static_cast<int64_t>(std::lround(static_cast<double>(epoch) * static_cast<double>(right - left) /
                                                   static_cast<double>(epochs - 1)));
  }
  int64_t y(double value) const {
    const double t = std::clamp((value - low) / (high - low), 0.0, 1.0);
    return bottom - static_cast<int64_t>(std::lround(t * static_cast<double>(bottom - top)));
  }
};

void dot(RgbImage& image, int64_t x, int64_t y, Colour c) {
  for (int64_t dy = 0; dy < 2; ++dy)
    for (int64_t dx = 0; dx < 2; ++dx) image.set(x + dx, y + dy, c.r, c.g, c.b);
}

/// Bresenham's line from (x0, y0) to (x1, y1), two pixels thick.
void line(RgbImage& image, int64_t x0, int64_t y0, int64_t x1, int64_t y1, Colour c) {
  const int64_t dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
  const int64_t sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  int64_t error = dx + dy;
  while (true) {
    dot(image, x0, y0, c);
    if (x0 == x1 && y0 == y1) return;
    const int64_t twice = 2 * error;
    if (twice >= dy) {
      error += dy;
      x0 += sx;
    }
    if (twice <= dx) {
      error += dx;
      y0 += sy;
    }
  }
}

void frame(RgbImage& image, const Panel& p) {
  for (int q = 1; q < 4; ++q) {
    const int64_t y = p.top + (p.bottom - p.top) * q / 4;
    for (int64_t x = p.left; x <= p.right; ++x) image.set(x, y, kGrid.r, kGrid.g, kGrid.b);
  }
  for (int64_t x = p.left; x <= p.right; ++x) {
    image.set(x, p.top, kFrame.r, kFrame.g, kFrame.b);
    image.set(x, p.bottom, kFrame.r, kFrame.g, kFrame.b);
  }
  for (int64_t y = p.top; y <= p.bottom; ++y) {
    image.set(p.left, y, kFrame.r, kFrame.g, kFrame.b);
    image.set(p.right, y, kFrame.r, kFrame.g, kFrame.b);
  }
}

/// One curve: consecutive finite values joined by lines (a lone point is a dot).
void curve(RgbImage& image, const Panel& p, const std::vector<NodeEpoch>& history, double NodeEpoch::*field, Colour c) {
  for (std::size_t e = 0; e < history.size(); ++e) {
    const double v = history[e].*field;
    if (!std::isfinite(v)) continue;
    if (e + 1 < history.size() && std::isfinite(history[e + 1].*field)) {
      line(image, p.x(e, history.size()), p.y(v), p.x(e + 1, history.size()), p.y(history[e + 1].*field), c);
    } else {
      dot(image, p.x(e, history.size()), p.y(v), c);
    }
  }
}

}  // namespace

RgbImage training_curves_image(const std::vector<NodeEpoch>& history) {
  RgbImage image(kWidth, kHeight, 255, 255, 255);
  double max_loss = 0.0;
  for (const NodeEpoch& e : history) {
    for (double v : {e.train_loss, e.val_loss})
      if (std::isfinite(v)) max_loss = std::max(max_loss, v);
  }
  const Panel loss{kMargin, kMargin, kWidth / 2 - kMargin, kHeight - kMargin, 0.0, max_loss > 0.0 ? max_loss : 1.0};
  const Panel acc{kWidth / 2 + kMargin, kMargin, kWidth - kMargin, kHeight - kMargin, 0.0, 1.0};
  frame(image, loss);
  frame(image, acc);
  curve(image, loss, history, &NodeEpoch::train_loss, kTrain);
  curve(image, loss, history, &NodeEpoch::val_loss, kValidation);
  curve(image, acc, history, &NodeEpoch::train_acc, kTrain);
  curve(image, acc, history, &NodeEpoch::val_acc, kValidation);
  return image;
}

void write_training_curves(const std::string& path, const std::vector<NodeEpoch>& history) {
  write_png(path, training_curves_image(history));
}

}  // namespace attend::graph
