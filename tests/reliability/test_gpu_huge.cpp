// Problems past 32-bit indexing on cuda:0: an SpMM with more than 2^31 stored entries
// (64-bit row offsets) and one whose dense operands hold more than 2^31 elements each.
// Both are built straight into device memory block by block, so the host never holds
// more than one block, and checked exactly (small integers) against a reference
// computed on the host for sampled rows, including the rows past the 2^31 boundary.
#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

const Device gpu = Device::cuda(0);

// Row i of C, copied from the device.
std::vector<float> row_of(const DenseMatrix<float>& C, Index i) {
  std::vector<float> out(static_cast<std::size_t>(C.ncols()));
  detail::copy_bytes(out.data(), Device::cpu(), C.storage().data.as<float>() + i * C.storage().ld, gpu,
                     out.size() * sizeof(float));
  return out;
}

std::vector<Index> sample_rows(Index nrows, std::initializer_list<Index> must, std::uint64_t seed) {
  std::vector<Index> rows(must);
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 200; ++k) rows.push_back(static_cast<Index>(rng() % static_cast<std::uint64_t>(nrows)));
  for (Index k = 0; k < 3; ++k) rows.push_back(nrows - 1 - k);
  return rows;
}

// The small-integer value of a dense operand's entry (r, c): exact in float sums.
float dense_value(Index r, Index c) { return static_cast<float>((r * 31 + c * 17) % 9 - 4); }

// Fills a row-major device matrix block by block from dense_value.
void fill_dense(DenseMatrix<float>& D) {
  const Index n = D.ncols(), block = 1 << 16;
  std::vector<float> host(static_cast<std::size_t>(block * n));
  for (Index r0 = 0; r0 < D.nrows(); r0 += block) {
    const Index rows = std::min(block, D.nrows() - r0);
    for (Index r = 0; r < rows; ++r)
      for (Index c = 0; c < n; ++c) host[static_cast<std::size_t>(r * n + c)] = dense_value(r0 + r, c);
    detail::copy_bytes(D.storage().data.as<float>() + r0 * n, gpu, host.data(), Device::cpu(),
                       static_cast<std::size_t>(rows * n) * sizeof(float));
  }
}

}  // namespace

TEST_CASE("SpMM with more than 2^31 stored entries", "[reliability][huge][gpu]") {
  // Rows come in blocks of S; row i = b * S + r holds d entries at columns k * S + (r + b) % S
  // (sorted, unique), all of value b % 7 + 1. Shifting a row by a whole block changes both
  // its columns and its value, so an offset error cannot go unnoticed.
  const Index S = 8192, d = 256, blocks = 1025;
  const Index nrows = S * blocks, ncols = S * d, nnz = nrows * d, n = 16;
  REQUIRE(nnz > (Index{1} << 31));
  detail::SparseStorage s;
  s.nrows = nrows;
  s.ncols = ncols;
  s.nvals = nnz;
  s.type = TypeId::float32;
  s.device = gpu;
  s.row_offsets = detail::RawBuffer(static_cast<std::size_t>(nrows + 1) * sizeof(Index), gpu);
  s.col_indices = detail::RawBuffer(static_cast<std::size_t>(nnz) * sizeof(ColIndex), gpu);
  s.values = detail::RawBuffer(static_cast<std::size_t>(nnz) * sizeof(float), gpu);
  {
    std::vector<Index> offsets(static_cast<std::size_t>(nrows + 1));
    for (Index i = 0; i <= nrows; ++i) offsets[static_cast<std::size_t>(i)] = i * d;
    detail::copy_bytes(s.row_offsets.data(), gpu, offsets.data(), Device::cpu(), s.row_offsets.bytes());
    std::vector<ColIndex> cols(static_cast<std::size_t>(S * d));
    std::vector<float> vals(static_cast<std::size_t>(S * d));
    for (Index b = 0; b < blocks; ++b) {
      for (Index r = 0; r < S; ++r)
        for (Index k = 0; k < d; ++k) cols[static_cast<std::size_t>(r * d + k)] = static_cast<ColIndex>(k * S + (r + b) % S);
      std::fill(vals.begin(), vals.end(), static_cast<float>(b % 7 + 1));
      const Index at = b * S * d;
      detail::copy_bytes(s.col_indices.as<ColIndex>() + at, gpu, cols.data(), Device::cpu(), cols.size() * sizeof(ColIndex));
      detail::copy_bytes(s.values.as<float>() + at, gpu, vals.data(), Device::cpu(), vals.size() * sizeof(float));
    }
  }
  const SparseMatrix<float> A(std::move(s));
  DenseMatrix<float> B(ncols, n, gpu);
  fill_dense(B);
  DenseMatrix<float> C(nrows, n, gpu);
  mxm(C, A, B, semiring::plus_times<float>{});
  INFO("variant " << last_dispatch().variant << " (" << last_dispatch().reason << ")");

  const Index boundary = (Index{1} << 31) / d;  // the first row whose entries start past 2^31
  Index checked = 0;
  for (Index i : sample_rows(nrows, {0, 1, S - 1, S, boundary - 1, boundary, boundary + 1}, 7)) {
    const Index b = i / S, r = i % S;
    const std::vector<float> got = row_of(C, i);
    for (Index j = 0; j < n; ++j) {
      double want = 0;
      for (Index k = 0; k < d; ++k) want += static_cast<double>(b % 7 + 1) * dense_value(k * S + (r + b) % S, j);
      INFO("row " << i << " col " << j);
      REQUIRE(got[static_cast<std::size_t>(j)] == static_cast<float>(want));
      ++checked;
    }
  }
  CHECK(checked > 3000);
}

