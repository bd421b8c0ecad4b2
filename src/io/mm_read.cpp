// Reading Matrix Market files into geblas storage: coordinate files into CSR (mirroring
// symmetric and skew-symmetric ones), array files into dense or CSR storage. Coordinate
// entries are parsed with std::from_chars from 4 MiB blocks of whole lines, each split
// among OpenMP threads; nothing is allocated per entry, and the file's own header never
// makes the reader reserve more than the file could hold.
#include <algorithm>
#include <exception>
#include <cstring>
#include <string>

#include "core/derived_cache.hpp"
#include "geblas/io.hpp"
#include "io/csr_assembly.hpp"
#include "io/mm_header.hpp"
#include "io/narrow_16bit.hpp"
#include "io/readers.hpp"
#include "io/text_numbers.hpp"

namespace geblas::io::detail {
namespace {

using geblas::detail::DenseStorage;
using geblas::detail::RawBuffer;
using geblas::detail::SparseStorage;

// Entries a file of `bytes` (decompressed) could hold: a coordinate line is at least
// "i j\n" (4 bytes), an array line at least "v\n" (2 bytes).
std::size_t reserve_bound(const ByteSource& src, Index wanted, std::size_t min_line_bytes) {
  // A stream's size is unknown: its vector grows with what actually arrives.
  if (src.is_stream()) return static_cast<std::size_t>(std::min<Index>(wanted, Index{1} << 16));
  const std::uint64_t by_size = src.max_content_bytes() / min_line_bytes;
  return static_cast<std::size_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(wanted), by_size));
}

// A line that carries no entry: blank, or a '%' comment (accepted anywhere).
inline bool skip_line(std::string_view line) {
  for (char c : line) {
    if (c == '%') return true;
    if (!is_blank(c)) return false;
  }
  return true;
}

[[noreturn]] void too_few(const std::string& path, long long last_line, Index expected, Index found) {
  throw ParseError(path, last_line + 1,
                   "unexpected end of file: the size line announces " + std::to_string(expected) +
                       " entries, the file has " + std::to_string(found));
}

[[noreturn]] void too_many(const Where& w, Index expected) {
  fail(w, "too many entries: the size line announces " + std::to_string(expected));
}

// Parses one entry line (not blank, not a comment) into `out`, mirrored where the file
// says so.
template <class T>
inline void parse_entry(std::string_view line, const MmHeader& h, const Where& w, CooChunk<T>& out) {
  const bool pattern = h.field == MmField::pattern;
  const bool skew = h.symmetry == MmSymmetry::skew_symmetric;
  Tokens t(line);
  const Index i = parse_index(t.next(), h.nrows, "row index", w);
  const Index j = parse_index(t.next(), h.ncols, "column index", w);
  if (skew && i == j) fail(w, "diagonal entry (" + std::to_string(i + 1) + ", " + std::to_string(i + 1) +
                                  ") in a skew-symmetric file (its diagonal is zero and not stored)");
  T value = T(1);
  if (!pattern) value = parse_value<T>(t.next(), h.field == MmField::integer, w);
  if (!t.done()) fail(w, "unexpected text after the entry: " + quoted(t.next()));
  out.rows.push_back(static_cast<ColIndex>(i));
  out.cols.push_back(static_cast<ColIndex>(j));
  if (!pattern) out.vals.push_back(static_cast<Stored<T>>(value));
  if (h.symmetry != MmSymmetry::general && i != j) {
    out.rows.push_back(static_cast<ColIndex>(j));
    out.cols.push_back(static_cast<ColIndex>(i));
    if (!pattern) out.vals.push_back(static_cast<Stored<T>>(skew ? negate_checked(value, w) : value));
  }
}

