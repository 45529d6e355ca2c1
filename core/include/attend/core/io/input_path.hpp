#pragma once
/// Looking at input paths without std::filesystem's exceptions: a symlink loop, a name too
/// long, a folder where a file was expected or a folder that cannot be listed is bad input
/// (attend::InputError naming the path), not an internal error. Every reader asks here
/// before it opens or lists what a user named.

#include <string>
#include <vector>

namespace attend::io {

/// What a path names, symbolic links followed.
enum class PathKind {
  kMissing,    ///< nothing there (or a dangling link)
  kFile,       ///< a regular file
  kDirectory,  ///< a folder
  kOther,      ///< a device, a pipe or a socket (readers accept them and bound what they read)
};

/// The kind of `path`; throws InputError(path, 0, reason) when the path cannot be looked at
/// (a symbolic link loop, a name too long, no permission).
PathKind path_kind(const std::string& path);

/// Throws InputError(path, 0, ...) unless `path` names something that can be read as a file:
/// a missing path ("no such file") or a folder ("is a folder, expected a file") is refused.
void require_input_file(const std::string& path);

/// The full paths of the entries of the folder `dir`, sorted; InputError when it cannot be
/// listed.
std::vector<std::string> folder_entries(const std::string& dir);

}  // namespace attend::io
