// The CPU sparse x sparse kernel (src/cpu/spgemm.cpp) against a hand-written reference
// (an ordered map per row, terms folded in k order): each accumulator forced for every
// row and the per-row choice, on operands built to reach each of them (hub rows of A and
// of B, a wide output, empty rows), every mask kind (sparse by value and by structure,
// complemented, dense), columns near the top of the 32-bit column range, and a C that
// cannot fit. Values are small integers, so every semiring's result is exact in any type.
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

template <class T>
struct Operand {
  Index nrows = 0, ncols = 0;
  std::vector<Tuple<T>> tuples;
  SparseMatrix<T> matrix() const { return SparseMatrix<T>::from_tuples(nrows, ncols, tuples); }
};

// nrows x ncols, about `per_row` random entries a row (values 1..3, or 0..2 with zeros
// when `zeros`: a value mask then differs from a structural one), every third row empty,
// the rows listed in `hubs` full to `hub_len` entries.
template <class T>
Operand<T> random_operand(Index nrows, Index ncols, Index per_row, std::uint64_t seed, std::vector<Index> hubs = {},
                          Index hub_len = 0, bool zeros = false) {
  std::mt19937_64 rng(seed);
  Operand<T> op{nrows, ncols, {}};
  for (Index i = 0; i < nrows; ++i) {
    const bool hub = std::find(hubs.begin(), hubs.end(), i) != hubs.end();
    if (!hub && i % 3 == 2) continue;
    std::map<Index, T> row;
    const Index len = hub ? hub_len : per_row;
    for (Index q = 0; q < len; ++q) {
      const Index j = hub && hub_len >= ncols / 2 ? (q * ncols) / hub_len : static_cast<Index>(rng() % ncols);
      row[j] = static_cast<T>(zeros ? rng() % 3 : 1 + rng() % 3);
    }
    for (const auto& [j, v] : row) op.tuples.push_back({i, j, v});
  }
  return op;
}

// One semiring as the reference computes it.
template <class T>
struct RefSemiring {
  std::string name;
  T (*add)(T, T);
  T (*mul)(T, T);
};

template <class T>
std::vector<RefSemiring<T>> ref_semirings() {
  if constexpr (std::is_same_v<T, bool>) {
    return {{"lor_land", [](T a, T b) -> T { return a || b; }, [](T a, T b) -> T { return a && b; }}};
  } else {
    return {{"plus_times", [](T a, T b) -> T { return a + b; }, [](T a, T b) -> T { return a * b; }},
            {"min_plus", [](T a, T b) -> T { return std::min(a, b); }, [](T a, T b) -> T { return a + b; }},
            {"max_times", [](T a, T b) -> T { return std::max(a, b); }, [](T a, T b) -> T { return a * b; }},
            {"plus_pair", [](T a, T b) -> T { return a + b; }, [](T, T) -> T { return T(1); }}};
  }
}

enum class MaskCase { none, sparse_value, sparse_structure, sparse_complement, structure_complement, dense };

const char* name_of(MaskCase m) {
  switch (m) {
    case MaskCase::none: return "none";
    case MaskCase::sparse_value: return "sparse value";
    case MaskCase::sparse_structure: return "sparse structure";
    case MaskCase::sparse_complement: return "sparse value complemented";
    case MaskCase::structure_complement: return "sparse structure complemented";
    case MaskCase::dense: return "dense value";
  }
  return "";
}

