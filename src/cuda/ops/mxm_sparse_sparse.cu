// Sparse x sparse products on the GPU, by three methods (hash, the general one, is in
// spgemm_hash.cu).
//  * masked_dot: C<M> = A (+).(x) B with M sparse and not complemented, computed only at
//    M's entries, each as the merge of row i of A with row j of B' (both sorted). This is
//    triangle counting's C<L> = L (+).(pair) L' and costs nothing for positions the mask
//    removes. The kept entries are compacted as select's are (kept_entries, common.cuh).
//    Its memory beyond A, B and M: B' (cached with B) and one value per entry of M.
//  * esc (expand, sort, compress): every product A(i,k) B(k,j) the mask allows is written
//    with its key i * n + j, the keys are radix-sorted (stable, so terms keep the k order
//    of the CPU), and each run of equal keys is folded with the semiring's add. Memory
//    grows with the number of products; it runs only when asked for (variant "esc").
// Under a sparse mask that is not complemented both masked_dot and hash (the mask a
// filter of its products) apply; MaskedMethodPolicy chooses between them.
// The semiring is chosen at run time (runtime_ops.cuh): one kernel per value type.
#include <cub/device/device_radix_sort.cuh>

#include <cstdio>
#include <string>

#include "core/derived_cache.hpp"
#include "core/trace.hpp"
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "cuda/ops/runtime_ops.cuh"
#include "cuda/ops/spgemm_hash.cuh"
#include "geblas/detail/nan_rule.hpp"

