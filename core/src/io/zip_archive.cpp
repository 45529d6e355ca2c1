// ZIP archives (PKWARE APPNOTE 6.3): end of central directory, ZIP64 locator and record,
// central directory headers with ZIP64 extra fields, local headers, raw deflate (RFC 1951).
#include "attend/core/io/zip_archive.hpp"

#include <zlib.h>

#include <algorithm>
#include <filesystem>

#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "attend/core/io/read_progress.hpp"
#include "attend/core/memory_budget.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::io {

namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50, kZip64Locator = 0x07064b50, kZip64End = 0x06064b50;
constexpr uint32_t kDirectoryEntry = 0x02014b50, kLocalHeader = 0x04034b50;
constexpr std::size_t kEndRecordBytes = 22, kMaxComment = 65535;
constexpr uint64_t kPieceBytes = uint64_t{1} << 20;  ///< a member's stored bytes are read in pieces of this size (a MiB: a progress step)
namespace fs = std::filesystem;

uint64_t le(const std::string& b, std::size_t at, int size) {
  uint64_t v = 0;
  for (int i = size - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
  return v;
}

}  // namespace

ZipArchive::ZipArchive(const std::string& path) : path_(path) {
  require_input_file(path);
  in_.open(path, std::ios::binary);
  if (!in_) throw InputError(path, 0, "cannot open");
  in_.seekg(0, std::ios::end);
  const std::streamoff end = in_.tellg();
  if (end < 0) throw InputError(path, 0, "not a zip archive (cannot seek: expected a regular .npz file)");
  file_size_ = static_cast<uint64_t>(end);
  const auto fail = [&](const std::string& what) { throw InputError(path, 0, "not a valid zip archive: " + what); };
  if (file_size_ < kEndRecordBytes) fail("too short");

  // The end-of-central-directory record: the last 22 bytes plus up to a 64 KiB comment.
  const uint64_t tail_size = std::min<uint64_t>(file_size_, kEndRecordBytes + kMaxComment);
  const std::string tail = read_at(file_size_ - tail_size, tail_size);
  std::size_t eocd = std::string::npos;
  for (std::size_t i = tail.size() - kEndRecordBytes + 1; i-- > 0;) {
    if (le(tail, i, 4) == kEndOfDirectory) {
      eocd = i;
      break;
    }
  }
  if (eocd == std::string::npos) fail("no end-of-central-directory record");
  uint64_t count = le(tail, eocd + 10, 2), directory_size = le(tail, eocd + 12, 4), directory_offset = le(tail, eocd + 16, 4);
  if (count == 0xFFFF || directory_size == 0xFFFFFFFF || directory_offset == 0xFFFFFFFF) {
    const uint64_t locator_at = file_size_ - tail_size + eocd;
    if (locator_at < 20) fail("a ZIP64 archive without its locator");
    const std::string locator = read_at(locator_at - 20, 20);
    if (le(locator, 0, 4) != kZip64Locator) fail("a ZIP64 archive without its locator");
    const uint64_t record_at = le(locator, 8, 8);
    if (record_at > file_size_ || file_size_ - record_at < 56) fail("the ZIP64 record lies outside the file");
    const std::string record = read_at(record_at, 56);
    if (le(record, 0, 4) != kZip64End) fail("no ZIP64 end-of-central-directory record");
    count = le(record, 32, 8);
    directory_size = le(record, 40, 8);
    directory_offset = le(record, 48, 8);
  }
  if (directory_offset > file_size_ || directory_size > file_size_ - directory_offset) {
    fail("the central directory lies outside the file");
  }
  const std::string directory = read_at(directory_offset, directory_size);
  std::size_t at = 0;
  for (uint64_t k = 0; k < count; ++k) {
    if (directory.size() - at < 46 || le(directory, at, 4) != kDirectoryEntry) {
      fail("central directory entry " + std::to_string(k) + " is damaged");
    }
    Member m;
    const uint64_t flags = le(directory, at + 8, 2);
    m.method = static_cast<uint16_t>(le(directory, at + 10, 2));
    m.crc = static_cast<uint32_t>(le(directory, at + 16, 4));
    m.compressed_size = le(directory, at + 20, 4);
    m.size = le(directory, at + 24, 4);
    const std::size_t name_length = le(directory, at + 28, 2), extra_length = le(directory, at + 30, 2),
                      comment_length = le(directory, at + 32, 2);
    m.local_offset = le(directory, at + 42, 4);
    if (directory.size() - at - 46 < name_length + extra_length + comment_length) {
      fail("central directory entry " + std::to_string(k) + " runs past the directory");
    }
    m.name = directory.substr(at + 46, name_length);
    // ZIP64 extra field (id 1): the 8-byte values of the fields that hold 0xFFFFFFFF, in order.
    const std::string extra = directory.substr(at + 46 + name_length, extra_length);
    for (std::size_t e = 0; e + 4 <= extra.size();) {
      const uint64_t id = le(extra, e, 2), size = le(extra, e + 2, 2);
      if (e + 4 + size > extra.size()) fail("an extra field of " + quoted_input(m.name) + " runs past its entry");
      if (id == 1) {
        std::size_t field = e + 4;
        for (uint64_t* value : {&m.size, &m.compressed_size, &m.local_offset}) {
          if (*value != 0xFFFFFFFF) continue;
          if (field + 8 > e + 4 + size) fail("a short ZIP64 extra field in " + quoted_input(m.name));
          *value = le(extra, field, 8);
          field += 8;
        }
      }
      e += 4 + size;
    }
    if ((flags & 1) != 0) fail("member " + quoted_input(m.name) + " is encrypted");
    if (m.method != 0 && m.method != 8) {
      fail("member " + quoted_input(m.name) + " uses compression method " + std::to_string(m.method) +
           " (expected stored or deflate, as numpy.savez writes)");
    }
    members_.push_back(std::move(m));
    at += 46 + name_length + extra_length + comment_length;
  }
}

