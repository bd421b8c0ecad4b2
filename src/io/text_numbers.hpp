// Parsing the tokens of a Matrix Market line: indices and values with std::from_chars,
// and the checked conversion of a value to the requested type (a value the type cannot
// hold is a ParseError, never a silent wrap or truncation). Header-only so that the
// per-entry path inlines into the readers' loops.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "geblas/error.hpp"
#include "geblas/types.hpp"

namespace geblas::io::detail {

// Where a token came from, for error messages.
struct Where {
  const std::string& path;
  long long line;
};

[[noreturn]] inline void fail(const Where& w, const std::string& reason) { throw ParseError(w.path, w.line, reason); }

// Bytes as a message may show them: printable ASCII and well-formed UTF-8 as they are,
// every other byte (NUL, control bytes, binary data) as \xNN, so that a message is never
// cut at a NUL nor sends raw bytes to a terminal.
inline std::string printable(std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;  // length of a well-formed UTF-8 sequence starting here (0: none)
    if (c >= 0x20 && c < 0x7f) len = 1;
    else if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) len = 3;
    else if (c >= 0xf0 && c <= 0xf4) len = 4;
    for (std::size_t k = 1; k < len; ++k)
      if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) len = 0;
    if (len) {
      out.append(s.substr(i, len));
      i += len;
      continue;
    }
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
    ++i;
  }
  return out;
}

// A token quoted for a message, cut short when it is long.
inline std::string quoted(std::string_view tok) {
  std::string out;
  out.reserve(48);
  out.push_back('\'');
  out.append(printable(tok.substr(0, 40)));
  if (tok.size() > 40) out.append("...");
  out.push_back('\'');
  return out;
}

// A UTF-8 byte-order mark: some editors write it at the start of a text file. The text
// readers skip it there (it is no data); anywhere else it is an ordinary byte.
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// A carriage return inside a line (the line reader drops one before '\n') means the
// file ends its lines with CR alone, so that the whole file reads as one line: said so,
// rather than reported as a line with too many fields.
inline void check_line_ends(std::string_view line, const Where& w) {
  if (line.find('\r') != line.npos)
    fail(w, "a carriage return inside the line: the file ends its lines with CR alone (classic Mac); convert "
            "them to LF, e.g. tr '\\r' '\\n'");
}

// Splits a line into blank-separated tokens, one at a time.
struct Tokens {
  const char* p;
  const char* e;
  explicit Tokens(std::string_view line) : p(line.data()), e(line.data() + line.size()) {}
  // The next token, or an empty view when the line has no more.
  std::string_view next() {
    while (p < e && is_blank(*p)) ++p;
    const char* b = p;
    while (p < e && !is_blank(*p)) ++p;
    return std::string_view(b, static_cast<std::size_t>(p - b));
  }
  bool done() {
    while (p < e && is_blank(*p)) ++p;
    return p == e;
  }
};

inline bool blank_line(std::string_view line) {
  for (char c : line)
    if (!is_blank(c)) return false;
  return true;
}

// Strips one leading '+', which Matrix Market writers may emit and from_chars refuses.
inline std::string_view strip_plus(std::string_view tok) {
  if (tok.size() > 1 && tok[0] == '+' && tok[1] != '-' && tok[1] != '+') tok.remove_prefix(1);
  return tok;
}

// A whole token as a 64-bit integer; false when it is not exactly an integer.
inline bool parse_int64(std::string_view tok, long long& out, bool& overflow) {
  tok = strip_plus(tok);
  const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), out);
  overflow = ec == std::errc::result_out_of_range && ptr == tok.data() + tok.size();
  return ec == std::errc() && ptr == tok.data() + tok.size() && !tok.empty();
}

// A 1-based index in [1, n], returned 0-based. `what` is "row index" or "column index".
inline Index parse_index(std::string_view tok, Index n, const char* what, const Where& w) {
  if (tok.empty()) fail(w, std::string("missing ") + what);
  long long v = 0;
  bool overflow = false;
  if (!parse_int64(tok, v, overflow)) {
    if (overflow) fail(w, std::string(what) + " " + quoted(tok) + " is out of range [1, " + std::to_string(n) + "]");
    fail(w, std::string(what) + " " + quoted(tok) + " is not an integer");
  }
  if (v < 1 || v > n)
    fail(w, std::string(what) + " " + std::to_string(v) + " is out of range [1, " + std::to_string(n) + "]");
  return static_cast<Index>(v - 1);
}

