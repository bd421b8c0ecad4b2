// Shared helpers of the GPU operation tests: random operands built once on the host and
// copied to the GPU, masks in every flavour with their reference predicate, and
// element-by-element comparisons of geblas results (sparse pattern and values, dense
// values) with the references of tests/reference/operations.hpp. Every check returns ""
// or a description naming the first differing entries.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "reference/operations.hpp"
#include "support/compare.hpp"
#include "support/random.hpp"

namespace geblas::test {

inline Device gpu() { return Device::cuda(0); }

// Tolerance for a type: exact for integers and bool; a few ulps worth for float and
// double, where the GPU may sum in another order (values are small integers in most
// tests, so this only matters for apply's sqrt / exp).
template <class T>
double tol() {
  if constexpr (std::is_same_v<T, float>) return 1e-5;
  else if constexpr (std::is_same_v<T, double>) return 1e-12;
  else return 0;
}

template <class T>
ref::Mat<T> to_ref(const SparseMatrix<T>& A) {
  const SparseMatrix<T> h = A.to(Device::cpu());
  ref::Mat<T> out{h.nrows(), h.ncols(), {}};
  for (const auto& t : h.extract_tuples()) out.e[{t.row, t.col}] = t.value;
  return out;
}

template <class T>
ref::Vec<T> to_ref(const Vector<T>& v) {
  const Vector<T> h = v.to(Device::cpu());
  ref::Vec<T> out{h.size(), {}};
  for (const auto& [i, x] : h.extract_tuples()) out.e[i] = x;
  return out;
}

template <class T>
SparseMatrix<T> from_ref(const ref::Mat<T>& R, Device d = Device::cpu()) {
  std::vector<Tuple<T>> t;
  for (const auto& [k, v] : R.e) t.push_back({k.first, k.second, v});
  return SparseMatrix<T>::from_tuples(R.m, R.n, t).to(d);
}

template <class T>
Vector<T> from_ref(const ref::Vec<T>& R, Device d = Device::cpu()) {
  std::vector<Index> idx;
  std::unique_ptr<T[]> val(new T[R.e.size() + 1]);  // not std::vector: vector<bool> has no span
  std::size_t k = 0;
  for (const auto& [i, v] : R.e) {
    idx.push_back(i);
    val[k++] = v;
  }
  return Vector<T>::from_tuples(R.n, idx, std::span<const T>(val.get(), k)).to(d);
}

template <class T>
ref::Mat<T> random_mat(Index m, Index n, double density, Shape shape, std::uint64_t seed) {
  return to_ref(random_sparse<T>(m, n, density, shape, seed).geblas());
}

template <class T>
ref::Vec<T> random_vec(Index n, double density, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  ref::Vec<T> v{n, {}};
  for (Index i = 0; i < n; ++i)
    if (std::uniform_real_distribution<double>(0, 1)(rng) < density) v.e[i] = random_value<T>(rng, false);
  return v;
}

// Sparse vs reference: same pattern, values within tolerance.
template <class T>
std::string compare(const ref::Mat<T>& got, const ref::Mat<T>& want) {
  std::ostringstream msg;
  if (got.m != want.m || got.n != want.n) {
    msg << "shape " << got.m << "x" << got.n << " != " << want.m << "x" << want.n;
    return msg.str();
  }
  Index bad = 0;
  auto report = [&](const std::string& s) {
    if (bad++ < 5) msg << " " << s << ";";
  };
  for (const auto& [k, v] : want.e) {
    auto it = got.e.find(k);
    if (it == got.e.end()) report("(" + std::to_string(k.first) + "," + std::to_string(k.second) + ") missing");
    else if (!close(it->second, v, tol<T>()))
      report("(" + std::to_string(k.first) + "," + std::to_string(k.second) + "): got " +
             std::to_string(+it->second) + " want " + std::to_string(+v));
  }
  for (const auto& [k, v] : got.e)
    if (!want.e.count(k)) report("(" + std::to_string(k.first) + "," + std::to_string(k.second) + ") unexpected");
  if (bad) msg << " " << bad << " entries differ (" << want.e.size() << " expected)";
  return msg.str();
}

template <class T>
std::string compare(const ref::Vec<T>& got, const ref::Vec<T>& want) {
  ref::Mat<T> g{got.n, 1, {}}, w{want.n, 1, {}};
  for (auto& [i, v] : got.e) g.e[{i, 0}] = v;
  for (auto& [i, v] : want.e) w.e[{i, 0}] = v;
  return compare(g, w);
}

template <class T>
std::string compare(const std::vector<T>& got, const std::vector<T>& want) {
  std::ostringstream msg;
  if (got.size() != want.size()) return "size " + std::to_string(got.size()) + " != " + std::to_string(want.size());
  Index bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!close<T>(got[i], want[i], tol<T>())) {
      if (bad++ < 5) msg << " [" << i << "]: got " << +T(got[i]) << " want " << +T(want[i]) << ";";
    }
  if (bad) msg << " " << bad << " of " << want.size() << " entries differ";
  return msg.str();
}

