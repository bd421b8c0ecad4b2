// Files written so that a failure never destroys what was there: bytes go to a temporary
// file in the target's folder (same file system, so rename is atomic), which is flushed,
// fsync'ed and renamed over the target only when everything was written. The classic
// "write-temp, fsync, rename" of editors and package managers. The target is resolved
// first: a symbolic link is written through (the file it names is replaced, the link
// stays), and a target that is not a regular file (a device such as /dev/null, a FIFO,
// /dev/stdout) is written in place, never replaced. Temporary files are registered so
// that a signal handler can remove them, and named after their host and process so that
// a later write into the folder removes one a killed process left.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "geblas/error.hpp"
#include "geblas/io.hpp"
#include "geblas/io_process.hpp"

namespace geblas::io {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

// The folder a path names its file in ("." for a bare name).
std::string folder_of(const std::string& path) {
  const std::filesystem::path p(path);
  const auto parent = p.parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// ------------------------------------------------------------ temporary file registry

// Fixed slots, so that the signal handler touches no allocator and no lock: a slot is
// free (0), being filled (1) or holds a path to remove (2). 64 slots: far more outputs
// than a program writes at once; a path is at most PATH_MAX (4096) bytes.
constexpr int kSlots = 64;
constexpr std::size_t kSlotPath = 4096;
struct Slot {
  std::atomic<int> state{0};
  char path[kSlotPath];
};
Slot g_slots[kSlots];
std::mutex g_slots_mutex;

void register_temp(const std::string& path) {
  if (path.size() >= kSlotPath) return;  // not removable on a signal; the stale-file sweep still finds it
  std::lock_guard lock(g_slots_mutex);
  for (Slot& s : g_slots)
    if (s.state.load() == 0) {
      s.state.store(1);
      std::memcpy(s.path, path.c_str(), path.size() + 1);
      s.state.store(2);
      return;
    }
}

void unregister_temp(const std::string& path) {
  std::lock_guard lock(g_slots_mutex);
  for (Slot& s : g_slots)
    if (s.state.load() == 2 && path == s.path) {
      s.state.store(0);
      return;
    }
}

// Removes the temporary file and forgets it.
void discard_temp(const std::string& path) {
  ::unlink(path.c_str());
  unregister_temp(path);
}

extern "C" void remove_temps_and_reraise(int sig) {
  const int saved = errno;
  for (Slot& s : g_slots)
    if (s.state.load() == 2) ::unlink(s.path);
  errno = saved;
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// ------------------------------------------------------------------ temporary names

// ".geblas-tmp-<host>-<pid>-XXXXXX": short whatever the target's name (a 255-byte name
// has a temporary name too), and telling which process on which host made it.
constexpr const char* kTempPrefix = ".geblas-tmp-";

std::string host_tag() {
  char host[65] = {0};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == 0) std::strcpy(host, "host");
  std::string h(host);
  for (char& c : h)
    if (c == '/' || c == '-') c = '_';
  if (h.size() > 32) h.resize(32);
  return h;
}

// Removes temporary files of this host whose process is gone (a kill -9, a power cut
// of a remote shell): never those of a live process, nor of another host or user.
void remove_stale_temps(const std::string& folder) {
  DIR* d = ::opendir(folder.c_str());
  if (!d) return;
  const std::string mine = std::string(kTempPrefix) + host_tag() + "-";
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(mine, 0) != 0 || name.size() < mine.size() + 8) continue;
    // <pid>-XXXXXX after the host
    const std::string rest = name.substr(mine.size());
    const std::size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || rest.size() - dash != 7) continue;
    char* end = nullptr;
    const long pid = std::strtol(rest.c_str(), &end, 10);
    if (end != rest.c_str() + dash || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    const std::string full = (std::filesystem::path(folder) / name).string();
    struct stat st{};
    if (::lstat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid()) ::unlink(full.c_str());
  }
  ::closedir(d);
}

