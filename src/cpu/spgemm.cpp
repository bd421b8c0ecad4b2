// Sparse x sparse on the CPU for the built-in semirings, over the rows of A:
//  1. work: each row's upper bound of products u(i) = sum of |B(k,:)| over A(i,k), which
//     bins the rows into chunks of about equal work, scheduled dynamically over threads;
//  2. the rows, in one of two ways:
//     - one pass, when the work is a small share of memory: each chunk is computed once
//       into a buffer of its bound (a row has at most min(u(i), ncols) entries; untouched
//       capacity costs address space only), then C is allocated at its exact size and
//       the chunks are copied into it;
//     - two passes otherwise: a symbolic pass counts each row's entries (with the mask
//       applied), C is allocated once at its exact size (a size that does not fit is
//       OutOfMemory here), and the numeric pass computes each row into its place.
//     Columns come out sorted either way (a row of many entries by a radix sort).
// A row accumulates in one of four ways, chosen from u(i) (as SuiteSparse's saxpy3
// chooses between its Gustavson and hash tasks, here per row):
//  - esc: a row of a few products is expanded into a small array, sorted by column and
//    compressed (the per-row ESC of GPU SpGEMM);
//  - dense: an array over C's columns with a per-row stamp (never cleared between rows),
//    when u(i) is a large enough share of ncols that the array's cache misses pay;
//  - hash: an open-addressing table of at least twice the row's bound, for the rest;
//  - dot: under a sparse, non-complemented mask, A(i,:) is scattered into an array over
//    the inner dimension and each allowed C(i,j) is the dot product with column j of B
//    (a row of B's cached transpose), when that walks fewer entries than the product.
// A sparse mask is a filter: allowed (or, complemented, blocked) columns are marked in
// the accumulator first, and products outside the mask are dropped before any arithmetic.
//
// Memory: the inputs, C itself (twice while a one-pass product is copied into it, which
// runs only when its work is at most 1/8 of physical memory in C's entries), each row's
// bound (8 bytes a row of A), B's cached transpose when the dot method may run (kept with
// B like any transpose geblas derives; none when B is A's own cached transpose, whose
// transpose is A), and per thread at most (ncols + inner) * (4 + sizeof(T)) bytes of dense arrays plus a
// hash table of at most 4 * ncols slots of (5 + sizeof(T)) bytes, a mask row of ncols
// indices, an esc row's products (8 + sizeof(T) bytes each) and a radix sort's second
// buffer (4 bytes an entry of the longest row sorted; each allocated only when a row
// needs it).
#include "cpu/spgemm.hpp"

#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/derived_cache.hpp"
#include "core/with_semiring.hpp"
#include "cpu/mask_rows.hpp"
#include "cpu/parallel.hpp"
#include "geblas/detail/nan_rule.hpp"
#include "geblas/detail/views.hpp"

