#pragma once
/// Run a Python check script with Debian's /usr/bin/python3 (the one with python3-h5py) and
/// turn its exit status into a ctest result: 0 passed, 77 skipped, 1 failed (tests only).

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace attend::testing {

inline constexpr int kSkip = 77;
inline constexpr const char* kPython = "/usr/bin/python3";

/// The start of an h5py check script: exit 77 (skipped) without h5py or numpy, and
/// `expect(cond, what)`, which prints "FAILED: what" and exits 1 when cond is false.
inline constexpr const char* kH5pyPrelude = R"PY(import sys
try:
    import h5py
    import numpy as np
except ImportError as error:
    print("skipped: h5py is not installed for /usr/bin/python3 (%s)" % error)
    sys.exit(77)

def expect(cond, what):
    if not cond:
        print("FAILED: " + what)
        sys.exit(1)
)PY";

/// `kPython -I script args...`; the script exits 77 itself when h5py is missing.
inline int run_python_check(const std::string& script, const std::vector<std::string>& args) {
  // -I: ignore PYTHONPATH / PYTHONHOME and the user site, which may belong to another Python.
  std::string command = std::string(kPython) + " -I '" + script + "'";
  for (const std::string& a : args) command += " '" + a + "'";
  std::fflush(stdout);
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status)) {
    std::printf("FAILED: could not run %s\n", command.c_str());
    return 1;
  }
  const int code = WEXITSTATUS(status);
  if (code == kSkip) return kSkip;
  if (code != 0) std::printf("FAILED: %s exited with %d\n", kPython, code);
  return code == 0 ? 0 : 1;
}

}  // namespace attend::testing
