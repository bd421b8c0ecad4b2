// Fuzz target: SparseMatrix::from_tuples (src/core/build.cpp). The input picks the
// dimensions (small, zero, or out of range), the type, the duplicate operator and the
// tuples (in range, or just outside, or absurd). The target checks the outcome against
// an independent model built with std::map: the exact error class when the input is
// invalid, and otherwise every CSR array; for small int32 matrices it also runs mxm
// (sparse x dense, plain and transposed) against a triple loop over the model.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <optional>
#include <type_traits>
#include <vector>

#include "fuzz_check.hpp"
#include "fuzz_input.hpp"
#include "geblas/geblas.hpp"

using namespace geblas;

namespace {

// Dimensions: mostly small; sometimes the edges of the valid range or beyond it. Row
// counts stay below 2^20 because CSR stores nrows + 1 offsets (a 2^31-row matrix needs
// 16 GiB before its first entry; that case is tested for a clean OutOfMemory elsewhere).
Index pick_dim(fuzz::Input& in, bool is_rows) {
  switch (in.byte() % 8) {
    case 0: return 0;
    case 1: return 1;
    case 6: return static_cast<Index>(in.below(1u << 16));
    case 7: {
      const Index special[] = {-1, std::numeric_limits<Index>::min(), max_dimension + 1,
                               std::numeric_limits<Index>::max(), is_rows ? Index{1} << 20 : max_dimension};
      return special[in.below(5)];
    }
    default: return 1 + static_cast<Index>(in.below(64));
  }
}

Index pick_index(fuzz::Input& in, Index dim) {
  switch (in.byte() % 16) {
    case 0: return -1;
    case 1: return dim;
    case 2: {
      const Index special[] = {std::numeric_limits<Index>::min(), std::numeric_limits<Index>::max(),
                               Index{1} << 31, -(Index{1} << 31), dim > 0 ? dim - 1 : -1};
      return special[in.below(5)];
    }
    default: return dim > 0 ? static_cast<Index>(in.below(static_cast<std::uint64_t>(std::min<Index>(dim, 1 << 30)))) : 0;
  }
}

template <class T>
T pick_value(fuzz::Input& in) {
  if constexpr (std::is_same_v<T, bool>) {
    return in.flag();
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (in.byte() % 8) {
      case 0: return std::numeric_limits<T>::quiet_NaN();
      case 1: return std::numeric_limits<T>::infinity();
      case 2: return -std::numeric_limits<T>::infinity();
      case 3: return in.take<T>();  // any bit pattern
      default: return static_cast<T>(static_cast<int>(in.below(7)) - 3);
    }
  } else {
    return in.flag() ? in.take<T>() : static_cast<T>(static_cast<int>(in.below(7)) - 3);
  }
}

// The duplicate operators the model knows, written independently of binary_op.hpp.
enum class Dup { error, first, second, plus, min, max };

template <class T>
T model_combine(Dup d, T a, T b) {
  switch (d) {
    case Dup::first: return a;
    case Dup::second: return b;
    case Dup::plus:
      if constexpr (std::is_same_v<T, bool>) return a || b;
      else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
      else return a + b;
    case Dup::min:
      if constexpr (std::is_floating_point_v<T>) return std::fmin(a, b);
      else return std::min(a, b);
    case Dup::max:
      if constexpr (std::is_floating_point_v<T>) return std::fmax(a, b);
      else return std::max(a, b);
    case Dup::error: break;
  }
  return a;
}

template <class T>
Duplicates to_duplicates(Dup d) {
  switch (d) {
    case Dup::first: return binop::first<T>{};
    case Dup::second: return binop::second<T>{};
    case Dup::plus: return binop::plus<T>{};
    case Dup::min: return binop::min<T>{};
    case Dup::max: return binop::max<T>{};
    case Dup::error: break;
  }
  return Duplicates::error();
}

template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (std::isnan(a) && std::isnan(b)) || a == b;
  else return a == b;
}

enum class Expect { ok, invalid_value, invalid_index };

template <class T>
void check_mxm(const SparseMatrix<T>& A, const std::map<std::pair<Index, Index>, T>& model, fuzz::Input& in) {
  const Index m = A.nrows(), k = A.ncols();
  const Index n = 1 + static_cast<Index>(in.below(5));
  const bool transposed = in.flag();
  const Index rows = transposed ? k : m, inner = transposed ? m : k;
  std::vector<T> b(static_cast<std::size_t>(inner * n));
  for (Index p = 0; p < inner * n; ++p) b[static_cast<std::size_t>(p)] = static_cast<T>(p % 5 - 2);
  const auto B = DenseMatrix<T>::from_row_major(inner, n, b);
  DenseMatrix<T> C = DenseMatrix<T>::constant(rows, n, T(77));
  mxm(C, A, B, semiring::plus_times<T>{}, {.transpose_a = transposed});
  std::vector<T> want(static_cast<std::size_t>(rows * n), T(0));
  for (const auto& [ij, v] : model) {
    const Index i = transposed ? ij.second : ij.first, kk = transposed ? ij.first : ij.second;
    for (Index j = 0; j < n; ++j) {
      auto& w = want[static_cast<std::size_t>(i * n + j)];
      w = static_cast<T>(static_cast<std::uint32_t>(w) + static_cast<std::uint32_t>(v) * static_cast<std::uint32_t>(b[static_cast<std::size_t>(kk * n + j)]));
    }
  }
  const std::vector<T> got = C.to_row_major();
  for (std::size_t p = 0; p < want.size(); ++p)
    GEBLAS_FUZZ_CHECK(got[p] == want[p], "mxm%s entry %zu: got %lld want %lld", transposed ? "(A')" : "", p,
                      static_cast<long long>(got[p]), static_cast<long long>(want[p]));
}

