// Reference versions of the non-mxm operations and of GraphBLAS's mask / accumulate
// write-back, written from the GraphBLAS rules over plain maps (sparse objects) and
// Eigen matrices (dense ones), sharing nothing with src/ or the public operator
// structs: operators are looked up by name and defined here again.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "reference/products.hpp"

namespace ref {

using I = std::int64_t;

// A sparse matrix / vector as its present entries.
template <class T>
struct Mat {
  I m = 0, n = 0;
  std::map<std::pair<I, I>, T> e;
};
template <class T>
struct Vec {
  I n = 0;
  std::map<I, T> e;
};

template <class T>
Mat<T> from_eigen(const Sparse<T>& A) {
  Mat<T> out{A.rows(), A.cols(), {}};
  for (Eigen::Index i = 0; i < A.outerSize(); ++i)
    for (typename Sparse<T>::InnerIterator it(A, i); it; ++it) out.e[{i, it.col()}] = it.value();
  return out;
}

template <class T>
Sparse<T> to_eigen(const Mat<T>& A) {
  std::vector<Eigen::Triplet<T, I>> t;
  for (const auto& [k, v] : A.e) t.emplace_back(k.first, k.second, v);
  Sparse<T> E(A.m, A.n);
  E.setFromTriplets(t.begin(), t.end());
  return E;
}

// ---- operators, by the names geblas uses ----------------------------------------------

template <class T>
T wrap(std::int64_t x) {  // two's complement wrap of an exact integer result
  if constexpr (std::is_same_v<T, bool>) return x != 0;
  else return static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<std::uint64_t>(x)));
}

template <class T>
std::function<T(T, T)> binary(const std::string& name) {
  using F = std::function<T(T, T)>;
  if (name == "first") return F([](T a, T) { return a; });
  if (name == "second") return F([](T, T b) { return b; });
  if (name == "pair") return F([](T, T) { return T(1); });
  if (name == "min") return F([](T a, T b) { return fmin_like(a, b); });
  if (name == "max") return F([](T a, T b) { return fmax_like(a, b); });
  if (name == "lor") return F([](T a, T b) { return T(a != T(0) || b != T(0)); });
  if (name == "land") return F([](T a, T b) { return T(a != T(0) && b != T(0)); });
  if (name == "lxor") return F([](T a, T b) { return T((a != T(0)) != (b != T(0))); });
  if (name == "eq") return F([](T a, T b) { return T(a == b); });
  if (name == "gt") return F([](T a, T b) { return T(a > b); });
  if constexpr (std::is_same_v<T, bool>) {
    if (name == "plus") return F([](T a, T b) { return T(a || b); });
    if (name == "times") return F([](T a, T b) { return T(a && b); });
    if (name == "minus") return F([](T a, T b) { return T(a != b); });
  } else if constexpr (std::is_integral_v<T>) {
    if (name == "plus") return F([](T a, T b) { return wrap<T>(std::int64_t(a) + std::int64_t(b)); });
    if (name == "times") return F([](T a, T b) { return wrapping_times(a, b); });
    if (name == "minus") return F([](T a, T b) { return wrap<T>(std::int64_t(a) - std::int64_t(b)); });
    if (name == "div")
      return F([](T a, T b) {
        if (b == 0) return a == 0 ? T(0) : (a > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min());
        if (b == -1) return wrap<T>(-std::int64_t(a));
        return T(a / b);
      });
  } else {
    if (name == "plus") return F([](T a, T b) { return a + b; });
    if (name == "times") return F([](T a, T b) { return a * b; });
    if (name == "minus") return F([](T a, T b) { return a - b; });
    if (name == "div") return F([](T a, T b) { return a / b; });
  }
  throw std::invalid_argument("ref::binary: unknown " + name);
}

template <class T>
std::function<T(T)> unary(const std::string& name) {
  using F = std::function<T(T)>;
  if (name == "identity") return F([](T x) { return x; });
  if (name == "one") return F([](T) { return T(1); });
  if (name == "lnot") return F([](T x) { return T(x == T(0)); });
  if constexpr (!std::is_same_v<T, bool>) {
    if (name == "ainv") return F([](T x) { return binary<T>("minus")(T(0), x); });
    if (name == "abs") return F([](T x) { return x < T(0) ? binary<T>("minus")(T(0), x) : x; });
    if (name == "sqrt") return F([](T x) { return T(std::sqrt(double(x))); });
    if (name == "exp") return F([](T x) { return T(std::exp(double(x))); });
  }
  throw std::invalid_argument("ref::unary: unknown " + name);
}

// A monoid: operator and identity.
template <class T>
struct MonoidRef {
  std::function<T(T, T)> op;
  T identity;
};
template <class T>
MonoidRef<T> monoid(const std::string& name) {
  if (name == "plus") return {binary<T>("plus"), T(0)};
  if (name == "times") return {binary<T>("times"), T(1)};
  if (name == "min") return {binary<T>("min"), top<T>()};
  if (name == "max") return {binary<T>("max"), bottom<T>()};
  if (name == "lor") return {binary<T>("lor"), T(0)};
  if (name == "land") return {binary<T>("land"), T(1)};
  throw std::invalid_argument("ref::monoid: unknown " + name);
}

// ---- the write-back: C<M, replace> = accum(C, T) --------------------------------------

using MaskFn = std::function<bool(I, I)>;  // empty: no mask
template <class T>
using AccumFn = std::function<T(T, T)>;  // empty: no accumulator

