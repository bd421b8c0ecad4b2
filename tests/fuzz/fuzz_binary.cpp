// Fuzz target: geblas's binary matrix format (src/io/binary.cpp: versioned header,
// checksum). Two modes, chosen by the first byte:
//  - raw: the input itself is the file; reading must succeed with a valid CSR or throw
//    a geblas::Error;
//  - damage: a small matrix built from the input is written, then damaged as the input
//    says (bytes flipped, truncated or extended); reading the damaged file must throw
//    ParseError, or, when the damage left the bytes unchanged, give the matrix back.
//    A damaged file read without an error is a checksum or validation failure.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "fuzz_input.hpp"
#include "geblas/io.hpp"

using namespace geblas;

namespace {

const std::string& scratch_path() {
  static const std::string p = "/tmp/geblas-fuzz-bin-" + std::to_string(getpid()) + ".gbm";
  return p;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void write_all(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void raw_mode(fuzz::Input& in) {
  write_all(scratch_path(), in.rest());
  try {
    const auto A = io::read_binary<double>(scratch_path());
    try {
      (void)SparseMatrix<double>::from_csr(A.nrows(), A.ncols(), A.row_offsets(), A.col_indices(), A.values());
    } catch (const Error& e) {
      GEBLAS_FUZZ_CHECK(false, "read_binary returned an invalid CSR: %s", e.what());
    }
  } catch (const Error&) {
  }
}

void damage_mode(fuzz::Input& in) {
  const Index m = 1 + static_cast<Index>(in.below(40)), n = 1 + static_cast<Index>(in.below(40));
  std::vector<Tuple<double>> t;
  const std::size_t count = in.below(60);
  for (std::size_t k = 0; k < count; ++k)
    t.push_back({static_cast<Index>(in.below(static_cast<std::uint64_t>(m))),
                 static_cast<Index>(in.below(static_cast<std::uint64_t>(n))), static_cast<double>(in.below(100)) - 50});
  const auto A = SparseMatrix<double>::from_tuples(m, n, t, binop::plus<double>{});
  try {
    io::write_binary(scratch_path(), A);
  } catch (const NotImplemented&) {
    return;  // a tree whose io has no binary writer yet: only the raw mode applies
  }
  const std::string good = read_all(scratch_path());
  std::string bad = good;
  const int edits = 1 + static_cast<int>(in.below(4));
  for (int e = 0; e < edits && !bad.empty(); ++e) {
    switch (in.byte() % 4) {
      case 0: bad.resize(in.below(bad.size())); break;                           // truncate
      case 1: bad.push_back(static_cast<char>(in.byte())); break;                // extend
      default: bad[in.below(bad.size())] ^= static_cast<char>(1 + in.below(255));  // flip bits
    }
  }
  write_all(scratch_path(), bad);
  try {
    const auto B = io::read_binary<double>(scratch_path());
    GEBLAS_FUZZ_CHECK(bad == good, "a damaged file (%zu bytes, was %zu) was read without an error", bad.size(),
                      good.size());
    GEBLAS_FUZZ_CHECK(B.extract_tuples() == A.extract_tuples(), "an undamaged file read back differently");
  } catch (const ParseError&) {
    GEBLAS_FUZZ_CHECK(bad != good, "an undamaged file was refused");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  if (in.byte() & 1) raw_mode(in);
  else damage_mode(in);
  return 0;
}
