#pragma once
/// OutputTransaction: the files of one command appear together or not at all.
///
/// While a transaction is open on a thread, each AtomicOutput committed on that thread
/// (atomic_file.hpp) hands its complete, flushed temporary file to the transaction instead of
/// renaming it. The transaction's `commit()` then renames them all onto their destinations in
/// one step. Destroyed without a commit (a later writer or the work between them threw), it
/// removes the temporary files, and every destination keeps its previous file.
///
/// The step holds an exclusive advisory lock (flock) on each destination directory, taken in a
/// fixed order, so two processes that write the same outputs at once cannot interleave their
/// renames: afterwards the destinations hold one process's whole set (the one that committed
/// last). Every destination is checked again under the lock (output_path.hpp) before the first
/// rename. Limit: the renames run one after another, so a process killed (SIGKILL, power loss)
/// inside the step, which takes microseconds, can leave a set part old and part new.
///
///     OutputTransaction outputs;
///     write_contacts_h5(prefix + ".h5", prediction);   // each writer uses an AtomicOutput
///     write_scores_mat(prefix + ".mat", scores);
///     outputs.commit();                                // both files appear here
///
/// One transaction at a time per thread; a transaction belongs to the thread that opened it.

#include <string>
#include <vector>

namespace attend {

class OutputTransaction {
 public:
  /// Open the transaction on the calling thread (an Error if one is open already).
  OutputTransaction();
  /// Removes the temporary files of an uncommitted transaction; closes it on the thread.
  ~OutputTransaction();
  OutputTransaction(const OutputTransaction&) = delete;
  OutputTransaction& operator=(const OutputTransaction&) = delete;

  /// The transaction open on the calling thread, or null.
  static OutputTransaction* current();

  /// Take over `temp_path`, complete and flushed, to rename it onto `destination` at commit. A
  /// later file for the same destination replaces the earlier one (its temporary is removed).
  void adopt(const std::string& temp_path, const std::string& destination);

  /// Rename every adopted file onto its destination under the directory locks, then fsync the
  /// directories. Throws InputError when a destination has become a directory or a non-regular
  /// file (before any rename) or a rename fails (the files not yet renamed are removed).
  /// The transaction stays open and empty: files adopted later form the next set.
  void commit();

 private:
  struct File {
    std::string temp_path, destination;
  };
  std::vector<File> files_;
};

}  // namespace attend