// Row-major map of the expected C = (A (+).(x) B) where the mask allows (C starts empty).
template <class T>
std::map<std::pair<Index, Index>, T> reference(const Operand<T>& A, const Operand<T>& B, const RefSemiring<T>& s,
                                               MaskCase mc, const Operand<T>& M) {
  std::vector<std::vector<std::pair<Index, T>>> b_rows(static_cast<std::size_t>(B.nrows));
  for (const auto& t : B.tuples) b_rows[static_cast<std::size_t>(t.row)].push_back({t.col, t.value});
  std::map<std::pair<Index, Index>, T> mask_entries;
  for (const auto& t : M.tuples) mask_entries[{t.row, t.col}] = t.value;
  const auto allowed = [&](Index i, Index j) {
    if (mc == MaskCase::none) return true;
    const auto it = mask_entries.find({i, j});
    const bool stored = it != mask_entries.end();
    const bool by_value = stored && it->second != T(0);
    switch (mc) {
      case MaskCase::sparse_value: return by_value;
      case MaskCase::dense: return by_value;
      case MaskCase::sparse_structure: return stored;
      case MaskCase::sparse_complement: return !by_value;
      case MaskCase::structure_complement: return !stored;
      default: return true;
    }
  };
  std::map<std::pair<Index, Index>, T> c;
  for (const auto& a : A.tuples)  // row-major, so the terms of each entry arrive in k order
    for (const auto& [j, bv] : b_rows[static_cast<std::size_t>(a.col)]) {
      if (!allowed(a.row, j)) continue;
      const T term = s.mul(a.value, bv);
      const auto [it, fresh] = c.try_emplace({a.row, j}, term);
      if (!fresh) it->second = s.add(it->second, term);
    }
  return c;
}

template <class T>
std::string compare(const SparseMatrix<T>& C, const std::map<std::pair<Index, Index>, T>& want) {
  const auto got = C.extract_tuples();
  if (got.size() != want.size())
    return "C has " + std::to_string(got.size()) + " entries, the reference " + std::to_string(want.size());
  auto it = want.begin();
  for (const auto& t : got) {
    if (t.row != it->first.first || t.col != it->first.second)
      return "entry at " + std::to_string(t.row) + "," + std::to_string(t.col) + ", the reference's at " +
             std::to_string(it->first.first) + "," + std::to_string(it->first.second);
    if (t.value != it->second)
      return "C(" + std::to_string(t.row) + "," + std::to_string(t.col) + ") = " + std::to_string(double(t.value)) +
             ", the reference " + std::to_string(double(it->second));
    ++it;
  }
  return "";
}

// The number of rows the record says a method ran ("... rows: 3 dense, 5 hash, 0 dot; ...").
Index rows_of(const std::string& reason, const std::string& method) {
  const auto at = reason.find(" " + method + ",") != std::string::npos ? reason.find(" " + method + ",")
                                                                        : reason.find(" " + method + ";");
  if (at == std::string::npos) return -1;
  auto start = reason.rfind(' ', at - 1);
  return std::stoll(reason.substr(start + 1, at - start - 1));
}

template <class T>
void run_case(const Operand<T>& A, const Operand<T>& B, MaskCase mc, const Operand<T>& M, const char* variant,
              const std::string& what) {
  const auto Am = A.matrix(), Bm = B.matrix(), Mm = M.matrix();
  DenseMatrix<T> Md(1, 1);  // the dense mask, for MaskCase::dense only
  if (mc == MaskCase::dense) {
    std::vector<T> d(static_cast<std::size_t>(M.nrows * M.ncols), T(0));
    for (const auto& t : M.tuples) d[static_cast<std::size_t>(t.row * M.ncols + t.col)] = t.value;
    Md = DenseMatrix<T>::from_row_major(M.nrows, M.ncols, d);
  }
  for (const auto& s : ref_semirings<T>()) {
    Options o;
    o.variant = variant;
    switch (mc) {
      case MaskCase::none: break;
      case MaskCase::sparse_value: o.mask = Mask(Mm); break;
      case MaskCase::sparse_structure: o.mask = Mask::structure(Mm); break;
      case MaskCase::sparse_complement: o.mask = Mask(Mm).complement(); break;
      case MaskCase::structure_complement: o.mask = Mask::structure(Mm).complement(); break;
      case MaskCase::dense: o.mask = Mask(Md); break;
    }
    SparseMatrix<T> C(A.nrows, B.ncols);
    visit_semiring<T>(semiring_from_string(s.name.c_str()), [&]<class S>() { mxm(C, Am, Bm, S{}, o); });
    const DispatchRecord r = last_dispatch();
    INFO(what << ", mask " << name_of(mc) << ", variant '" << variant << "', " << s.name << ": " << r.reason);
    CHECK(r.operation == "mxm(sparse x sparse)");
    CHECK(r.variant == (std::string(variant).empty() ? std::string("gustavson") : std::string(variant)));
    // the passes: forced by the variant's suffix, else one pass (these products are small)
    const std::string v(variant);
    CHECK(r.reason.find(v.ends_with("+two_pass") ? "symbolic + numeric;" : "one pass;") != std::string::npos);
    CHECK(compare(C, reference(A, B, s, mc, M)) == "");
  }
}