template <class T>
void run(fuzz::Input& in, Index nrows, Index ncols, Dup dup) {
  const std::size_t count = in.below(200);
  std::vector<Index> rows(count), cols(count);
  std::unique_ptr<T[]> vals(new T[count]);  // not std::vector: vector<bool> has no span
  for (std::size_t p = 0; p < count; ++p) {
    rows[p] = pick_index(in, nrows);
    cols[p] = pick_index(in, ncols);
    vals[p] = pick_value<T>(in);
  }

  // The model: what from_tuples must do.
  Expect expect = Expect::ok;
  std::map<std::pair<Index, Index>, T> model;
  const bool dims_ok = nrows >= 0 && ncols >= 0 && nrows <= max_dimension && ncols <= max_dimension;
  if (!dims_ok) expect = Expect::invalid_value;
  for (std::size_t p = 0; p < count && expect == Expect::ok; ++p)
    if (rows[p] < 0 || rows[p] >= nrows || cols[p] < 0 || cols[p] >= ncols) expect = Expect::invalid_index;
  for (std::size_t p = 0; p < count && expect == Expect::ok; ++p) {
    auto [it, fresh] = model.emplace(std::make_pair(rows[p], cols[p]), vals[p]);
    if (!fresh) {
      if (dup == Dup::error) expect = Expect::invalid_value;
      else it->second = model_combine(dup, it->second, vals[p]);
    }
  }

  std::optional<SparseMatrix<T>> A;
  try {
    A = SparseMatrix<T>::from_tuples(nrows, ncols, rows, cols, std::span<const T>(vals.get(), count), to_duplicates<T>(dup));
  } catch (const InvalidIndex&) {
    GEBLAS_FUZZ_CHECK(expect == Expect::invalid_index, "InvalidIndex thrown, model expects %d", int(expect));
    return;
  } catch (const InvalidValue&) {
    GEBLAS_FUZZ_CHECK(expect == Expect::invalid_value, "InvalidValue thrown, model expects %d", int(expect));
    return;
  }
  GEBLAS_FUZZ_CHECK(expect == Expect::ok, "from_tuples succeeded, model expects error %d", int(expect));

  const auto ro = A->row_offsets();
  const auto ci = A->col_indices();
  const auto va = A->values();
  GEBLAS_FUZZ_CHECK(A->nrows() == nrows && A->ncols() == ncols, "dimensions changed");
  GEBLAS_FUZZ_CHECK(A->nvals() == static_cast<Index>(model.size()), "nvals %lld, model %zu",
                    static_cast<long long>(A->nvals()), model.size());
  GEBLAS_FUZZ_CHECK(ro.size() == static_cast<std::size_t>(nrows + 1) && ro[0] == 0 && ro.back() == A->nvals(),
                    "row offsets frame");
  auto it = model.begin();
  for (Index i = 0; i < nrows; ++i) {
    GEBLAS_FUZZ_CHECK(ro[i] <= ro[i + 1], "row offsets decrease at %lld", static_cast<long long>(i));
    for (Index p = ro[i]; p < ro[i + 1]; ++p, ++it) {
      GEBLAS_FUZZ_CHECK(it != model.end(), "more entries than the model");
      GEBLAS_FUZZ_CHECK(it->first.first == i && it->first.second == ci[p], "entry %lld is (%lld, %d), model (%lld, %lld)",
                        static_cast<long long>(p), static_cast<long long>(i), ci[p],
                        static_cast<long long>(it->first.first), static_cast<long long>(it->first.second));
      GEBLAS_FUZZ_CHECK(same_value(va[p], it->second), "value of entry %lld differs", static_cast<long long>(p));
    }
  }
  if constexpr (std::is_same_v<T, std::int32_t>)
    if (nrows <= 64 && ncols <= 64) check_mxm(*A, model, in);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const Index nrows = pick_dim(in, true);
  const Index ncols = pick_dim(in, false);
  const int type = in.byte() % 5;
  const Dup dup = static_cast<Dup>(in.byte() % 6);
  switch (type) {
    case 0: run<float>(in, nrows, ncols, dup); break;
    case 1: run<double>(in, nrows, ncols, dup); break;
    case 2: run<std::int32_t>(in, nrows, ncols, dup); break;
    case 3: run<std::int64_t>(in, nrows, ncols, dup); break;
    default: run<bool>(in, nrows, ncols, dup); break;
  }
  return 0;
}
