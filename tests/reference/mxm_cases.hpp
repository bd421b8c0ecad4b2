// What the mxm tests share: the semirings each type is built for, dense twins of sparse
// matrices with a presence flag per entry, the definition of an mxm product over
// presence (which entries have a term), the GraphBLAS write rule C<M, replace> =
// accum(C, T) for dense and sparse outputs, and the any_second check (every output entry
// is one of its candidate terms). Written from the GraphBLAS definitions, sharing nothing
// with src/.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "reference/products.hpp"

namespace ref {

inline const std::vector<std::string>& semiring_names() {
  static const std::vector<std::string> names = {"plus_times", "max_times",  "min_plus",   "max_plus",
                                                 "min_times",  "max_min",    "min_max",    "lor_land",
                                                 "plus_pair",  "min_second", "any_second", "plus_second"};
  return names;
}

// A matrix as dense values plus presence: what every form of mxm reduces to.
template <class T>
struct Full {
  Dense<T> value;
  Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> present;
  Eigen::Index rows() const { return value.rows(); }
  Eigen::Index cols() const { return value.cols(); }
};

template <class T>
Full<T> full_of(const Sparse<T>& A) {
  Full<T> F{Dense<T>::Zero(A.rows(), A.cols()), decltype(Full<T>::present)::Constant(A.rows(), A.cols(), false)};
  for (Eigen::Index i = 0; i < A.outerSize(); ++i)
    for (typename Sparse<T>::InnerIterator it(A, i); it; ++it) {
      F.value(i, it.col()) = it.value();
      F.present(i, it.col()) = true;
    }
  return F;
}
template <class T>
Full<T> full_of(const Dense<T>& A) {
  return {A, decltype(Full<T>::present)::Constant(A.rows(), A.cols(), true)};
}

// T = A (+).(x) B by the definition: T(i,j) is present when some k has A(i,k) and
// B(k,j) present; its value folds the terms in k order, starting from the first term.
// For any_second the fold keeps the first term; check_any() accepts any of them.
template <class T>
Full<T> product(const Full<T>& A, const Full<T>& B, const SemiringOps<T>& s) {
  Full<T> C{Dense<T>::Constant(A.rows(), B.cols(), s.identity),
            decltype(Full<T>::present)::Constant(A.rows(), B.cols(), false)};
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index k = 0; k < A.cols(); ++k) {
      if (!A.present(i, k)) continue;
      for (Eigen::Index j = 0; j < B.cols(); ++j) {
        if (!B.present(k, j)) continue;
        const T term = s.mul(A.value(i, k), B.value(k, j));
        C.value(i, j) = C.present(i, j) ? s.add(C.value(i, j), term) : term;
        C.present(i, j) = true;
      }
    }
  return C;
}

// Which entries a mask lets through: value (present and nonzero) or structural
// (present), then complemented if asked.
struct MaskSpec {
  bool used = false;
  bool structural = false;
  bool complement = false;
};
template <class T>
bool allowed(const std::optional<Full<T>>& M, const MaskSpec& spec, Eigen::Index i, Eigen::Index j) {
  if (!spec.used || !M) return true;
  bool a = M->present(i, j) && (spec.structural || M->value(i, j) != T(0));
  return spec.complement ? !a : a;
}

// Z = accum ? accum(C, T) : T over presence, then C<M, replace> = Z.
// Dense outputs: an absent entry is the identity.
template <class T>
Full<T> write(const Full<T>& C0, const Full<T>& P, const std::optional<Full<T>>& M, const MaskSpec& spec,
              const std::function<T(T, T)>& accum, bool replace, bool dense_output, T identity) {
  Full<T> C = C0;
  for (Eigen::Index i = 0; i < C0.rows(); ++i)
    for (Eigen::Index j = 0; j < C0.cols(); ++j) {
      bool zp;
      T zv{};
      if (accum) {
        zp = C0.present(i, j) || P.present(i, j);
        if (C0.present(i, j) && P.present(i, j)) zv = accum(C0.value(i, j), P.value(i, j));
        else if (P.present(i, j)) zv = P.value(i, j);
        else zv = C0.value(i, j);
      } else {
        zp = P.present(i, j);
        zv = P.value(i, j);
      }
      const bool ok = allowed(M, spec, i, j);
      bool outp;
      T outv;
      if (ok) { outp = zp; outv = zv; }
      else if (replace) { outp = false; outv = T{}; }
      else { outp = C0.present(i, j); outv = C0.value(i, j); }
      if (dense_output) {
        C.present(i, j) = true;
        C.value(i, j) = outp ? outv : identity;
      } else {
        C.present(i, j) = outp;
        C.value(i, j) = outp ? outv : T{};
      }
    }
  return C;
}

// Empty when every present entry of `got` is one of its candidate terms (B(k,j) for
// the k with A(i,k) and B(k,j) present) and presence matches; else a description.
template <class T>
std::string check_any(const Full<T>& got, const Full<T>& A, const Full<T>& B) {
  std::ostringstream msg;
  int bad = 0;
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < B.cols(); ++j) {
      bool has = false, found = false;
      for (Eigen::Index k = 0; k < A.cols(); ++k)
        if (A.present(i, k) && B.present(k, j)) {
          has = true;
          found = found || B.value(k, j) == got.value(i, j);
        }
      if (has != got.present(i, j) || (has && !found)) {
        if (bad++ < 5) msg << " (" << i << "," << j << "): got " << +got.value(i, j) << (has ? " not a candidate" : " but no term") << ";";
      }
    }
  if (bad) msg << " " << bad << " entries wrong";
  return msg.str();
}

}  // namespace ref