const std::vector<MaskCase> every_mask = {MaskCase::none,
                                          MaskCase::sparse_value,
                                          MaskCase::sparse_structure,
                                          MaskCase::sparse_complement,
                                          MaskCase::structure_complement,
                                          MaskCase::dense};

}  // namespace

TEMPLATE_TEST_CASE("cpu spgemm: every accumulator and mask kind against the reference", "[mxm][spgemm][cpu]",
                   bool, std::int32_t, std::int64_t, float, double) {
  using T = TestType;
  // A: row 0 a hub over the inner dimension; B: row 1 a hub over a wide output, so rows
  // of A holding column 1 have upper bounds near ncols (dense) and the others few (hash).
  const Index m = 120, k = 90, n = 3000;
  const auto A = random_operand<T>(m, k, 4, 11, {0}, k);
  const auto B = random_operand<T>(k, n, 5, 12, {1}, n / 2);
  const auto M = random_operand<T>(m, n, 40, 13, {0, 5}, n / 3, /*zeros=*/true);
  std::uint64_t seed = 0;
  for (MaskCase mc : every_mask)
    for (const char* method : {"", "hash", "dense", "esc", "dot"})
      for (const char* passes : {"", "+one_pass", "+two_pass"}) {
        ++seed;
        if (std::string(method) == "dot" && mc != MaskCase::sparse_value && mc != MaskCase::sparse_structure)
          continue;
        const std::string variant = std::string(method) + passes;
        run_case<T>(A, B, mc, M, variant.c_str(), "hub rows, wide output");
      }
}

TEST_CASE("cpu spgemm: the per-row choice runs each accumulator", "[mxm][spgemm][cpu]") {
  const Index m = 120, k = 90, n = 3000;
  // rows of A of 4 entries over rows of B of 12 (a third of each empty): bounds around
  // the esc / hash cut; rows holding B's hub row: dense
  const auto A = random_operand<double>(m, k, 4, 21, {0}, k);
  const auto B = random_operand<double>(k, n, 12, 22, {1}, n / 2);
  const auto Am = A.matrix(), Bm = B.matrix();
  SparseMatrix<double> C(m, n);
  mxm(C, Am, Bm, semiring::plus_times<double>{});
  const std::string reason = last_dispatch().reason;
  INFO(reason);
  CHECK(last_dispatch().variant == "gustavson");
  CHECK(rows_of(reason, "dense") > 0);
  CHECK(rows_of(reason, "hash") > 0);
  CHECK(rows_of(reason, "esc") > 0);
  CHECK(rows_of(reason, "dot") == 0);
  // a mask of one entry per row against rows of thousands of products: dot products
  const Operand<double> diag{m, n, [&] {
                               std::vector<Tuple<double>> t;
                               for (Index i = 0; i < m; ++i) t.push_back({i, (i * 7) % n, 1.0});
                               return t;
                             }()};
  const auto D = diag.matrix();
  SparseMatrix<double> Cm(m, n);
  mxm(Cm, Am, Bm, semiring::plus_times<double>{}, {.mask = Mask(D)});
  const std::string masked = last_dispatch().reason;
  INFO(masked);
  CHECK(rows_of(masked, "dot") > 0);
  const auto s = ref_semirings<double>()[0];
  CHECK(compare(Cm, reference(A, B, s, MaskCase::sparse_value, diag)) == "");
  CHECK(compare(C, reference(A, B, s, MaskCase::none, diag)) == "");
}