namespace geblas::detail::cpu {
namespace {

// The tuning constants. Only dot_ratio was measured (bench_spgemm --variant, below); the
// others are first choices, not yet swept: forcing dense on luxembourg_osm and wiki-Vote
// was within 10% of the per-row choice, so the crossover is not sharp there.
struct SpgemmPolicy {
  // A row uses the dense accumulator when u(i) * dense_ratio >= ncols (SuiteSparse's
  // saxpy3 makes the same kind of cut between its Gustavson and hash tasks); below it the
  // hash table's slots stay in cache.
  static constexpr Index dense_ratio = 16;
  // A row under a sparse mask uses dot products when their walk (|A(i,:)| plus the
  // entries of the allowed columns of B visited) is below u(i) * dot_ratio: a step of the
  // walk is a sequential read and one probe of a dense array, a product of Gustavson's a
  // read of another row of B and a hash probe. Forcing dot against hash on bcsstk16,
  // ca-CondMat and email-Enron (C<A> = A*A', every row's walk near or above u(i)) made
  // dot 6-9x faster.
  static constexpr Index dot_ratio = 4;
  // Chunks of rows per thread for the dynamic schedule (not swept): enough that one hub
  // row does not leave the other thread idle, few enough that a chunk amortises its
  // scheduling.
  static constexpr Index chunks_per_thread = 32;
  // Total work (products + entries of A) below which the product runs on one thread (not
  // swept; the order of ParallelPolicy's thresholds, so that small products never fork).
  static constexpr Index min_parallel_work = Index{1} << 16;
  // The product runs in one pass (each chunk into a buffer of its bound, then copied
  // into C) when its work, in entries of C, is at most this share of physical memory:
  // the buffers' touched pages are about |C| again, a second C while it is assembled.
  static constexpr std::size_t one_pass_memory_share = 8;
  // A row of at most this many products (and no dot products) is expanded, sorted and
  // compressed in a small array: an insertion sort of a few keys costs less than clearing,
  // probing and then sorting a hash table, which is most of the time on road networks and
  // meshes (two to eight products a row).
  static constexpr Index esc_max_bound = 32;
  // Smallest hash table (slots).
  static constexpr Index min_hash_slots = 16;
  // A row of at least this many entries is sorted by radix (8-bit digits over the bits
  // of its column range) rather than by std::sort, whose compares were the largest part
  // of the plain products with rows of thousands of entries (perf on as-caida, 2-core
  // VM); the cut is an estimate, not swept: from about 64 keys, log2(count) compares a key
  // cost more than two or three passes of a histogram and a scatter.
  static constexpr Index radix_min_count = 64;
  // A dense row lists its entries by a scan of its column range when the range is at
  // most this many times its entries, else by sorting them (an estimate, not swept: a
  // scan step is one sequential stamp compare, a radix-sorted entry a few scattered
  // writes a pass).
  static constexpr Index dense_scan_ratio = 8;
};

enum class Method : std::uint8_t { dense, hash, dot, esc };
enum class Forced : std::uint8_t { none, dense, hash, dot, esc };
// How the mask reaches a row: not at all, as a list of allowed columns (a sparse mask),
// as a list of blocked ones (its complement), or as ncols flags (dense and vector masks).
enum class MaskMode : std::uint8_t { none, allow, block, flags };

Index saturating_add(Index a, Index b) {
  Index r;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<Index>::max() / 2 : r;
}

// Throws OutOfMemory when `entries` entries of C (`bytes_each` bytes each) exceed the
// host's physical memory.
std::size_t physical_bytes() {
  static const std::size_t physical = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : SIZE_MAX;
  }();
  return physical;
}

void check_fits(Index entries, std::size_t bytes_each, const char* how) {
  const std::size_t physical = physical_bytes();
  const std::size_t bytes = checked_bytes(entries, 1, bytes_each, "mxm(sparse x sparse) on cpu: C");
  if (bytes > physical)
    throw OutOfMemory("mxm(sparse x sparse) on cpu: C has " + std::string(how) + " " + std::to_string(entries) +
                          " entries (" + std::to_string(bytes) + " bytes), more than the " + std::to_string(physical) +
                          " bytes of physical memory",
                      bytes);
}

// Asks for transparent huge pages on [p, p + bytes) before its first touch, for C's
// arrays, which the product writes whole: a fault per 4 KiB page was a large part of the
// plain products of tens of millions of entries (perf, 2-core VM). Only the 2 MiB-aligned
// interior is advised, so a huge page never reaches outside the buffer. (The chunks'
// buffers are not advised: they are touched only up to their entries, and a huge page
// would make resident up to 2 MiB past that per buffer.)
void prefer_huge_pages(void* p, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr std::size_t huge = std::size_t{1} << 21;
  // offsets from p (pointer arithmetic, no integer made into a pointer)
  const std::size_t misalign = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(p) % huge);
  const std::size_t lead = misalign == 0 ? 0 : huge - misalign;
  if (bytes <= lead) return;
  const std::size_t length = (bytes - lead) / huge * huge;
  if (length > 0) madvise(static_cast<char*>(p) + lead, length, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// The entries one dot product A(i,:) . B(:,j) visits: B's column walked against A's row
// scattered, or, for a column much longer than the row, the row's entries searched for
// in the column (binary search, about log2 of its length each).
inline bool search_column(Index row_len, Index col_len) {
  return row_len * static_cast<Index>(std::bit_width(static_cast<std::uint64_t>(col_len)) + 1) < col_len;
}
inline Index dot_walk(Index row_len, Index col_len) {
  return search_column(row_len, col_len) ? row_len * static_cast<Index>(std::bit_width(static_cast<std::uint64_t>(col_len)) + 1)
                                         : col_len;
}

Index hash_slots(Index bound, Index ncols) {
  const Index want = 2 * std::min(bound, ncols);
  Index slots = SpgemmPolicy::min_hash_slots;
  while (slots < want) slots *= 2;
  return slots;
}

// Sorts cols[0, count) (distinct columns, each in [lo, hi]) ascending, through `tmp`.
void sort_columns(ColIndex* cols, Index count, ColIndex lo, ColIndex hi, std::vector<ColIndex>& tmp) {
  if (count < SpgemmPolicy::radix_min_count) {
    std::sort(cols, cols + count);
    return;
  }
  const auto range = static_cast<std::uint32_t>(hi - lo);
  const int passes = (std::bit_width(range) + 7) / 8;
  std::uint32_t hist[4][256] = {};
  for (Index q = 0; q < count; ++q) {
    const auto v = static_cast<std::uint32_t>(cols[q] - lo);
    for (int d = 0; d < passes; ++d) ++hist[d][(v >> (8 * d)) & 255u];
  }
  if (static_cast<Index>(tmp.size()) < count) tmp.resize(static_cast<std::size_t>(count));
  ColIndex* src = cols;
  ColIndex* dst = tmp.data();
  for (int d = 0; d < passes; ++d) {
    std::uint32_t* h = hist[d];
    std::uint32_t sum = 0;
    for (int b = 0; b < 256; ++b) {
      const std::uint32_t c = h[b];
      h[b] = sum;
      sum += c;
    }
    for (Index q = 0; q < count; ++q) {
      const ColIndex j = src[q];
      dst[h[(static_cast<std::uint32_t>(j - lo) >> (8 * d)) & 255u]++] = j;
    }
    std::swap(src, dst);
  }
  if (src != cols) std::copy_n(src, count, cols);
}

inline std::uint32_t hash_of(ColIndex j, int shift) {
  return (static_cast<std::uint32_t>(j) * 2654435761u) >> shift;
}

// The mask as the kernel reads it.
class MaskSource {
 public:
  MaskSource(const Mask& mask, Index ncols) : rows_(mask), ncols_(ncols) {
    if (mask.empty()) mode = MaskMode::none;
    else if (mask.kind() == Mask::Kind::sparse) mode = mask.complemented() ? MaskMode::block : MaskMode::allow;
    else mode = MaskMode::flags;
    if (mode == MaskMode::allow || mode == MaskMode::block) {
      const SparseStorage& m = *mask.sparse();
      // a value mask without stored zeros lists what its structure lists: its rows are
      // then read in place, not filtered into a copy value by value
      if (mask.structural() || *derived<bool>(m, values_nonzero_key, [&] { return values_nonzero(m); })) {
        ro_ = m.row_offsets.as<Index>();
        ci_ = m.col_indices.as<ColIndex>();
      }
    }
  }
  MaskMode mode = MaskMode::none;

  // allow / block: row i's listed columns (see MaskRows::listed).
  std::span<const ColIndex> list(Index i, std::vector<ColIndex>& buf) const {
    if (ci_) return {ci_ + ro_[i], static_cast<std::size_t>(ro_[i + 1] - ro_[i])};
    return rows_.listed(i, buf);
  }
  void flags(Index i, std::vector<std::uint8_t>& f) const {
    if (f.empty()) f.resize(static_cast<std::size_t>(ncols_));
    rows_.fill(i, f.data(), ncols_);
  }

 private:
  // The derived fact "no stored value is zero", kept with the mask's matrix.
  static constexpr const char* values_nonzero_key = "values_nonzero";
  static bool values_nonzero(const SparseStorage& m) {
    bool all = true;
    visit_type(m.type, [&]<class U>() {
      const U* v = m.values.as<U>();
      all = std::none_of(v, v + m.nvals, [](U x) { return x == U(0); });
    });
    return all;
  }

  MaskRows rows_;
  Index ncols_;
  const Index* ro_ = nullptr;  // the mask's own rows, when they list exactly what counts
  const ColIndex* ci_ = nullptr;
};

// The pattern of the operands and the choice of each row's method, shared by the
// symbolic and numeric passes (which must choose alike).
struct Plan {
  const Index* a_ro = nullptr;
  const ColIndex* a_ci = nullptr;
  const Index* b_ro = nullptr;
  const ColIndex* b_ci = nullptr;
  const SparseStorage* bt = nullptr;  // B's transpose, when dot may run
  const Index* bt_ro = nullptr;
  const ColIndex* bt_ci = nullptr;
  Index m = 0, k = 0, n = 0;
  Forced forced = Forced::none;
  const MaskSource* mask = nullptr;
  const Index* bounds = nullptr;  // each row's bound(i), kept from the work pass

  Index bound(Index i) const {
    Index u = 0;
    for (Index ka = a_ro[i]; ka < a_ro[i + 1]; ++ka) u = saturating_add(u, b_ro[a_ci[ka] + 1] - b_ro[a_ci[ka]]);
    return u;
  }
  Method choose(Index i, Index u, std::span<const ColIndex> listed) const {
    if (forced == Forced::dense) return Method::dense;
    if (forced == Forced::hash) return Method::hash;
    if (forced == Forced::dot) return Method::dot;
    if (forced == Forced::esc) return Method::esc;
    if (mask->mode == MaskMode::allow && bt) {
      const Index ai = a_ro[i + 1] - a_ro[i];
      Index walk = ai;
      for (ColIndex j : listed) walk = saturating_add(walk, dot_walk(ai, bt_ro[j + 1] - bt_ro[j]));
      if (walk / SpgemmPolicy::dot_ratio < u) return Method::dot;
    }
    if (u <= SpgemmPolicy::esc_max_bound) return Method::esc;
    const Index entries = mask->mode == MaskMode::allow ? std::min<Index>(u, static_cast<Index>(listed.size())) : u;
    return entries >= n / SpgemmPolicy::dense_ratio ? Method::dense : Method::hash;
  }
  Index hash_bound(Index u, std::size_t listed) const {
    const Index l = static_cast<Index>(listed);
    if (mask->mode == MaskMode::allow) return l;
    if (mask->mode == MaskMode::block) return saturating_add(u, l);
    return u;
  }
};

// Per-thread scratch for the pattern: stamps over C's columns and over the inner
// dimension, hash keys and tags, the mask row.
struct Scratch {
  std::unique_ptr<std::uint32_t[]> mark, kmark;  // stamp arrays (0 = never stamped)
  std::uint32_t stamp = 1, kstamp = 1;           // odd: base; base + 1: present
  std::vector<ColIndex> keys;
  std::vector<std::uint8_t> tags;  // 0 empty, 1 allowed, 2 blocked, 3 present
  std::vector<ColIndex> mask_buf;
  std::vector<std::uint8_t> flag_buf;
  std::vector<std::uint64_t> esc_keys;  // (column << 32) | position of the product
  std::vector<ColIndex> sort_buf;       // sort_columns' second buffer
  Index rows[4] = {0, 0, 0, 0};          // rows per Method

  static std::uint32_t next(std::unique_ptr<std::uint32_t[]>& a, std::uint32_t& s, Index width) {
    if (!a) {
      a.reset(new std::uint32_t[static_cast<std::size_t>(width)]());
      s = 1;
      return s;
    }
    if (s >= std::numeric_limits<std::uint32_t>::max() - 4) {
      std::fill(a.get(), a.get() + width, 0u);
      s = 1;
      return s;
    }
    s += 2;
    return s;
  }
  // Clears `slots` slots (growing the table) and returns the shift for hash_of.
  int table(Index slots) {
    if (static_cast<Index>(tags.size()) < slots) {
      tags.resize(static_cast<std::size_t>(slots));
      keys.resize(static_cast<std::size_t>(slots));
    }
    std::fill(tags.begin(), tags.begin() + slots, std::uint8_t{0});
    return 32 - std::countr_zero(static_cast<std::uint64_t>(slots));
  }
};

enum : std::uint8_t { empty_slot = 0, allowed_slot = 1, blocked_slot = 2, present_slot = 3 };

// Finds j's slot, inserting it (tag 0 -> the caller sets it) when absent and `insert`.
// Returns the slot, or -1 when absent and not inserted.
inline Index probe(Scratch& w, Index slots, int shift, ColIndex j, bool insert) {
  Index h = static_cast<Index>(hash_of(j, shift));
  const Index mask = slots - 1;
  while (true) {
    const std::uint8_t t = w.tags[static_cast<std::size_t>(h)];
    if (t == empty_slot) {
      if (!insert) return -1;
      w.keys[static_cast<std::size_t>(h)] = j;
      return h;
    }
    if (w.keys[static_cast<std::size_t>(h)] == j) return h;
    h = (h + 1) & mask;
  }
}

// The row kernel, for the symbolic pass (numeric = false: counts only) and the numeric one.
// Every branch visits the same products in the same order in both passes.
template <class S, class T, bool numeric>
struct RowKernel {
  const Plan& p;
  const T* a_v;
  const T* b_v;
  const T* bt_v;

  struct Values {
    std::unique_ptr<T[]> spa, kspa, hash;
    Index hash_size = 0;
    std::vector<T> esc;  // the products of an esc row, in the order they were formed
  };

  static T a_value(const T* v, Index ka) {
    if constexpr (semiring_reads_a<S>()) return v[ka];
    else return T(1);
  }
  static T b_value(const T* v, Index kb) {
    if constexpr (semiring_reads_b<S>()) return v[kb];
    else return T(1);
  }

  // Returns the row's number of entries; in the numeric pass writes them at cols / vals.
  Index row(Index i, Scratch& w, Values& val, ColIndex* cols, T* vals) const {
    const MaskMode mode = p.mask->mode;
    std::span<const ColIndex> listed;
    if (mode == MaskMode::allow || mode == MaskMode::block) {
      listed = p.mask->list(i, w.mask_buf);
      if (mode == MaskMode::allow && listed.empty()) return 0;
    }
    if (mode == MaskMode::flags) p.mask->flags(i, w.flag_buf);
    const Index u = p.bounds[i];
    if (u == 0) return 0;
    const Method method = p.choose(i, u, listed);
    ++w.rows[static_cast<int>(method)];
    switch (method) {
      case Method::dot: return dot_row(i, listed, w, val, cols, vals);
      case Method::dense: return dense_row(i, mode, listed, w, val, cols, vals);
      case Method::hash: return hash_row(i, u, mode, listed, w, val, cols, vals);
      case Method::esc: return esc_row(i, u, mode, listed, w, val, cols, vals);
    }
    return 0;
  }

  // Expand the row's products, sort them by column (stably: the terms of an entry stay in
  // k order, as in the other methods), compress each run of one column into an entry.
  Index esc_row(Index i, Index u, MaskMode mode, std::span<const ColIndex> listed, Scratch& w, Values& val,
                ColIndex* cols, T* vals) const {
    if (static_cast<Index>(w.esc_keys.size()) < u) w.esc_keys.resize(static_cast<std::size_t>(u));
    if constexpr (numeric)
      if (static_cast<Index>(val.esc.size()) < u) val.esc.resize(static_cast<std::size_t>(u));
    std::uint64_t* keys = w.esc_keys.data();
    const std::uint8_t* flags = mode == MaskMode::flags ? w.flag_buf.data() : nullptr;
    std::uint32_t e = 0;
    for (Index ka = p.a_ro[i]; ka < p.a_ro[i + 1]; ++ka) {
      const Index k = p.a_ci[ka];
      [[maybe_unused]] T av{};
      if constexpr (numeric) av = a_value(a_v, ka);
      for (Index kb = p.b_ro[k]; kb < p.b_ro[k + 1]; ++kb) {
        const ColIndex j = p.b_ci[kb];
        if (flags && !flags[j]) continue;
        if constexpr (numeric) val.esc[e] = S::mul(av, b_value(b_v, kb));
        keys[e] = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(j)) << 32) | e;
        ++e;
      }
    }
    if (e <= static_cast<std::uint32_t>(SpgemmPolicy::esc_max_bound)) {
      for (std::uint32_t q = 1; q < e; ++q) {
        const std::uint64_t key = keys[q];
        std::uint32_t r = q;
        for (; r > 0 && keys[r - 1] > key; --r) keys[r] = keys[r - 1];
        keys[r] = key;
      }
    } else {
      std::sort(keys, keys + e);  // the positions in the keys make the order stable
    }
    const ColIndex* lp = listed.data();
    const ColIndex* const lend = lp + listed.size();
    Index count = 0;
    for (std::uint32_t q = 0; q < e;) {
      const auto j = static_cast<ColIndex>(keys[q] >> 32);
      std::uint32_t r = q + 1;
      while (r < e && static_cast<ColIndex>(keys[r] >> 32) == j) ++r;
      bool keep = true;
      if (mode == MaskMode::allow || mode == MaskMode::block) {
        while (lp < lend && *lp < j) ++lp;
        const bool is_listed = lp < lend && *lp == j;
        keep = mode == MaskMode::allow ? is_listed : !is_listed;
      }
      if (keep) {
        if constexpr (numeric) {
          T acc = first_term_for<S>(val.esc[static_cast<std::uint32_t>(keys[q])]);  // the all-NaN rule
          for (std::uint32_t t = q + 1; t < r; ++t) acc = S::add(acc, val.esc[static_cast<std::uint32_t>(keys[t])]);
          cols[count] = j;
          vals[count] = acc;
        }
        ++count;
      }
      q = r;
    }
    return count;
  }

