// Parsing and checking the Matrix Market banner and size line.
#include "io/mm_header.hpp"

#include <algorithm>
#include <cctype>

#include "io/text_numbers.hpp"

namespace geblas::io::detail {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// A size-line number: a non-negative integer not above `limit`.
Index size_number(std::string_view tok, const char* what, Index limit, const Where& w) {
  if (tok.empty()) fail(w, std::string("size line: missing ") + what);
  long long v = 0;
  bool overflow = false;
  if (!parse_int64(tok, v, overflow)) {
    if (overflow) fail(w, std::string("size line: ") + what + " " + quoted(tok) + " is too large");
    fail(w, std::string("size line: ") + what + " " + quoted(tok) + " is not an integer");
  }
  if (v < 0) fail(w, std::string("size line: ") + what + " " + std::to_string(v) + " is negative");
  if (v > limit)
    fail(w, std::string("size line: ") + what + " " + std::to_string(v) + " exceeds the limit " + std::to_string(limit));
  return v;
}

}  // namespace

MmHeader read_mm_header(LineReader& lines, bool entries_may_repeat) {
  const std::string& path = lines.source().path();
  MmHeader h;
  std::string_view line;
  if (!lines.next(line)) throw ParseError(path, 1, "empty file: missing the %%MatrixMarket banner");
  {
    const Where w{path, lines.line_number()};
    Tokens t(line);
    const std::string_view first = t.next();
    if (lower(first) != "%%matrixmarket")
      fail(w, "missing banner: the first line must start with %%MatrixMarket, found " + quoted(line));
    check_line_ends(line, w);
    const std::string object = lower(t.next());
    const std::string format = lower(t.next());
    const std::string field = lower(t.next());
    const std::string symmetry = lower(t.next());
    if (object.empty() || format.empty() || field.empty() || symmetry.empty())
      fail(w, "incomplete banner: expected '%%MatrixMarket matrix <format> <field> <symmetry>'");
    if (!t.done()) fail(w, "unexpected text after the banner's symmetry: " + quoted(t.next()));
    if (object != "matrix") fail(w, "unknown object " + quoted(object) + " (only 'matrix' is read)");
    if (format == "coordinate") h.format = MmFormat::coordinate;
    else if (format == "array") h.format = MmFormat::array;
    else fail(w, "unknown format " + quoted(format) + " (expected coordinate or array)");
    if (field == "real") h.field = MmField::real;
    else if (field == "integer") h.field = MmField::integer;
    else if (field == "pattern") h.field = MmField::pattern;
    else if (field == "complex")
      throw NotImplemented(path + ":" + std::to_string(w.line) + ": complex Matrix Market files are not supported");
    else fail(w, "unknown field " + quoted(field) + " (expected real, integer or pattern)");
    if (symmetry == "general") h.symmetry = MmSymmetry::general;
    else if (symmetry == "symmetric") h.symmetry = MmSymmetry::symmetric;
    else if (symmetry == "skew-symmetric") h.symmetry = MmSymmetry::skew_symmetric;
    else if (symmetry == "hermitian") fail(w, "symmetry 'hermitian' needs a complex field, the field is " + quoted(field));
    else fail(w, "unknown symmetry " + quoted(symmetry) + " (expected general, symmetric or skew-symmetric)");
    if (h.format == MmFormat::array && h.field == MmField::pattern) fail(w, "an array file cannot have field 'pattern'");
    if (h.symmetry == MmSymmetry::skew_symmetric && h.field == MmField::pattern)
      fail(w, "a pattern file cannot be skew-symmetric");
    h.text.format = format;
    h.text.field = field;
    h.text.symmetry = symmetry;
  }
  // Comments and blank lines, then the size line.
  for (;;) {
    if (!lines.next(line)) throw ParseError(path, lines.line_number() + 1, "missing size line: the file ends after its header");
    if (line.empty() || line[0] == '%' || blank_line(line)) continue;
    break;
  }
  const Where w{path, lines.line_number()};
  check_line_ends(line, w);
  Tokens t(line);
  h.nrows = size_number(t.next(), "number of rows", max_dimension, w);
  h.ncols = size_number(t.next(), "number of columns", max_dimension, w);
  const bool square_only = h.symmetry != MmSymmetry::general;
  if (square_only && h.nrows != h.ncols)
    fail(w, "a " + h.text.symmetry + " matrix must be square, the size line says " + std::to_string(h.nrows) + " x " +
                std::to_string(h.ncols));
  // How many entries the stored part can hold (both factors < 2^31, so no overflow).
  const Index n = h.nrows;
  Index capacity = h.nrows * h.ncols;
  if (h.symmetry == MmSymmetry::symmetric) capacity = n * (n + 1) / 2;
  if (h.symmetry == MmSymmetry::skew_symmetric) capacity = n * (n - 1) / 2;
  if (h.format == MmFormat::coordinate) {
    const std::string_view tok = t.next();
    if (tok.empty()) fail(w, "size line: missing number of entries (a coordinate file needs 'rows columns entries')");
    h.entries = size_number(tok, "number of entries", std::numeric_limits<Index>::max(), w);
    if (h.entries > capacity && !entries_may_repeat)
      fail(w, "size line: " + std::to_string(h.entries) + " entries cannot fit in a " + h.text.symmetry + " " +
                  std::to_string(h.nrows) + " x " + std::to_string(h.ncols) + " matrix (at most " +
                  std::to_string(capacity) + ")");
  } else {
    h.entries = capacity;
  }
  if (!t.done()) fail(w, "size line: unexpected text " + quoted(t.next()));
  h.text.nrows = h.nrows;
  h.text.ncols = h.ncols;
  h.text.stored_entries = h.entries;
  return h;
}

}  // namespace geblas::io::detail

namespace geblas::io {
MatrixMarketHeader read_matrix_market_header(const std::string& path) {
  detail::ByteSource src(path);
  detail::LineReader lines(src);
  return detail::read_mm_header(lines, true).text;
}
}  // namespace geblas::io
