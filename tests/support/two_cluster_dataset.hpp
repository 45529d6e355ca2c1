#pragma once
/// A tiny node-classification dataset in the plain-text layout (features.coo.txt, labels.txt,
/// edges.txt, split_*.txt), for tests of the command line (tests only).

#include <filesystem>
#include <fstream>

namespace attend::testing {

/// Writes into `dir` (created) two chains of six nodes, one per class, with features that
/// tell the classes apart; 4 training, 2 validation and 6 test nodes. Returns `dir`.
inline std::filesystem::path write_two_cluster_dataset(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::ofstream f(dir / "features.coo.txt");
  f << "# 12 4 12\n";
  for (int i = 0; i < 12; ++i) f << i << ' ' << (i < 6 ? i % 2 : 2 + i % 2) << " 1\n";
  std::ofstream l(dir / "labels.txt");
  for (int i = 0; i < 12; ++i) l << (i < 6 ? 0 : 1) << '\n';
  std::ofstream e(dir / "edges.txt");
  e << "# 12 10\n";
  for (int i = 0; i < 5; ++i) e << i << ' ' << i + 1 << '\n' << i + 6 << ' ' << i + 7 << '\n';
  std::ofstream(dir / "split_train.txt") << "0\n1\n6\n7\n";
  std::ofstream(dir / "split_val.txt") << "2\n8\n";
  std::ofstream(dir / "split_test.txt") << "3\n4\n5\n9\n10\n11\n";
  return dir;
}

}  // namespace attend::testing