  Index dense_row(Index i, MaskMode mode, std::span<const ColIndex> listed, Scratch& w, Values& val, ColIndex* cols,
                  T* vals) const {
    const std::uint32_t base = Scratch::next(w.mark, w.stamp, p.n), present = base + 1;
    std::uint32_t* mark = w.mark.get();
    if constexpr (numeric)
      if (!val.spa) val.spa.reset(new T[static_cast<std::size_t>(p.n)]);
    T* spa = nullptr;
    if constexpr (numeric) spa = val.spa.get();
    for (ColIndex j : listed) mark[j] = base;
    const std::uint8_t* flags = mode == MaskMode::flags ? w.flag_buf.data() : nullptr;
    Index count = 0;
    ColIndex lo = std::numeric_limits<ColIndex>::max(), hi = -1;
    for (Index ka = p.a_ro[i]; ka < p.a_ro[i + 1]; ++ka) {
      const Index k = p.a_ci[ka];
      [[maybe_unused]] T av{};
      if constexpr (numeric) av = a_value(a_v, ka);
      for (Index kb = p.b_ro[k]; kb < p.b_ro[k + 1]; ++kb) {
        const ColIndex j = p.b_ci[kb];
        const std::uint32_t mj = mark[j];
        if (mj == present) {
          if constexpr (numeric) spa[j] = S::add(spa[j], S::mul(av, b_value(b_v, kb)));
          continue;
        }
        // absent so far: may this product start the entry?
        if (mode == MaskMode::allow ? mj != base : mode == MaskMode::block ? mj == base : flags && !flags[j]) continue;
        mark[j] = present;
        if constexpr (numeric) {
          spa[j] = first_term_for<S>(S::mul(av, b_value(b_v, kb)));  // the all-NaN rule
          cols[count] = j;
          lo = std::min(lo, j);
          hi = std::max(hi, j);
        }
        ++count;
      }
    }
    if constexpr (numeric) {
      if (count > 1) {
        // a row that fills much of its column range is listed by a scan of the range
        if (static_cast<Index>(hi - lo) < SpgemmPolicy::dense_scan_ratio * count) {
          Index q = 0;
          for (ColIndex j = lo; j <= hi; ++j) {
            cols[q] = j;  // q < count here: hi, the last entry, is still ahead
            q += mark[j] == present;
          }
        } else {
          sort_columns(cols, count, lo, hi, w.sort_buf);
        }
      }
      for (Index q = 0; q < count; ++q) vals[q] = spa[cols[q]];
    }
    return count;
  }

