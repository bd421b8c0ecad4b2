// geblas's binary format for SparseMatrix: a fixed 64-byte header, the CSR arrays as
// they sit in memory, and a CRC-32 of everything before it. Reading is a few large
// freads plus a checksum and a structure check, so it is much faster than parsing
// text; any truncation, corruption or inconsistency is a ParseError (docs/FORMATS.md).
#include <zlib.h>

#include <sys/stat.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "geblas/detail/value_convert.hpp"
#include "geblas/io.hpp"
#include "io/byte_source.hpp"
#include "io/readers.hpp"

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

namespace {

// The header of an open binary file, checked, and the sizes of its three arrays, checked
// against the file's size before anything is allocated.
struct Layout {
  Header h{};
  TypeId stored = TypeId::float32;
  std::uint64_t offsets_bytes = 0, cols_bytes = 0, vals_bytes = 0;
  std::uint64_t cols_at() const { return sizeof(Header) + offsets_bytes; }
  std::uint64_t vals_at() const { return cols_at() + cols_bytes; }
};

ParseError bad_file(const std::string& path, const std::string& why) { return ParseError(path, 0, why); }

// The layout a header announces, its fields checked (sizes in range, entries that fit).
Layout layout_of(const Header& h, const std::string& path) {
  auto bad = [&](const std::string& why) { return bad_file(path, why); };
  Layout l;
  l.h = h;
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
  l.stored = static_cast<TypeId>(h.type);
  l.offsets_bytes = static_cast<std::uint64_t>(h.nrows + 1) * sizeof(Index);
  l.cols_bytes = static_cast<std::uint64_t>(h.nvals) * sizeof(ColIndex);
  l.vals_bytes = static_cast<std::uint64_t>(h.nvals) * size_of(l.stored);
  return l;
}

// The header fixes the file size exactly.
std::uint64_t total_bytes(const Layout& l) {
  return sizeof(Header) + l.offsets_bytes + l.cols_bytes + l.vals_bytes + sizeof(std::uint32_t);
}

void check_size(const Layout& l, std::uint64_t file_bytes, const std::string& path) {
  const std::uint64_t want = total_bytes(l);
  if (file_bytes < want)
    throw bad_file(path, "truncated: the header announces " + std::to_string(want) + " bytes, the file has " +
                             std::to_string(file_bytes));
  if (file_bytes > want)
    throw bad_file(path, "the file has " + std::to_string(file_bytes - want) + " bytes after the end announced by its header");
}

constexpr const char* kShortHeader = "not a geblas binary matrix: the file is shorter than the 64-byte header";

Layout read_layout(File& f, const std::string& path) {
  struct stat st{};
  if (fstat(fileno(f.get()), &st) != 0 || S_ISDIR(st.st_mode)) throw IoError("cannot read '" + path + "': not a file");
  const std::uint64_t file_bytes = static_cast<std::uint64_t>(st.st_size);
  Header h{};
  if (file_bytes < sizeof h || std::fread(&h, 1, sizeof h, f.get()) != sizeof h) throw bad_file(path, kShortHeader);
  const Layout l = layout_of(h, path);
  check_size(l, file_bytes, path);
  return l;
}

// Reads n bytes at the current position (a short read is a truncation: the size was
// checked, so the file changed under the reader).
void read_exactly(File& f, const std::string& path, void* p, std::size_t n) {
  if (n && std::fread(p, 1, n, f.get()) != n) {
    if (std::ferror(f.get())) throw IoError("error reading '" + path + "': " + std::strerror(errno));
    throw bad_file(path, "truncated while reading");
  }
}

void seek_to(File& f, const std::string& path, std::uint64_t at) {
  if (fseeko(f.get(), static_cast<off_t>(at), SEEK_SET) != 0)
    throw IoError("cannot seek in '" + path + "': " + std::strerror(errno));
}

// s's CSR arrays checked (a foreign or hand-made file may have a matching checksum and a
// broken structure) and its values converted to `type`; `first_entry` is the file's index
// of s's first entry, for the messages.
SparseStorage checked_and_converted(SparseStorage s, TypeId type, Index first_entry, const std::string& path) {
  auto bad = [&](const std::string& why) { return bad_file(path, why); };
  const TypeId stored_type = s.type;
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
      if (raw[k] > 1)
        throw bad("bool value byte " + std::to_string(raw[k]) + " at entry " + std::to_string(first_entry + k));
  }
  if (stored_type == type) return s;
  // A different type: convert each value, refusing any the target cannot hold.
  SparseStorage out = std::move(s);
  RawBuffer converted(static_cast<std::size_t>(out.nvals) * size_of(type), Device::cpu());
  auto refuse = [&](Index k, const std::string& value) {
    return bad("entry " + std::to_string(first_entry + k) + " (value " + value + ") stored as " +
               std::string(to_string(stored_type)) + " cannot be read as " + std::string(to_string(type)));
  };
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
          if (!ok) throw refuse(k, std::to_string(x));
          dst[k] = geblas::detail::convert_value<To>(src[k]);
        }
      });
    });
  } else {
    visit_type(stored_type, [&]<class From>() {
      visit_type(type, [&]<class To>() {
        const From* src = out.values.as<From>();
        To* dst = converted.as<To>();
        for (Index k = 0; k < out.nvals; ++k) {
          if (!fits<To>(src[k])) throw refuse(k, std::to_string(+src[k]));
          dst[k] = static_cast<To>(src[k]);
        }
      });
    });
  }
  out.values = std::move(converted);
  out.type = type;
  return out;
}

}  // namespace