// One thread's share of a block: its lines, the entries they hold, and the first error.
template <class T>
struct Part {
  const char* begin = nullptr;
  const char* end = nullptr;
  CooChunk<T> coo;
  Index entries = 0;
  long long lines = 0;       // lines in the part (all of them when it parsed without error)
  long long error_line = 0;  // local 1-based line of the first error, 0 if none
  std::string error_reason;
  std::exception_ptr other_error;  // anything but a ParseError (e.g. bad_alloc)
};

template <class T>
void parse_part(Part<T>& part, const MmHeader& h, const std::string& path) {
  const char* p = part.begin;
  long long local = 0;
  try {
    while (p < part.end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(part.end - p)));
      const char* le = nl ? nl : part.end;
      const std::string_view line(p, static_cast<std::size_t>(le - p));
      p = nl ? nl + 1 : part.end;
      ++local;
      if (skip_line(line)) continue;
      parse_entry<T>(line, h, Where{path, local}, part.coo);
      ++part.entries;
    }
  } catch (const ParseError& e) {
    part.error_line = local;
    part.error_reason = e.reason();
  } catch (...) {
    part.other_error = std::current_exception();
  }
  part.lines = local;
}

// The line of the k-th (0-based) entry of a part, for the "too many entries" error.
template <class T>
long long line_of_entry(const Part<T>& part, Index k) {
  const char* p = part.begin;
  long long local = 0;
  while (p < part.end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(part.end - p)));
    const std::string_view line(p, static_cast<std::size_t>((nl ? nl : part.end) - p));
    p = nl ? nl + 1 : part.end;
    ++local;
    if (!skip_line(line) && k-- == 0) return local;
  }
  return local;
}

// Blocks of whole lines, each split among the OpenMP threads at line boundaries and
// parsed in parallel into its own chunk; chunks stay in file order. An error is reported
// at its exact line: the first failing part in file order wins, as a one-thread read
// would report it. Decompression stays on the calling thread.
// Rows a reader keeps: [begin, end) shifted to start at 0, and optionally the number
// of entries of every row of the file (after mirroring) counted on the way.
struct RowRange {
  Index begin = 0, end = 0;
  std::vector<Index>* counts = nullptr;  // nrows entries, or null
};

// Keeps the entries of `c` in the range (a part is parsed whole first, so that every
// line is checked as in a full read; only the kept entries stay in memory).
template <class T>
void keep_rows(CooChunk<T>& c, const RowRange& range) {
  if (range.counts)
    for (ColIndex r : c.rows) ++(*range.counts)[static_cast<std::size_t>(r)];
  const bool values = !c.vals.empty();
  std::size_t w = 0;
  for (std::size_t k = 0; k < c.rows.size(); ++k) {
    const Index r = c.rows[k];
    if (r < range.begin || r >= range.end) continue;
    c.rows[w] = static_cast<ColIndex>(r - range.begin);
    c.cols[w] = c.cols[k];
    if (values) c.vals[w] = c.vals[k];
    ++w;
  }
  c.rows.resize(w);
  c.cols.resize(w);
  if (values) c.vals.resize(w);
  c.rows.shrink_to_fit();
  c.cols.shrink_to_fit();
  c.vals.shrink_to_fit();
}