TEST_CASE("cpu spgemm: columns near the top of the 32-bit range", "[mxm][spgemm][cpu]") {
  // C is m x (2^31 - 1): a dense accumulator over it would be gigabytes, so every row must
  // take the hash table; the columns used sit at both ends of the range.
  const Index m = 40, k = 30, n = max_dimension;
  Operand<float> A{m, k, {}}, B{k, n, {}}, M{m, n, {}};
  std::mt19937_64 rng(31);
  for (Index i = 0; i < m; ++i)
    for (Index q = 0; q < 3; ++q) A.tuples.push_back({i, (i + q * 7) % k, float(1 + q)});
  for (Index r = 0; r < k; ++r)
    for (Index q = 0; q < 4; ++q) B.tuples.push_back({r, q < 2 ? n - 1 - (r + q * 5) : (r * 3 + q), float(1 + (r + q) % 3)});
  for (auto* op : {&A, &B}) std::sort(op->tuples.begin(), op->tuples.end(), [](auto& x, auto& y) {
      return x.row != y.row ? x.row < y.row : x.col < y.col;
    });
  for (Index i = 0; i < m; ++i) M.tuples.push_back({i, n - 1 - (i % 20), 1.0f});
  for (MaskCase mc : {MaskCase::none, MaskCase::sparse_value, MaskCase::sparse_complement})
    for (const char* variant : {"", "hash"}) run_case<float>(A, B, mc, M, variant, "columns up to 2^31 - 2");
  SparseMatrix<float> C(m, n);
  mxm(C, A.matrix(), B.matrix(), semiring::plus_times<float>{});
  INFO(last_dispatch().reason);
  CHECK(rows_of(last_dispatch().reason, "dense") == 0);
}

TEST_CASE("cpu spgemm: a C that cannot fit in memory is OutOfMemory before the product", "[mxm][spgemm][cpu]") {
  // A column of ones times a row of ones: every row of C is B's whole row, 2^16 x 2^22
  // entries (3 TB), from 4M entries of input.
  const Index m = Index{1} << 16, n = Index{1} << 22;
  std::vector<Index> a_ro(static_cast<std::size_t>(m) + 1), b_ro{0, n};
  for (Index i = 0; i <= m; ++i) a_ro[static_cast<std::size_t>(i)] = i;
  std::vector<ColIndex> a_ci(static_cast<std::size_t>(m), 0), b_ci(static_cast<std::size_t>(n));
  for (Index j = 0; j < n; ++j) b_ci[static_cast<std::size_t>(j)] = static_cast<ColIndex>(j);
  const auto A = SparseMatrix<float>::from_csr(m, 1, a_ro, a_ci, std::vector<float>(static_cast<std::size_t>(m), 1.f));
  const auto B = SparseMatrix<float>::from_csr(1, n, b_ro, b_ci, std::vector<float>(static_cast<std::size_t>(n), 1.f));
  SparseMatrix<float> C(m, n);
  CHECK_THROWS_AS(mxm(C, A, B, semiring::plus_times<float>{}), OutOfMemory);
  CHECK(C.nvals() == 0);
}

TEST_CASE("cpu spgemm: variant 'dot' needs a sparse mask that is not complemented", "[mxm][spgemm][cpu]") {
  const auto A = random_operand<double>(10, 10, 3, 41).matrix();
  const auto M = random_operand<double>(10, 10, 3, 42).matrix();
  SparseMatrix<double> C(10, 10);
  for (const Mask mask : {Mask(), Mask(M).complement()}) {
    try {
      mxm(C, A, A, semiring::plus_times<double>{}, {.mask = mask, .variant = "dot"});
      FAIL("no exception");
    } catch (const InvalidValue& e) {
      CHECK(std::string(e.what()).find("'dot' needs a sparse mask") != std::string::npos);
    }
  }
}