  Index hash_row(Index i, Index u, MaskMode mode, std::span<const ColIndex> listed, Scratch& w, Values& val,
                 ColIndex* cols, T* vals) const {
    const Index slots = hash_slots(p.hash_bound(u, listed.size()), p.n);
    const int shift = w.table(slots);
    T* hv = nullptr;
    if constexpr (numeric) {
      if (val.hash_size < slots) {
        val.hash.reset(new T[static_cast<std::size_t>(slots)]);
        val.hash_size = slots;
      }
      hv = val.hash.get();
    }
    std::uint8_t* tags = w.tags.data();
    const std::uint8_t listed_tag = mode == MaskMode::allow ? allowed_slot : blocked_slot;
    for (ColIndex j : listed) tags[probe(w, slots, shift, j, true)] = listed_tag;
    const std::uint8_t* flags = mode == MaskMode::flags ? w.flag_buf.data() : nullptr;
    const bool insert = mode != MaskMode::allow;
    Index count = 0;
    [[maybe_unused]] ColIndex lo = std::numeric_limits<ColIndex>::max(), hi = 0;
    for (Index ka = p.a_ro[i]; ka < p.a_ro[i + 1]; ++ka) {
      const Index k = p.a_ci[ka];
      [[maybe_unused]] T av{};
      if constexpr (numeric) av = a_value(a_v, ka);
      for (Index kb = p.b_ro[k]; kb < p.b_ro[k + 1]; ++kb) {
        const ColIndex j = p.b_ci[kb];
        if (flags && !flags[j]) continue;
        const Index h = probe(w, slots, shift, j, insert);
        if (h < 0) continue;
        const std::uint8_t t = tags[h];
        if (t == present_slot) {
          if constexpr (numeric) hv[h] = S::add(hv[h], S::mul(av, b_value(b_v, kb)));
          continue;
        }
        if (t == blocked_slot) continue;
        tags[h] = present_slot;  // from empty (just inserted) or allowed
        if constexpr (numeric) {
          hv[h] = first_term_for<S>(S::mul(av, b_value(b_v, kb)));  // the all-NaN rule
          cols[count] = j;
          lo = std::min(lo, j);
          hi = std::max(hi, j);
        }
        ++count;
      }
    }
    if constexpr (numeric) {
      sort_columns(cols, count, lo, hi, w.sort_buf);
      for (Index q = 0; q < count; ++q) vals[q] = hv[probe(w, slots, shift, cols[q], false)];
    }
    return count;
  }