template <class T>
constexpr std::string_view type_name() {
  return to_string(type_id<T>);
}

// Whether the integer v is a value of T (floating types hold any int64, rounded).
template <class T>
bool int_fits(long long v) {
  if constexpr (std::is_same_v<T, bool>) return v == 0 || v == 1;
  else if constexpr (std::is_same_v<T, std::int32_t>) return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
  else return true;
}

template <class T>
T from_int(long long v, std::string_view tok, const Where& w) {
  if (!int_fits<T>(v)) {
    if constexpr (std::is_same_v<T, bool>) fail(w, "value " + quoted(tok) + " cannot be stored as bool (only 0 and 1 can)");
    fail(w, "value " + quoted(tok) + " is out of the range of " + std::string(type_name<T>()));
  }
  return static_cast<T>(v);
}

// A double that is a value of the integer (or bool) type T exactly.
template <class T>
T from_double_exact(double d, std::string_view tok, const Where& w) {
  const std::string tn(type_name<T>());
  if (!std::isfinite(d)) fail(w, "value " + quoted(tok) + " cannot be stored as " + tn);
  if (d != std::trunc(d)) fail(w, "value " + quoted(tok) + " is not an integer, cannot be stored as " + tn);
  if constexpr (std::is_same_v<T, bool>) {
    if (d != 0.0 && d != 1.0) fail(w, "value " + quoted(tok) + " cannot be stored as bool (only 0 and 1 can)");
    return d != 0.0;
  } else {
    // [-2^(b-1), 2^(b-1)): both bounds are exact doubles.
    const double lo = -std::ldexp(1.0, std::numeric_limits<T>::digits);
    if (!(d >= lo && d < -lo)) fail(w, "value " + quoted(tok) + " is out of the range of " + tn);
    return static_cast<T>(d);
  }
}

// A real-field token as floating T, rounded to nearest. "nan", "inf" and "infinity"
// (any case, signed) are accepted; a finite value beyond T's range is an error, while
// a value below its smallest subnormal rounds to zero (as any decimal rounds).
template <class T>
T parse_float(std::string_view tok, const Where& w) {
  tok = strip_plus(tok);
  T v{};
  const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ptr != tok.data() + tok.size() || tok.empty() || ec == std::errc::invalid_argument)
    fail(w, "value " + quoted(tok) + " is not a number");
  if (ec == std::errc::result_out_of_range) {
    // Tell overflow from underflow with strtod/strtof (the rare path, so the copy is fine).
    const std::string s(tok);
    char* endp = nullptr;
    const T r = std::is_same_v<T, float> ? static_cast<T>(std::strtof(s.c_str(), &endp)) : static_cast<T>(std::strtod(s.c_str(), &endp));
    if (std::isinf(r)) fail(w, "value " + quoted(tok) + " is out of the range of " + std::string(type_name<T>()));
    return r;
  }
  return v;
}

// One value token of a file whose field is `integer` (is_integer) or `real`, as T.
template <class T>
T parse_value(std::string_view tok, bool is_integer, const Where& w) {
  if (tok.empty()) fail(w, "missing value");
  long long iv = 0;
  bool overflow = false;
  if (parse_int64(tok, iv, overflow)) {
    if constexpr (std::is_floating_point_v<T>)
      if (iv == 0 && tok[0] == '-') return -T(0);  // "-0" keeps its sign, as a written -0.0 must
    return from_int<T>(iv, tok, w);
  }
  if (is_integer) {
    if (overflow) fail(w, "integer value " + quoted(tok) + " is out of the range of int64");
    fail(w, "value " + quoted(tok) + " is not an integer (the file's field is integer)");
  }
  if constexpr (std::is_floating_point_v<T>) {
    return parse_float<T>(tok, w);
  } else {
    return from_double_exact<T>(parse_float<double>(tok, w), tok, w);
  }
}

// -v for a skew-symmetric mirror, when T can hold it.
template <class T>
T negate_checked(T v, const Where& w) {
  if constexpr (std::is_same_v<T, bool>) {
    if (v) fail(w, "skew-symmetric value 1 has no negation in bool");
    return v;
  } else if constexpr (std::is_integral_v<T>) {
    if (v == std::numeric_limits<T>::min())
      fail(w, "skew-symmetric value " + std::to_string(v) + " has no negation in " + std::string(type_name<T>()));
    return static_cast<T>(-v);
  } else {
    return -v;
  }
}

}  // namespace geblas::io::detail
