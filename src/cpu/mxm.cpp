// The CPU products behind mxm, for the built-in semirings: the kernel templates of
// include/geblas/detail/cpu/ instantiated once per supported (semiring, type) pair.
#include <cstdint>
#include <string>
#include <vector>

#include "cpu/kernels.hpp"
#include "cpu/mask_rows.hpp"
#include "geblas/detail/cpu/dense_products.hpp"
#include "geblas/detail/cpu/spgemm.hpp"
#include "geblas/detail/cpu/spmm.hpp"

namespace geblas::detail::cpu {
namespace {

// `x` itself when it is row-major, else a row-major copy held in `holder`.
const DenseStorage& row_major(const DenseStorage& x, DenseStorage& holder) {
  if (x.layout == Layout::row_major) return x;
  relayout_dense(holder, x, Layout::row_major);
  return holder;
}

}  // namespace

void mxm_sparse_dense(const SpmmArgs& args) {
  const SparseStorage& A = *args.A;
  DenseStorage b_holder, c_holder;
  const DenseStorage& B = row_major(*args.B, b_holder);
  DenseStorage& C = *args.C;
  const bool c_row_major = C.layout == Layout::row_major;
  if (!c_row_major) {
    if (args.accumulate) relayout_dense(c_holder, C, Layout::row_major);
    else c_holder = make_dense(C.nrows, C.ncols, Layout::row_major, C.type, Device::cpu());
  }
  DenseStorage& out = c_row_major ? C : c_holder;
  if (!args.variant.empty() && args.variant != "row_parallel")
    throw InvalidValue("mxm(sparse x dense) on cpu: unknown variant '" + std::string(args.variant) +
                       "' (the CPU backend has: row_parallel)");
  if (args.record) {
    args.record->variant = "row_parallel";
    args.record->reason = "N=" + std::to_string(B.ncols) + (args.accumulate ? ", fused accumulate" : "");
  }
  visit_type(A.type, [&]<class T>() {
    with_semiring<T>(args.semiring, [&]<class S>() {
      spmm_rows<S, T>(csr_view<T>(A), dense_view<T>(B), dense_view<T>(out), args.accumulate);
    });
  });
  if (!c_row_major) relayout_dense(C, c_holder, C.layout);
}

void mxm_sparse_sparse(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, SemiringId s,
                       const Options& o) {
  MaskRows mask(o.mask);
  const Index n = B.ncols;
  visit_type(A.type, [&]<class V>() {
    with_semiring<V>(s, [&]<class S>() {
      T = spgemm<S, V>(csr_view<V>(A), csr_view<V>(B), [&](Index i, std::vector<std::uint8_t>& flags) {
        if (mask.empty()) return false;
        mask.fill(i, flags.data(), n);
        return true;
      });
    });
  });
}

void mxm_dense_sparse(DenseStorage& T, const DenseStorage& A, const SparseStorage& B, SemiringId s) {
  visit_type(A.type, [&]<class V>() {
    with_semiring<V>(s, [&]<class S>() { dense_sparse<S, V>(dense_view<V>(A), csr_view<V>(B), dense_view<V>(T)); });
  });
}

void mxm_dense_dense(DenseStorage& T, const DenseStorage& A, const DenseStorage& B, SemiringId s) {
  visit_type(A.type, [&]<class V>() {
    with_semiring<V>(s, [&]<class S>() { dense_dense<S, V>(dense_view<V>(A), dense_view<V>(B), dense_view<V>(T)); });
  });
}

}  // namespace geblas::detail::cpu
