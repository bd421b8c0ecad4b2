// Fuzz target: the edge-list readers (src/io/edge_list.cpp) and format detection. The
// first byte picks the options (delimiter whitespace or comma, base 0 or 1, directed or
// undirected, a duplicate operator or none, a tight dimension limit or the automatic
// one); the rest is the file. A read must succeed or throw a geblas::Error; a successful
// read must be a valid square CSR (from_csr re-validates it) no larger than the limit
// allowed, with every stored value 1 when no line had a weight. read_graph (detection)
// on the same bytes must also succeed or throw a geblas::Error.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz_check.hpp"
#include "fuzz_input.hpp"
#include "geblas/io.hpp"

using namespace geblas;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const std::uint8_t opts = in.byte();
  const std::string bytes = in.rest();
  static const std::string path = "/tmp/geblas-fuzz-edges-" + std::to_string(getpid()) + ".txt";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  } else {
    return 0;
  }
  io::ReadOptions o;
  o.base = (opts >> 1) & 1;
  o.undirected = (opts >> 2) & 1;
  if ((opts >> 3) & 1) o.duplicates = binop::plus<double>{};
  // A limit of 1000 keeps each read small however large the ids are.
  o.max_dimension = 1000;
  const char delimiter = (opts & 1) ? ',' : 0;
  try {
    const auto A = io::read_edge_list<double>(path, o, delimiter);
    GEBLAS_FUZZ_CHECK(A.nrows() == A.ncols(), "not square: %lld x %lld", static_cast<long long>(A.nrows()),
                      static_cast<long long>(A.ncols()));
    GEBLAS_FUZZ_CHECK(A.nrows() <= 1000, "%lld rows beyond the limit 1000", static_cast<long long>(A.nrows()));
    try {
      (void)SparseMatrix<double>::from_csr(A.nrows(), A.ncols(), A.row_offsets(), A.col_indices(), A.values());
    } catch (const Error& e) {
      GEBLAS_FUZZ_CHECK(false, "the reader returned an invalid CSR: %s", e.what());
    }
  } catch (const Error&) {
  }
  try {
    (void)io::read_graph<float>(path, o);
  } catch (const Error&) {
  }
  std::remove(path.c_str());
  return 0;
}