// Returns the number of entries in the file (after mirroring), whatever `range` keeps.
template <class T>
std::size_t read_coordinate(LineReader& lines, const MmHeader& h, Coo<T>& coo, const RowRange* range = nullptr) {
  std::size_t total = 0;
  const std::string& path = lines.source().path();
  // A part below this many bytes is not worth a task (fork/join ~10 us vs ~4 ns/byte);
  // up to 16 parts per 4 MiB block, whatever the thread count, so that the split is the
  // same (and tested) on every machine and dynamic scheduling balances uneven lines.
  constexpr std::size_t kMinPartBytes = std::size_t{1} << 18;
  constexpr std::size_t kMaxParts = 16;
  Index seen = 0;
  std::vector<Part<T>> parts;
  std::string_view block;
  long long lines_before = lines.line_number();
  const std::size_t copies = h.symmetry == MmSymmetry::general ? 1 : 2;
  const bool pattern = h.field == MmField::pattern;
  while (lines.next_block(block)) {
    const int nparts = static_cast<int>(std::clamp<std::size_t>(block.size() / kMinPartBytes, 1, kMaxParts));
    parts.clear();
    parts.resize(static_cast<std::size_t>(nparts));
    const char* b = block.data();
    const char* e = block.data() + block.size();
    for (int t = 0; t < nparts; ++t) {
      parts[t].begin = b;
      const char* cut = t + 1 == nparts ? e : block.data() + block.size() * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(nparts);
      if (cut < b) cut = b;
      if (cut < e) {
        const void* nl = std::memchr(cut, '\n', static_cast<std::size_t>(e - cut));
        cut = nl ? static_cast<const char*>(nl) + 1 : e;
      }
      parts[t].end = cut;
      // Room for one entry per 8 bytes of text (real graph lines are longer; a vector grows
      // past it if not); pages never written cost address space, not memory.
      const std::size_t most = (static_cast<std::size_t>(cut - b) / 8 + 16) * copies;
      parts[t].coo.rows.reserve(most);
      parts[t].coo.cols.reserve(most);
      if (!pattern) parts[t].coo.vals.reserve(most);
      b = cut;
    }
#pragma omp parallel for schedule(dynamic, 1) if (nparts > 1)
    for (int t = 0; t < nparts; ++t) parse_part<T>(parts[t], h, path);
    long long line_base = lines_before;
    for (auto& part : parts) {
      if (part.other_error) std::rethrow_exception(part.other_error);
      if (part.error_line) throw ParseError(path, line_base + part.error_line, part.error_reason);
      if (seen + part.entries > h.entries)
        throw ParseError(path, line_base + line_of_entry(part, h.entries - seen),
                         "too many entries: the size line announces " + std::to_string(h.entries));
      seen += part.entries;
      line_base += part.lines;
      total += part.coo.rows.size();
      if (range) keep_rows(part.coo, *range);
      if (!part.coo.rows.empty()) coo.push_back(std::move(part.coo));
    }
    lines_before = lines.line_number();
  }
  if (seen < h.entries) too_few(path, lines.line_number(), h.entries, seen);
  return total;
}

// Reads the source again to name the two lines that give entry (r, c) (0-based, after
// mirroring): only reached on the error path, so the common path stores no line numbers.
// A stream cannot be read again; its message names the entry only.
[[noreturn]] void report_duplicate(ByteSource& src, Index r, Index c) {
  const std::string& path = src.path();
  const std::string entry = "duplicate entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) + ")";
  const std::string remedy = "; choose how to combine duplicates (ReadOptions::duplicates)";
  if (!src.rewind())
    throw ParseError(path, 0, entry + remedy + " (a stream cannot be read again to name its lines)");
  LineReader lines(src);
  const MmHeader h = read_mm_header(lines, true);
  const bool mirror = h.symmetry != MmSymmetry::general;
  long long first = 0;
  std::string_view line;
  while (lines.next(line)) {
    if (skip_line(line)) continue;
    const Where w{path, lines.line_number()};
    Tokens t(line);
    const Index i = parse_index(t.next(), h.nrows, "row index", w);
    const Index j = parse_index(t.next(), h.ncols, "column index", w);
    if ((i == r && j == c) || (mirror && i == c && j == r)) {
      if (first == 0) {
        first = w.line;
        continue;
      }
      fail(w, entry + (mirror ? " (counting mirrored entries)" : "") + ": already given on line " +
                  std::to_string(first) + remedy);
    }
  }
  throw ParseError(path, first, entry);
}

