// Reference implementations of the non-mxm operations on Eigen containers, with
// GraphBLAS presence made explicit: a Partial is a dense Eigen matrix of values plus a
// matrix of presence flags (a vector is an n x 1 Partial). Straightforward loops over
// the definitions in the GraphBLAS C API spec; nothing here includes geblas.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <vector>

#include "reference/operators.hpp"
#include "reference/semirings.hpp"

namespace ref {

using Flags = Eigen::Matrix<char, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class T>
struct Partial {
  Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> v;
  Flags p;
  Partial() = default;
  Partial(long long m, long long n, T fill = T{}, bool present = false) : v(m, n), p(m, n) {
    v.setConstant(fill);
    p.setConstant(present ? 1 : 0);
  }
  long long rows() const { return v.rows(); }
  long long cols() const { return v.cols(); }
  bool has(long long i, long long j) const { return p(i, j) != 0; }
  void set(long long i, long long j, T x) { v(i, j) = x; p(i, j) = 1; }
};

// Which entries a mask lets through: value (present and nonzero) or structural
// (present), then complemented if asked.
template <class T>
Flags mask_allows(const Partial<T>& M, bool structural, bool complement) {
  Flags a(M.rows(), M.cols());
  for (long long i = 0; i < M.rows(); ++i)
    for (long long j = 0; j < M.cols(); ++j) {
      const bool on = M.has(i, j) && (structural || M.v(i, j) != T(0));
      a(i, j) = on != complement;
    }
  return a;
}

// C<M, replace> = accum(C, T). For a dense output (every entry present), an absent
// result entry is `identity` (or keeps C with an accumulator), and replace writes
// `identity`; a sparse output follows GraphBLAS exactly.
template <class T>
Partial<T> write_back(const Partial<T>& C, const Partial<T>& R, const Flags& allow, bool replace,
                      const Binary<T>* accum, bool dense_output, T identity) {
  Partial<T> out = C;
  for (long long i = 0; i < C.rows(); ++i)
    for (long long j = 0; j < C.cols(); ++j) {
      const bool c = C.has(i, j), r = R.has(i, j);
      // z = accum(C, T) on the union, or T alone
      bool z = false;
      T zv{};
      if (accum) {
        if (c && r) { z = true; zv = (*accum)(C.v(i, j), R.v(i, j)); }
        else if (r) { z = true; zv = R.v(i, j); }
        else if (c) { z = true; zv = C.v(i, j); }
      } else if (r) {
        z = true;
        zv = R.v(i, j);
      }
      if (allow(i, j)) {
        if (z) out.set(i, j, zv);
        else if (dense_output) out.set(i, j, identity);
        else out.p(i, j) = 0;
      } else if (replace) {
        if (dense_output) out.set(i, j, identity);
        else out.p(i, j) = 0;
      }
    }
  return out;
}

// t = M (+).(x) u, M m x n, u n x 1; u_first computes mul(u(k), M(i,k)) (vxm). `terms`
// (optional) receives each row's products, the candidates of an `any` semiring.
template <class T>
Partial<T> mxv(const Partial<T>& M, const Partial<T>& u, const SemiringOps<T>& s, bool u_first,
               std::vector<std::vector<T>>* terms = nullptr) {
  Partial<T> t(M.rows(), 1, s.identity, false);
  if (terms) terms->assign(static_cast<std::size_t>(M.rows()), {});
  for (long long i = 0; i < M.rows(); ++i)
    for (long long k = 0; k < M.cols(); ++k)
      if (M.has(i, k) && u.has(k, 0)) {
        const T prod = u_first ? s.mul(u.v(k, 0), M.v(i, k)) : s.mul(M.v(i, k), u.v(k, 0));
        t.v(i, 0) = t.has(i, 0) ? s.add(t.v(i, 0), prod) : prod;
        t.p(i, 0) = 1;
        if (terms) (*terms)[static_cast<std::size_t>(i)].push_back(prod);
      }
  return t;
}

template <class T>
Partial<T> transpose(const Partial<T>& A) {
  Partial<T> t;
  t.v = A.v.transpose();
  t.p = A.p.transpose();
  return t;
}

// Union (add) or intersection (mult) of the patterns, op where both are present.
template <class T>
Partial<T> ewise(const Partial<T>& A, const Partial<T>& B, const Binary<T>& op, bool add) {
  Partial<T> t(A.rows(), A.cols());
  for (long long i = 0; i < A.rows(); ++i)
    for (long long j = 0; j < A.cols(); ++j) {
      const bool a = A.has(i, j), b = B.has(i, j);
      if (a && b) t.set(i, j, op(A.v(i, j), B.v(i, j)));
      else if (add && a) t.set(i, j, A.v(i, j));
      else if (add && b) t.set(i, j, B.v(i, j));
    }
  return t;
}

template <class T>
Partial<T> apply(const Partial<T>& A, const Unary<T>& f) {
  Partial<T> t(A.rows(), A.cols());
  for (long long i = 0; i < A.rows(); ++i)
    for (long long j = 0; j < A.cols(); ++j)
      if (A.has(i, j)) t.set(i, j, f(A.v(i, j)));
  return t;
}

// Row i to one entry (absent for a row with no entries).
template <class T>
Partial<T> reduce_rows(const Partial<T>& A, const Monoid<T>& m) {
  Partial<T> t(A.rows(), 1);
  for (long long i = 0; i < A.rows(); ++i)
    for (long long j = 0; j < A.cols(); ++j)
      if (A.has(i, j)) t.set(i, 0, t.has(i, 0) ? m.add(t.v(i, 0), A.v(i, j)) : A.v(i, j));
  return t;
}

template <class T>
T reduce_all(const Partial<T>& A, const Monoid<T>& m) {
  // The fold of the entries (the identity when there are none), from the first entry.
  T acc = m.identity;
  bool any = false;
  for (long long i = 0; i < A.rows(); ++i)
    for (long long j = 0; j < A.cols(); ++j)
      if (A.has(i, j)) {
        acc = any ? m.add(acc, A.v(i, j)) : A.v(i, j);
        any = true;
      }
  return acc;
}

template <class T>
Partial<T> select(const Partial<T>& A, const std::function<bool(long long, long long, T)>& keep) {
  Partial<T> t(A.rows(), A.cols());
  for (long long i = 0; i < A.rows(); ++i)
    for (long long j = 0; j < A.cols(); ++j)
      if (A.has(i, j) && keep(i, j, A.v(i, j))) t.set(i, j, A.v(i, j));
  return t;
}

// T(a, b) = A(rows[a], cols[b]).
template <class T>
Partial<T> extract(const Partial<T>& A, const std::vector<long long>& rows, const std::vector<long long>& cols) {
  Partial<T> t(static_cast<long long>(rows.size()), static_cast<long long>(cols.size()));
  for (std::size_t a = 0; a < rows.size(); ++a)
    for (std::size_t b = 0; b < cols.size(); ++b)
      if (A.has(rows[a], cols[b])) t.set(a, b, A.v(rows[a], cols[b]));
  return t;
}

// GrB_assign's Z before the mask: C with the region rows x cols replaced by S (no
// accumulator) or accumulated with it. S is |rows| x |cols|.
template <class T>
Partial<T> assign_region(const Partial<T>& C, const Partial<T>& S, const std::vector<long long>& rows,
                         const std::vector<long long>& cols, const Binary<T>* accum) {
  Partial<T> z = C;
  for (std::size_t a = 0; a < rows.size(); ++a)
    for (std::size_t b = 0; b < cols.size(); ++b) {
      const long long i = rows[a], j = cols[b];
      const bool c = C.has(i, j), s = S.has(a, b);
      if (accum) {
        if (c && s) z.set(i, j, (*accum)(C.v(i, j), S.v(a, b)));
        else if (s) z.set(i, j, S.v(a, b));
      } else {
        if (s) z.set(i, j, S.v(a, b));
        else z.p(i, j) = 0;
      }
    }
  return z;
}

}  // namespace ref
