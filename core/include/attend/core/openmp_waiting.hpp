#pragma once
/// How long a waiting OpenMP thread of attend's programs spins before it sleeps.

namespace attend {

/// The spin count attend's programs give libgomp (GOMP_SPINCOUNT) when the user chose none:
/// libgomp's default of 300 000 pauses (milliseconds) made a Cora-shaped GAT layer, 13 short
/// regions per step, up to 20x slower while another job held a core, and passive waiting
/// cost the quiet 200-epoch Cora run 90 %; measured in docs/performance.md, "Under load".
inline constexpr long long kBoundedSpinCount = 3000;

/// True when the environment already says how OpenMP threads wait: OMP_WAIT_POLICY or
/// GOMP_SPINCOUNT is set (to anything; libgomp then follows it, or ignores a bad value).
bool openmp_waiting_chosen();

/// Makes this program's waiting OpenMP threads spin at most kBoundedSpinCount when the user
/// chose no waiting policy. libgomp reads its settings in its constructor, before main, so
/// this sets GOMP_SPINCOUNT and replaces the process with a fresh run of the same program
/// (/proc/self/exe, the same argv, the same environment plus that variable). The fresh run
/// finds the variable set and returns at once, so there is one re-execution at most.
/// Returns without re-executing when the user chose (openmp_waiting_chosen()), and fails
/// safe: when the variable cannot be set or the exec fails, it returns and the program runs
/// with libgomp's default waiting (the variable removed again). Call it first thing in
/// main: before MPI_Init, before any thread starts, before anything is printed.
/// `argv` is main's (null-terminated).
void bound_openmp_spinning(char** argv);

}  // namespace attend
