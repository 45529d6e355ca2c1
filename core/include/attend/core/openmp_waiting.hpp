#pragma once
/// How long a waiting OpenMP thread of attend's programs spins before it sleeps.

namespace attend {

/// The spin count attend's programs give libgomp (GOMP_SPINCOUNT) when the user chose none.
/// libgomp's default, 300 000 pauses (milliseconds), made a Cora-shaped GAT layer (13 short
/// regions per step) 24x slower than this under load; passive waiting cost the quiet 200-epoch
/// Cora run 90 %, this nothing measurable (docs/performance.md, "attend chooses its OpenMP
/// waiting"). python/attend/__init__.py sets the same value (its tests check that they agree).
inline constexpr long long kBoundedSpinCount = 3000;

/// Makes this program's waiting OpenMP threads spin at most kBoundedSpinCount when the user
/// chose no waiting. libgomp reads its settings in its constructor, before main, so this sets
/// GOMP_SPINCOUNT and replaces the process with a fresh run of the same program
/// (/proc/self/exe, the same argv, the same environment plus that variable). The fresh run
/// finds the variable set and returns at once: one re-execution at most. Returns without
/// re-executing when the user chose (OMP_WAIT_POLICY or GOMP_SPINCOUNT set, to anything:
/// libgomp follows it, or ignores a bad value). Fails safe: when the variable cannot be set
/// or the exec fails, it returns and the program runs with libgomp's default waiting (the
/// variable removed again). Call it first thing in main: before MPI_Init, before any thread
/// starts, before anything is printed. `argv` is main's (null-terminated).
void bound_openmp_spinning(char** argv);

}  // namespace attend