namespace geblas::detail::cuda::ops {
namespace {

// masked_dot or hash under a sparse mask M that is not complemented, by their estimated
// work: masked_dot merges A(i,:) with B(:,j) at each entry of M, about (mean row of A +
// mean column of B) steps each; hash makes every product of A B (its flops) and inserts
// the ones M allows. masked_dot runs when
//   nvals(M) x (nvals(A) / rows(A) + nvals(B) / cols(B)) <= dot_steps_per_product x flops.
// A product costs hash more than a merge step costs masked_dot (a binary search of the
// mask row, a hashed atomic in shared memory, the table's clear and sort against one
// compare of two sorted lists), hence a ratio above 1; at 2 the rule keeps masked_dot for
// triangle counting's C<L> = L L' on every graph (flops = sum over k of |L(:,k)|^2 >=
// nvals(L)^2 / n by Cauchy-Schwarz, and the left side is 2 nvals(L)^2 / n). 2 is that
// argument, not a measurement; bench_spgemm --device cuda --products masked with each
// --variant forced compares the two methods.
struct MaskedMethodPolicy {
  static constexpr double dot_steps_per_product = 2.0;
};

// The products of A B, flops: the sum over A's entries A(i,k) of the length of B's row k.
Index product_count(const SparseStorage& A, const SparseStorage& B, const Ctx& c) {
  const Index m = A.nrows;
  if (m == 0 || A.nvals == 0) return 0;
  RawBuffer buf = temp<Index>(m + 1, c.device);
  Index* f = buf.as<Index>();
  const Index* aro = A.row_offsets.as<Index>();
  const ColIndex* aci = A.col_indices.as<ColIndex>();
  const Index* bro = B.row_offsets.as<Index>();
  for_each(m, c.stream, [=] __device__(Index i) {
    Index t = 0;
    for (Index p = aro[i]; p < aro[i + 1]; ++p) t += bro[aci[p] + 1] - bro[aci[p]];
    f[i] = t;
  });
  return counts_to_offsets(f, m, c.stream);
}

struct MaskedChoice {
  bool dot = false;
  std::string reason;
};

MaskedChoice choose_masked_method(const SparseStorage& A, const SparseStorage& B, const SparseStorage& M,
                                  const Ctx& c) {
  const double merge = (A.nrows > 0 ? static_cast<double>(A.nvals) / static_cast<double>(A.nrows) : 0.0) +
                       (B.ncols > 0 ? static_cast<double>(B.nvals) / static_cast<double>(B.ncols) : 0.0);
  const Index flops = product_count(A, B, c);
  const double dot_work = static_cast<double>(M.nvals) * merge;
  // the relative 1e-12 keeps the equality case (every column of L as long: a regular
  // graph) on masked_dot despite the rounding of the means
  const bool dot = dot_work <= MaskedMethodPolicy::dot_steps_per_product * static_cast<double>(flops) * (1 + 1e-12);
  char buf[200];
  std::snprintf(buf, sizeof buf, "sparse mask: %lld entries x %.1f merge steps %s %.1f x %lld products%s",
                static_cast<long long>(M.nvals), merge, dot ? "<=" : ">", MaskedMethodPolicy::dot_steps_per_product,
                static_cast<long long>(flops), dot ? ": only its entries are computed" : ": the mask filters them");
  return {dot, buf};
}

template <class V>
void masked_dot(SparseStorage& T, const SparseStorage& A, const SparseStorage& Bt, const SparseStorage& M,
                bool structural, RtSemiring sr, const Ctx& c) {
  const Index m = A.nrows, K = M.nvals;
  const Index* mro = M.row_offsets.as<Index>();
  const ColIndex* mci = M.col_indices.as<ColIndex>();
  const void* mval = M.values.data();
  const TypeId mtype = M.type;
  const Index* aro = A.row_offsets.as<Index>();
  const ColIndex* aci = A.col_indices.as<ColIndex>();
  const V* av = A.values.as<V>();
  const Index* bro = Bt.row_offsets.as<Index>();
  const ColIndex* bci = Bt.col_indices.as<ColIndex>();
  const V* bv = Bt.values.as<V>();
  RawBuffer val_buf = temp<V>(K, c.device);
  V* tv = val_buf.as<V>();
  T = kept_entries<V>(M, tv, A.type, c, [=] __device__(Index e) {
    bool has = false;
    if (structural || value_nonzero(mtype, mval, e)) {
      const Index i = row_of_entry(mro, m, e), j = mci[e];
      Index pa = aro[i], pb = bro[j];
      const Index ea = aro[i + 1], eb = bro[j + 1];
      V acc{};
      while (pa < ea && pb < eb) {
        const ColIndex ka = aci[pa], kb = bci[pb];
        if (ka == kb) {
          const V x = binop_apply<V>(sr.mul, av[pa], bv[pb]);
          acc = has ? monoid_apply<V>(sr.add, acc, x) : first_term(sr.add, x);
          has = true;
          ++pa;
          ++pb;
        } else if (ka < kb) {
          ++pa;
        } else {
          ++pb;
        }
      }
      if (has) tv[e] = acc;
    }
    return has;
  });
}

template <class V>
void esc(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, const MaskView mask, RtSemiring sr,
         const Ctx& c) {
  const cudaStream_t s = c.stream;
  const Index m = A.nrows, n = B.ncols, KA = A.nvals;
  const Index* aro = A.row_offsets.as<Index>();
  const ColIndex* aci = A.col_indices.as<ColIndex>();
  const V* av = A.values.as<V>();
  const Index* bro = B.row_offsets.as<Index>();
  const ColIndex* bci = B.col_indices.as<ColIndex>();
  const V* bv = B.values.as<V>();
  // expand: the allowed products of each entry of A
  RawBuffer off_buf = temp<Index>(KA + 1, c.device);
  Index* off = off_buf.as<Index>();
  const bool masked = mask.kind != MaskView::none;
  for_each(KA, s, [=] __device__(Index p) {
    const Index k = aci[p];
    Index cnt = bro[k + 1] - bro[k];
    if (masked) {
      const Index i = row_of_entry(aro, m, p);
      cnt = 0;
      for (Index q = bro[k]; q < bro[k + 1]; ++q) cnt += mask.allows(i, bci[q]) ? 1 : 0;
    }
    off[p] = cnt;
  });
  const Index F = counts_to_offsets(off, KA, s);
  if (F == 0) {
    T = new_sparse(m, n, 0, A.type, c.device);
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(T.row_offsets.data(), 0, static_cast<std::size_t>(m + 1) * sizeof(Index), s));
    return;
  }
  RawBuffer keys = temp<std::uint64_t>(F, c.device), keys_sorted = temp<std::uint64_t>(F, c.device);
  RawBuffer prod = temp<V>(F, c.device);
  RawBuffer perm_in = temp<Index>(F, c.device), perm = temp<Index>(F, c.device);
  std::uint64_t* kk = keys.as<std::uint64_t>();
  V* pv = prod.as<V>();
  Index* pin = perm_in.as<Index>();
  const std::uint64_t nn = static_cast<std::uint64_t>(n);
  for_each(KA, s, [=] __device__(Index p) {
    const Index i = row_of_entry(aro, m, p);
    const Index k = aci[p];
    Index w = off[p];
    for (Index q = bro[k]; q < bro[k + 1]; ++q) {
      if (masked && !mask.allows(i, bci[q])) continue;
      kk[w] = static_cast<std::uint64_t>(i) * nn + static_cast<std::uint64_t>(bci[q]);
      pv[w] = binop_apply<V>(sr.mul, av[p], bv[q]);
      pin[w] = w;
      ++w;
    }
  });
  // sort
  const int end_bit = bits_for(static_cast<std::uint64_t>(m) * nn);
  std::size_t bytes = 0;
  GEBLAS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, kk, keys_sorted.as<std::uint64_t>(), pin,
                                                    perm.as<Index>(), F, 0, end_bit, s));
  RawBuffer tmp(bytes, c.device);
  GEBLAS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, kk, keys_sorted.as<std::uint64_t>(), pin,
                                                    perm.as<Index>(), F, 0, end_bit, s));
  // compress: heads of runs of equal keys
  const std::uint64_t* sk = keys_sorted.as<std::uint64_t>();
  const Index* pm = perm.as<Index>();
  RawBuffer head_buf = temp<Index>(F + 1, c.device);
  Index* head = head_buf.as<Index>();
  for_each(F, s, [=] __device__(Index p) { head[p] = (p == 0 || sk[p] != sk[p - 1]) ? 1 : 0; });
  const Index nvals = counts_to_offsets(head, F, s);
  RawBuffer start_buf = temp<Index>(nvals + 1, c.device);
  Index* start = start_buf.as<Index>();
  for_each(F, s, [=] __device__(Index p) {
    if (head[p + 1] != head[p]) start[head[p]] = p;
  });
  for_each(1, s, [=] __device__(Index) { start[nvals] = F; });
  SparseStorage out = new_sparse(m, n, nvals, A.type, c.device);
  Index* oro = out.row_offsets.as<Index>();
  ColIndex* oci = out.col_indices.as<ColIndex>();
  V* ov = out.values.as<V>();
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(oro, 0, static_cast<std::size_t>(m + 1) * sizeof(Index), s));
  for_each(nvals, s, [=] __device__(Index e) {
    const Index b = start[e], en = start[e + 1];
    V acc = first_term(sr.add, pv[pm[b]]);
    for (Index p = b + 1; p < en; ++p) acc = monoid_apply<V>(sr.add, acc, pv[pm[p]]);
    const std::uint64_t key = sk[b];
    oci[e] = static_cast<ColIndex>(key % nn);
    ov[e] = acc;
    atomicAdd(reinterpret_cast<unsigned long long*>(oro + key / nn), 1ull);
  });
  exclusive_scan(oro, m + 1, s);
  T = std::move(out);
}

}  // namespace

