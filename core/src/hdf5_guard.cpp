#include "attend/core/hdf5_guard.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <malloc.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "attend/core/error.hpp"

namespace attend {

namespace {

// ---- the child: libhdf5 and async-signal-safe calls only --------------------------------------

struct WalkLimits {
  hsize_t max_bytes;  // a value larger than this cannot be in the file: not read (readers refuse it)
};

// Read every value of an attribute or dataset of `file_type` over `space` as attend's readers
// do (Hdf5File::read_strings, get_attr_string, get_attr_int64, get_attr_double, ...): strings
// variable- or fixed-length, integers as int64, floating point as double. Other classes are
// refused by the readers before any read, so they are not read here either. `read` wraps
// H5Aread or H5Dread.
template <typename Read>
void read_values(hid_t file_type, hid_t space, const WalkLimits& limits, const Read& read) {
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  if (count <= 0) return;
  const H5T_class_t type_class = H5Tget_class(file_type);
  const bool variable_string = type_class == H5T_STRING && H5Tis_variable_str(file_type) > 0;
  hid_t memory_type = -1;
  if (variable_string) {
    memory_type = H5Tcopy(H5T_C_S1);
    H5Tset_size(memory_type, H5T_VARIABLE);
    H5Tset_cset(memory_type, H5Tget_cset(file_type));
  } else if (type_class == H5T_STRING) {
    memory_type = H5Tcopy(file_type);
  } else if (type_class == H5T_INTEGER) {
    memory_type = H5Tcopy(H5T_NATIVE_INT64);
  } else if (type_class == H5T_FLOAT) {
    memory_type = H5Tcopy(H5T_NATIVE_DOUBLE);
  }
  if (memory_type < 0) return;
  const std::size_t element = variable_string ? sizeof(char*) : H5Tget_size(memory_type);
  const hsize_t bytes = static_cast<hsize_t>(count) * element;
  if (element > 0 && bytes / element == static_cast<hsize_t>(count) && bytes <= limits.max_bytes) {
    // H5allocate_memory: the child allocates through libhdf5 only. Cleared, so that the
    // reclaim below frees only what the read allocated, as Hdf5File's reader does.
    void* buffer = H5allocate_memory(bytes, true);
    if (buffer != nullptr) {
      read(memory_type, buffer);
      if (variable_string) H5Dvlen_reclaim(memory_type, space, H5P_DEFAULT, buffer);
      H5free_memory(buffer);
    }
  }
  H5Tclose(memory_type);
}

herr_t read_attribute(hid_t object, const char* name, const H5A_info_t*, void* data) {
  const WalkLimits& limits = *static_cast<const WalkLimits*>(data);
  H5Aexists(object, name);
  const hid_t attr = H5Aopen(object, name, H5P_DEFAULT);
  if (attr < 0) return 0;
  const hid_t type = H5Aget_type(attr);
  const hid_t space = H5Aget_space(attr);
  if (type >= 0 && space >= 0) {
    read_values(type, space, limits, [attr](hid_t memory_type, void* buffer) { return H5Aread(attr, memory_type, buffer); });
  }
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  H5Aclose(attr);
  return 0;  // go on with the next attribute whatever happened
}

// A dataset: its header is decoded by H5Oopen; a string dataset is read in full.
void read_dataset(hid_t dataset, const WalkLimits& limits) {
  const hid_t type = H5Dget_type(dataset);
  const hid_t space = H5Dget_space(dataset);
  if (type >= 0 && space >= 0 && H5Tget_class(type) == H5T_STRING) {
    read_values(type, space, limits, [dataset](hid_t memory_type, void* buffer) {
      return H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer);
    });
  }
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
}

// The walk's state: the addresses of the objects already walked (a group reached by two hard
// links, or by a link cycle, is walked once), in memory from libhdf5.
struct Walk {
  WalkLimits limits;
  haddr_t* seen = nullptr;
  std::size_t seen_count = 0, seen_capacity = 0;
};

// Nested deeper than this, a group is not walked (a damaged file could nest without end;
// attend's files nest a few levels).
constexpr int kMaxDepth = 200;

bool first_visit(Walk& walk, haddr_t address) {
  for (std::size_t i = 0; i < walk.seen_count; ++i) {
    if (walk.seen[i] == address) return false;
  }
  if (walk.seen_count == walk.seen_capacity) {
    const std::size_t capacity = walk.seen_capacity == 0 ? 256 : 2 * walk.seen_capacity;
    void* grown = H5resize_memory(walk.seen, capacity * sizeof(haddr_t));
    if (grown == nullptr) return false;
    walk.seen = static_cast<haddr_t*>(grown);
    walk.seen_capacity = capacity;
  }
  walk.seen[walk.seen_count++] = address;
  return true;
}

void walk_object(hid_t location, const char* name, Walk& walk, int depth);

struct LinkVisit {
  Walk* walk;
  int depth;
};

herr_t visit_link(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  const LinkVisit& visit = *static_cast<const LinkVisit*>(data);
  H5Lexists(group, name, H5P_DEFAULT);
  // Soft and external links are not followed: attend writes none, and an external link would
  // open another file.
  if (info->type == H5L_TYPE_HARD) walk_object(group, name, *visit.walk, visit.depth);
  return 0;  // go on with the next link whatever happened
}

// The object `name` of `location`: its attributes, then a group's links (by name, walked; by
// creation order too where the group records it, as Hdf5File::list with ListOrder::kCreation
// lists them) or a dataset's strings. Failures are passed over: the walk goes on with the
// rest, as the readers would reach it.
void walk_object(hid_t location, const char* name, Walk& walk, int depth) {
  H5Oexists_by_name(location, name, H5P_DEFAULT);
  const hid_t object = H5Oopen(location, name, H5P_DEFAULT);
  if (object < 0) return;
  H5O_info_t info;
  if (H5Oget_info2(object, &info, H5O_INFO_BASIC) >= 0 && first_visit(walk, info.addr)) {
    H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, nullptr, read_attribute, &walk.limits);
    if (info.type == H5O_TYPE_GROUP && depth < kMaxDepth) {
      LinkVisit visit{&walk, depth + 1};
      H5Literate(object, H5_INDEX_NAME, H5_ITER_INC, nullptr, visit_link, &visit);
      const hid_t gcpl = H5Gget_create_plist(object);
      unsigned flags = 0;
      if (gcpl >= 0) {
        H5Pget_link_creation_order(gcpl, &flags);
        H5Pclose(gcpl);
      }
      if ((flags & H5P_CRT_ORDER_TRACKED) != 0) {
        H5Literate(object, H5_INDEX_CRT_ORDER, H5_ITER_INC, nullptr, visit_link, &visit);
      }
    } else if (info.type == H5O_TYPE_DATASET) {
      read_dataset(object, walk.limits);
    }
  }
  H5Oclose(object);
}

