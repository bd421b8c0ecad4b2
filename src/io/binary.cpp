// geblas's binary format for SparseMatrix: a fixed 64-byte header, the CSR arrays as
// they sit in memory, and a CRC-32 of everything before it. Reading is a few large
// freads plus a checksum and a structure check, so it is much faster than parsing
// text; any truncation, corruption or inconsistency is a ParseError (docs/FORMATS.md).
#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <type_traits>

#include "geblas/detail/value_convert.hpp"
#include "geblas/io.hpp"
#include "io/byte_source.hpp"

namespace geblas::io::detail {
namespace {

using geblas::detail::RawBuffer;
using geblas::detail::SparseStorage;

constexpr char kMagic[8] = {'G', 'E', 'B', 'L', 'A', 'S', 'S', 'M'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kEndianTag = 0x01020304;  // reads as 0x04030201 on the other byte order

// Little-endian on disk (the only byte order geblas builds for; the tag detects others).
struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t endian_tag;
  std::uint32_t type;   // TypeId
  std::uint32_t flags;  // bit 0: columns sorted and unique in each row (always set); others 0
  std::int64_t nrows;
  std::int64_t ncols;
  std::int64_t nvals;
  std::uint64_t reserved[2];  // 0
};
static_assert(sizeof(Header) == 64);
constexpr std::uint32_t kFlagSortedUnique = 1;

std::uint32_t crc_update(std::uint32_t crc, const void* data, std::size_t n) {
  const auto* p = static_cast<const Bytef*>(data);
  while (n > 0) {  // zlib's crc32 takes a uInt length
    const uInt chunk = static_cast<uInt>(std::min<std::size_t>(n, std::size_t{1} << 30));
    crc = static_cast<std::uint32_t>(crc32(crc, p, chunk));
    p += chunk;
    n -= chunk;
  }
  return crc;
}

class File {
 public:
  File(const std::string& path, const char* mode) : path_(path), f_(std::fopen(path.c_str(), mode)) {
    if (!f_)
      throw IoError("cannot open '" + path + "' for " + (mode[0] == 'r' ? "reading: " : "writing: ") + std::strerror(errno));
  }
  ~File() {
    if (f_) std::fclose(f_);
  }
  std::FILE* get() { return f_; }
  void close() {
    std::FILE* f = f_;
    f_ = nullptr;
    if (std::fclose(f) != 0) throw IoError("error closing '" + path_ + "': " + std::strerror(errno));
  }