// The values of an array file in file order (column-major over the stored triangle).
template <class T>
std::vector<Stored<T>> read_array_values(LineReader& lines, const MmHeader& h) {
  const std::string& path = lines.source().path();
  const bool integer = h.field == MmField::integer;
  const bool skew = h.symmetry == MmSymmetry::skew_symmetric;
  std::vector<Stored<T>> vals;
  vals.reserve(reserve_bound(lines.source(), h.entries, 2));
  std::string_view line;
  while (lines.next(line)) {
    if (skip_line(line)) continue;
    const Where w{path, lines.line_number()};
    if (static_cast<Index>(vals.size()) == h.entries) too_many(w, h.entries);
    Tokens t(line);
    const T value = parse_value<T>(t.next(), integer, w);
    if (!t.done()) fail(w, "unexpected text after the value (an array file has one value per line): " + quoted(t.next()));
    if (skew) negate_checked(value, w);
    vals.push_back(static_cast<Stored<T>>(value));
  }
  if (static_cast<Index>(vals.size()) < h.entries)
    too_few(path, lines.line_number(), h.entries, static_cast<Index>(vals.size()));
  return vals;
}

// An array file's values as a full row-major matrix (mirrored where the file is
// symmetric or skew-symmetric).
template <class T>
DenseStorage array_to_dense(const MmHeader& h, const std::vector<Stored<T>>& vals) {
  DenseStorage d = geblas::detail::make_dense(h.nrows, h.ncols, Layout::row_major, type_id<T>, Device::cpu());
  T* out = d.data.as<T>();
  const Index m = h.nrows, n = h.ncols;
  std::size_t k = 0;
  if (h.symmetry == MmSymmetry::general) {
    for (Index j = 0; j < n; ++j)
      for (Index i = 0; i < m; ++i) out[i * n + j] = static_cast<T>(vals[k++]);
  } else {
    const bool skew = h.symmetry == MmSymmetry::skew_symmetric;
    for (Index j = 0; j < n; ++j) {
      if (skew) out[j * n + j] = T(0);
      for (Index i = skew ? j + 1 : j; i < m; ++i) {
        const T x = static_cast<T>(vals[k++]);
        out[i * n + j] = x;
        if constexpr (std::is_same_v<T, bool>) out[j * n + i] = x;  // skew bool values are all 0
        else out[j * n + i] = skew ? static_cast<T>(-x) : x;
      }
    }
  }
  return d;
}

template <class T>
SparseStorage dense_to_csr(const DenseStorage& d, bool drop_zeros) {
  const Index m = d.nrows, n = d.ncols;
  const T* a = d.data.as<T>();
  Index nvals = 0;
  if (drop_zeros) {
    for (Index k = 0; k < m * n; ++k) nvals += !(a[k] == T(0));
  } else {
    nvals = m * n;
  }
  SparseStorage s = geblas::detail::make_sparse(m, n, type_id<T>, Device::cpu());
  s.nvals = nvals;
  s.col_indices = RawBuffer(static_cast<std::size_t>(nvals) * sizeof(ColIndex), Device::cpu());
  s.values = RawBuffer(static_cast<std::size_t>(nvals) * sizeof(T), Device::cpu());
  Index* ro = s.row_offsets.as<Index>();
  ColIndex* ci = s.col_indices.as<ColIndex>();
  T* v = s.values.as<T>();
  Index p = 0;
  ro[0] = 0;
  for (Index i = 0; i < m; ++i) {
    for (Index j = 0; j < n; ++j) {
      const T x = a[i * n + j];
      if (drop_zeros && x == T(0)) continue;
      ci[p] = static_cast<ColIndex>(j);
      v[p] = x;
      ++p;
    }
    ro[i + 1] = p;
  }
  return s;
}