  // Each allowed C(i,j) as the dot product of A(i,:) with B(:,j) (a row of B's
  // transpose), the terms in k order whichever way the column is walked: by binary
  // searches of the row's columns in a column much longer than the row, else against the
  // row scattered over the inner dimension.
  Index dot_row(Index i, std::span<const ColIndex> listed, Scratch& w, Values& val, ColIndex* cols, T* vals) const {
    const Index a_begin = p.a_ro[i], a_end = p.a_ro[i + 1], a_len = a_end - a_begin;
    const std::uint32_t stamp = Scratch::next(w.kmark, w.kstamp, p.k);
    std::uint32_t* kmark = w.kmark.get();
    T* kspa = nullptr;
    if constexpr (numeric) {
      if (!val.kspa) val.kspa.reset(new T[static_cast<std::size_t>(p.k)]);
      kspa = val.kspa.get();
    }
    for (Index ka = a_begin; ka < a_end; ++ka) {
      kmark[p.a_ci[ka]] = stamp;
      if constexpr (numeric) kspa[p.a_ci[ka]] = a_value(a_v, ka);
    }
    Index count = 0;
    for (ColIndex j : listed) {
      Dot d;
      const Index b_begin = p.bt_ro[j], b_end = p.bt_ro[j + 1];
      if (search_column(a_len, b_end - b_begin)) {
        const ColIndex* col = p.bt_ci + b_begin;
        const ColIndex* end = p.bt_ci + b_end;
        for (Index ka = a_begin; ka < a_end && col < end; ++ka) {
          col = std::lower_bound(col, end, p.a_ci[ka]);
          if (col == end || *col != p.a_ci[ka]) continue;
          if (d.add(a_value(a_v, ka), b_value(bt_v, col - p.bt_ci))) break;
        }
      } else {
        for (Index kb = b_begin; kb < b_end; ++kb) {
          const ColIndex k = p.bt_ci[kb];
          if (kmark[k] != stamp) continue;
          if (d.add(numeric ? kspa[k] : T{}, b_value(bt_v, kb))) break;
        }
      }
      if (!d.any) continue;
      if constexpr (numeric) {
        cols[count] = j;
        vals[count] = d.acc;
      }
      ++count;
    }
    return count;
  }

