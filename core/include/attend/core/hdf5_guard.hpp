#pragma once
/// The HDF5 guard: before attend opens an HDF5 input, a forked child process walks the file
/// the way attend's readers touch it, so that a damaged file on which libhdf5 itself crashes
/// or loops forever becomes an InputError (exit 2) instead of a crash or a hang (issue #18).
///
/// Debian 12's libhdf5 1.10.8 frees a bad pointer, copies memory onto itself or never returns
/// on some damaged files (tests/data/libhdf5-defects/ keeps one of each), inside the library
/// and before any check of attend's can run. No check in the parent can predict these, so the
/// library is run on the file where its failure cannot hurt: a child process.
///
/// What the child does (hdf5_guard.cpp): it opens the file read-only as Hdf5File::open does,
/// visits every object (every link table of every group, by name and, where the group
/// records it, by creation order as Hdf5File::list with ListOrder::kCreation does), asks H5Lexists and H5Oexists_by_name for every path, opens every
/// object and every attribute, reads every string, integer and floating-point attribute in
/// full (variable-length strings through the global heap, H5HG_read), and reads every string
/// dataset in full. Groups are listed by both indexes and walked through both (a damaged name
/// index must not hide a group the readers reach by name), each object once (by address).
/// The child's fresh allocations are filled with a fixed byte (glibc's M_PERTURB): libhdf5
/// frees uninitialised pointers on some error paths, which crashes or not by the heap's
/// history; filled, it crashes every time, in the child. It does not read the payload of numeric datasets: that would read the
/// whole file twice (a feature matrix is most of its file), the defects met so far all lie in
/// metadata (link tables, the global heap, the metadata accumulator), and damaged numbers
/// that libhdf5 reads without crashing are caught by the readers' own checks (shapes against
/// the file's size, finite values). So a crash inside the raw-data read of a numeric dataset
/// is not guarded against.
///
/// The parent waits for the child: exit 0 -> the file is opened normally (attend's own checks
/// then report any HDF5 *error*; the child only tells whether the library survives).
/// Killed by a signal, another exit status (AddressSanitizer's report exits 1) or still
/// running at the time limit (the child is then killed with SIGKILL and reaped) -> InputError
/// "FILE: damaged HDF5 file: the HDF5 library crashed (signal N) reading it" or "... did not
/// finish within T s reading it".
///
/// fork() safety. The child of a multi-threaded process may only call async-signal-safe
/// functions, with one exception relied on here: libhdf5 itself, which allocates with
/// malloc; glibc's malloc takes its own locks around fork(), so it (and mallopt) is usable in
/// the child. The child calls only libhdf5, mallopt and async-signal-safe functions (open,
/// dup2, _exit), never OpenMP, never C++ allocation, and leaves with _exit: no atexit
/// handler, no stdio flush, no close of the parent's HDF5 files, no LeakSanitizer pass. Debian's libhdf5 is a thread-safe
/// build (H5_HAVE_THREADSAFE): every API call holds one global lock. Were another thread inside
/// libhdf5 at the moment of fork(), the child would wait on that lock for ever: the time limit
/// then turns this into a false "did not finish" error, never a hang. attend itself calls
/// libhdf5 from one thread at a time (no OpenMP region and no thread of its own reads or writes
/// a file); only a Python program that calls attend.load_graph (which releases the GIL) from
/// two threads at once could meet this.
///
/// A file that survived is remembered for the process (by device, inode, size and
/// modification time), so a reader that opens one file several times walks it once.
///
/// The child's stdout and stderr go to /dev/null, so a sanitizer's report or libhdf5's error
/// stack never reaches the user. fork() copies the parent's page tables (about a millisecond
/// per GB resident); when fork() itself fails (no memory, process limit), the file is opened
/// unguarded rather than refused, since that says nothing about the file.
///
/// Settings: ATTEND_HDF5_GUARD=0 turns the guard off (trusted files: saves one open and
/// metadata walk per file); ATTEND_HDF5_GUARD_SECONDS sets the time limit (default 60 s).
/// set_hdf5_guard_settings overrides both for the process.

#include <string>

namespace attend {

struct Hdf5GuardSettings {
  bool enabled = true;
  double time_limit_s = 60;  ///< > 0
};

/// The settings in force: those of set_hdf5_guard_settings when it was called, else read from
/// the environment at each call (ATTEND_HDF5_GUARD: "0" off, "1" on; ATTEND_HDF5_GUARD_SECONDS:
/// a positive number). A malformed value is an InputError naming the variable.
Hdf5GuardSettings hdf5_guard_settings();

/// Override the environment for this process (time_limit_s must be > 0).
void set_hdf5_guard_settings(const Hdf5GuardSettings& settings);
/// Go back to reading the environment.
void reset_hdf5_guard_settings();

/// Walk the HDF5 file `path` in a child process as described above; returns when libhdf5
/// survived it (or the guard is off), throws InputError when it crashed or did not finish.
void require_hdf5_survives(const std::string& path);

}  // namespace attend
