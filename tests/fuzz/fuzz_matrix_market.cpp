// Fuzz target: the Matrix Market reader (src/io), plain and gzip (chosen by the file's
// magic bytes, so an input starting 1f 8b exercises zlib). The input is written to a
// scratch file and read as sparse (double, int32, bool; with and without drop_zeros and
// a duplicate operator) and as dense. A read must succeed or throw a geblas::Error
// (ParseError, IoError, OutOfMemory, ...); a successful sparse read must pass from_csr's
// full CSR validation and agree with the header. Files whose header declares more than
// 2^22 rows or columns are skipped: CSR needs (rows + 1) offsets before the first entry,
// which is memory in proportion to the declared size, by design.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz_check.hpp"
#include "geblas/io.hpp"

using namespace geblas;

namespace {

const std::string& scratch_path() {
  static const std::string p = "/tmp/geblas-fuzz-mm-" + std::to_string(getpid()) + ".mtx";
  return p;
}

template <class T>
void read_sparse(const std::string& path, const io::MatrixMarketHeader& h, const io::ReadOptions& o) {
  try {
    const auto A = io::read_matrix_market<T>(path, o);
    GEBLAS_FUZZ_CHECK(A.nrows() == h.nrows && A.ncols() == h.ncols, "shape %lld x %lld, header %lld x %lld",
                      static_cast<long long>(A.nrows()), static_cast<long long>(A.ncols()),
                      static_cast<long long>(h.nrows), static_cast<long long>(h.ncols));
    // Re-validates every offset and column (throws, and so fails here, if the reader
    // produced a broken CSR).
    try {
      (void)SparseMatrix<T>::from_csr(A.nrows(), A.ncols(), A.row_offsets(), A.col_indices(), A.values());
    } catch (const Error& e) {
      GEBLAS_FUZZ_CHECK(false, "the reader returned an invalid CSR: %s", e.what());
    }
  } catch (const Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch_path();
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  io::MatrixMarketHeader h;
  try {
    h = io::read_matrix_market_header(path);
  } catch (const Error&) {
    return 0;  // must be refused by the full readers too, checked below only when cheap
  }
  constexpr Index limit = Index{1} << 22;
  if (h.nrows > limit || h.ncols > limit || (h.format == "array" && h.nrows * h.ncols > limit)) return 0;
  read_sparse<double>(path, h, {});
  read_sparse<std::int32_t>(path, h, {.duplicates = binop::plus<std::int32_t>{}, .drop_zeros = true});
  read_sparse<bool>(path, h, {.duplicates = binop::lor<bool>{}});
  try {
    const auto D = io::read_matrix_market_dense<float>(path);
    GEBLAS_FUZZ_CHECK(D.nrows() == h.nrows && D.ncols() == h.ncols, "dense shape differs from the header");
  } catch (const Error&) {
  }
  return 0;
}
