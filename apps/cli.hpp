#pragma once
/// The `attend` command line as a function, so that tests can run it in process.

#include <exception>
#include <ostream>
#include <string>
#include <vector>

#include "attend/core/registry.hpp"

namespace attend::cli {

/// Exit code for a bad command line or bad input (a flag, an unknown subcommand, a file).
constexpr int kExitUsage = 2;
/// Exit code for an internal error (attend::Error or any other exception).
constexpr int kExitInternal = 1;

/// Parse `args` (args[0] is the program name) and run the chosen subcommand on `registry`.
/// Help and `--version` go to `out` and return 0. Every failure is ONE line on `err`:
/// `attend: error: ...` (with at most the hint "run 'attend --help'") and code kExitUsage for
/// a bad command line or attend::InputError, `attend: internal error: ...` and kExitInternal
/// for attend::Error and other exceptions. `--threads N` calls attend::set_num_threads; when
/// absent, OpenMP's default (OMP_NUM_THREADS, else every core) stays. Plugins named by
/// ATTEND_PLUGIN_PATH and `--plugin PATH` (repeatable) are loaded into `registry` before the
/// subcommand runs (see `load_plugins`).
int run_cli(const std::vector<std::string>& args, Registry& registry, std::ostream& out,
            std::ostream& err);

/// Load into `registry` every plugin in the directories of `plugin_path` (ATTEND_PLUGIN_PATH's
/// value, colon-separated; may be null), then each of `paths`, skipping a file already loaded
/// by this call. A refused plugin throws attend::InputError with its one-line reason.
void load_plugins(const std::vector<std::string>& paths, const char* plugin_path, Registry& registry);

/// Print the one line for a failure (`attend: error: ...` for attend::InputError,
/// `attend: internal error: ...` otherwise) to `err` and return its exit code.
int report_failure(std::exception_ptr error, std::ostream& err);

}  // namespace attend::cli
