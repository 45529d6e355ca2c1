#pragma once
/// Reader for ZIP archives as NumPy's `savez` / `savez_compressed` write them (PKWARE
/// APPNOTE 6.3): the central directory (ZIP64 records and extra fields included), members
/// stored or deflated (zlib), each checked against its CRC-32 and declared size.

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace attend::io {

class ZipArchive {
 public:
  /// Open `path` and read its central directory. Not a ZIP file, a damaged directory, an
  /// encrypted member or a compression method other than stored / deflate is an InputError.
  explicit ZipArchive(const std::string& path);

  /// The members' names, in directory order.
  std::vector<std::string> names() const;
  bool contains(const std::string& name) const;
  /// The uncompressed bytes of member `name`: InputError when it is absent, declares more
  /// bytes than the memory budget (memory_budget.hpp), its data runs past the file, it
  /// inflates to another size than declared, or fails its CRC-32. A large member read while a
  /// ReadProgress is active draws "reading ARCHIVE:MEMBER (MiB)" (read_progress.hpp).
  std::string read(const std::string& name);
  const std::string& path() const { return path_; }

 private:
  struct Member {
    std::string name;
    uint16_t method = 0;
    uint32_t crc = 0;
    uint64_t compressed_size = 0, size = 0, local_offset = 0;
  };
  /// InputError unless [offset, offset + size) lies in the file.
  void require_within(uint64_t offset, uint64_t size) const;
  std::string read_at(uint64_t offset, uint64_t size);

  std::string path_;
  std::ifstream in_;
  uint64_t file_size_ = 0;
  std::vector<Member> members_;
};

}  // namespace attend::io
