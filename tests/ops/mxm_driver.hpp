// One mxm test case, any form, on test::device(): builds random operands (small integer
// values, so every type and summation order is exact) with their Eigen twins, runs
// geblas's mxm with the case's layouts, leading dimensions, transposes, mask,
// accumulator, replace flag and forced variant, and compares every output entry with the
// reference of tests/reference/mxm_cases.hpp. run_case() returns "" on success, else the
// mismatches; describe() names the case (seed and shape) so that a failure can be
// replayed.
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "reference/mxm_cases.hpp"
#include "support/device.hpp"
#include "support/random.hpp"

namespace geblas::test {

enum class Form { sparse_dense, sparse_sparse, dense_sparse, dense_dense };
enum class MaskKind { none, sparse, dense };

inline const char* to_string(Form f) {
  switch (f) {
    case Form::sparse_dense: return "sparse x dense";
    case Form::sparse_sparse: return "sparse x sparse";
    case Form::dense_sparse: return "dense x sparse";
    case Form::dense_dense: return "dense x dense";
  }
  return "?";
}

struct MxmCase {
  Form form = Form::sparse_dense;
  std::string semiring = "plus_times";
  Index m = 37, k = 41, n = 16;
  Shape shape = Shape::uniform;  // of the sparse operand(s)
  double density = 0.1;
  std::uint64_t seed = 1;
  Layout a_layout = Layout::row_major, b_layout = Layout::row_major, c_layout = Layout::row_major;
  Index pad = 0;  // extra elements per row / column of every dense operand (ld > width)
  bool transpose_a = false, transpose_b = false;
  MaskKind mask = MaskKind::none;
  ref::MaskSpec spec{};
  double mask_density = 0.4;  // of a sparse mask
  bool replace = false;
  std::string accum;    // "", "plus", "min", "max", "lor"
  bool user = false;    // run the user-defined min_plus struct instead of the built-in
  std::string variant;  // Options::variant: "" lets the backend choose
};

inline std::string describe(const MxmCase& c) {
  std::ostringstream s;
  s << to_string(c.form) << " " << c.semiring << " m=" << c.m << " k=" << c.k << " n=" << c.n
    << " shape=" << to_string(c.shape) << " density=" << c.density << " seed=" << c.seed
    << " layouts(A,B,C)=" << int(c.a_layout) << int(c.b_layout) << int(c.c_layout) << " pad=" << c.pad
    << " tA=" << c.transpose_a << " tB=" << c.transpose_b << " mask=" << int(c.mask)
    << (c.mask == MaskKind::sparse ? " mask_density=" + std::to_string(c.mask_density) : "")
    << (c.spec.structural ? " structural" : "") << (c.spec.complement ? " complement" : "") << " replace=" << c.replace
    << " accum=" << (c.accum.empty() ? "none" : c.accum) << (c.user ? " user" : "")
    << (c.variant.empty() ? "" : " variant=" + c.variant) << " on " << device().str();
  return s.str();
}

// min_plus written by hand, without an id: runs through the header templates.
template <class T>
struct UserMinPlus {
  using value_type = T;
  static T identity() { return ref::top<T>(); }
  static T add(T a, T b) { return ref::fmin_like(a, b); }
  static T mul(T a, T b) { return ref::wrapping_plus(a, b); }
};

// A dense matrix with leading dimension width + pad, in either layout.
template <class T>
DenseMatrix<T> padded_dense(const ref::Dense<T>& D, Layout layout, Index pad) {
  if (pad == 0) return to_geblas(D, layout);
  detail::DenseStorage s = detail::make_dense(D.rows(), D.cols(), layout, type_id<T>, Device::cpu());
  const Index outer = layout == Layout::row_major ? D.rows() : D.cols();
  s.ld = (layout == Layout::row_major ? D.cols() : D.rows()) + pad;
  s.data = detail::RawBuffer(static_cast<std::size_t>(std::max<Index>(outer * s.ld, 1)) * sizeof(T), Device::cpu());
  T* p = s.data.template as<T>();
  for (Index q = 0; q < outer * s.ld; ++q) p[q] = poison<T>();  // the padding must stay untouched
  for (Index i = 0; i < D.rows(); ++i)
    for (Index j = 0; j < D.cols(); ++j) p[layout == Layout::row_major ? i * s.ld + j : j * s.ld + i] = D(i, j);
  return DenseMatrix<T>(std::move(s));
}

template <class T>
ref::Full<T> transposed(const ref::Full<T>& F) {
  return {F.value.transpose(), F.present.transpose()};
}

template <class T>
ref::Full<T> full_of_geblas(const DenseMatrix<T>& C) {
  const std::vector<T> v = C.to(Device::cpu()).to_row_major();
  ref::Dense<T> D(C.nrows(), C.ncols());
  for (Index q = 0; q < C.nrows() * C.ncols(); ++q) D.data()[q] = v[static_cast<std::size_t>(q)];
  return ref::full_of(D);
}
template <class T>
ref::Full<T> full_of_geblas(const SparseMatrix<T>& C) {
  ref::Full<T> F{ref::Dense<T>::Zero(C.nrows(), C.ncols()),
                 decltype(ref::Full<T>::present)::Constant(C.nrows(), C.ncols(), false)};
  for (const auto& t : C.to(Device::cpu()).extract_tuples()) {
    F.value(t.row, t.col) = t.value;
    F.present(t.row, t.col) = true;
  }
  return F;
}

template <class T>
Accum accum_of(const std::string& name) {
  if (name == "plus") return binop::plus<T>{};
  if (name == "min") return binop::min<T>{};
  if (name == "max") return binop::max<T>{};
  if (name == "lor") return binop::lor<T>{};
  return {};
}
template <class T>
std::function<T(T, T)> ref_accum(const std::string& name) {
  if (name == "plus") return ref::wrapping_plus<T>;
  if (name == "min") return ref::fmin_like<T>;
  if (name == "max") return ref::fmax_like<T>;
  if (name == "lor") return [](T a, T b) { return T(a || b); };
  return {};
}

// An operand on device(): sparse (with its Eigen twin) or dense, stored as op(X) needs.
template <class T>
struct Operand {
  bool sparse = false;
  SparseMatrix<T> s;
  DenseMatrix<T> d;
  ref::Full<T> full;  // as stored (before the transpose option)
};

template <class T>
Operand<T> make_operand(bool sparse, Index rows, Index cols, const MxmCase& c, std::uint64_t seed, Layout layout) {
  Operand<T> x;
  x.sparse = sparse;
  if (sparse) {
    const auto R = random_sparse<T>(rows, cols, c.density, c.shape, seed);
    x.s = R.geblas().to(device());
    x.full = ref::full_of(R.eigen());
  } else {
    const ref::Dense<T> D = random_dense<T>(rows, cols, seed);
    x.d = padded_dense(D, layout, c.pad).to(device());  // keeps the leading dimension
    x.full = ref::full_of(D);
  }
  return x;
}

template <class T, class CM, class AM, class BM>
void call_mxm(CM& C, const AM& A, const BM& B, const MxmCase& c, const Options& o) {
  if (c.user) {
    mxm(C, A, B, UserMinPlus<T>{}, o);
    return;
  }
  visit_semiring<T>(semiring_from_string(c.semiring.c_str()), [&]<class S>() {
    if constexpr (supports_semiring(S::id, type_id<T>)) mxm(C, A, B, S{}, o);
  });
}

template <class T>
std::string compare_full(const ref::Full<T>& got, const ref::Full<T>& want) {
  std::ostringstream msg;
  if (got.rows() != want.rows() || got.cols() != want.cols()) return "shapes differ";
  Index bad = 0;
  for (Index i = 0; i < want.rows(); ++i)
    for (Index j = 0; j < want.cols(); ++j) {
      const bool ok = got.present(i, j) == want.present(i, j) &&
                      (!want.present(i, j) || got.value(i, j) == want.value(i, j) ||
                       (got.value(i, j) != got.value(i, j) && want.value(i, j) != want.value(i, j)));
      if (!ok) {
        if (bad < 5)
          msg << " (" << i << "," << j << "): got " << (got.present(i, j) ? "" : "absent ") << +got.value(i, j)
              << " want " << (want.present(i, j) ? "" : "absent ") << +want.value(i, j) << ";";
        ++bad;
      }
    }
  if (bad) msg << " " << bad << " of " << want.value.size() << " entries differ";
  return msg.str();
}

// ran (optional) receives the dispatch record of the product.
template <class T>
std::string run_case(const MxmCase& c, DispatchRecord* ran = nullptr) {
  const bool a_sparse = c.form == Form::sparse_dense || c.form == Form::sparse_sparse;
  const bool b_sparse = c.form == Form::sparse_sparse || c.form == Form::dense_sparse;
  const bool sparse_out = c.form == Form::sparse_sparse;
  const Operand<T> A =
      make_operand<T>(a_sparse, c.transpose_a ? c.k : c.m, c.transpose_a ? c.m : c.k, c, c.seed, c.a_layout);
  MxmCase cb = c;
  cb.density = std::min(1.0, c.density * 2);
  const Operand<T> B =
      make_operand<T>(b_sparse, c.transpose_b ? c.n : c.k, c.transpose_b ? c.k : c.n, cb, c.seed + 1, c.b_layout);
  const ref::Full<T> FA = c.transpose_a ? transposed(A.full) : A.full;
  const ref::Full<T> FB = c.transpose_b ? transposed(B.full) : B.full;
  const std::string sname = c.user ? std::string("min_plus") : c.semiring;
  const ref::SemiringOps<T> s = ref::semiring<T>(sname);
  const ref::Full<T> P = ref::product(FA, FB, s);

  // The old C: random (to show what the mask and accumulator keep), or poison when
  // every entry must be overwritten.
  const bool keeps_old = c.mask != MaskKind::none || !c.accum.empty();
  ref::Full<T> C0;
  SparseMatrix<T> Cs;
  DenseMatrix<T> Cd;
  if (sparse_out) {
    const auto R = random_sparse<T>(c.m, c.n, 0.2, Shape::uniform, c.seed + 2);
    Cs = R.geblas().to(device());
    C0 = ref::full_of(R.eigen());
  } else if (keeps_old) {
    const ref::Dense<T> D = random_dense<T>(c.m, c.n, c.seed + 2);
    Cd = padded_dense(D, c.c_layout, c.pad).to(device());
    C0 = ref::full_of(D);
  } else {
    const ref::Dense<T> D = ref::Dense<T>::Constant(c.m, c.n, poison<T>());
    Cd = padded_dense(D, c.c_layout, c.pad).to(device());
    C0 = ref::full_of(D);
  }
  std::optional<ref::Full<T>> FM;
  SparseMatrix<T> Ms;
  DenseMatrix<T> Md;
  Options o;
  if (c.mask == MaskKind::sparse) {
    const auto R = random_sparse<T>(c.m, c.n, c.mask_density, Shape::uniform, c.seed + 3);
    Ms = R.geblas().to(device());
    FM = ref::full_of(R.eigen());
    o.mask = c.spec.structural ? Mask::structure(Ms) : Mask(Ms);
  } else if (c.mask == MaskKind::dense) {
    const ref::Dense<T> D = random_dense<T>(c.m, c.n, c.seed + 3);
    Md = to_geblas(D, Layout::row_major, device());
    FM = ref::full_of(D);
    o.mask = c.spec.structural ? Mask::structure(Md) : Mask(Md);
  }
  if (c.mask != MaskKind::none && c.spec.complement) o.mask = o.mask.complement();
  ref::MaskSpec spec = c.spec;
  spec.used = c.mask != MaskKind::none;
  o.accum = accum_of<T>(c.accum);
  o.replace = c.replace;
  o.transpose_a = c.transpose_a;
  o.transpose_b = c.transpose_b;
  o.variant = c.variant;

  const auto run = [&] {
    if (sparse_out) call_mxm<T>(Cs, A.s, B.s, c, o);
    else if (a_sparse) call_mxm<T>(Cd, A.s, B.d, c, o);
    else if (b_sparse) call_mxm<T>(Cd, A.d, B.s, c, o);
    else call_mxm<T>(Cd, A.d, B.d, c, o);
    if (ran) *ran = last_dispatch();
  };
  if (c.user && !device().is_cpu()) {
    // A user-defined semiring type reaches a GPU only through the deprecated
    // geblas::cuda_mxm in code nvcc compiles (tests/cuda/test_user_semiring_gpu.cu); from
    // host code the call must be refused with a message that names the replacement (a
    // run-time semiring), never run something else.
    try {
      run();
    } catch (const NotImplemented& e) {
      const std::string what = e.what();
      return what.find("geblas::jit::semiring") != std::string::npos
                 ? ""
                 : "NotImplemented without naming geblas::jit::semiring: " + what;
    }
    return "a user-defined semiring from host code ran on " + device().str() + "; expected NotImplemented";
  }
  run();
  ref::Full<T> got;
  if (sparse_out) {
    got = full_of_geblas(Cs);
  } else {
    got = full_of_geblas(Cd);
    // the padding of C must be untouched
    if (c.pad) {
      const DenseMatrix<T> host = Cd.to(Device::cpu());  // the copy keeps the leading dimension
      const auto& st = host.storage();
      const Index outer = st.layout == Layout::row_major ? st.nrows : st.ncols;
      const Index inner = st.layout == Layout::row_major ? st.ncols : st.nrows;
      for (Index q = 0; q < outer; ++q)
        for (Index p = inner; p < st.ld; ++p)
          if (!(st.data.template as<T>()[q * st.ld + p] == poison<T>())) return "padding of C was written";
    }
  }

  if (sname == "any_second") {
    // only the product itself is checked here: the cases with any_second have no mask
    // or accumulator
    ref::Full<T> g = got;
    if (!sparse_out)
      for (Index i = 0; i < c.m; ++i)
        for (Index j = 0; j < c.n; ++j) g.present(i, j) = P.present(i, j);
    std::string e = ref::check_any(g, FA, FB);
    if (!e.empty()) return e;
    if (!sparse_out)
      for (Index i = 0; i < c.m; ++i)
        for (Index j = 0; j < c.n; ++j)
          if (!P.present(i, j) && !(got.value(i, j) == s.identity)) return "an entry without terms is not the identity";
    return "";
  }
  const ref::Full<T> want = ref::write(C0, P, FM, spec, ref_accum<T>(c.accum), c.replace, !sparse_out, s.identity);
  std::string e = compare_full(got, want);
  if (!e.empty()) return e;
  // A kernel that writes nothing (or only identities) must not pass unnoticed: where the
  // product has many terms, the expected output (which `got` equals) holds some entry
  // other than the identity, else the case itself is too weak to test anything. (Not for
  // bool: a land of random bits over a few terms is legitimately all false.)
  if (!std::is_same_v<T, bool> && !keeps_old && P.present.count() >= 20) {
    bool any_other = false;
    for (Index i = 0; i < c.m && !any_other; ++i)
      for (Index j = 0; j < c.n && !any_other; ++j) any_other = want.present(i, j) && !(want.value(i, j) == s.identity);
    if (!any_other) return "every output entry is the identity";
  }
  return "";
}

// The semirings libgeblas.so is built for with T.
template <class T>
std::vector<std::string> semirings_for() {
  std::vector<std::string> out;
  for (const auto& name : ref::semiring_names())
    if (supports_semiring(semiring_from_string(name.c_str()), type_id<T>)) out.push_back(name);
  return out;
}

// The N sweep: off-by-one sizes around the tile widths.
inline const std::vector<Index>& n_sweep() {
  static const std::vector<Index> ns = {1, 2, 3, 4, 5, 31, 32, 33, 63, 64, 65, 127, 128, 129, 256, 257};
  return ns;
}

}  // namespace geblas::test
