#pragma once
/// FitProgress: the progress line of a contact predictor's fit (potts or factored), shared by
/// `contacts predict` and `explain contacts`.

#include <memory>
#include <ostream>

#include "attend/bio/potts_predictor.hpp"
#include "attend/core/progress.hpp"

namespace attend::cli {

/// Shows fits that run longer than a second as a progress line on `err` (in a log file: a line
/// every `every` iterations; the factored fit's iterations are slow, so it reports more often).
class FitProgress {
 public:
  FitProgress(int max_iterations, int every, bool quiet, std::ostream& err)
      : max_iterations_(max_iterations), every_(every), quiet_(quiet), err_(err) {}

  bio::PottsProgressCallback callback() {
    return [this](const bio::PottsProgress& p) {
      if (quiet_ || (!line_ && p.seconds < 1.0)) return;
      if (!line_) {
        ProgressOptions options;
        options.out = &err_;
        options.every = every_;
        line_ = std::make_unique<ProgressLine>("iteration", max_iterations_, options);
      }
      line_->update(p.iteration, {{"objective", p.objective}, {"|grad|", p.gradient_norm}});
    };
  }
  void finish() {
    if (line_) line_->finish();
  }

 private:
  int max_iterations_;
  int every_;
  bool quiet_;
  std::ostream& err_;
  std::unique_ptr<ProgressLine> line_;
};

}  // namespace attend::cli