TEST_CASE("SpMM with dense operands of more than 2^31 elements", "[reliability][huge][gpu]") {
  // B is K x N and C is M x N with K * N and M * N above 2^31; A has 4 entries per row.
  const Index K = Index{1} << 21, M = Index{1} << 21, n = 1040, per_row = 4;
  REQUIRE(K * n > (Index{1} << 31));
  REQUIRE(M * n > (Index{1} << 31));
  std::vector<Index> offsets(static_cast<std::size_t>(M + 1));
  std::vector<ColIndex> cols;
  std::vector<float> vals;
  cols.reserve(static_cast<std::size_t>(M * per_row));
  vals.reserve(static_cast<std::size_t>(M * per_row));
  auto columns_of = [&](Index i) {
    std::array<Index, per_row> c;
    for (Index k = 0; k < per_row; ++k) c[static_cast<std::size_t>(k)] = (i * 7 + k * (K / per_row)) % K;
    std::sort(c.begin(), c.end());
    return c;
  };
  for (Index i = 0; i < M; ++i) {
    offsets[static_cast<std::size_t>(i)] = i * per_row;
    for (Index c : columns_of(i)) {
      cols.push_back(static_cast<ColIndex>(c));
      vals.push_back(static_cast<float>(i % 3 + 1));
    }
  }
  offsets[static_cast<std::size_t>(M)] = M * per_row;
  const auto A = SparseMatrix<float>::from_csr(M, K, offsets, cols, vals, gpu);
  DenseMatrix<float> B(K, n, gpu);
  fill_dense(B);
  DenseMatrix<float> C(M, n, gpu);
  mxm(C, A, B, semiring::plus_times<float>{});
  INFO("variant " << last_dispatch().variant << " (" << last_dispatch().reason << ")");

  const Index boundary = (Index{1} << 31) / n;  // the first row of C past element 2^31
  for (Index i : sample_rows(M, {0, boundary - 1, boundary, boundary + 1}, 8)) {
    const std::vector<float> got = row_of(C, i);
    for (Index j = 0; j < n; ++j) {
      double want = 0;
      for (Index c : columns_of(i)) want += static_cast<double>(i % 3 + 1) * dense_value(c, j);
      INFO("row " << i << " col " << j);
      REQUIRE(got[static_cast<std::size_t>(j)] == static_cast<float>(want));
    }
  }
}