// Over a ByteSource, so that read_graph reads a binary stream (a pipe, gzip) as it
// detected it. A file's size is checked against the header before anything is
// allocated; a stream's is not known, so its bytes are gathered as they arrive (never
// more than the header announces, plus one to see trailing bytes) and checked the same way.
SparseStorage read_binary_from(ByteSource& src, TypeId type) {
  const std::string& path = src.path();
  auto read_fully = [&](void* p, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
      const std::size_t k = src.read(static_cast<char*>(p) + got, n - got);
      if (k == 0) break;
      got += k;
    }
    return got;
  };
  Header h{};
  if (read_fully(&h, sizeof h) != sizeof h) throw bad_file(path, kShortHeader);
  const Layout l = layout_of(h, path);
  const std::uint64_t payload = total_bytes(l) - sizeof h;
  const bool gather = src.is_stream() || src.compressed();
  std::vector<unsigned char> gathered;  // a stream's payload
  std::size_t gathered_pos = 0;
  if (gather) {
    // Grown 64 MiB at a time, so memory follows the bytes that arrived, not the header's claim.
    constexpr std::size_t kStep = std::size_t{64} << 20;
    while (gathered.size() <= payload) {
      const std::size_t have = gathered.size();
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(payload + 1 - have, kStep));
      gathered.resize(have + want);
      const std::size_t got = read_fully(gathered.data() + have, want);
      gathered.resize(have + got);
      if (got < want) break;
    }
    check_size(l, sizeof h + gathered.size(), path);
  } else {
    check_size(l, src.file_bytes(), path);
  }
  SparseStorage s;
  s.nrows = h.nrows;
  s.ncols = h.ncols;
  s.nvals = h.nvals;
  s.type = l.stored;
  s.device = Device::cpu();
  s.row_offsets = RawBuffer(l.offsets_bytes, Device::cpu());
  s.col_indices = RawBuffer(l.cols_bytes, Device::cpu());
  s.values = RawBuffer(l.vals_bytes, Device::cpu());
  std::uint32_t crc = crc_update(static_cast<std::uint32_t>(crc32(0, Z_NULL, 0)), &h, sizeof h);
  auto get = [&](void* p, std::size_t n) {
    if (gather) {
      if (n) std::memcpy(p, gathered.data() + gathered_pos, n);
      gathered_pos += n;
    } else if (read_fully(p, n) != n) {
      throw bad_file(path, "truncated while reading");  // the size was checked: the file changed under the reader
    }
    crc = crc_update(crc, p, n);
  };
  get(s.row_offsets.data(), l.offsets_bytes);
  get(s.col_indices.data(), l.cols_bytes);
  get(s.values.data(), l.vals_bytes);
  std::uint32_t stored_crc = 0;
  if (gather) {
    std::memcpy(&stored_crc, gathered.data() + gathered_pos, sizeof stored_crc);
  } else if (read_fully(&stored_crc, sizeof stored_crc) != sizeof stored_crc) {
    throw bad_file(path, "truncated before the checksum");
  }
  if (stored_crc != crc) throw bad_file(path, "checksum mismatch: the file is corrupted");
  return checked_and_converted(std::move(s), type, 0, path);
}

SparseStorage read_binary(const std::string& path, TypeId type) {
  ByteSource src(path);
  return read_binary_from(src, type);
}