  // One dot product's running sum; add() returns true when the walk may stop (the
  // symbolic pass only asks whether a term exists).
  struct Dot {
    bool any = false;
    T acc{};
    bool add([[maybe_unused]] T a, [[maybe_unused]] T b) {
      if constexpr (numeric) {
        const T prod = S::mul(a, b);
        acc = any ? S::add(acc, prod) : first_term_for<S>(prod);  // the all-NaN rule
      }
      any = true;
      return !numeric;
    }
  };
};

// How the rows are laid out in C: chosen from the work (see SpgemmPolicy::one_pass_memory_share),
// or forced by a "+one_pass" / "+two_pass" suffix of the variant.
enum class Passes : std::uint8_t { chosen, one, two };

struct Choice {
  Forced forced = Forced::none;
  Passes passes = Passes::chosen;
};

[[noreturn]] void unknown_variant(std::string_view variant) {
  throw InvalidValue("mxm(sparse x sparse) on cpu: unknown variant '" + std::string(variant) +
                     "' (the CPU backend has: gustavson (chosen per row), and forcing one accumulator for every "
                     "row: hash, dense, esc, dot; each may end in +one_pass or +two_pass to force how C is assembled)");
}

Choice choice_of(std::string_view variant, const MaskSource& mask) {
  Choice c;
  std::string_view method = variant;
  if (const auto plus = variant.find('+'); plus != std::string_view::npos) {
    const std::string_view passes = variant.substr(plus + 1);
    if (passes == "one_pass") c.passes = Passes::one;
    else if (passes == "two_pass") c.passes = Passes::two;
    else unknown_variant(variant);
    method = variant.substr(0, plus);
  }
  if (method.empty() || method == "gustavson") c.forced = Forced::none;
  else if (method == "hash") c.forced = Forced::hash;
  else if (method == "dense") c.forced = Forced::dense;
  else if (method == "esc") c.forced = Forced::esc;
  else if (method == "dot") {
    if (mask.mode != MaskMode::allow)
      throw InvalidValue("mxm(sparse x sparse) on cpu: variant 'dot' needs a sparse mask that is not complemented "
                         "(it computes only the entries the mask lists)");
    c.forced = Forced::dot;
  } else {
    unknown_variant(variant);
  }
  return c;
}

const char* mask_words(const Mask& m) {
  if (m.empty()) return "no mask";
  if (m.kind() != Mask::Kind::sparse) return "dense mask as row flags";
  return m.complemented() ? "complemented sparse mask blocking columns" : "sparse mask as a filter";
}

