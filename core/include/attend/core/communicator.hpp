#pragma once
/// Communicator: the processes of one data-parallel run. Under `mpirun` that is MPI's
/// COMM_WORLD; otherwise this process alone, and MPI is never initialised (plain `attend` runs,
/// the Python module and the tests never touch it).
///
/// Only what data-parallel training needs: rank, size, barrier, broadcast and an all-gather of
/// variable-length buffers. Sums are never left to MPI_Allreduce, whose order of additions is
/// not specified: shard_reduction.hpp gathers partial sums and adds them in a fixed tree order,
/// so that K ranks give the bits of one.

#include <cstdint>
#include <span>
#include <vector>

namespace attend {

class Communicator {
 public:
  /// The processes started together with this one. When the environment says the process was
  /// launched by mpirun (OMPI_COMM_WORLD_SIZE or PMIX_RANK set), the first call initialises MPI
  /// (MPI_Finalize runs at exit) and returns COMM_WORLD; otherwise a communicator of this
  /// process alone. Launched by mpirun with more than one process in a build without MPI
  /// (ATTEND_MPI=OFF): attend::InputError, before any work is done twice.
  static const Communicator& world();
  /// This process alone (rank 0 of 1), whatever the launcher: library calls that are not
  /// asked to spread their work.
  static const Communicator& self();

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Rank 0: the one that prints and writes files.
  bool is_root() const { return rank_ == 0; }

  /// Every rank waits until all have arrived.
  void barrier() const;
  /// Rank `root`'s `data` into every rank's `data` (the same length on every rank).
  void broadcast(std::span<float> data, int root = 0) const;
  void broadcast(std::span<double> data, int root = 0) const;
  /// Every rank's `local` concatenated in rank order, on every rank; the ranks' lengths may
  /// differ (MPI_Allgatherv after an all-gather of the lengths).
  std::vector<float> allgather(std::span<const float> local) const;
  std::vector<double> allgather(std::span<const double> local) const;

 private:
  Communicator(int rank, int size, bool uses_mpi) : rank_(rank), size_(size), uses_mpi_(uses_mpi) {}

  int rank_ = 0;
  int size_ = 1;
  bool uses_mpi_ = false;  ///< COMM_WORLD of an initialised MPI (false: this process alone)
};

}  // namespace attend