std::vector<std::string> ZipArchive::names() const {
  std::vector<std::string> out;
  for (const Member& m : members_) out.push_back(m.name);
  return out;
}

bool ZipArchive::contains(const std::string& name) const {
  return std::any_of(members_.begin(), members_.end(), [&](const Member& m) { return m.name == name; });
}

void ZipArchive::require_within(uint64_t offset, uint64_t size) const {
  if (offset > file_size_ || size > file_size_ - offset) {
    throw InputError(path_, 0, "not a valid zip archive: data at byte " + std::to_string(offset) + " runs past the end");
  }
}

std::string ZipArchive::read_at(uint64_t offset, uint64_t size) {
  require_within(offset, size);
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in_.clear();
  in_.seekg(static_cast<std::streamoff>(offset));
  in_.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<uint64_t>(in_.gcount()) != size) throw InputError(path_, 0, "read error");
  return bytes;
}

std::string ZipArchive::read(const std::string& name) {
  const auto found = std::find_if(members_.begin(), members_.end(), [&](const Member& m) { return m.name == name; });
  if (found == members_.end()) throw InputError(path_, 0, "no member " + quoted_input(name));
  const Member& m = *found;
  const auto fail = [&](const std::string& what) { throw InputError(path_, 0, "member " + quoted_input(name) + ": " + what); };
  const std::string local = read_at(m.local_offset, 30);
  if (le(local, 0, 4) != kLocalHeader) fail("no local header at byte " + std::to_string(m.local_offset));
  const uint64_t data_at = m.local_offset + 30 + le(local, 26, 2) + le(local, 28, 2);
  try {  // a member that claims more than the machine holds (a zip bomb) is refused before inflating
    require_memory(static_cast<double>(m.size), "member " + quoted_input(name));
  } catch (const InputError& e) {
    throw InputError(path_, 0, e.what());
  }
  // The stored bytes are read in pieces, each counted on the progress line of a large member
  // (read_progress.hpp) and, for a deflated member, inflated as it arrives.
  require_within(data_at, m.compressed_size);
  FileReadProgress progress(fs::path(path_).filename().string() + ":" + name, static_cast<int64_t>(m.compressed_size));
  uint64_t fed = 0;
  const auto next_piece = [&] {
    const uint64_t size = std::min<uint64_t>(m.compressed_size - fed, kPieceBytes);
    std::string piece = read_at(data_at + fed, size);
    fed += size;
    progress.read_to(static_cast<int64_t>(fed));
    return piece;
  };
  std::string out;
  if (m.method == 0) {
    if (m.compressed_size != m.size) fail("stored with two different sizes");
    out.reserve(static_cast<std::size_t>(m.size));
    while (fed < m.compressed_size) out += next_piece();
  } else {
    // Inflate in steps, never past the declared size: a member that claims a huge size
    // allocates only what its data really inflates to.
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) fail("cannot start inflating");
    std::string piece;
    int status = Z_OK;
    while (status == Z_OK) {
      if (z.avail_in == 0 && fed < m.compressed_size) {
        piece = next_piece();
        z.next_in = reinterpret_cast<Bytef*>(piece.data());
        z.avail_in = static_cast<uInt>(piece.size());
      }
      const uint64_t room = std::min<uint64_t>(m.size - out.size(), uint64_t{64} << 20) + 1;  // +1: see a longer member
      const std::size_t before = out.size();
      out.resize(before + static_cast<std::size_t>(room));
      z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
      z.avail_out = static_cast<uInt>(room);
      status = inflate(&z, Z_NO_FLUSH);
      out.resize(before + static_cast<std::size_t>(room - z.avail_out));
      if (out.size() > m.size) break;
      if (status == Z_BUF_ERROR && z.avail_in == 0 && fed == m.compressed_size) break;
      if (status == Z_BUF_ERROR) status = Z_OK;
    }
    inflateEnd(&z);
    if (out.size() > m.size) fail("inflates past its declared " + std::to_string(m.size) + " bytes");
    if (status != Z_STREAM_END) fail("damaged deflate data");
    if (out.size() != m.size) fail("inflates to " + std::to_string(out.size()) + " bytes, declared " + std::to_string(m.size));
  }
  progress.finish();
  const uLong crc = crc32_z(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(out.data()), out.size());
  if (crc != m.crc) fail("CRC-32 mismatch (damaged archive)");
  return out;
}

}  // namespace attend::io
