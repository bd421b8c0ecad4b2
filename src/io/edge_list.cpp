// Edge lists as people have them: SNAP-style whitespace files ("source target [weight]",
// '#' or '%' comments) and CSV files (comma-separated, optional header row), plain or
// gzip, 0- or 1-based ids, directed or undirected. Entries become the same file-order
// chunks the Matrix Market reader fills, so duplicates, zeros and CSR assembly follow
// one code path (csr_assembly.hpp). Also: telling a file's format by content and name,
// and read_graph, which opens its input (a file, a stream, or standard input for "-")
// once, detects the format on a peeked prefix and hands the same source to the reader.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "geblas/io.hpp"
#include "io/byte_source.hpp"
#include "io/csr_assembly.hpp"
#include "io/line_reader.hpp"
#include "io/narrow_16bit.hpp"
#include "io/readers.hpp"
#include "io/text_numbers.hpp"

namespace geblas::io {
namespace detail {
namespace {

using geblas::detail::SparseStorage;

inline bool comment_or_blank(std::string_view line) {
  for (char c : line) {
    if (c == '#' || c == '%') return true;
    if (!is_blank(c)) return false;
  }
  return true;
}

// Splits a line into at most 4 fields (one more than a line may have, to report it).
// delimiter 0: runs of blanks; ',': commas, blanks around a field trimmed, one pair of
// double quotes around a field removed.
int split_fields(std::string_view line, char delimiter, std::string_view* out) {
  int k = 0;
  if (delimiter == 0) {
    std::size_t p = 0;
    while (k < 4) {
      while (p < line.size() && is_blank(line[p])) ++p;
      if (p == line.size()) break;
      const std::size_t start = p;
      while (p < line.size() && !is_blank(line[p])) ++p;
      out[k++] = line.substr(start, p - start);
    }
    return k;
  }
  std::size_t start = 0;
  while (k < 4) {
    const std::size_t comma = line.find(delimiter, start);
    std::string_view f = line.substr(start, comma == line.npos ? line.npos : comma - start);
    while (!f.empty() && is_blank(f.front())) f.remove_prefix(1);
    while (!f.empty() && is_blank(f.back())) f.remove_suffix(1);
    if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = f.substr(1, f.size() - 2);
    out[k++] = f;
    if (comma == line.npos) break;
    start = comma + 1;
  }
  return k;
}

bool is_integer_token(std::string_view tok) {
  long long v = 0;
  bool overflow = false;
  return parse_int64(tok, v, overflow) || overflow;
}

bool is_number_token(std::string_view tok) {
  tok = strip_plus(tok);
  double d = 0;
  const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), d);
  return !tok.empty() && ptr == tok.data() + tok.size() && ec != std::errc::invalid_argument;
}

// The header rule (docs/FORMATS.md): the first line that is not a comment is a header
// only when it cannot be data: every field holds an ASCII letter and none is a number.
// "source,target,weight" is one; "1.5 2", "x1 2" and a line of full-width digits are
// data, and fail as data with their line named, never skipped.
bool is_header(const std::string_view* f, int k) {
  if (k < 1) return false;
  for (int i = 0; i < k; ++i) {
    if (is_number_token(f[i])) return false;
    bool letter = false;
    for (char ch : f[i]) letter |= (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
    if (!letter) return false;
  }
  return true;
}

// A vertex id as written, checked against the base and the dimension limit, 0-based.
Index parse_vertex(std::string_view tok, int base, const char* what, const Where& w) {
  if (tok.empty()) fail(w, std::string("missing ") + what);
  long long v = 0;
  bool overflow = false;
  if (!parse_int64(tok, v, overflow)) {
    if (overflow) fail(w, std::string(what) + " " + quoted(tok) + " is too large (at most " + std::to_string(max_dimension) + ")");
    fail(w, std::string(what) + " " + quoted(tok) + " is not an integer vertex id");
  }
  if (v < base)
    fail(w, std::string(what) + " " + std::to_string(v) + " is below the first vertex id " + std::to_string(base) +
                (base == 1 ? " (0-based file? read it with base 0: --base 0)" : ""));
  if (v - base >= max_dimension)
    fail(w, std::string(what) + " " + std::to_string(v) + " is too large (vertex ids up to " +
                std::to_string(max_dimension - 1 + base) + ")");
  return static_cast<Index>(v - base);
}

const char* kind_name(char delimiter) { return delimiter ? "CSV edge list" : "edge list"; }

// Walks the edge lines of a source: calls on_edge(i, j, value_token, where) for each.
template <class OnEdge>
void for_each_edge(ByteSource& src, const ReadOptions& options, char delimiter, OnEdge&& on_edge) {
  const std::string& path = src.path();
  LineReader lines(src);
  std::string_view line;
  int fields_per_line = 0;
  long long fields_line = 0;
  bool first_data_line = true;
  while (lines.next(line)) {
    src.line_hint = lines.line_number();
    if (comment_or_blank(line)) continue;
    const Where w{path, lines.line_number()};
    check_line_ends(line, w);
    std::string_view f[4];
    const int k = split_fields(line, delimiter, f);
    if (first_data_line) {
      first_data_line = false;
      if (is_header(f, k)) continue;
    }
    if (k < 2 || k > 3)
      fail(w, std::to_string(k) + (k == 4 ? " or more" : "") + " fields; a " + kind_name(delimiter) +
                  " line is 'source" + (delimiter ? "," : " ") + "target" + (delimiter ? "[," : "[ ") + "weight]'");
    if (fields_per_line == 0) {
      fields_per_line = k;
      fields_line = w.line;
    } else if (k != fields_per_line) {
      fail(w, std::to_string(k) + " fields, but line " + std::to_string(fields_line) + " has " +
                  std::to_string(fields_per_line) + " (every line needs a weight, or none)");
    }
    const Index i = parse_vertex(f[0], options.base, "source vertex", w);
    const Index j = parse_vertex(f[1], options.base, "target vertex", w);
    on_edge(i, j, k == 3 ? f[2] : std::string_view{}, w);
  }
}

// Reads the source again to name the two lines that give edge (r, c) (0-based, after
// mirroring). Error path only; a stream cannot be read again, so its message names the
// edge only.
[[noreturn]] void report_edge_duplicate(ByteSource& src, const ReadOptions& options, char delimiter, Index r,
                                        Index c) {
  long long first = 0;
  const std::string edge = "(" + std::to_string(r + options.base) + ", " + std::to_string(c + options.base) + ")";
  const std::string remedy = "; choose how to combine duplicates (ReadOptions::duplicates)";
  const std::string both = options.undirected ? " (counting both directions)" : "";
  if (!src.rewind())
    throw ParseError(src.path(), 0,
                     "duplicate edge " + edge + both + remedy + " (a stream cannot be read again to name its lines)");
  for_each_edge(src, options, delimiter, [&](Index i, Index j, std::string_view, const Where& w) {
    if ((i == r && j == c) || (options.undirected && i == c && j == r)) {
      if (first == 0) {
        first = w.line;
        return;
      }
      fail(w, "duplicate edge " + edge + both + ": already given on line " + std::to_string(first) + remedy);
    }
  });
  throw ParseError(src.path(), first, "duplicate edge " + edge);
}

template <class T>
SparseStorage read_edges_as(ByteSource& src, const ReadOptions& options, char delimiter) {
  const std::string& path = src.path();
  if (options.base != 0 && options.base != 1)
    throw InvalidValue("ReadOptions::base must be 0 or 1, not " + std::to_string(options.base));
  Coo<T> coo(1);
  CooChunk<T>& c = coo.front();
  Index n = 0;
  for_each_edge(src, options, delimiter, [&](Index i, Index j, std::string_view value, const Where& w) {
    Stored<T> v = Stored<T>(1);
    if (!value.empty()) {
      v = static_cast<Stored<T>>(parse_value<T>(value, false, w));
    }
    n = std::max(n, std::max(i, j) + 1);
    c.rows.push_back(static_cast<ColIndex>(i));
    c.cols.push_back(static_cast<ColIndex>(j));
    c.vals.push_back(v);
    if (options.undirected && i != j) {
      c.rows.push_back(static_cast<ColIndex>(j));
      c.cols.push_back(static_cast<ColIndex>(i));
      c.vals.push_back(v);
    }
  });
  check_dimension_limit(path, n, n, c.rows.size(), options.max_dimension);
  return assemble_csr<T>(n, n, coo, options.duplicates, options.drop_zeros,
                         [&](Index r, Index col) { report_edge_duplicate(src, options, delimiter, r, col); });
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace

SparseStorage read_edge_list_from(ByteSource& src, TypeId type, const ReadOptions& options, char delimiter) {
  if (is_16bit_float(type)) {
    SparseStorage s = read_edges_as<double>(src, options, delimiter);
    s.values = narrow_to_16bit(src.path(), s.values, s.nvals, type, [&](Index k) { return "entry " + std::to_string(k); });
    s.type = type;
    return s;
  }
  return visit_type(type, [&]<class T>() { return read_edges_as<T>(src, options, delimiter); });
}

SparseStorage read_edge_list(const std::string& path, TypeId type, const ReadOptions& options, char delimiter) {
  ByteSource src(path);
  return read_edge_list_from(src, type, options, delimiter);
}

// Format detection looks at this many (decompressed) bytes; the reader then consumes them.
constexpr std::size_t kDetectBytes = 64 * 1024;

Format detect_format_from(ByteSource& src, const std::string& shown_name) {
  const bool compressed = src.compressed();
  std::string_view head = src.peek(kDetectBytes);
  if (head.starts_with(kUtf8Bom)) head.remove_prefix(kUtf8Bom.size());
  if (head.starts_with("GEBLASSM")) return Format::binary;
  if (head.starts_with("%%")) return Format::matrix_market;
  // By name (".gz" stripped) when the content has no magic.
  std::string name = lower(std::filesystem::path(shown_name).filename().string());
  if (name.ends_with(".gz")) name.resize(name.size() - 3);
  const std::string ext = std::filesystem::path(name).extension().string();
  if (ext == ".mtx" || ext == ".mm") return Format::matrix_market;
  if (ext == ".geb" || ext == ".bin") return Format::binary;
  if (ext == ".csv") return Format::csv;
  if (ext == ".txt" || ext == ".edges" || ext == ".el" || ext == ".tsv" || ext == ".snap" || ext == ".edgelist")
    return Format::edge_list;
  // By content: the first line that is not a comment.
  std::string why;
  long long line_no = 0;
  std::size_t p = 0;
  const bool binary_bytes = head.find('\0') != std::string::npos;
  while (!binary_bytes && p < head.size()) {
    const std::size_t nl = head.find('\n', p);
    if (nl == std::string::npos && head.size() >= kDetectBytes - kUtf8Bom.size()) break;  // a line longer than we looked at
    std::string_view line(head.data() + p, (nl == std::string::npos ? head.size() : nl) - p);
    ++line_no;
    p = nl == std::string::npos ? head.size() : nl + 1;
    if (comment_or_blank(line)) continue;
    if (line.find('\r') != line.npos) {
      why = "line " + std::to_string(line_no) + " holds a carriage return: CR-only line ends";
      break;
    }
    std::string_view f[4];
    const bool has_comma = line.find(',') != line.npos;
    const int k = split_fields(line, has_comma ? ',' : 0, f);
    if (k >= 2 && k <= 3) {
      // Numbers, or a header row followed by numbers: either way an edge list.
      if (is_integer_token(f[0]) && is_integer_token(f[1])) return has_comma ? Format::csv : Format::edge_list;
      if (!why.empty()) break;
      why = "line " + std::to_string(line_no) + " " + quoted(line) + " is no edge";
      continue;  // a header, or one bad line: the next line decides (the reader names a bad one)
    }
    why = "line " + std::to_string(line_no) + " " + quoted(line) + " is not 'source target [weight]'";
    break;
  }
  if (binary_bytes) why = "it holds binary bytes without the GEBLASSM magic";
  if (why.empty()) why = head.empty() ? "it is empty" : "no edge line found";
  throw ParseError(shown_name, 0,
                   std::string("cannot tell the format") + (compressed ? " (after gzip decompression)" : "") +
                       ": tried geblas binary (no GEBLASSM magic), Matrix Market (no %%MatrixMarket banner), "
                       "whitespace and CSV edge lists (" + why + "); name the format with a geblas::io::Format");
}

SparseStorage read_graph(const std::string& path, TypeId type, const ReadOptions& options, Format format) {
  std::unique_ptr<ByteSource> src =
      path == "-" ? std::make_unique<ByteSource>(::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0), "<stdin>")
                  : std::make_unique<ByteSource>(path);
  const Format f = format == Format::automatic ? detect_format_from(*src, src->path()) : format;
  switch (f) {
    case Format::matrix_market: return read_matrix_market_from(*src, type, options);
    // The binary format's size is checked against the file before allocating, so its
    // memory is bounded by the file's size and needs no dimension limit.
    case Format::binary: return read_binary_from(*src, type);
    case Format::edge_list: return read_edge_list_from(*src, type, options, 0);
    case Format::csv: return read_edge_list_from(*src, type, options, ',');
    case Format::automatic: break;
  }
  throw InvalidValue("read_graph: no format");
}

}  // namespace detail

Format detect_format(const std::string& path) {
  detail::ByteSource src(path);
  return detail::detect_format_from(src, path);
}

const char* to_string(Format f) {
  switch (f) {
    case Format::automatic: return "auto";
    case Format::matrix_market: return "Matrix Market";
    case Format::binary: return "geblas binary";
    case Format::edge_list: return "edge list";
    case Format::csv: return "CSV edge list";
  }
  return "?";
}

}  // namespace geblas::io
