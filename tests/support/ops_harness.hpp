// The one harness of the operation tests (tests/ops/), for every device: random geblas
// objects built on test::device() together with their reference Partials (from the same
// tuples), conversion of results (from any device) back to Partials, the mask cases every
// operation is run under, and a comparison of pattern and values that names the first
// mismatches.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "reference/ops.hpp"
#include "support/compare.hpp"
#include "support/device.hpp"
#include "support/random.hpp"

namespace geblas::test {

template <class T>
ref::Partial<T> partial_of(const SparseMatrix<T>& A) {
  ref::Partial<T> p(A.nrows(), A.ncols());
  for (const auto& t : A.to(Device::cpu()).extract_tuples()) p.set(t.row, t.col, t.value);
  return p;
}
template <class T>
ref::Partial<T> partial_of(const DenseMatrix<T>& A) {
  ref::Partial<T> p(A.nrows(), A.ncols(), T{}, true);
  const std::vector<T> v = A.to(Device::cpu()).to_row_major();
  for (Index i = 0; i < A.nrows(); ++i)
    for (Index j = 0; j < A.ncols(); ++j) p.v(i, j) = v[static_cast<std::size_t>(i * A.ncols() + j)];
  return p;
}
template <class T>
ref::Partial<T> partial_of(const Vector<T>& u) {
  ref::Partial<T> p(u.size(), 1);
  for (const auto& [i, x] : u.to(Device::cpu()).extract_tuples()) p.set(i, 0, x);
  return p;
}

// A random sparse matrix (density d) on device() and its Partial, from the same tuples.
template <class T>
std::pair<SparseMatrix<T>, ref::Partial<T>> random_matrix(Index m, Index n, double d, std::uint64_t seed,
                                                          Shape shape = Shape::uniform) {
  const auto r = random_sparse<T>(m, n, d, shape, seed);
  ref::Partial<T> p(m, n);
  for (const auto& t : r.tuples) p.set(t.row, t.col, t.value);
  return {r.geblas().to(device()), p};
}

template <class T>
std::pair<DenseMatrix<T>, ref::Partial<T>> random_dense_matrix(Index m, Index n, std::uint64_t seed,
                                                               Layout layout = Layout::row_major) {
  const ref::Dense<T> d = random_dense<T>(m, n, seed);
  ref::Partial<T> p(m, n, T{}, true);
  p.v = d;
  return {to_geblas(d, layout, device()), p};
}

// A random vector on device(): dense storage (every entry present) or sparse with density d.
template <class T>
std::pair<Vector<T>, ref::Partial<T>> random_vector(Index n, double d, bool dense, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  ref::Partial<T> p(n, 1);
  if (dense) {
    std::vector<T> v(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) {
      const T x = random_value<T>(rng, false);
      v[static_cast<std::size_t>(i)] = x;
      p.set(i, 0, x);
    }
    return {Vector<T>::from_dense(v).to(device()), p};
  }
  std::vector<Index> idx;
  std::vector<T> val;
  for (Index i = 0; i < n; ++i)
    if (std::uniform_real_distribution<double>(0, 1)(rng) < d) {
      const T x = random_value<T>(rng, false);
      idx.push_back(i);
      val.push_back(x);
      p.set(i, 0, x);
    }
  // from_tuples takes a span of T; std::vector<bool> has none, so go through a buffer.
  std::unique_ptr<T[]> buf(new T[val.size() + 1]);
  for (std::size_t k = 0; k < val.size(); ++k) buf[k] = val[k];
  return {Vector<T>::from_tuples(n, idx, std::span<const T>(buf.get(), val.size())).to(device()), p};
}

// The mask cases every operation runs under.
enum class MaskCase { none, value, structural, value_complement, structural_complement, dense_value,
                      dense_complement, empty, empty_complement };
inline const std::vector<MaskCase> all_mask_cases = {
    MaskCase::none, MaskCase::value, MaskCase::structural, MaskCase::value_complement,
    MaskCase::structural_complement, MaskCase::dense_value, MaskCase::dense_complement, MaskCase::empty,
    MaskCase::empty_complement};
inline const char* to_string(MaskCase c) {
  switch (c) {
    case MaskCase::none: return "none";
    case MaskCase::value: return "value";
    case MaskCase::structural: return "structural";
    case MaskCase::value_complement: return "value_complement";
    case MaskCase::structural_complement: return "structural_complement";
    case MaskCase::dense_value: return "dense_value";
    case MaskCase::dense_complement: return "dense_complement";
    case MaskCase::empty: return "empty";
    case MaskCase::empty_complement: return "empty_complement";
  }
  return "?";
}

// A mask on device() of shape m x n (or a vector of size m when `vector`), its objects kept alive
// here, and the reference flags of what it allows. Mask values are int32 with zeros,
// so value and structural masks differ.
struct MaskHolder {
  SparseMatrix<std::int32_t> sparse;
  DenseMatrix<std::int32_t> dense;
  Vector<std::int32_t> vec;
  Mask mask;
  ref::Flags allow;