SparseStorage read_binary_rows(const std::string& path, TypeId type, Index begin, Index end,
                               std::vector<Index>* row_counts, bool verify_checksum) {
  File f(path, "rb");
  const Layout l = read_layout(f, path);
  if (verify_checksum) {
    // One sequential pass in fixed chunks: the file's bytes once, this part's memory only.
    std::uint32_t crc = crc_update(static_cast<std::uint32_t>(crc32(0, Z_NULL, 0)), &l.h, sizeof l.h);
    std::vector<unsigned char> chunk(std::size_t{1} << 22);
    for (std::uint64_t left = l.offsets_bytes + l.cols_bytes + l.vals_bytes; left > 0;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, chunk.size()));
      read_exactly(f, path, chunk.data(), n);
      crc = crc_update(crc, chunk.data(), n);
      left -= n;
    }
    std::uint32_t stored_crc = 0;
    read_exactly(f, path, &stored_crc, sizeof stored_crc);
    if (stored_crc != crc) throw bad_file(path, "checksum mismatch: the file is corrupted");
  }
  const Index nrows = l.h.nrows;
  if (end < 0) end = nrows;
  if (begin < 0 || begin > end || end > nrows)
    throw InvalidValue("io::read_binary_rows: rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                       ") are outside '" + path + "', which has " + std::to_string(nrows) + " rows");
  auto bad = [&](const std::string& why) { return bad_file(path, why); };
  // The offsets of the range (all of them when the caller wants every row's count), then
  // the range's columns and values: nothing else of the file is read.
  const Index first_row = row_counts ? 0 : begin, last_row = row_counts ? nrows : end;
  std::vector<Index> offsets(static_cast<std::size_t>(last_row - first_row + 1));
  seek_to(f, path, sizeof(Header) + static_cast<std::uint64_t>(first_row) * sizeof(Index));
  read_exactly(f, path, offsets.data(), offsets.size() * sizeof(Index));
  // The file's first and last offsets bound every other; a range is checked within them.
  Index first_offset = 0, last_offset = 0;
  seek_to(f, path, sizeof(Header));
  read_exactly(f, path, &first_offset, sizeof first_offset);
  seek_to(f, path, sizeof(Header) + static_cast<std::uint64_t>(nrows) * sizeof(Index));
  read_exactly(f, path, &last_offset, sizeof last_offset);
  if (first_offset != 0 || last_offset != l.h.nvals)
    throw bad("invalid CSR structure: row offsets run from " + std::to_string(first_offset) + " to " +
              std::to_string(last_offset) + ", not from 0 to the " + std::to_string(l.h.nvals) + " entries");
  for (std::size_t i = 1; i < offsets.size(); ++i)
    if (offsets[i] < offsets[i - 1] || offsets[i] > l.h.nvals)
      throw bad("invalid CSR structure: row offset " + std::to_string(offsets[i]) + " of row " +
                std::to_string(first_row + static_cast<Index>(i)) + " is out of order");
  if (row_counts) {
    row_counts->resize(static_cast<std::size_t>(nrows));
    for (Index i = 0; i < nrows; ++i)
      (*row_counts)[static_cast<std::size_t>(i)] =
          offsets[static_cast<std::size_t>(i + 1)] - offsets[static_cast<std::size_t>(i)];
  }
  const Index lo = offsets[static_cast<std::size_t>(begin - first_row)];
  const Index hi = offsets[static_cast<std::size_t>(end - first_row)];
  SparseStorage s;
  s.nrows = end - begin;
  s.ncols = l.h.ncols;
  s.nvals = hi - lo;
  s.type = l.stored;
  s.device = Device::cpu();
  s.row_offsets = RawBuffer(static_cast<std::size_t>(s.nrows + 1) * sizeof(Index), Device::cpu());
  Index* ro = s.row_offsets.as<Index>();
  for (Index i = 0; i <= s.nrows; ++i) ro[i] = offsets[static_cast<std::size_t>(begin - first_row + i)] - lo;
  s.col_indices = RawBuffer(static_cast<std::size_t>(s.nvals) * sizeof(ColIndex), Device::cpu());
  s.values = RawBuffer(static_cast<std::size_t>(s.nvals) * size_of(l.stored), Device::cpu());
  seek_to(f, path, l.cols_at() + static_cast<std::uint64_t>(lo) * sizeof(ColIndex));
  read_exactly(f, path, s.col_indices.data(), static_cast<std::size_t>(s.nvals) * sizeof(ColIndex));
  seek_to(f, path, l.vals_at() + static_cast<std::uint64_t>(lo) * size_of(l.stored));
  read_exactly(f, path, s.values.data(), static_cast<std::size_t>(s.nvals) * size_of(l.stored));
  return checked_and_converted(std::move(s), type, lo, path);
}

}  // namespace geblas::io::detail

namespace geblas::io {

BinaryHeader read_binary_header(const std::string& path) {
  detail::File f(path, "rb");
  const detail::Layout l = detail::read_layout(f, path);
  return {l.stored, l.h.nrows, l.h.ncols, l.h.nvals};
}

}  // namespace geblas::io