void mxm_sparse_sparse(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, SemiringId s,
                       const Options& o) {
  Ctx c(A.device);
  const RtSemiring sr = rt_semiring(s);
  const Mask& mask = o.mask;
  // masked_dot computes only the mask's entries, so it needs them listed: a sparse mask
  // that is not complemented, where MaskedMethodPolicy chooses it or hash. Otherwise hash
  // (spgemm_hash.cu), the mask as a filter of the products; esc only when forced.
  const bool dot_applies = mask.kind() == Mask::Kind::sparse && !mask.complemented();
  if (!o.variant.empty() && o.variant != "masked_dot" && o.variant != "hash" && o.variant != "esc")
    throw InvalidValue("mxm(sparse x sparse) on " + A.device.str() + ": unknown variant '" + std::string(o.variant) +
                       "' (the CUDA backend has: masked_dot, hash, esc)");
  if (o.variant == "masked_dot" && !dot_applies)
    throw InvalidValue("mxm(sparse x sparse) on " + A.device.str() +
                       ": variant 'masked_dot' needs a sparse mask that is not complemented");
  std::string method, reason;
  if (!o.variant.empty()) {
    method = std::string(o.variant);
    reason = "forced";
  } else if (dot_applies) {
    MaskedChoice choice = choose_masked_method(A, B, *mask.sparse(), c);
    method = choice.dot ? "masked_dot" : "hash";
    reason = std::move(choice.reason);
  } else {
    method = "hash";
    reason = mask.empty() ? "no mask" : "mask applied to the products";
  }
  DispatchRecord& rec = current_dispatch();
  rec.variant = method;
  rec.reason = reason;
  if (method == "masked_dot") {
    // B' from B's derived cache: repeated products with the same B (triangle counting
    // on one graph) transpose it once.
    const std::shared_ptr<const SparseStorage> Bt = cached_transpose(B);
    visit_type(A.type, [&]<class V>() { masked_dot<V>(T, A, *Bt, *mask.sparse(), mask.structural(), sr, c); });
  } else if (method == "hash") {
    hash_product(T, A, B, mask_view(mask), sr, c);
  } else {
    const MaskView mv = mask_view(mask);
    visit_type(A.type, [&]<class V>() { esc<V>(T, A, B, mv, sr, c); });
  }
}

}  // namespace geblas::detail::cuda::ops
