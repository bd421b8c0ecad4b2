// Files written so that a failure never destroys what was there: bytes go to a temporary
// file in the target's folder (same file system, so rename is atomic), which is flushed,
// fsync'ed and renamed over the target only when everything was written. The classic
// "write-temp, fsync, rename" of editors and package managers.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "geblas/error.hpp"
#include "geblas/io.hpp"

namespace geblas::io {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

// The folder a path names its file in ("." for a bare name).
std::string folder_of(const std::string& path) {
  const std::filesystem::path p(path);
  const auto parent = p.parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// Creates "<folder>/.<name>.XXXXXX" with mkstemp; returns the descriptor and its path.
int make_temp_next_to(const std::string& target, std::string& temp_path) {
  const std::filesystem::path p(target);
  if (p.filename().empty()) throw IoError("cannot write '" + target + "': it names a folder, not a file");
  std::string name = ".";
  name += p.filename().string();
  name += ".XXXXXX";
  const std::string pattern = (std::filesystem::path(folder_of(target)) / name).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const int fd = mkstemp(buf.data());
  if (fd < 0) {
    const int e = errno;
    std::error_code ec;
    const std::string folder = folder_of(target);
    if (!std::filesystem::exists(folder, ec))
      throw IoError("cannot write '" + target + "': the folder '" + folder + "' does not exist");
    if (!std::filesystem::is_directory(folder, ec))
      throw IoError("cannot write '" + target + "': '" + folder + "' is not a folder");
    throw IoError("cannot write '" + target + "': cannot create a file in '" + folder + "': " + errno_text(e));
  }
  temp_path.assign(buf.data());
  return fd;
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
  for (const std::string& in : inputs)
    if (same_file(output, in))
      throw InvalidValue("refusing to write '" + output + "': it is the input file '" + in +
                         "' (write to another name, then rename)");
  std::error_code ec;
  if (std::filesystem::is_directory(output, ec)) throw IoError("cannot write '" + output + "': it is a folder");
  // Creating (and removing) the temporary file proves the folder takes new files, which
  // is what the real write needs; access(W_OK) would be wrong for root and for ACLs.
  std::string temp;
  const int fd = make_temp_next_to(output, temp);
  ::close(fd);
  ::unlink(temp.c_str());
}

OutputFile::OutputFile(const std::string& path) : path_(path) {
  if (path.empty()) throw InvalidValue("empty output path");
  if (path == "-") {
    file_ = stdout;
    return;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw IoError("cannot write '" + path + "': it is a folder");
  const int fd = make_temp_next_to(path, temp_path_);
  // mkstemp makes the file 0600; give it the target's mode if it exists, else the mode a
  // newly created file would get (0666 less the umask).
  struct stat st{};
  mode_t mode;
  if (::stat(path.c_str(), &st) == 0) {
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
    ::unlink(temp_path_.c_str());
    throw IoError("cannot write '" + path + "': " + errno_text(e));
  }
}

OutputFile::~OutputFile() {
  if (file_ && file_ != stdout) {
    std::fclose(file_);
    ::unlink(temp_path_.c_str());
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
    ::unlink(temp_path_.c_str());
  }
  file_ = nullptr;
  throw IoError(what + (e ? ": " + errno_text(e) : std::string()) +
                (path_ == "-" ? std::string() : " (the previous file, if any, is left as it was)"));
}

void OutputFile::commit() {
  if (!file_) throw IoError("'" + path_ + "' was already committed or failed");
  if (std::fflush(file_) != 0) fail("error writing '" + name() + "'", errno);
  if (std::ferror(file_)) fail("error writing '" + name() + "'", 0);
  if (file_ == stdout) {
    file_ = nullptr;
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
    ::unlink(temp_path_.c_str());
    throw IoError("error writing '" + path_ + "': " + errno_text(e) + " (the previous file, if any, is left as it was)");
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    ::unlink(temp_path_.c_str());
    throw IoError("cannot replace '" + path_ + "': " + errno_text(e) + " (the previous file, if any, is left as it was)");
  }
  // Make the rename itself durable.
  const int dir = ::open(folder_of(path_).c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace geblas::io