TEST_CASE("cpu spgemm: rows of many entries, sorted by radix, up to the top of the column range",
          "[mxm][spgemm][cpu]") {
  // rows of about a hundred entries spread over thousands of columns: above the radix
  // cut, and too spread for the dense row's scan, in the hash and the dense accumulator
  const Index m = 30, k = 40, n = 5000;
  const auto A = random_operand<double>(m, k, 30, 51);
  const auto B = random_operand<double>(k, n, 4, 52);
  const auto M = random_operand<double>(m, n, 300, 53, {}, 0, /*zeros=*/true);
  for (MaskCase mc : every_mask)
    for (const char* variant : {"", "hash", "dense", "hash+two_pass", "dense+two_pass"})
      run_case<double>(A, B, mc, M, variant, "rows of about 100 entries over 5000 columns");
  // every row of A full: each row of C has 160 entries over 2^20 columns (three radix
  // passes) or over the whole 31-bit range (all four)
  for (const Index wide : {Index{1} << 20, max_dimension}) {
    Operand<float> Af{8, k, {}}, Bf{k, wide, {}}, Mf{8, wide, {}};
    for (Index i = 0; i < 8; ++i)
      for (Index q = 0; q < k; ++q) Af.tuples.push_back({i, q, float(1 + (i + q) % 3)});
    for (Index r = 0; r < k; ++r) {
      std::vector<Index> cols;
      for (Index q = 0; q < 4; ++q) cols.push_back(q == 0 ? wide - 1 - r : (r * 4 + q) * ((wide - 1) / (4 * k)));
      std::sort(cols.begin(), cols.end());
      for (Index j : cols) Bf.tuples.push_back({r, j, float(1 + (r + j) % 3)});
    }
    for (Index i = 0; i < 8; ++i) Mf.tuples.push_back({i, wide - 1 - i, 1.0f});
    for (MaskCase mc : {MaskCase::none, MaskCase::sparse_complement})
      for (const char* variant : {"", "hash"})
        run_case<float>(Af, Bf, mc, Mf, variant, "160 entries a row, wide output");
  }
}

TEST_CASE("cpu spgemm: C<M> = A*A' takes its dot products from A itself", "[mxm][spgemm][cpu]") {
  // B = A' (transpose_b, A's cached transpose): the dot rows read B's transpose, which is
  // A; the same product with an explicit copy of A' must agree, and both the reference
  const Index m = 200, k = 150;
  const auto A = random_operand<double>(m, k, 6, 61);
  Operand<double> At{k, m, {}};
  for (const auto& t : A.tuples) At.tuples.push_back({t.col, t.row, t.value});
  std::sort(At.tuples.begin(), At.tuples.end(),
            [](auto& x, auto& y) { return x.row != y.row ? x.row < y.row : x.col < y.col; });
  const auto Am = A.matrix(), Atm = At.matrix();
  const auto s = ref_semirings<double>()[0];
  // masks by value with and without stored zeros (without, its rows are read in place)
  for (const bool zeros : {false, true}) {
    const auto M = random_operand<double>(m, m, 12, 62, {}, 0, zeros);
    const auto Mm = M.matrix();
    for (const char* variant : {"", "dot"})
      for (const Mask& mask : {Mask(Mm), Mask::structure(Mm)}) {
        const MaskCase mc = mask.structural() ? MaskCase::sparse_structure : MaskCase::sparse_value;
        SparseMatrix<double> C(m, m), C2(m, m);
        mxm(C, Am, Am, semiring::plus_times<double>{}, {.mask = mask, .transpose_b = true, .variant = variant});
        const std::string reason = last_dispatch().reason;
        mxm(C2, Am, Atm, semiring::plus_times<double>{}, {.mask = mask, .variant = variant});
        INFO("variant '" << variant << "', mask " << name_of(mc) << (zeros ? " with zeros" : "") << ": " << reason);
        CHECK(rows_of(reason, "dot") > 0);
        CHECK(compare(C, reference(A, At, s, mc, M)) == "");
        CHECK(compare(C2, reference(A, At, s, mc, M)) == "");
      }
  }
}
