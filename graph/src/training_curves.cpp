#include "attend/graph/training_curves.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>

#include "attend/core/bitmap_font.hpp"

namespace attend::graph {

namespace {

struct Colour {
  uint8_t r, g, b;
};
constexpr Colour kTrain{31, 119, 180}, kValidation{255, 127, 14}, kFrame{90, 90, 90}, kGrid{225, 225, 225},
    kText{40, 40, 40};
constexpr int64_t kWidth = 960, kHeight = 400;
// A panel's box inside its half: room for the title above, tick values left and below, the
// axis label under them.
constexpr int64_t kLeftMargin = 60, kRightMargin = 20, kTopMargin = 40, kBottomMargin = 60;
constexpr int64_t kLabelScale = 2;  // titles and axis labels: 10 x 14 pixel glyphs; tick values 5 x 7

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

void text(RgbImage& image, int64_t x, int64_t y, const std::string& s, Colour c, int64_t scale = 1) {
  draw_text(image, x, y, s, c.r, c.g, c.b, scale);
}

std::string formatted(const char* format, double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

/// The panel's title above it, "epoch" under it, the value of every grid line left of it
/// (`tick_format` of the value; "%.0f%%" takes it as a percentage of 1) and the first,
/// middle and last epoch under it.
void axes(RgbImage& image, const Panel& p, const std::string& title, const char* tick_format, double tick_factor,
          std::size_t epochs) {
  text(image, (p.left + p.right - text_width(title, kLabelScale)) / 2, p.top - 26, title, kText, kLabelScale);
  text(image, (p.left + p.right - text_width("epoch", kLabelScale)) / 2, p.bottom + 24, "epoch", kText, kLabelScale);
  for (int q = 0; q <= 4; ++q) {
    const double value = p.low + (p.high - p.low) * q / 4.0;
    const std::string tick = formatted(tick_format, value * tick_factor);
    text(image, p.left - 6 - text_width(tick), p.y(value) - kGlyphHeight / 2, tick, kText);
  }
  if (epochs == 0) return;
  for (const std::size_t e : {std::size_t{0}, (epochs - 1) / 2, epochs - 1}) {
    const std::string tick = std::to_string(e + 1);
    text(image, p.x(e, epochs) - text_width(tick) / 2, p.bottom + 6, tick, kText);
  }
}

bool any_finite(const std::vector<NodeEpoch>& history, double NodeEpoch::*field) {
  return std::any_of(history.begin(), history.end(), [field](const NodeEpoch& e) { return std::isfinite(e.*field); });
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
  const Panel loss{kLeftMargin, kTopMargin, kWidth / 2 - kRightMargin, kHeight - kBottomMargin,
                   0.0, max_loss > 0.0 ? max_loss : 1.0};
  const Panel acc{kWidth / 2 + kLeftMargin, kTopMargin, kWidth - kRightMargin, kHeight - kBottomMargin, 0.0, 1.0};
  frame(image, loss);
  frame(image, acc);
  axes(image, loss, "loss", "%.2f", 1.0, history.size());
  axes(image, acc, "accuracy", "%.0f%%", 100.0, history.size());
  // The legend, top right: a series' name in its colour when it has a value to draw.
  int64_t legend_x = kWidth - kRightMargin;
  for (const auto& [name, colour, field] : {std::tuple{"validation", kValidation, &NodeEpoch::val_acc},
                                            std::tuple{"train", kTrain, &NodeEpoch::train_acc}}) {
    if (!any_finite(history, field)) continue;
    legend_x -= text_width(name);
    text(image, legend_x, 12, name, colour);
    legend_x -= 2 * kGlyphAdvance;
  }
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
