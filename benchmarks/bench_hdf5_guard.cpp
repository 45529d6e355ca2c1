/// Benchmark of the HDF5 guard (core/hdf5_guard.hpp): for each HDF5 file given, the seconds of
/// one guarded check (fork, the child's open and walk of the file, the wait), against the
/// seconds of opening the same file without the guard and reading its schema. Each repeat
/// first sets the file's modification time to now, so that the guard does not take the file
/// for one it has already walked in this process. Prints the median of --repeats per file and
/// writes JSON to --json.

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/core/hdf5_file.hpp"
#include "attend/core/hdf5_guard.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "option_checks.hpp"

using namespace attend;

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  bound_openmp_spinning(argv);  // as the attend program does: before anything else
  std::vector<std::string> files;
  std::string json_path;
  int repeats = 5;
  CLI::App app{"Benchmark the HDF5 guard's walk of a file against a plain open"};
  app.add_option("files", files, "HDF5 files written by attend")->required()->check(CLI::ExistingFile);
  app.add_option("--repeats", repeats, "timings per file (the median is printed)")->check(attend::cli::at_least(1));
  app.add_option("--json", json_path, "write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);

  nlohmann::json results = nlohmann::json::array();
  std::cout << "file\tMiB\tguard_ms\topen_ms\n";
  for (const std::string& file : files) {
    std::vector<double> guard_s, open_s;
    for (int r = 0; r < repeats; ++r) {
      utimensat(AT_FDCWD, file.c_str(), nullptr, 0);  // a new identity: walked again
      set_hdf5_guard_settings({true, 600});
      auto start = std::chrono::steady_clock::now();
      require_hdf5_survives(file);
      guard_s.push_back(seconds_since(start));
      set_hdf5_guard_settings({false, 600});
      start = std::chrono::steady_clock::now();
      const std::string schema = Hdf5File::open(file).schema();
      open_s.push_back(seconds_since(start));
    }
    struct stat info {};
    stat(file.c_str(), &info);
    const double mib = static_cast<double>(info.st_size) / (1024.0 * 1024.0);
    std::cout << file << '\t' << mib << '\t' << 1e3 * median(guard_s) << '\t' << 1e3 * median(open_s) << '\n';
    results.push_back({{"file", file}, {"mib", mib}, {"guard_seconds", median(guard_s)}, {"open_seconds", median(open_s)},
                       {"repeats", repeats}});
  }
  if (!json_path.empty()) std::ofstream(json_path) << results.dump(2) << '\n';
  return 0;
}