 private:
  std::string path_;
  std::FILE* f_;
};

template <class To, class From>
bool fits(From x) {
  if constexpr (std::is_same_v<To, From>) return true;
  else if constexpr (std::is_same_v<To, bool>) return x == From(0) || x == From(1);
  else if constexpr (std::is_floating_point_v<To>) {
    if constexpr (std::is_floating_point_v<From>)
      return !std::isfinite(x) || std::abs(static_cast<double>(x)) <= static_cast<double>(std::numeric_limits<To>::max());
    else return true;  // every integer is in float's range (rounded)
  } else {
    // integer target
    if constexpr (std::is_floating_point_v<From>) {
      const double lo = -std::ldexp(1.0, std::numeric_limits<To>::digits);
      return std::isfinite(x) && x == std::trunc(x) && x >= lo && x < -lo;
    } else if constexpr (std::is_same_v<From, bool>) {
      return true;
    } else {
      return x >= std::numeric_limits<To>::min() && x <= std::numeric_limits<To>::max();
    }
  }
}

}  // namespace

void write_binary(const std::string& path, const SparseStorage& A) {
  const SparseStorage host = A.device.is_cpu() ? SparseStorage{} : geblas::detail::to_device(A, Device::cpu());
  const SparseStorage& s = A.device.is_cpu() ? A : host;
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kVersion;
  h.endian_tag = kEndianTag;
  h.type = static_cast<std::uint32_t>(s.type);
  h.flags = kFlagSortedUnique;
  h.nrows = s.nrows;
  h.ncols = s.ncols;
  h.nvals = s.nvals;
  // Through ByteSink (never compressed): a failed write leaves any previous file intact.
  ByteSink sink(path, /*gzip_by_name=*/false);
  std::uint32_t crc = static_cast<std::uint32_t>(crc32(0, Z_NULL, 0));
  auto put = [&](const void* p, std::size_t n) {
    sink.write(p, n);
    crc = crc_update(crc, p, n);
  };
  put(&h, sizeof h);
  put(s.row_offsets.data(), static_cast<std::size_t>(s.nrows + 1) * sizeof(Index));
  put(s.col_indices.data(), static_cast<std::size_t>(s.nvals) * sizeof(ColIndex));
  put(s.values.data(), static_cast<std::size_t>(s.nvals) * size_of(s.type));
  const std::uint32_t stored = crc;
  put(&stored, sizeof stored);
  sink.close();
}

SparseStorage read_binary(const std::string& path, TypeId type) {
  File f(path, "rb");
  struct stat st{};
  if (fstat(fileno(f.get()), &st) != 0 || S_ISDIR(st.st_mode)) throw IoError("cannot read '" + path + "': not a file");
  const std::uint64_t file_bytes = static_cast<std::uint64_t>(st.st_size);
  auto bad = [&](const std::string& why) -> ParseError { return ParseError(path, 0, why); };

  Header h{};
  if (file_bytes < sizeof h || std::fread(&h, 1, sizeof h, f.get()) != sizeof h)
    throw bad("not a geblas binary matrix: the file is shorter than the 64-byte header");
  if (std::memcmp(h.magic, kMagic, 8) != 0) throw bad("not a geblas binary matrix (bad magic bytes)");
  if (h.endian_tag != kEndianTag) throw bad("written with the other byte order (endianness tag mismatch)");
  if (h.version != kVersion)
    throw bad("unsupported binary format version " + std::to_string(h.version) + " (this geblas reads version " +
              std::to_string(kVersion) + ")");
  if (h.type > static_cast<std::uint32_t>(TypeId::bfloat16)) throw bad("unknown value type code " + std::to_string(h.type));
  if (h.flags != kFlagSortedUnique || h.reserved[0] != 0 || h.reserved[1] != 0) throw bad("unknown flags in the header");
  if (h.nrows < 0 || h.ncols < 0 || h.nrows > max_dimension || h.ncols > max_dimension)
    throw bad("dimensions " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols) + " are out of range");
  if (h.nvals < 0 || h.nvals > h.nrows * h.ncols)
    throw bad(std::to_string(h.nvals) + " entries cannot fit in " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols));
  const TypeId stored_type = static_cast<TypeId>(h.type);
  // The header fixes the file size exactly, checked before anything is allocated.
  const std::uint64_t offsets_bytes = static_cast<std::uint64_t>(h.nrows + 1) * sizeof(Index);
  const std::uint64_t cols_bytes = static_cast<std::uint64_t>(h.nvals) * sizeof(ColIndex);
  const std::uint64_t vals_bytes = static_cast<std::uint64_t>(h.nvals) * size_of(stored_type);
  const std::uint64_t want = sizeof h + offsets_bytes + cols_bytes + vals_bytes + sizeof(std::uint32_t);
  if (file_bytes < want)
    throw bad("truncated: the header announces " + std::to_string(want) + " bytes, the file has " + std::to_string(file_bytes));
  if (file_bytes > want)
    throw bad("the file has " + std::to_string(file_bytes - want) + " bytes after the end announced by its header");

  SparseStorage s;
  s.nrows = h.nrows;
  s.ncols = h.ncols;
  s.nvals = h.nvals;
  s.type = stored_type;
  s.device = Device::cpu();
  s.row_offsets = RawBuffer(offsets_bytes, Device::cpu());
  s.col_indices = RawBuffer(cols_bytes, Device::cpu());
  s.values = RawBuffer(vals_bytes, Device::cpu());
  std::uint32_t crc = crc_update(static_cast<std::uint32_t>(crc32(0, Z_NULL, 0)), &h, sizeof h);
  auto get = [&](void* p, std::size_t n) {
    if (n && std::fread(p, 1, n, f.get()) != n) {
      if (std::ferror(f.get())) throw IoError("error reading '" + path + "': " + std::strerror(errno));
      throw bad("truncated while reading");
    }
    crc = crc_update(crc, p, n);
  };
  get(s.row_offsets.data(), offsets_bytes);
  get(s.col_indices.data(), cols_bytes);
  get(s.values.data(), vals_bytes);
  std::uint32_t stored_crc = 0;
  if (std::fread(&stored_crc, 1, sizeof stored_crc, f.get()) != sizeof stored_crc) throw bad("truncated before the checksum");
  if (stored_crc != crc) throw bad("checksum mismatch: the file is corrupted");

  // A matching checksum with a broken structure means a foreign or hand-made file.
  try {
    s = geblas::detail::adopt_csr(s.nrows, s.ncols, std::move(s.row_offsets), std::move(s.col_indices),
                                  std::move(s.values), s.type, Device::cpu());
  } catch (const Error& e) {
    throw bad(std::string("invalid CSR structure: ") + e.what());
  }
  if (stored_type == TypeId::boolean) {
    // bool bytes must be 0 or 1 before they are read as bool.
    const auto* raw = static_cast<const unsigned char*>(s.values.data());
    for (Index k = 0; k < s.nvals; ++k)
      if (raw[k] > 1) throw bad("bool value byte " + std::to_string(raw[k]) + " at entry " + std::to_string(k));
  }
  if (stored_type == type) return s;
  // A different type: convert each value, refusing any the target cannot hold.
  SparseStorage out = std::move(s);
  RawBuffer converted(static_cast<std::size_t>(out.nvals) * size_of(type), Device::cpu());
  if (is_16bit_float(stored_type) || is_16bit_float(type)) {
    // Through float64, which holds every value of every type but int64 exactly; a 16-bit
    // target refuses finite values that would round to infinity.
    geblas::detail::visit_storage_type(stored_type, [&]<class From>() {
      geblas::detail::visit_storage_type(type, [&]<class To>() {
        const From* src = out.values.as<From>();
        To* dst = converted.as<To>();
        for (Index k = 0; k < out.nvals; ++k) {
          const double x = geblas::detail::convert_value<double>(src[k]);
          bool ok;
          if constexpr (geblas::detail::is_16bit_v<To>) ok = !std::isfinite(x) || std::isfinite(static_cast<float>(geblas::detail::convert_value<To>(src[k])));
          else if constexpr (std::is_same_v<From, std::int64_t>) ok = fits<To>(src[k]);
          else ok = fits<To>(x);
          if (!ok)
            throw bad("entry " + std::to_string(k) + " (value " + std::to_string(x) + ") stored as " +
                      std::string(to_string(stored_type)) + " cannot be read as " + std::string(to_string(type)));
          dst[k] = geblas::detail::convert_value<To>(src[k]);
        }
      });
    });
    out.values = std::move(converted);
    out.type = type;
    return out;
  }
  visit_type(stored_type, [&]<class From>() {
    visit_type(type, [&]<class To>() {
      const From* src = out.values.as<From>();
      To* dst = converted.as<To>();
      for (Index k = 0; k < out.nvals; ++k) {
        if (!fits<To>(src[k]))
          throw bad("entry " + std::to_string(k) + " (value " + std::to_string(+src[k]) + ") stored as " +
                    std::string(to_string(stored_type)) + " cannot be read as " + std::string(to_string(type)));
        dst[k] = static_cast<To>(src[k]);
      }
    });
  });
  out.values = std::move(converted);
  out.type = type;
  return out;
}

}  // namespace geblas::io::detail