// Creates the temporary file in `folder` with mkstemp; returns the descriptor and its path.
int make_temp_in(const std::string& target, const std::string& folder, std::string& temp_path) {
  remove_stale_temps(folder);
  const std::string name = std::string(kTempPrefix) + host_tag() + "-" + std::to_string(::getpid()) + "-XXXXXX";
  const std::string pattern = (std::filesystem::path(folder) / name).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const int fd = ::mkostemp(buf.data(), O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    std::error_code ec;
    if (!std::filesystem::exists(folder, ec))
      throw IoError("cannot write '" + target + "': the folder '" + folder + "' does not exist");
    if (!std::filesystem::is_directory(folder, ec))
      throw IoError("cannot write '" + target + "': '" + folder + "' is not a folder");
    throw IoError("cannot write '" + target + "': cannot create a file in '" + folder + "': " + errno_text(e));
  }
  temp_path.assign(buf.data());
  register_temp(temp_path);
  return fd;
}

// ------------------------------------------------------------------ target resolution

struct Target {
  std::string file;       // the file that receives the bytes
  bool in_place = false;  // written where it is (not a regular file), never replaced
};

// What writing `path` means. An existing non-regular file (stat follows links) is
// written in place; so is a link that lives in procfs (/dev/stdout, /dev/fd/N,
// /proc/self/fd/N), whose target is an open file of some process, not a name to replace.
// Otherwise links are followed by hand to the name they lead to (a dangling link: the
// file to create there).
Target resolve_target(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw IoError("cannot write '" + path + "': it is a folder");
    if (!S_ISREG(st.st_mode)) return {path, true};
  }
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat ls{};
    if (::lstat(p.c_str(), &ls) != 0 || !S_ISLNK(ls.st_mode)) return {p, false};
    struct statfs fs{};
    if (::statfs(folder_of(p).c_str(), &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC) return {path, true};
    std::vector<char> link(static_cast<std::size_t>(ls.st_size > 0 ? ls.st_size : 4095) + 1);
    const ssize_t n = ::readlink(p.c_str(), link.data(), link.size());
    if (n < 0 || static_cast<std::size_t>(n) >= link.size())
      throw IoError("cannot write '" + path + "': cannot read the symbolic link '" + p + "'");
    const std::string text(link.data(), static_cast<std::size_t>(n));
    p = text.starts_with('/') ? text : (std::filesystem::path(folder_of(p)) / text).string();
  }
  throw IoError("cannot write '" + path + "': too many levels of symbolic links");
}

// Opens a non-regular target for writing where it is. A FIFO that no process reads is
// refused at once (O_NONBLOCK) rather than waited for.
std::FILE* open_in_place(const std::string& path) {
  // The process's own standard output or error (/dev/stdout, /dev/fd/1, a redirected
  // file): written through that open file, so that its offset is shared and what the
  // process prints there follows these bytes instead of overwriting them.
  struct stat target{};
  if (::stat(path.c_str(), &target) == 0)
    for (const int std_fd : {STDOUT_FILENO, STDERR_FILENO}) {
      struct stat st{};
      if (::fstat(std_fd, &st) != 0 || st.st_dev != target.st_dev || st.st_ino != target.st_ino) continue;
      const int fd = ::fcntl(std_fd, F_DUPFD_CLOEXEC, 0);
      std::FILE* f = fd >= 0 ? ::fdopen(fd, "wb") : nullptr;
      if (f) return f;
      if (fd >= 0) ::close(fd);
      throw IoError("cannot write '" + path + "': " + errno_text(errno));
    }
  int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_APPEND);
  if (fd < 0) {
    const int e = errno;
    if (e == ENXIO) throw IoError("cannot write '" + path + "': it is a FIFO that no process is reading");
    throw IoError("cannot write '" + path + "': " + errno_text(e));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    const int e = errno;
    ::close(fd);
    throw IoError("cannot write '" + path + "': " + errno_text(e));
  }
  return f;
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return false;
  std::error_code ec;
  if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec)) {
    const bool eq = std::filesystem::equivalent(a, b, ec);
    return !ec && eq;
  }
  // Not both existing: compare what the names lead to.
  const auto wa = std::filesystem::weakly_canonical(a, ec);
  if (ec) return a == b;
  const auto wb = std::filesystem::weakly_canonical(b, ec);
  if (ec) return a == b;
  return wa == wb;
}

