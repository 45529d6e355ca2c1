#include "attend/core/openmp_waiting.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace attend {

void bound_openmp_spinning(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return;
  // Without the variable in place the fresh run would re-execute again: no exec then.
  if (setenv("GOMP_SPINCOUNT", std::to_string(kBoundedSpinCount).c_str(), 0) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv("GOMP_SPINCOUNT");  // execv returned: it failed, and this process waits as libgomp chose
}

}  // namespace attend