// The mask flavours every write-back test runs through.
enum class MaskKind { none, value, structural, complement_value, complement_structural, dense_value };
inline const std::vector<MaskKind> all_masks = {MaskKind::none, MaskKind::value, MaskKind::structural,
                                                MaskKind::complement_value, MaskKind::complement_structural,
                                                MaskKind::dense_value};
inline const char* to_string(MaskKind k) {
  switch (k) {
    case MaskKind::none: return "none";
    case MaskKind::value: return "value";
    case MaskKind::structural: return "structural";
    case MaskKind::complement_value: return "complement_value";
    case MaskKind::complement_structural: return "complement_structural";
    case MaskKind::dense_value: return "dense_value";
  }
  return "?";
}

// A mask over an m x n matrix (or a vector when n == 0): entries with values 0, 1, 2
// (a zero is present but lets nothing through under a value mask). Holds the geblas
// objects the Mask refers to, on the host and on the GPU, and the reference predicate.
struct MaskCase {
  MaskKind kind = MaskKind::none;
  ref::Mat<std::int32_t> entries;  // present entries; for the dense flavour, every entry
  bool vector = false;
  SparseMatrix<std::int32_t> mat_cpu, mat_gpu;
  DenseMatrix<std::int32_t> dense_cpu, dense_gpu;
  Vector<std::int32_t> vec_cpu, vec_gpu;

  MaskCase(MaskKind k, Index m, Index n, bool is_vector, std::uint64_t seed) : kind(k), vector(is_vector) {
    std::mt19937_64 rng(seed);
    const Index cols = is_vector ? 1 : n;
    entries = {m, cols, {}};
    const bool dense = k == MaskKind::dense_value;
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < cols; ++j)
        if (dense || rng() % 3 == 0) entries.e[{i, j}] = static_cast<std::int32_t>(rng() % 3);
    if (is_vector) {
      ref::Vec<std::int32_t> v{m, {}};
      for (auto& [p, x] : entries.e) v.e[p.first] = x;
      vec_cpu = dense ? from_ref(v).densified(0) : from_ref(v);
      vec_gpu = vec_cpu.to(gpu());
    } else if (dense) {
      ref::Dense<std::int32_t> D(m, cols);
      for (auto& [p, x] : entries.e) D(p.first, p.second) = x;
      dense_cpu = to_geblas(D, (seed % 2) ? Layout::row_major : Layout::col_major);
      dense_gpu = dense_cpu.to(gpu());
    } else {
      mat_cpu = from_ref(entries);
      mat_gpu = mat_cpu.to(gpu());
    }
  }

  bool structural() const { return kind == MaskKind::structural || kind == MaskKind::complement_structural; }
  bool complemented() const {
    return kind == MaskKind::complement_value || kind == MaskKind::complement_structural;
  }

  Mask mask(bool on_gpu) const {
    if (kind == MaskKind::none) return Mask{};
    Mask m;
    if (vector) m = structural() ? Mask::structure(on_gpu ? vec_gpu : vec_cpu) : Mask(on_gpu ? vec_gpu : vec_cpu);
    else if (kind == MaskKind::dense_value) m = Mask(on_gpu ? dense_gpu : dense_cpu);
    else m = structural() ? Mask::structure(on_gpu ? mat_gpu : mat_cpu) : Mask(on_gpu ? mat_gpu : mat_cpu);
    return complemented() ? m.complement() : m;
  }

  ref::MaskFn fn() const {
    if (kind == MaskKind::none) return {};
    return [this](Index i, Index j) {
      auto it = entries.e.find({i, j});
      const bool allowed = it != entries.e.end() && (structural() || it->second != 0);
      return allowed != complemented();
    };
  }
};

template <class T>
std::vector<T> dense_values(const Vector<T>& v) {
  return v.to(Device::cpu()).to_std_vector();
}

// The accumulator flavours: none, or a binary operator by name (plus or min).
inline const std::vector<std::string> accum_names = {"", "plus", "min"};

template <class T, class F>
void with_accum(const std::string& name, F&& f) {
  if (name.empty()) f(Accum{});
  else if (name == "plus") f(Accum(binop::plus<T>{}));
  else f(Accum(binop::min<T>{}));
}

template <class T>
ref::AccumFn<T> accum_ref(const std::string& name) {
  if (name.empty()) return {};
  return ref::binary<T>(name);
}

}  // namespace geblas::test
