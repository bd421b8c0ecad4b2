// The CPU products behind mxm, for the built-in semirings: the kernel templates of
// include/geblas/detail/cpu/ instantiated once per supported (semiring, type) pair.
// Sparse x dense takes either layout of B and C itself (see spmm.hpp).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace.hpp"
#include "cpu/csr_builder.hpp"
#include "cpu/kernels.hpp"
#include "cpu/mask_rows.hpp"
#include "cpu/spgemm.hpp"
#include "cpu/spmm_plus.hpp"
#include "cpu/spmm_policy.hpp"
#include "geblas/detail/cpu/dense_products.hpp"
#include "geblas/detail/cpu/spmm.hpp"

namespace geblas::detail::cpu {
namespace {

// The generic kernel's rows() compiled for AVX-512F, for the built-in semirings whose
// tiles are vectors (floating plus, max, min). flatten inlines every call below rows()
// into this copy, so that all of it is compiled for the target and no shared inline
// function is emitted with AVX-512 code. Contraction of a * b + c into an FMA is off
// here, so that the results are bit for bit those of the baseline code (every column
// folds its terms in the same order; only the vector width differs).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GEBLAS_SPMM_AVX512_COPY 1
template <class S, class T>
[[gnu::target("avx512f"), gnu::optimize("fp-contract=off"), gnu::flatten]] void rows_avx512(
    const CsrView<T>& A, const T* B, Index ldb, const DenseView<T>& C, Index r0, Index r1, bool accumulate) {
  spmm_detail::rows<S, T, SpmmAvx512Policy>(A, B, ldb, C, r0, r1, accumulate);
}
#endif

// The generic kernel for S on T on this CPU (and GEBLAS_CPU_ISA, plus_isa()); `code`
// names it.
template <class S, class T>
spmm_detail::RowsFn<T> generic_rows([[maybe_unused]] CpuIsa isa, const char*& code) {
#ifdef GEBLAS_SPMM_AVX512_COPY
  if constexpr (spmm_detail::vector_fold<S, T, SpmmPolicy>()) {
    if (isa == CpuIsa::avx512) {
      code = "avx512";
      return &rows_avx512<S, T>;
    }
  }
#endif
  code = "baseline";
  return &spmm_detail::rows<S, T, SpmmPolicy>;
}

// The instruction set a forced variant names ("row_split_avx2", ...), or none for
// "row_split" / "" (the CPU's widest, see plus_isa()).
bool forced_isa(std::string_view variant, CpuIsa& isa) {
  if (variant.empty() || variant == "row_split") return false;
  if (variant == "row_split_sse2") isa = CpuIsa::sse2;
  else if (variant == "row_split_avx2") isa = CpuIsa::avx2;
  else if (variant == "row_split_avx512") isa = CpuIsa::avx512;
  else
    throw InvalidValue("mxm(sparse x dense) on cpu: unknown variant '" + std::string(variant) +
                       "' (the CPU backend has: row_split, and for plus_times / plus_second / plus_pair on "
                       "float and double with a row-major C: row_split_sse2, row_split_avx2, row_split_avx512)");
  if (!cpu_runs(isa))
    throw NotImplemented("mxm(sparse x dense) on cpu: variant '" + std::string(variant) +
                         "' needs an instruction set this CPU does not run");
  return true;
}

}  // namespace

void mxm_sparse_dense(const SpmmArgs& args) {
  const SparseStorage& A = *args.A;
  const DenseStorage& B = *args.B;
  DenseStorage& C = *args.C;
  CpuIsa isa = plus_isa();
  const bool forced = forced_isa(args.variant, isa);
  int parts = 0;
  const char* code = "baseline";
  visit_type(A.type, [&]<class T>() {
    // the plus family on a row-major C: the per-instruction-set kernels of spmm_plus.cpp
    const PlusRowsFn<T> plus = C.layout == Layout::row_major ? plus_rows_for<T>(args.semiring, isa) : nullptr;
    if (forced && !plus)
      throw InvalidValue("mxm(sparse x dense) on cpu: variant '" + std::string(args.variant) +
                         "' exists for plus_times / plus_second / plus_pair on float and double with a "
                         "row-major C only (here " + to_string(args.semiring) + " on " + std::string(to_string(A.type)) +
                         (C.layout == Layout::row_major ? "" : ", column-major C") + ")");
    if (plus) {
      code = args.semiring == SemiringId::plus_pair ? "count" : to_string(isa);
      parts = spmm_with<T>(csr_view<T>(A), dense_view<T>(B), dense_view<T>(C), args.accumulate, plus);
      return;
    }
    with_semiring<T>(args.semiring, [&]<class S>() {
      parts = spmm_with<T>(csr_view<T>(A), dense_view<T>(B), dense_view<T>(C), args.accumulate,
                           generic_rows<S, T>(isa, code));
    });
  });
  if (args.record) {
    args.record->variant = forced ? std::string(args.variant) : std::string("row_split");
    args.record->reason = "N=" + std::to_string(B.ncols) + ", " + std::to_string(parts) + " nnz-balanced row ranges, " +
                          code + " code" +
                          (B.layout == Layout::col_major ? ", B copied to row-major" : "") +
                          (args.accumulate ? ", fused accumulate" : "");
  }
}

void mxm_sparse_sparse(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, SemiringId s,
                       const Options& o) {
  T = spgemm_builtin(A, B, s, o.mask, o.variant, current_dispatch());
}

void mxm_dense_sparse(DenseStorage& T, const DenseStorage& A, const SparseStorage& B, SemiringId s) {
  visit_type(A.type, [&]<class V>() {
    with_semiring<V>(s, [&]<class S>() { dense_sparse<S, V>(dense_view<V>(A), csr_view<V>(B), dense_view<V>(T)); });
  });
  current_dispatch().variant = "row_scatter";
}

void mxm_dense_dense(DenseStorage& T, const DenseStorage& A, const DenseStorage& B, SemiringId s) {
  visit_type(A.type, [&]<class V>() {
    with_semiring<V>(s, [&]<class S>() { dense_dense<S, V>(dense_view<V>(A), dense_view<V>(B), dense_view<V>(T)); });
  });
  current_dispatch().variant = "dense";
}

void mxm_sampled(SparseStorage& T, const DenseStorage& A, const DenseStorage& B, SemiringId s, const Options& o,
                 const SampledOp& f) {
  const MaskRows mask(o.mask);
  const Index m = o.transpose_a ? A.ncols : A.nrows, n = o.transpose_b ? B.nrows : B.ncols;
  const Index kdim = o.transpose_a ? A.nrows : A.ncols;
  visit_type(A.type, [&]<class V>() {
    const DenseView<V> a = view_of(dense_view<V>(A), o.transpose_a), b = view_of(dense_view<V>(B), o.transpose_b);
    const V alpha = static_cast<V>(f.alpha);
    const SampledOp::Kind kind = f.kind;
    with_semiring<V>(s, [&]<class S>() {
      // no inner terms: no entry has a term, so the product has none
      const auto listed = [&](Index i) {
        thread_local std::vector<ColIndex> buf;
        return mask.listed(i, buf);
      };
      T = build_csr_rows<V>(
          m, n, A.type, [&](Index i) { return kdim == 0 ? Index{0} : static_cast<Index>(listed(i).size()); },
          [&](Index i, ColIndex* cols, V* vals) {
            if (kdim == 0) return;
            Index p = 0;
            for (const ColIndex j : listed(i)) {
              cols[p] = j;
              vals[p++] = SampledOp::apply<V>(kind, alpha, sampled_entry<S, V>(a, b, i, j));
            }
          });
    });
  });
  DispatchRecord& rec = current_dispatch();
  rec.variant = "sampled_dot";
  rec.reason = "the mask's " + std::to_string(T.nvals) + " entries, each a fold of " + std::to_string(kdim) + " terms" +
               sampled_op_note(f);
}

}  // namespace geblas::detail::cpu
