#pragma once
/// Which paths attend may write an output file to, and when two paths name one file.
///
/// attend writes every output under a temporary name and renames it onto its destination
/// (atomic_file.hpp), which replaces whatever the destination named. So a destination must be
/// absent or a regular file: a rename onto a device node (run as root) would replace the device
/// with a plain file, and one onto a directory fails only after all the work. Commands also
/// refuse an output that names one of their inputs or another of their outputs (`same_file`).

#include <string>

namespace attend {

/// Why `path` cannot be an output file, or "" when it can: its directory does not exist, it
/// names a directory, or it names an existing file that is not a regular file (a device, a
/// fifo, a socket). Symbolic links are followed.
std::string output_path_problem(const std::string& path);

/// Whether `a` and `b` name the same file: when both exist, the same device and inode
/// (symbolic and hard links count as the same file); when neither exists, the same absolute
/// path once `.`, `..` and the symbolic links of its existing directories are resolved.
bool same_file(const std::string& a, const std::string& b);

}  // namespace attend
