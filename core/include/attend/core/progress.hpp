#pragma once
/// ProgressLine: one status line for long work ("epoch 40/200  loss 0.53  val_acc 0.81  3.2s").
///
/// On a terminal the line is rewritten in place with '\r' (at most ten times a second, and
/// always for the last step); otherwise (a log file, a pipe) a plain line is written every
/// `every` steps and for the last one. It can be silenced.

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace attend {

enum class ProgressMode {
  kAuto,      ///< kTerminal when stderr is a terminal (isatty), else kPlain
  kTerminal,  ///< rewrite one line with '\r'
  kPlain,     ///< a line every `every` steps and the last one
  kSilent,    ///< print nothing
};

struct ProgressOptions {
  ProgressMode mode = ProgressMode::kAuto;
  int every = 10;                ///< plain mode: print steps every, 2*every, ... and the last
  std::ostream* out = nullptr;   ///< where to write; nullptr = std::cerr
};

class ProgressLine {
 public:
  /// `label` names the steps ("epoch"); `total` is the number of the last step.
  ProgressLine(std::string label, int64_t total, ProgressOptions options = {});
  /// Ends a rewritten line with a newline.
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// Report step `step` (1-based) with named values, shown in the given order. `force` draws
  /// it whatever the mode's schedule says (the last step of work that stopped early).
  void update(int64_t step, const std::vector<std::pair<std::string, double>>& values,
              bool force = false);
  /// End the line (a newline after a rewritten line); later updates start a new one.
  void finish();
  /// Seconds since construction.
  double elapsed() const;
  /// The resolved mode (kAuto is decided at construction).
  ProgressMode mode() const { return mode_; }

 private:
  std::string format(int64_t step, const std::vector<std::pair<std::string, double>>& values) const;

  std::string label_;
  int64_t total_;
  int every_;
  std::ostream* out_;
  ProgressMode mode_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  bool drawn_ = false;    // something was drawn since the last finish (terminal mode)
  std::size_t width_ = 0;  // length of the last rewritten line, to blank leftovers
};

}  // namespace attend