// Rows [begin, end) of a CSR matrix on the host, as a matrix of end - begin rows.
SparseStorage csr_rows(const SparseStorage& A, Index begin, Index end) {
  const Index* off = A.row_offsets.as<Index>();
  const std::size_t es = size_of(A.type);
  const Index k0 = off[begin], k1 = off[end];
  std::vector<Index> o(static_cast<std::size_t>(end - begin + 1));
  for (Index i = begin; i <= end; ++i) o[static_cast<std::size_t>(i - begin)] = off[i] - k0;
  RawBuffer cols(static_cast<std::size_t>(k1 - k0) * sizeof(ColIndex), Device::cpu());
  RawBuffer vals(static_cast<std::size_t>(k1 - k0) * es, Device::cpu());
  if (k1 > k0) {
    std::memcpy(cols.data(), A.col_indices.as<ColIndex>() + k0, cols.bytes());
    std::memcpy(vals.data(), A.values.as<unsigned char>() + static_cast<std::size_t>(k0) * es, vals.bytes());
  }
  RawBuffer offsets(o.size() * sizeof(Index), Device::cpu());
  std::memcpy(offsets.data(), o.data(), offsets.bytes());
  return geblas::detail::adopt_csr(end - begin, A.ncols, std::move(offsets), std::move(cols), std::move(vals), A.type,
                                   Device::cpu());
}

[[noreturn]] void bad_range(const std::string& path, Index begin, Index end, Index nrows) {
  throw InvalidValue("geblas::io::read_matrix_market_rows: rows [" + std::to_string(begin) + ", " +
                     std::to_string(end) + ") are not within the " + std::to_string(nrows) + " rows of '" + path + "'");
}

// The whole file, or only rows [range->begin, range->end) (counting every row's entries
// into range->counts when set). Every line is parsed and checked either way; a range
// keeps only its own entries in memory, except for array files (dense by nature), which
// are read whole and cut.
template <class T>
SparseStorage read_sparse(ByteSource& src, const ReadOptions& options, RowRange* range = nullptr) {
  const std::string& path = src.path();
  LineReader lines(src);
  const MmHeader h = read_mm_header(lines, options.duplicates.op.has_value());
  if (range) {
    if (range->end < 0) range->end = h.nrows;
    if (range->begin < 0 || range->begin > range->end || range->end > h.nrows)
      bad_range(path, range->begin, range->end, h.nrows);
    if (range->counts) range->counts->assign(static_cast<std::size_t>(h.nrows), 0);
  }
  // A whole square matrix mirrored from a symmetric or skew-symmetric file has
  // a symmetric pattern by construction (dropped zeros and combined duplicates go in
  // mirrored pairs too): recorded, so no algorithm tests it again.
  const bool mirrored = !range && h.symmetry != MmSymmetry::general && h.nrows == h.ncols;
  auto noted = [mirrored](SparseStorage s) {
    if (mirrored) geblas::detail::note_symmetric_pattern(s);
    return s;
  };
  if (h.format == MmFormat::array) {
    const auto vals = read_array_values<T>(lines, h);
    SparseStorage all = dense_to_csr<T>(array_to_dense<T>(h, vals), options.drop_zeros);
    if (!range) return noted(std::move(all));
    if (range->counts) {
      const Index* off = all.row_offsets.as<Index>();
      for (Index i = 0; i < h.nrows; ++i) (*range->counts)[static_cast<std::size_t>(i)] = off[i + 1] - off[i];
    }
    return csr_rows(all, range->begin, range->end);
  }
  Coo<T> coo;
  const std::size_t entries = read_coordinate<T>(lines, h, coo, range);
  check_dimension_limit(path, h.nrows, h.ncols, entries, options.max_dimension);
  const Index first = range ? range->begin : 0;
  return noted(assemble_csr<T>(range ? range->end - range->begin : h.nrows, h.ncols, coo, options.duplicates,
                               options.drop_zeros, [&](Index r, Index c) { report_duplicate(src, r + first, c); }));
}

