#include "attend/core/communicator.hpp"

#include <climits>
#include <cstdlib>
#include <string>

#include "attend/core/error.hpp"

#ifdef ATTEND_HAVE_MPI
// The C API only: Open MPI's deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace attend {

namespace {

// Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE; other PMIx launchers (srun) set PMIX_RANK.
bool launched_by_mpirun() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr; }

#ifdef ATTEND_HAVE_MPI

// MPI initialised on construction, finalised at exit (unless someone else initialised it).
// FUNNELED: only the main thread calls MPI; OpenMP threads compute between the calls.
class MpiSession {
 public:
  MpiSession() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (initialised) return;
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    owned_ = true;
  }
  ~MpiSession() {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (owned_ && !finalised) MPI_Finalize();
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  bool owned_ = false;
};

int checked_count(std::size_t n) {
  ATTEND_CHECK(n <= static_cast<std::size_t>(INT_MAX), "an MPI message of " << n << " values is over MPI's int count");
  return static_cast<int>(n);
}

template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <>
MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }

template <class T>
std::vector<T> mpi_allgather(std::span<const T> local, int size) {
  const int count = checked_count(local.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::size_t total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[static_cast<std::size_t>(r)] = checked_count(total);
    total += static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
  }
  checked_count(total);
  std::vector<T> all(total);
  MPI_Allgatherv(local.data(), count, mpi_type<T>(), all.data(), counts.data(), offsets.data(), mpi_type<T>(),
                 MPI_COMM_WORLD);
  return all;
}

template <class T>
void mpi_broadcast(std::span<T> data, int root) {
  MPI_Bcast(data.data(), checked_count(data.size()), mpi_type<T>(), root, MPI_COMM_WORLD);
}

#endif

}  // namespace

const Communicator& Communicator::self() {
  static const Communicator alone(0, 1, false);
  return alone;
}

const Communicator& Communicator::world() {
  if (!launched_by_mpirun()) return self();
#ifdef ATTEND_HAVE_MPI
  static MpiSession session;
  static const Communicator everyone = [] {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return Communicator(rank, size, true);
  }();
  return everyone;
#else
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (size != nullptr && std::atoi(size) > 1) {
    throw InputError(std::string("started by mpirun with ") + size +
                     " processes, but this attend was built without MPI (ATTEND_MPI=OFF): every process would do the "
                     "whole run");
  }
  return self();
#endif
}

void Communicator::barrier() const {
#ifdef ATTEND_HAVE_MPI
  if (uses_mpi_) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void Communicator::broadcast(std::span<float> data, int root) const {
  ATTEND_CHECK(root >= 0 && root < size_, "broadcast from rank " << root << " of " << size_);
#ifdef ATTEND_HAVE_MPI
  if (uses_mpi_) mpi_broadcast(data, root);
#endif
}

void Communicator::broadcast(std::span<double> data, int root) const {
  ATTEND_CHECK(root >= 0 && root < size_, "broadcast from rank " << root << " of " << size_);
#ifdef ATTEND_HAVE_MPI
  if (uses_mpi_) mpi_broadcast(data, root);
#endif
}

std::vector<float> Communicator::allgather(std::span<const float> local) const {
#ifdef ATTEND_HAVE_MPI
  if (uses_mpi_) return mpi_allgather(local, size_);
#endif
  return {local.begin(), local.end()};
}

std::vector<double> Communicator::allgather(std::span<const double> local) const {
#ifdef ATTEND_HAVE_MPI
  if (uses_mpi_) return mpi_allgather(local, size_);
#endif
  return {local.begin(), local.end()};
}

}  // namespace attend