// The child's whole life: walk `path` with output silenced, then _exit(0). A crash or a loop
// inside libhdf5 is what the parent watches for; HDF5 errors are the readers' business.
[[noreturn]] void walk_in_child(const char* path, WalkLimits limits) {
  const int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd >= 0) {
    dup2(null_fd, STDOUT_FILENO);
    dup2(null_fd, STDERR_FILENO);
  }
  // On some error paths libhdf5 frees pointers it read from memory it never initialised (the
  // link table of H5G__dense_build_table): whether that crashes depends on what the memory
  // held before, so the child could survive where the reader, with another heap, would not.
  // Every fresh allocation of the child filled with a fixed non-zero byte (glibc's M_PERTURB)
  // makes such a free crash every time. (Under AddressSanitizer, which ignores mallopt, its
  // own malloc_fill_byte does the same.)
  mallopt(M_PERTURB, 0xa5);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // The file access properties of Hdf5File::open.
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
  H5Pset_file_locking(fapl, true, true);
  const hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (file >= 0) {
    Walk walk{limits};
    walk_object(file, "/", walk, 0);
    H5free_memory(walk.seen);
    H5Fclose(file);
  }
  _exit(0);
}

// ---- the parent ----------------------------------------------------------------------------

std::mutex settings_mutex;
std::optional<Hdf5GuardSettings> chosen_settings;  // set_hdf5_guard_settings, else the environment

Hdf5GuardSettings settings_from_environment() {
  Hdf5GuardSettings settings;
  if (const char* on = std::getenv("ATTEND_HDF5_GUARD"); on != nullptr && on[0] != '\0') {
    const std::string value = on;
    if (value != "0" && value != "1") {
      throw InputError("ATTEND_HDF5_GUARD", 0, "expected 0 (off) or 1 (on), found '" + value + "'");
    }
    settings.enabled = value == "1";
  }
  if (const char* seconds = std::getenv("ATTEND_HDF5_GUARD_SECONDS"); seconds != nullptr && seconds[0] != '\0') {
    char* end = nullptr;
    const double limit = std::strtod(seconds, &end);
    if (*end != '\0' || !std::isfinite(limit) || limit <= 0) {
      throw InputError("ATTEND_HDF5_GUARD_SECONDS", 0,
                       std::string("expected a positive number of seconds, found '") + seconds + "'");
    }
    settings.time_limit_s = limit;
  }
  return settings;
}