  MaskHolder(MaskCase c, Index m, Index n, bool vector, std::uint64_t seed) {
    const bool structural = c == MaskCase::structural || c == MaskCase::structural_complement;
    const bool complement = c == MaskCase::value_complement || c == MaskCase::structural_complement ||
                            c == MaskCase::dense_complement || c == MaskCase::empty_complement;
    ref::Partial<std::int32_t> p(m, n);
    if (c == MaskCase::none) {
      allow = ref::Flags::Constant(m, n, 1);
      return;
    }
    const bool is_dense = c == MaskCase::dense_value || c == MaskCase::dense_complement;
    const double d = (c == MaskCase::empty || c == MaskCase::empty_complement) ? 0.0 : 0.4;
    if (vector) {
      auto [v, pv] = random_vector<std::int32_t>(m, d, is_dense, seed);
      vec = std::move(v);
      p = pv;
    } else if (is_dense) {
      auto [D, pd] = random_dense_matrix<std::int32_t>(m, n, seed);
      dense = std::move(D);
      p = pd;
    } else {
      auto [S, ps] = random_matrix<std::int32_t>(m, n, d, seed);
      sparse = std::move(S);
      p = ps;
    }
    if (vector) mask = structural ? Mask::structure(vec) : Mask(vec);
    else if (is_dense) mask = Mask(dense);
    else mask = structural ? Mask::structure(sparse) : Mask(sparse);
    if (complement) mask = mask.complement();
    allow = ref::mask_allows(p, structural, complement);
  }
  MaskHolder(const MaskHolder&) = delete;
};

// Empty when `got` has exactly `want`'s pattern and values (within rel_tol).
template <class T>
std::string compare_partial(const ref::Partial<T>& got, const ref::Partial<T>& want, double rel_tol = 0) {
  std::ostringstream msg;
  if (got.rows() != want.rows() || got.cols() != want.cols()) {
    msg << "shape " << got.rows() << "x" << got.cols() << " != " << want.rows() << "x" << want.cols();
    return msg.str();
  }
  long long bad = 0;
  for (long long i = 0; i < want.rows(); ++i)
    for (long long j = 0; j < want.cols(); ++j) {
      const bool g = got.has(i, j), w = want.has(i, j);
      const bool ok = g == w && (!w || close(got.v(i, j), want.v(i, j), rel_tol));
      if (!ok) {
        if (bad < 5) {
          msg << " (" << i << "," << j << "): got ";
          if (g) msg << +got.v(i, j); else msg << "absent";
          msg << " want ";
          if (w) msg << +want.v(i, j); else msg << "absent";
          msg << ";";
        }
        ++bad;
      }
    }
  if (bad) msg << " " << bad << " of " << want.rows() * want.cols() << " entries differ";
  return msg.str();
}

// Shapes every test sweeps: empty, 1 x 1, square, tall, wide.
struct Dims { Index m, n; };
inline const std::vector<Dims> sweep_dims = {{0, 0}, {0, 5}, {5, 0}, {1, 1}, {17, 17}, {40, 7}, {6, 45}, {64, 64}};

// The tolerance of a comparison: none on the CPU, whose kernels follow the reference's
// order of operations; a few ulps on a GPU, which may sum in another order and has its
// own sqrt / exp / log (values are small integers in most cases, so sums stay exact).
template <class T>
double device_tol() {
  if (device().is_cpu()) return 0;
  if constexpr (std::is_same_v<T, float>) return 1e-5;
  else if constexpr (std::is_same_v<T, double>) return 1e-12;
  else return 0;
}

// Empty when a vector result of an `any` reduction is right: want's pattern, and each
// written entry either want's value or, off the CPU, the accumulation of one of its
// candidate terms (a GPU keeps whichever term lands first; the CPU backend keeps the
// first in storage order, which is the reference's choice, so there it stays exact).
template <class T>
std::string compare_any(const ref::Partial<T>& got, const ref::Partial<T>& want, const ref::Partial<T>& before,
                        const ref::Flags& allow, const std::vector<std::vector<T>>& terms,
                        const ref::Binary<T>* accum) {
  std::ostringstream msg;
  if (got.rows() != want.rows() || got.cols() != 1) return "shape differs";
  long long bad = 0;
  for (long long i = 0; i < want.rows(); ++i) {
    const bool g = got.has(i, 0), w = want.has(i, 0);
    bool ok = g == w && (!w || close(got.v(i, 0), want.v(i, 0), device_tol<T>()));
    if (!ok && g && w && !device().is_cpu() && allow(i, 0))
      for (const T x : terms[static_cast<std::size_t>(i)]) {
        const T z = accum && before.has(i, 0) ? (*accum)(before.v(i, 0), x) : x;
        ok = ok || close(got.v(i, 0), z, device_tol<T>());
      }
    if (!ok && bad++ < 5) {
      msg << " [" << i << "]: got ";
      if (g) msg << +got.v(i, 0);
      else msg << "absent";
      msg << " want ";
      if (w) msg << +want.v(i, 0) << " or another term";
      else msg << "absent";
      msg << ";";
    }
  }
  if (bad) msg << " " << bad << " of " << want.rows() << " entries differ";
  return msg.str();
}

// f.template operator()<T>() for every value type the operations take.
template <class F>
void for_each_type(F&& f) {
  f.template operator()<bool>();
  f.template operator()<std::int32_t>();
  f.template operator()<std::int64_t>();
  f.template operator()<float>();
  f.template operator()<double>();
}

template <class T>
Accum accum_of(BinaryOpId op) {
  Accum a;
  a.op = op;
  a.type = type_id<T>;
  return a;
}

}  // namespace geblas::test
