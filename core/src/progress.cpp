#include "attend/core/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "attend/core/error.hpp"

namespace attend {

namespace {
constexpr std::chrono::milliseconds kRedrawInterval{100};
}  // namespace

ProgressLine::ProgressLine(std::string label, int64_t total, ProgressOptions options)
    : label_(std::move(label)),
      total_(total),
      every_(options.every),
      out_(options.out != nullptr ? options.out : &std::cerr),
      mode_(options.mode),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {
  ATTEND_CHECK(every_ >= 1, "progress: 'every' must be >= 1, got " << every_);
  if (mode_ == ProgressMode::kAuto) {
    mode_ = isatty(fileno(stderr)) ? ProgressMode::kTerminal : ProgressMode::kPlain;
  }
}

ProgressLine::~ProgressLine() { finish(); }

double ProgressLine::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string ProgressLine::format(int64_t step,
                                 const std::vector<std::pair<std::string, double>>& values) const {
  std::ostringstream s;
  s << label_ << ' ' << step << '/' << total_;
  s.precision(4);
  for (const auto& [name, value] : values) s << "  " << name << ' ' << value;
  s.precision(1);
  s << "  " << std::fixed << elapsed() << 's';
  return s.str();
}

void ProgressLine::update(int64_t step,
                          const std::vector<std::pair<std::string, double>>& values,
                          bool force) {
  const bool last = force || step >= total_;
  switch (mode_) {
    case ProgressMode::kSilent:
    case ProgressMode::kAuto:
      return;
    case ProgressMode::kPlain:
      if (last || step % every_ == 0) *out_ << format(step, values) << '\n' << std::flush;
      return;
    case ProgressMode::kTerminal: {
      const auto now = std::chrono::steady_clock::now();
      if (drawn_ && !last && now - last_draw_ < kRedrawInterval) return;
      std::string line = format(step, values);
      const std::size_t length = line.size();
      if (length < width_) line.append(width_ - length, ' ');  // blank a longer previous line
      *out_ << '\r' << line << std::flush;
      width_ = length;
      last_draw_ = now;
      drawn_ = true;
      return;
    }
  }
}

void ProgressLine::finish() {
  if (mode_ == ProgressMode::kTerminal && drawn_) *out_ << '\n' << std::flush;
  drawn_ = false;
  width_ = 0;
}

}  // namespace attend