// Files that survived the walk in this process, by device, inode, size and modification time:
// a reader that opens the same file several times pays for one walk.
using FileIdentity = std::tuple<dev_t, ino_t, off_t, std::time_t, long>;
std::mutex survivors_mutex;
std::set<FileIdentity> survivors;

std::optional<FileIdentity> identity_of(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return std::nullopt;
  return FileIdentity{info.st_dev, info.st_ino, info.st_size, info.st_mtim.tv_sec, info.st_mtim.tv_nsec};
}

std::string seconds_text(double seconds) {
  std::ostringstream text;
  text << seconds;
  return text.str();
}

// Wait for `child` until `limit_s` has passed; its wait status, or nullopt when it is still
// running then (or cannot be waited for: SIGCHLD ignored by the program).
std::optional<int> wait_with_limit(pid_t child, double limit_s, bool* waitable) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(limit_s));
  long pause_ns = 100'000;  // 0.1 ms, doubling to 10 ms: a small file's walk takes a few ms
  while (true) {
    int status = 0;
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) return status;
    if (done < 0 && errno != EINTR) {
      *waitable = false;
      return std::nullopt;
    }
    if (Clock::now() >= deadline) return std::nullopt;
    const timespec pause{0, pause_ns};
    nanosleep(&pause, nullptr);
    pause_ns = std::min(pause_ns * 2, 10'000'000L);
  }
}

}  // namespace

Hdf5GuardSettings hdf5_guard_settings() {
  {
    const std::lock_guard<std::mutex> lock(settings_mutex);
    if (chosen_settings) return *chosen_settings;
  }
  return settings_from_environment();
}

void set_hdf5_guard_settings(const Hdf5GuardSettings& settings) {
  ATTEND_CHECK(settings.time_limit_s > 0 && std::isfinite(settings.time_limit_s),
               "HDF5 guard time limit must be a positive number of seconds, got " << settings.time_limit_s);
  const std::lock_guard<std::mutex> lock(settings_mutex);
  chosen_settings = settings;
}

void reset_hdf5_guard_settings() {
  const std::lock_guard<std::mutex> lock(settings_mutex);
  chosen_settings.reset();
}

void require_hdf5_survives(const std::string& path) {
  const Hdf5GuardSettings settings = hdf5_guard_settings();
  if (!settings.enabled) return;
  const std::optional<FileIdentity> identity = identity_of(path);
  if (!identity) return;  // the opener reports a missing file
  {
    const std::lock_guard<std::mutex> lock(survivors_mutex);
    if (survivors.count(*identity) > 0) return;
  }
  // A value of more bytes than deflate could unpack from the whole file (as checked_numel in
  // hdf5_file.cpp) is refused by the readers unread; the child skips it too.
  const WalkLimits limits{static_cast<hsize_t>(1032.0 * static_cast<double>(std::get<2>(*identity))) + (1u << 20)};
  const char* const c_path = path.c_str();  // the child reads it from its copy of this memory

  const pid_t child = fork();
  if (child < 0) return;  // no process to run it in: open unguarded (nothing is known of the file)
  if (child == 0) walk_in_child(c_path, limits);

  bool waitable = true;
  const std::optional<int> status = wait_with_limit(child, settings.time_limit_s, &waitable);
  if (!waitable) return;  // the program reaps its children itself: the verdict is lost
  if (!status) {
    kill(child, SIGKILL);
    while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
    throw InputError(path, 0, "damaged HDF5 file: the HDF5 library did not finish within " +
                                  seconds_text(settings.time_limit_s) + " s reading it");
  }
  if (WIFSIGNALED(*status)) {
    throw InputError(path, 0, "damaged HDF5 file: the HDF5 library crashed (signal " +
                                  std::to_string(WTERMSIG(*status)) + ") reading it");
  }
  if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
    throw InputError(path, 0, "damaged HDF5 file: the HDF5 library crashed (exit status " +
                                  std::to_string(WEXITSTATUS(*status)) + ") reading it");
  }
  const std::lock_guard<std::mutex> lock(survivors_mutex);
  survivors.insert(*identity);
}

}  // namespace attend