template <class S, class T>
SparseStorage run(const SparseStorage& A, const SparseStorage& B, const MaskSource& mask, Choice choice,
                  const Mask& m, DispatchRecord& record) {
  const Forced forced = choice.forced;
  Plan p;
  p.a_ro = A.row_offsets.as<Index>();
  p.a_ci = A.col_indices.as<ColIndex>();
  p.b_ro = B.row_offsets.as<Index>();
  p.b_ci = B.col_indices.as<ColIndex>();
  p.m = A.nrows;
  p.k = A.ncols;
  p.n = B.ncols;
  p.forced = forced;
  p.mask = &mask;
  SparseStorage out = make_sparse(p.m, p.n, type_id<T>, Device::cpu());
  Index* ro = out.row_offsets.as<Index>();
  ro[0] = 0;
  if (p.m == 0) {
    record.reason = "empty";
    return out;
  }

  // 1. work per row, prefix-summed into ro, then the chunks (each row's bound is kept:
  // the row pass reads it back instead of walking B's row offsets again, which were most
  // of the cost of a row of a few products), and, without a mask that lists the allowed columns, a lower bound of |C|
  // (each row has at least the entries of its longest row of B): a C that cannot fit fails here, before the symbolic
  // pass spends the time of the product.
  const bool par_rows = parallel_rows(p.m);
  const bool unlisted = mask.mode == MaskMode::none;
  Index at_least = 0;
  const std::unique_ptr<Index[]> bounds(new Index[static_cast<std::size_t>(p.m)]);
  p.bounds = bounds.get();
#pragma omp parallel for schedule(static) if (par_rows) reduction(+ : at_least)
  for (Index i = 0; i < p.m; ++i) {
    const Index u = p.bound(i);
    bounds[static_cast<std::size_t>(i)] = u;
    ro[i + 1] = saturating_add(u, p.a_ro[i + 1] - p.a_ro[i] + 1);
    if (unlisted) {
      Index longest = 0;
      for (Index ka = p.a_ro[i]; ka < p.a_ro[i + 1]; ++ka)
        longest = std::max(longest, p.b_ro[p.a_ci[ka] + 1] - p.b_ro[p.a_ci[ka]]);
      at_least += longest;  // <= ncols per row: no overflow
    }
  }
  check_fits(at_least, sizeof(ColIndex) + sizeof(T), "at least");
  for (Index i = 0; i < p.m; ++i) ro[i + 1] = saturating_add(ro[i + 1], ro[i]);
  const Index work = ro[p.m];
  const int threads = work >= SpgemmPolicy::min_parallel_work ? omp_get_max_threads() : 1;
  std::vector<Index> chunk_start{0};
  {
    const Index chunks = std::min<Index>(p.m, threads * SpgemmPolicy::chunks_per_thread);
    for (Index c = 1; c < chunks; ++c) {
      const Index target = work / chunks * c;
      const Index r = std::upper_bound(ro + 1, ro + p.m + 1, target) - (ro + 1);
      if (r > chunk_start.back() && r < p.m) chunk_start.push_back(r);
    }
    chunk_start.push_back(p.m);
  }
  const Index nchunks = static_cast<Index>(chunk_start.size()) - 1;

  // B's transpose for dot rows, under a mask that lists the allowed columns (cached with
  // B: C<M> = A*A' finds it already there after the first product).
  std::shared_ptr<const SparseStorage> bt;
  if (mask.mode == MaskMode::allow) {
    const Index mask_nnz = m.sparse()->nvals;
    const Index mean_col = p.n > 0 ? B.nvals / p.n + 1 : 1;
    // worth it when some row may choose dot (an estimate: mask entries times B's mean
    // column length), and when the transpose's n + 1 row offsets stay within a few words
    // per entry (a B of mostly empty columns, up to 2^31 of them, would pay more for them
    // than the product)
    const bool may_pay = mask_nnz * mean_col / SpgemmPolicy::dot_ratio < work && p.n <= 8 * (B.nvals + p.m);
    if (forced == Forced::dot || (forced == Forced::none && may_pay)) {
      // B is A's cached transpose (C<M> = A*A', as triangle counting asks): B' is A
      // itself, whose rows the product reads anyway, so no second copy competes with
      // them for the cache
      if (cached_transpose_if_any(A).get() == &B) {
        p.bt = &A;
      } else {
        bt = cached_transpose(B);
        p.bt = bt.get();
      }
      p.bt_ro = p.bt->row_offsets.as<Index>();
      p.bt_ci = p.bt->col_indices.as<ColIndex>();
    }
  }
  const T* a_v = A.values.as<T>();
  const T* b_v = B.values.as<T>();
  const T* bt_v = p.bt ? p.bt->values.as<T>() : nullptr;

  Index rows[4] = {0, 0, 0, 0};
  ColIndex* ci = nullptr;
  T* cv = nullptr;
  const auto allocate_c = [&] {
    for (Index i = 0; i < p.m; ++i) ro[i + 1] += ro[i];  // each row <= ncols < 2^31: no overflow
    out.nvals = ro[p.m];
    check_fits(out.nvals, sizeof(ColIndex) + sizeof(T), "exactly");
    out.col_indices = RawBuffer(checked_bytes(out.nvals, 1, sizeof(ColIndex), "mxm(sparse x sparse) on cpu: C's columns"),
                                Device::cpu());
    out.values = RawBuffer(checked_bytes(out.nvals, 1, sizeof(T), "mxm(sparse x sparse) on cpu: C's values"),
                           Device::cpu());
    ci = out.col_indices.as<ColIndex>();
    cv = out.values.as<T>();
    prefer_huge_pages(ci, static_cast<std::size_t>(out.nvals) * sizeof(ColIndex));
    prefer_huge_pages(cv, static_cast<std::size_t>(out.nvals) * sizeof(T));
  };
  // One pass or two: when every chunk's bound on its entries (its work, and at most
  // ncols a row) fits in a small share of memory, each chunk is computed once into a
  // buffer of that bound and copied into C (a copy of |C| entries instead of a second
  // pass over all products); otherwise a symbolic pass counts each row first and the
  // numeric pass writes into C directly, so no more than C itself is ever allocated.
  const bool one_pass = choice.passes == Passes::one ||
                        (choice.passes == Passes::chosen && work <= static_cast<Index>(physical_bytes() / SpgemmPolicy::one_pass_memory_share /
                                                   (sizeof(ColIndex) + sizeof(T))));
  if (one_pass) {
    check_fits(work, sizeof(ColIndex) + sizeof(T), "a one-pass bound of");
    // untouched capacity costs address space only: a row writes at most its bound (read
    // here, before the pass below overwrites ro with each row's count)
    std::vector<Index> chunk_bound(static_cast<std::size_t>(nchunks));
    for (Index c = 0; c < nchunks; ++c) {
      const Index first = chunk_start[c], last = chunk_start[c + 1];
      chunk_bound[static_cast<std::size_t>(c)] = std::min<Index>(ro[last] - ro[first], (last - first) * p.n);
    }
    std::vector<std::unique_ptr<ColIndex[]>> chunk_cols(static_cast<std::size_t>(nchunks));
    std::vector<std::unique_ptr<T[]>> chunk_vals(static_cast<std::size_t>(nchunks));
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
      Scratch w;
      typename RowKernel<S, T, true>::Values val;
      const RowKernel<S, T, true> kernel{p, a_v, b_v, bt_v};
#pragma omp for schedule(dynamic, 1)
      for (Index c = 0; c < nchunks; ++c) {
        const Index first = chunk_start[c], last = chunk_start[c + 1];
        const auto bound = static_cast<std::size_t>(chunk_bound[static_cast<std::size_t>(c)]);
        ColIndex* cols = new ColIndex[bound];
        T* vals = new T[bound];
        chunk_cols[static_cast<std::size_t>(c)].reset(cols);
        chunk_vals[static_cast<std::size_t>(c)].reset(vals);
        Index used = 0;
        for (Index i = first; i < last; ++i) {
          const Index count = kernel.row(i, w, val, cols + used, vals + used);
          used += count;
          ro[i + 1] = count;
        }
      }
#pragma omp critical
      for (int q = 0; q < 4; ++q) rows[q] += w.rows[q];
    }
    allocate_c();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (Index c = 0; c < nchunks; ++c) {
      const Index first = ro[chunk_start[c]], count = ro[chunk_start[c + 1]] - first;
      std::copy_n(chunk_cols[static_cast<std::size_t>(c)].get(), count, ci + first);
      std::copy_n(chunk_vals[static_cast<std::size_t>(c)].get(), count, cv + first);
      chunk_cols[static_cast<std::size_t>(c)].reset();
      chunk_vals[static_cast<std::size_t>(c)].reset();
    }
  } else {
    // 2. symbolic
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
      Scratch w;
      typename RowKernel<S, T, false>::Values val;
      const RowKernel<S, T, false> kernel{p, a_v, b_v, bt_v};
#pragma omp for schedule(dynamic, 1)
      for (Index c = 0; c < nchunks; ++c)
        for (Index i = chunk_start[c]; i < chunk_start[c + 1]; ++i)
          ro[i + 1] = kernel.row(i, w, val, nullptr, nullptr);
#pragma omp critical
      for (int q = 0; q < 4; ++q) rows[q] += w.rows[q];
    }
    allocate_c();
    // 3. numeric
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
      Scratch w;
      typename RowKernel<S, T, true>::Values val;
      const RowKernel<S, T, true> kernel{p, a_v, b_v, bt_v};
