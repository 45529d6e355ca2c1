#include <catch2/catch.hpp>

#include <sstream>

#include "attend/core/progress.hpp"

using namespace attend;

namespace {
int count(const std::string& s, char c) { return int(std::count(s.begin(), s.end(), c)); }
}  // namespace

TEST_CASE("plain progress prints every N steps and the last one", "[core]") {
  std::ostringstream out;
  {
    ProgressLine line("epoch", 10, ProgressOptions{ProgressMode::kPlain, 3, &out});
    for (int step = 1; step <= 10; ++step) line.update(step, {{"loss", 0.5}, {"acc", 0.75}});
  }
  const std::string text = out.str();
  CHECK(count(text, '\n') == 4);  // steps 3, 6, 9 and 10
  CHECK(count(text, '\r') == 0);
  CHECK(text.find("epoch 3/10  loss 0.5  acc 0.75  ") == 0);
  CHECK(text.find("epoch 10/10") != std::string::npos);
  CHECK(text.find("epoch 4/10") == std::string::npos);
  CHECK(text.find("s\n") != std::string::npos);  // elapsed seconds end each line
}

TEST_CASE("a forced update prints the step where work stopped", "[core]") {
  std::ostringstream out;
  ProgressLine line("epoch", 100, ProgressOptions{ProgressMode::kPlain, 10, &out});
  line.update(7, {{"loss", 1.0}}, true);
  CHECK(out.str().find("epoch 7/100") == 0);
}

TEST_CASE("terminal progress rewrites one line", "[core]") {
  std::ostringstream out;
  {
    ProgressLine line("epoch", 3, ProgressOptions{ProgressMode::kTerminal, 1, &out});
    CHECK(line.mode() == ProgressMode::kTerminal);
    for (int step = 1; step <= 3; ++step) line.update(step, {{"loss", 1.0 / step}});
  }
  const std::string text = out.str();
  CHECK(count(text, '\r') >= 2);  // the first step and the last one at least
  CHECK(count(text, '\n') == 1);  // one newline when the line ends
  CHECK(text.find("epoch 3/3") != std::string::npos);
}

TEST_CASE("silent progress prints nothing", "[core]") {
  std::ostringstream out;
  {
    ProgressLine line("epoch", 5, ProgressOptions{ProgressMode::kSilent, 1, &out});
    for (int step = 1; step <= 5; ++step) line.update(step, {{"loss", 1.0}}, true);
  }
  CHECK(out.str().empty());
}
