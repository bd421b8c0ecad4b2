// The Matrix Market banner and size line: what the file says it holds, checked before
// any entry is read (known keywords, consistent combinations, dimensions within
// geblas's limits, an entry count the dimensions allow).
#pragma once

#include <string>

#include "geblas/io.hpp"
#include "io/line_reader.hpp"

namespace geblas::io::detail {

enum class MmFormat { coordinate, array };
enum class MmField { real, integer, pattern };
enum class MmSymmetry { general, symmetric, skew_symmetric };

struct MmHeader {
  MatrixMarketHeader text;  // the keywords as written (lower case) and the sizes
  MmFormat format{};
  MmField field{};
  MmSymmetry symmetry{};
  Index nrows = 0, ncols = 0;
  Index entries = 0;  // entry lines that must follow (array: values in the stored triangle)
};

// Reads the banner, comments and size line. Throws ParseError (file, line, reason) for
// anything malformed and NotImplemented for a complex (or hermitian) file. A coordinate
// file may announce more entries than the matrix has places only when `entries_may_repeat`
// (the caller combines duplicates).
MmHeader read_mm_header(LineReader& lines, bool entries_may_repeat = false);

}  // namespace geblas::io::detail
