// Sparse x dense product on the CPU, C = A (+).(x) B over any semiring: the kernel behind
// the built-in semirings (instantiated in libgeblas.so) and behind user-defined ones
// (instantiated in the caller's code). It follows the row-split SpMM idea: rows of A are
// cut into nnz-balanced contiguous ranges, one range at a time per thread; each row of C
// is computed in column tiles whose width is a compile-time constant, so that the tile's
// accumulators stay in vector registers while the row's entries stream past (rows of B
// may also be prefetched ahead; see the policy). B is read row-major (a col-major
// B is copied to row-major once: one pass over B, while the product reads B's rows
// nnz / nrows(B) times); C may be either layout.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "geblas/detail/cpu/fold.hpp"
#include "geblas/detail/views.hpp"
#include "geblas/semiring.hpp"

namespace geblas::detail::cpu {

// The tuning of the generic kernel: the code of user-defined semirings (instantiated in
// the caller's code, hence in this header) and the baseline code of the built-in ones.
// The built-ins' per-instruction-set copies have their own policies in libgeblas.so
// (src/cpu/spmm_policy.hpp). Measured on the 2-core AMD EPYC
// (Zen 4, 48 KiB L1d, 1 MiB L2 per core, baseline x86-64 build: SSE2) machine, float, on
// the uniform random graph of bench/cpu_spmm (262144 rows, 4.2M entries), N = 16, 64,
// 256, as thread CPU time of one thread with the policies interleaved run by run (the
// machine was shared, load 10-14; wall times were too noisy to rank variants).
struct SpmmPolicy {
  // Width in bytes of the column tile of C kept in registers (16 floats). 128 bytes was
  // 2.2x slower at N = 64 and 1.8x at N = 256 (589 vs 269 ms, 1131 vs 622 ms), and no
  // faster at N = 16; 256 was slower still.
  static constexpr std::size_t tile_bytes = 64;
  // The narrowest tile: one SSE register. Narrower tails of a row use a runtime-length
  // loop.
  static constexpr std::size_t min_tile_bytes = 16;
  // When the add is not plus (nor a floating max / min, below) its dependency chain may
  // bound the loop, so even and odd entries accumulate in two register sets. Measured when
  // max / min were such an add (a 6-instruction compare-and-blend): max_times N = 16 took
  // 148 ms with two sets and 350 ms with one, N = 256 954 vs 1865 ms. For plus, two sets
  // were slower (130 vs 50 ms at N = 16).
  static constexpr bool two_chains = true;
  // Floating max and min fold with one maxps / minps per vector (Fold<S>, Tile), a chain
  // as short as plus's, so they use one set of accumulators like plus: two sets took
  // 45.0 / 184 / 517 ms against 45.1 / 182 / 497 for one (max_times N = 16 / 64 / 256),
  // min_plus 608 against 541 at N = 256.
  static constexpr bool one_chain_minmax = true;
  // Whether floating plus also keeps its tile as vectors (Tile) rather than a T array
  // (which GCC left partly scalar): plus_times took 24 / 147 / 512 ms against 46 / 195 /
  // 727 ms at N = 16 / 64 / 256.
  static constexpr bool vector_plus = true;
  // Bytes per vector of a tile in the baseline build: one SSE register (a wider GCC
  // vector has its max / min conditional lowered to scalars there).
  static constexpr std::size_t vector_bytes = 16;
  // How many entries of A ahead the B row is prefetched (0: never). 12 and 24 ran within
  // 5% of none at every N (the hardware prefetcher follows the row), so it is off; kept
  // as a knob for machines where the B rows are farther away.
  static constexpr Index prefetch_distance = 0;
  // Row ranges per thread, handed out dynamically: more than one, so that a thread slowed
  // by the shared machine or by a dense part of the graph hands work to the other.
  static constexpr int parts_per_thread = 8;
  // A row's cost in entries of A, beyond its entries: writing the row of C. The ranges
  // balance entries + row_cost * rows.
  static constexpr Index row_cost = 1;
  // Below this many multiply-adds (nnz * N) the product runs on one thread: starting a
  // parallel region costs a few microseconds.
  static constexpr Index min_parallel_work = Index{1} << 15;
};

namespace spmm_detail {

// Writes w accumulated columns into row i of C at column j0 (either layout), combining
// with the old values by S::add when accumulating.
template <class S, class T>
inline void store(const DenseView<T>& C, Index i, Index j0, Index w, const T* acc, bool accumulate) {
  if (C.layout == Layout::row_major) {
    T* c = C.data + i * C.ld + j0;
    if (accumulate) {
      for (Index j = 0; j < w; ++j) c[j] = S::add(c[j], acc[j]);
    } else {
      for (Index j = 0; j < w; ++j) c[j] = acc[j];
    }
  } else {
    T* c = C.data + j0 * C.ld + i;
    if (accumulate) {
      for (Index j = 0; j < w; ++j) c[j * C.ld] = S::add(c[j * C.ld], acc[j]);
    } else {
      for (Index j = 0; j < w; ++j) c[j * C.ld] = acc[j];
    }
  }
}

// The W accumulators of one column tile, kept in registers (local, never escaping until
// get()). They start with fill() (the identity) or set() (the first term) and take terms
// through Fold<S>.
template <class S, class T, Index W, bool Vector, std::size_t VectorBytes>
struct Tile {
  T a[W];
  void fill(T x) {
    for (Index j = 0; j < W; ++j) a[j] = x;
  }
  // a = av (x) b
  void set(T av, const T* b) {
    for (Index j = 0; j < W; ++j) a[j] = S::mul(semiring_reads_a<S>() ? av : T(1), semiring_reads_b<S>() ? b[j] : T(1));
  }
  // a = a (+) av (x) b
  void fold(T av, const T* b) {
    for (Index j = 0; j < W; ++j)
      a[j] = Fold<S>::step(a[j], S::mul(semiring_reads_a<S>() ? av : T(1), semiring_reads_b<S>() ? b[j] : T(1)));
  }
  void fold(const Tile& o) {
    for (Index j = 0; j < W; ++j) a[j] = Fold<S>::step(a[j], o.a[j]);
  }
  void get(T* out) const {
    for (Index j = 0; j < W; ++j) out[j] = a[j];
  }
};

// Floating plus, max and min: the accumulators are 16-byte vectors (GCC vector
// extensions), so that each fold is one addps / maxps / minps per vector (for max / min,
// Fold's `term > acc ? term : acc`). Over a T array GCC does not vectorise the max / min
// conditional (it kept one maxss per column and entry) and left part of plus's adds
// scalar; a vector wider than the target's registers has its conditional lowered to
// scalars, hence 16 bytes. The products are computed in a T array first: GCC vectorises
// those (mulps / addps).
template <class S, class T, Index W, std::size_t VectorBytes>
struct Tile<S, T, W, true, VectorBytes> {
  static constexpr std::size_t vector_bytes = VectorBytes;
  static constexpr Index lanes = static_cast<Index>(vector_bytes / sizeof(T));
  static_assert(W % lanes == 0);
  typedef T V __attribute__((vector_size(vector_bytes)));
  V v[W / lanes];
  // acc = acc (+) t (by reference: a vector passed by value draws GCC's ABI warning in the
  // baseline build)
  static void step(V& acc, const V& t) {
    if constexpr (Fold<S>::is_max) acc = t > acc ? t : acc;
    else if constexpr (Fold<S>::is_min) acc = t < acc ? t : acc;
    else acc += t;
  }
  // the terms av (x) b, into t
  static void terms(T av, const T* b, T* t) {
    for (Index j = 0; j < W; ++j) t[j] = S::mul(semiring_reads_a<S>() ? av : T(1), semiring_reads_b<S>() ? b[j] : T(1));
  }
  void fill(T x) {
    for (auto& vv : v)
      for (Index j = 0; j < lanes; ++j) vv[j] = x;
  }
  void set(T av, const T* b) {
    T t[W];
    terms(av, b, t);
    std::memcpy(v, t, sizeof(v));
  }
  void fold(T av, const T* b) {
    T t[W];
    terms(av, b, t);
    for (Index q = 0; q < W / lanes; ++q) {
      V tv;
      std::memcpy(&tv, t + q * lanes, sizeof(V));
      step(v[q], tv);
    }
  }
  void fold(const Tile& o) {
    for (Index q = 0; q < W / lanes; ++q) step(v[q], o.v[q]);
  }
  void get(T* out) const { std::memcpy(out, v, sizeof(v)); }
};

// Whether tiles of W columns use the vector form above.
template <class S, class T, class Policy>
constexpr bool vector_fold() {
  return std::is_floating_point_v<T> && (Fold<S>::from_identity || (Fold<S>::is_plus && Policy::vector_plus));
}
template <class S, class T, Index W, class Policy>
constexpr bool vector_tile() {
  return vector_fold<S, T, Policy>() && (W * sizeof(T)) % 16 == 0;
}
// The tile's vector width: the policy's, or the whole tile where that is narrower.
template <class T, Index W, class Policy>
constexpr std::size_t tile_vector_bytes() {
  return std::min<std::size_t>(Policy::vector_bytes, W * sizeof(T));
}

// One tile of W columns of one row of C, from the row's entries [begin, end) (end >
// begin). The accumulators start as Fold<S> says (the identity for max / min, else the
// first term) and take each term through Fold<S>::step.
template <class S, class T, Index W, class Policy>
inline void row_tile(Index begin, Index end, Index nnz, const ColIndex* cols, const T* vals, const T* B,
                     Index ldb, const DenseView<T>& C, Index i, Index j0, bool accumulate) {
  using F = Fold<S>;
  constexpr bool reads_a = semiring_reads_a<S>();
  constexpr bool reads_b = semiring_reads_b<S>();
  // Two sets of accumulators (even and odd entries), combined at the end, halve the add's
  // dependency chain where it is long (see the policy). The monoid is associative and
  // commutative.
  constexpr bool two_chains = Policy::two_chains && !F::is_plus && !(F::from_identity && Policy::one_chain_minmax);
  Tile<S, T, W, vector_tile<S, T, W, Policy>(), tile_vector_bytes<T, W, Policy>()> acc, acc2;
  const T* bj = B + j0;
  auto prefetch = [&](Index k) {
    if constexpr (reads_b && Policy::prefetch_distance > 0) {
      const Index kp = k + Policy::prefetch_distance;
      if (kp < nnz) {
        const char* p = reinterpret_cast<const char*>(bj + static_cast<Index>(cols[kp]) * ldb);
        for (std::size_t off = 0; off < W * sizeof(T); off += 64) __builtin_prefetch(p + off, 0, 3);
      }
    }
  };
  auto a_of = [&](Index k) { return reads_a ? vals[k] : T(1); };
  auto b_of = [&](Index k) { return bj + static_cast<Index>(cols[k]) * ldb; };
  // the tile starts as the identity, or as term k
  auto start = [&](auto& t, Index k) {
    if constexpr (F::from_identity) t.fill(S::identity());
    else t.set(a_of(k), b_of(k));
  };
  constexpr Index started = F::from_identity ? 0 : 1;  // entries the start consumed
  start(acc, begin);
  Index k = begin + started;
  if constexpr (two_chains) {
    if (k + started < end) {
      start(acc2, k);
      k += started;
      for (; k + 1 < end; k += 2) {
        prefetch(k);
        prefetch(k + 1);
        acc.fold(a_of(k), b_of(k));
        acc2.fold(a_of(k + 1), b_of(k + 1));
      }
      acc.fold(acc2);
    }
  }
  for (; k < end; ++k) {
    prefetch(k);
    acc.fold(a_of(k), b_of(k));
  }
  T out[W];
  acc.get(out);
  store<S, T>(C, i, j0, W, out, accumulate);
}

// The same for a runtime width w < W (a row's last few columns).
template <class S, class T>
inline void row_tail(Index begin, Index end, const ColIndex* cols, const T* vals, const T* B, Index ldb,
                     Index j0, Index w, T* acc) {
  using F = Fold<S>;
  constexpr bool reads_a = semiring_reads_a<S>();
  constexpr bool reads_b = semiring_reads_b<S>();
  const T* bj = B + j0;
  Index k = begin;
  if constexpr (F::from_identity) {
    for (Index j = 0; j < w; ++j) acc[j] = S::identity();
  } else {
    const T av = reads_a ? vals[begin] : T(1);
    const T* b = bj + static_cast<Index>(cols[begin]) * ldb;
    for (Index j = 0; j < w; ++j) acc[j] = S::mul(av, reads_b ? b[j] : T(1));
    ++k;
  }
  for (; k < end; ++k) {
    const T av = reads_a ? vals[k] : T(1);
    const T* b = bj + static_cast<Index>(cols[k]) * ldb;
    for (Index j = 0; j < w; ++j) acc[j] = F::step(acc[j], S::mul(av, reads_b ? b[j] : T(1)));
  }
}

// Columns [j0, n) of row i: tiles of W while they fit, then W/2, W/4, ... down to the
// narrowest tile, then the runtime-width tail.
template <class S, class T, Index W, class Policy>
inline void row_columns(const CsrView<T>& A, const T* B, Index ldb, const DenseView<T>& C, Index i,
                        Index begin, Index end, Index j0, Index n, bool accumulate) {
  constexpr Index min_w = std::max<Index>(1, static_cast<Index>(Policy::min_tile_bytes / sizeof(T)));
  while (n - j0 >= W) {
    row_tile<S, T, W, Policy>(begin, end, A.nvals, A.col_indices, A.values, B, ldb, C, i, j0, accumulate);
    j0 += W;
    if constexpr (W < static_cast<Index>(Policy::tile_bytes / sizeof(T))) break;  // halves: one each
  }
  if (j0 == n) return;
  if constexpr (W / 2 >= min_w) {
    row_columns<S, T, W / 2, Policy>(A, B, ldb, C, i, begin, end, j0, n, accumulate);
  } else {
    T acc[min_w];
    row_tail<S, T>(begin, end, A.col_indices, A.values, B, ldb, j0, n - j0, acc);
    store<S, T>(C, i, j0, n - j0, acc, accumulate);
  }
}

// Rows [r0, r1) of C.
template <class S, class T, class Policy>
void rows(const CsrView<T>& A, const T* B, Index ldb, const DenseView<T>& C, Index r0, Index r1,
          bool accumulate) {
  constexpr Index W = std::max<Index>(1, static_cast<Index>(Policy::tile_bytes / sizeof(T)));
  const Index n = C.ncols;
  const T identity = S::identity();
  for (Index i = r0; i < r1; ++i) {
    const Index begin = A.row_offsets[i], end = A.row_offsets[i + 1];
    if (begin == end) {
      if (!accumulate) {
        if (C.layout == Layout::row_major) std::fill(C.data + i * C.ld, C.data + i * C.ld + n, identity);
        else for (Index j = 0; j < n; ++j) C.data[j * C.ld + i] = identity;
      }
      continue;
    }
    row_columns<S, T, W, Policy>(A, B, ldb, C, i, begin, end, 0, n, accumulate);
  }
}

template <class T>
using RowsFn = void (*)(const CsrView<T>&, const T*, Index, const DenseView<T>&, Index, Index, bool);

// Row boundaries of `parts` contiguous ranges of about equal cost (entries + row_cost
// per row): splits[p] is the first row of range p, splits[parts] = nrows.
template <class Policy>
std::vector<Index> balanced_splits(const Index* row_offsets, Index nrows, int parts) {
  std::vector<Index> splits(static_cast<std::size_t>(parts) + 1, nrows);
  splits[0] = 0;
  const Index total = row_offsets[nrows] + Policy::row_cost * nrows;
  for (int p = 1; p < parts; ++p) {
    const Index target = total / parts * p + (total % parts) * p / parts;
    // first row i with cost(i) = row_offsets[i] + row_cost * i >= target
    Index lo = splits[static_cast<std::size_t>(p) - 1], hi = nrows;
    while (lo < hi) {
      const Index mid = lo + (hi - lo) / 2;
      if (row_offsets[mid] + Policy::row_cost * mid < target) lo = mid + 1;
      else hi = mid;
    }
    splits[static_cast<std::size_t>(p)] = lo;
  }
  return splits;
}

// B as row-major: B itself, or a copy in `holder`.
template <class T, class Policy>
const T* row_major_b(const DenseView<T>& B, Index& ldb, std::unique_ptr<T[]>& holder) {
  if (B.layout == Layout::row_major) {
    ldb = B.ld;
    return B.data;
  }
  const Index k = B.nrows, n = B.ncols;
  holder.reset(new T[static_cast<std::size_t>(std::max<Index>(k * n, 1))]);
  T* out = holder.get();
  constexpr Index block = 32;  // a block of 32 x 32 entries stays in L1 while it turns
#pragma omp parallel for schedule(static) if (k * n >= Policy::min_parallel_work)
  for (Index r0 = 0; r0 < k; r0 += block)
    for (Index c0 = 0; c0 < n; c0 += block)
      for (Index c = c0; c < std::min(c0 + block, n); ++c)
        for (Index r = r0; r < std::min(r0 + block, k); ++r) out[r * n + c] = B.data[c * B.ld + r];
  ldb = n;
  return out;
}

}  // namespace spmm_detail

// The driver: B made row-major, the rows of A cut into nnz-balanced ranges, and
// run_rows called on each range, in parallel where the product is large enough.
// Returns the number of row ranges used.
template <class T, class Policy = SpmmPolicy>
int spmm_with(const CsrView<T>& A, const DenseView<T>& B, const DenseView<T>& C, bool accumulate,
              spmm_detail::RowsFn<T> run_rows) {
  const Index m = A.nrows, n = C.ncols;
  if (m == 0 || n == 0) return 0;
  Index ldb = 0;
  std::unique_ptr<T[]> b_holder;
  const T* b = spmm_detail::row_major_b<T, Policy>(B, ldb, b_holder);
  int threads = 1;
#ifdef _OPENMP
  if (A.nvals * n >= Policy::min_parallel_work) threads = omp_get_max_threads();
#endif
  const int parts = threads > 1 ? threads * Policy::parts_per_thread : 1;
  if (parts == 1) {
    run_rows(A, b, ldb, C, 0, m, accumulate);
    return 1;
  }
  const std::vector<Index> splits = spmm_detail::balanced_splits<Policy>(A.row_offsets, m, parts);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int p = 0; p < parts; ++p)
    run_rows(A, b, ldb, C, splits[static_cast<std::size_t>(p)],
                                    splits[static_cast<std::size_t>(p) + 1], accumulate);
  return parts;
}

// C = A (+).(x) B; a row of A with no entries gives the identity. With `accumulate`,
// rows with entries are combined into C with S::add instead (C = C (+) T; rows without
// entries keep C): the fused accum = add case. Returns the number of row ranges used;
// `isa` names the code that ran. This is the code of user-defined semirings (compiled in
// the caller's code for its baseline target); the built-in semirings also have copies per
// instruction set in libgeblas.so (src/cpu/mxm.cpp, src/cpu/spmm_plus.cpp).
template <class S, class T, class Policy = SpmmPolicy>
int spmm(const CsrView<T>& A, const DenseView<T>& B, const DenseView<T>& C, bool accumulate,
         const char** isa = nullptr) {
  if (isa) *isa = "baseline";
  return spmm_with<T, Policy>(A, B, C, accumulate, &spmm_detail::rows<S, T, Policy>);
}

}  // namespace geblas::detail::cpu