void check_output_path(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty()) throw InvalidValue("empty output path");
  if (output == "-") return;
  const Target t = resolve_target(output);
  // A target written in place (a device, a FIFO) replaces nothing, so only a regular
  // file can be an input about to be lost.
  if (!t.in_place)
    for (const std::string& in : inputs)
      if (same_file(output, in))
        throw InvalidValue("refusing to write '" + output + "': it is the input file '" + in +
                           "' (write to another name, then rename)");
  if (t.in_place) {
    // Opening proves a device takes bytes (a read-only one fails here). Not a FIFO or
    // pipe: closing it again would end its reader's input.
    struct stat st{};
    if (::stat(t.file.c_str(), &st) == 0 && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
      std::fclose(open_in_place(t.file));
    return;
  }
  // Creating (and removing) the temporary file proves the folder takes new files, which
  // is what the real write needs; access(W_OK) would be wrong for root and for ACLs.
  std::string temp;
  const int fd = make_temp_in(output, folder_of(t.file), temp);
  ::close(fd);
  discard_temp(temp);
}

OutputFile::OutputFile(const std::string& path) : path_(path) {
  if (path.empty()) throw InvalidValue("empty output path");
  if (path == "-") {
    file_ = stdout;
    return;
  }
  const Target t = resolve_target(path);
  if (t.in_place) {
    file_ = open_in_place(t.file);  // temp_path_ stays empty: nothing to rename
    return;
  }
  const int fd = make_temp_in(path, folder_of(t.file), temp_path_);
  // mkstemp makes the file 0600; give it the target's mode if it exists, else the mode a
  // newly created file would get (0666 less the umask).
  struct stat st{};
  mode_t mode;
  if (::stat(t.file.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  ::fchmod(fd, mode);
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int e = errno;
    ::close(fd);
    discard_temp(temp_path_);
    throw IoError("cannot write '" + path + "': " + errno_text(e));
  }
}

OutputFile::~OutputFile() {
  if (file_ && file_ != stdout) {
    std::fclose(file_);
    if (!temp_path_.empty()) discard_temp(temp_path_);
  }
}

void OutputFile::write(const void* data, std::size_t n) {
  if (!file_) throw IoError("write to '" + path_ + "' after it was committed");
  if (n && std::fwrite(data, 1, n, file_) != n) fail("error writing '" + name() + "'", errno);
}

std::string OutputFile::name() const { return path_ == "-" ? std::string("standard output") : path_; }

void OutputFile::fail(const std::string& what, int e) {
  if (file_ && file_ != stdout) {
    std::fclose(file_);
    if (!temp_path_.empty()) discard_temp(temp_path_);
  }
  const bool replaced = file_ != stdout && !temp_path_.empty();
  file_ = nullptr;
  throw IoError(what + (e ? ": " + errno_text(e) : std::string()) +
                (replaced ? std::string(" (the previous file, if any, is left as it was)") : std::string()));
}

void OutputFile::commit() {
  if (!file_) throw IoError("'" + path_ + "' was already committed or failed");
  if (std::fflush(file_) != 0) fail("error writing '" + name() + "'", errno);
  if (std::ferror(file_)) fail("error writing '" + name() + "'", 0);
  if (file_ == stdout) {
    file_ = nullptr;
    return;
  }
  if (temp_path_.empty()) {
    // Written in place: closing is the last chance to see an error.
    std::FILE* f = file_;
    file_ = nullptr;
    if (std::fclose(f) != 0) throw IoError("error writing '" + path_ + "': " + errno_text(errno));
    return;
  }
  // fsync before rename: otherwise a crash can leave the new name pointing at a file
  // whose data never reached the disk.
  if (::fsync(fileno(file_)) != 0 && errno != EINVAL && errno != EROFS)
    fail("error writing '" + path_ + "' (fsync)", errno);
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) {
    const int e = errno;
    discard_temp(temp_path_);
    throw IoError("error writing '" + path_ + "': " + errno_text(e) + " (the previous file, if any, is left as it was)");
  }
  // The link is followed again: the bytes replace the file it names, the link stays.
  const Target t = resolve_target(path_);
  if (t.in_place || std::rename(temp_path_.c_str(), t.file.c_str()) != 0) {
    const int e = t.in_place ? EEXIST : errno;
    discard_temp(temp_path_);
    throw IoError("cannot replace '" + path_ + "': " + errno_text(e) + " (the previous file, if any, is left as it was)");
  }
  unregister_temp(temp_path_);
  // Make the rename itself durable.
  const int dir = ::open(folder_of(t.file).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void remove_temporary_files_on_signals() {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old{};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
    struct sigaction sa{};
    sa.sa_handler = remove_temps_and_reraise;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace geblas::io