#pragma omp for schedule(dynamic, 1)
      for (Index c = 0; c < nchunks; ++c)
        for (Index i = chunk_start[c]; i < chunk_start[c + 1]; ++i) kernel.row(i, w, val, ci + ro[i], cv + ro[i]);
    }
  }
  record.reason = std::string(mask_words(m)) + "; rows: " + std::to_string(rows[0]) + " dense, " +
                  std::to_string(rows[1]) + " hash, " + std::to_string(rows[3]) + " esc, " + std::to_string(rows[2]) + " dot; " + (one_pass ? "one pass; " : "symbolic + numeric; ") +
                  std::to_string(nchunks) + " chunks on " + std::to_string(threads) + " threads";
  return out;
}

}  // namespace

SparseStorage spgemm_builtin(const SparseStorage& A, const SparseStorage& B, SemiringId s, const Mask& mask,
                             std::string_view variant, DispatchRecord& record) {
  const MaskSource source(mask, B.ncols);
  const Choice choice = choice_of(variant, source);
  record.variant = variant.empty() ? "gustavson" : std::string(variant);
  SparseStorage out;
  visit_type(A.type, [&]<class V>() {
    with_semiring<V>(s, [&]<class S>() { out = run<S, V>(A, B, source, choice, mask, record); });
  });
  return out;
}

}  // namespace geblas::detail::cpu