template <class T>
Mat<T> write_sparse(const Mat<T>& C, const Mat<T>& Tm, const MaskFn& mask, const AccumFn<T>& accum, bool replace) {
  Mat<T> Z{C.m, C.n, {}};
  if (accum) {
    Z.e = C.e;
    for (auto& [k, v] : Tm.e) {
      auto it = Z.e.find(k);
      if (it != Z.e.end()) it->second = accum(it->second, v);
      else Z.e[k] = v;
    }
  } else {
    Z.e = Tm.e;
  }
  Mat<T> out{C.m, C.n, {}};
  for (auto& [k, v] : Z.e)
    if (!mask || mask(k.first, k.second)) out.e[k] = v;
  if (!replace)
    for (auto& [k, v] : C.e)
      if (mask && !mask(k.first, k.second)) out.e[k] = v;
  return out;
}

template <class T>
Vec<T> write_vector(const Vec<T>& w, const Vec<T>& t, const MaskFn& mask, const AccumFn<T>& accum, bool replace) {
  Mat<T> W{w.n, 1, {}}, Tm{w.n, 1, {}};
  for (auto& [i, v] : w.e) W.e[{i, 0}] = v;
  for (auto& [i, v] : t.e) Tm.e[{i, 0}] = v;
  const Mat<T> Z = write_sparse(W, Tm, mask, accum, replace);
  Vec<T> out{w.n, {}};
  for (auto& [k, v] : Z.e) out.e[k.first] = v;
  return out;
}

// geblas's rule for a dense vector output (no absent entries): see DESIGN.md.
template <class T>
std::vector<T> write_dense_vector(const std::vector<T>& w, const Vec<T>& t, const MaskFn& mask,
                                  const AccumFn<T>& accum, bool replace, T identity) {
  std::vector<T> out = w;
  for (I i = 0; i < static_cast<I>(w.size()); ++i) {
    const auto it = t.e.find(i);
    if (!mask || mask(i, 0)) {
      if (it != t.e.end()) out[i] = accum ? accum(w[i], it->second) : it->second;
      else if (!accum) out[i] = identity;
    } else if (replace) {
      out[i] = identity;
    }
  }
  return out;
}

// ---- the operations ------------------------------------------------------------------

template <class T>
Mat<T> ewise(const Mat<T>& A, const Mat<T>& B, const std::function<T(T, T)>& op, bool add) {
  Mat<T> out{A.m, A.n, {}};
  for (auto& [k, a] : A.e) {
    auto it = B.e.find(k);
    if (it != B.e.end()) out.e[k] = op(a, it->second);
    else if (add) out.e[k] = a;
  }
  if (add)
    for (auto& [k, b] : B.e)
      if (!A.e.count(k)) out.e[k] = b;
  return out;
}

template <class T>
Mat<T> transpose(const Mat<T>& A) {
  Mat<T> out{A.n, A.m, {}};
  for (auto& [k, v] : A.e) out.e[{k.second, k.first}] = v;
  return out;
}

// t(i) = add over k of mul(M(i,k), u(k)) (or mul(u(k), M(i,k)) when u_first); absent
// when no term. `terms` (optional) receives every term, for checking `any`.
template <class T>
Vec<T> mxv(const Mat<T>& M, const Vec<T>& u, const SemiringOps<T>& s, bool u_first,
           std::map<I, std::vector<T>>* terms = nullptr) {
  Vec<T> out{M.m, {}};
  for (auto& [k, a] : M.e) {
    auto it = u.e.find(k.second);
    if (it == u.e.end()) continue;
    const T x = u_first ? s.mul(it->second, a) : s.mul(a, it->second);
    auto o = out.e.find(k.first);
    if (o == out.e.end()) out.e[k.first] = x;
    else o->second = s.add(o->second, x);
    if (terms) (*terms)[k.first].push_back(x);
  }
  return out;
}

template <class T>
Vec<T> reduce_rows(const Mat<T>& A, const MonoidRef<T>& mon) {
  Vec<T> out{A.m, {}};
  for (auto& [k, v] : A.e) {
    auto o = out.e.find(k.first);
    if (o == out.e.end()) out.e[k.first] = v;
    else o->second = mon.op(o->second, v);
  }
  return out;
}

template <class T>
Mat<T> select(const Mat<T>& A, const std::function<bool(I, I, T)>& keep) {
  Mat<T> out{A.m, A.n, {}};
  for (auto& [k, v] : A.e)
    if (keep(k.first, k.second, v)) out.e[k] = v;
  return out;
}

template <class T>
Mat<T> extract(const Mat<T>& A, const std::vector<I>& rows, const std::vector<I>& cols) {
  Mat<T> out{static_cast<I>(rows.size()), static_cast<I>(cols.size()), {}};
  for (I a = 0; a < out.m; ++a)
    for (I b = 0; b < out.n; ++b) {
      auto it = A.e.find({rows[a], cols[b]});
      if (it != A.e.end()) out.e[{a, b}] = it->second;
    }
  return out;
}

// The region step of assign: Z = C, with Z(rows[a], cols[b]) = accum(C(..), S(a, b)).
template <class T>
Mat<T> assign_region(const Mat<T>& C, const Mat<T>& S, const std::vector<I>& rows, const std::vector<I>& cols,
                     const AccumFn<T>& accum) {
  Mat<T> Z = C;
  for (I a = 0; a < static_cast<I>(rows.size()); ++a)
    for (I b = 0; b < static_cast<I>(cols.size()); ++b) {
      const std::pair<I, I> pos{rows[a], cols[b]};
      auto s = S.e.find({a, b});
      auto c = Z.e.find(pos);
      if (!accum) {
        if (s != S.e.end()) Z.e[pos] = s->second;
        else if (c != Z.e.end()) Z.e.erase(c);
      } else if (s != S.e.end()) {
        Z.e[pos] = c != Z.e.end() ? accum(c->second, s->second) : s->second;
      }
    }
  return Z;
}

}  // namespace ref