template <class T>
DenseStorage read_dense(const std::string& path) {
  ByteSource src(path);
  LineReader lines(src);
  const MmHeader h = read_mm_header(lines);
  if (h.format == MmFormat::array) return array_to_dense<T>(h, read_array_values<T>(lines, h));
  // A coordinate file (GNN feature matrices are stored so): absent entries are zero.
  Coo<T> coo;
  read_coordinate<T>(lines, h, coo);
  const SparseStorage s = assemble_csr<T>(h.nrows, h.ncols, coo, Duplicates{}, false,
                                          [&](Index r, Index c) { report_duplicate(src, r, c); });
  DenseStorage d = geblas::detail::make_dense(h.nrows, h.ncols, Layout::row_major, type_id<T>, Device::cpu());
  T* out = d.data.as<T>();
  std::fill(out, out + h.nrows * h.ncols, T(0));
  const Index* ro = s.row_offsets.as<Index>();
  const ColIndex* ci = s.col_indices.as<ColIndex>();
  const T* v = s.values.as<T>();
  for (Index i = 0; i < h.nrows; ++i)
    for (Index k = ro[i]; k < ro[i + 1]; ++k) out[i * h.ncols + ci[k]] = v[k];
  return d;
}

}  // namespace

// 16-bit types are read as float64 (duplicates combined there) and rounded once.
geblas::detail::SparseStorage read_matrix_market_from(ByteSource& src, TypeId type, const ReadOptions& options) {
  if (is_16bit_float(type)) {
    SparseStorage s = read_sparse<double>(src, options);
    const Index* ro = s.row_offsets.as<Index>();
    const ColIndex* ci = s.col_indices.as<ColIndex>();
    s.values = narrow_to_16bit(src.path(), s.values, s.nvals, type, [&](Index k) {
      const Index i = static_cast<Index>(std::upper_bound(ro, ro + s.nrows + 1, k) - ro) - 1;
      return "entry (" + std::to_string(i + 1) + ", " + std::to_string(ci[k] + 1) + ")";
    });
    s.type = type;
    return s;
  }
  return visit_type(type, [&]<class T>() { return read_sparse<T>(src, options); });
}

geblas::detail::SparseStorage read_matrix_market(const std::string& path, TypeId type, const ReadOptions& options) {
  ByteSource src(path);
  return read_matrix_market_from(src, type, options);
}

geblas::detail::SparseStorage read_matrix_market_rows(const std::string& path, TypeId type, const ReadOptions& options,
                                                      Index begin, Index end, std::vector<Index>* row_counts) {
  RowRange range{begin, end, row_counts};
  if (begin < 0 || (end >= 0 && end < begin)) bad_range(path, begin, end, -1);
  if (is_16bit_float(type)) {
    ByteSource src(path);
    SparseStorage s = read_sparse<double>(src, options, &range);
    const Index* ro = s.row_offsets.as<Index>();
    const ColIndex* ci = s.col_indices.as<ColIndex>();
    s.values = narrow_to_16bit(path, s.values, s.nvals, type, [&](Index k) {
      const Index i = static_cast<Index>(std::upper_bound(ro, ro + s.nrows + 1, k) - ro) - 1;
      return "entry (" + std::to_string(i + range.begin + 1) + ", " + std::to_string(ci[k] + 1) + ")";
    });
    s.type = type;
    return s;
  }
  ByteSource src(path);
  return visit_type(type, [&]<class T>() { return read_sparse<T>(src, options, &range); });
}

geblas::detail::DenseStorage read_matrix_market_dense(const std::string& path, TypeId type) {
  if (is_16bit_float(type)) {
    DenseStorage d = read_dense<double>(path);  // row-major, ld = ncols
    d.data = narrow_to_16bit(path, d.data, d.nrows * d.ncols, type, [&](Index k) {
      return "entry (" + std::to_string(k / (d.ncols ? d.ncols : 1) + 1) + ", " + std::to_string(k % (d.ncols ? d.ncols : 1) + 1) + ")";
    });
    d.type = type;
    return d;
  }
  return visit_type(type, [&]<class T>() { return read_dense<T>(path); });
}

}  // namespace geblas::io::detail
