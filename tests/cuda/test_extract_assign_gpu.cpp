// extract and assign on the GPU against the reference of tests/reference/operations.hpp
// and the CPU backend: index lists that repeat and are unsorted (extract), unique and
// unsorted (assign), `all`, matrix and scalar sources, vectors in both storages, masks,
// accumulators, replace and empty lists.
#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "cuda/gpu_ops_support.hpp"

using namespace geblas;
using geblas::test::MaskCase;
using geblas::test::MaskKind;
using geblas::test::Shape;

namespace {

std::vector<Index> random_list(Index count, Index bound, bool unique, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Index> out;
  if (unique) {
    out.resize(static_cast<std::size_t>(bound));
    std::iota(out.begin(), out.end(), Index{0});
    std::shuffle(out.begin(), out.end(), rng);
    out.resize(static_cast<std::size_t>(std::min(count, bound)));
  } else {
    for (Index a = 0; a < count; ++a) out.push_back(static_cast<Index>(rng() % static_cast<std::uint64_t>(bound)));
  }
  return out;
}

std::vector<Index> iota(Index n) {
  std::vector<Index> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), Index{0});
  return v;
}

}  // namespace

TEMPLATE_TEST_CASE("extract on the GPU", "[extract][gpu]", float, double, std::int32_t, std::int64_t, bool) {
  using T = TestType;
  std::uint64_t seed = 700;
  struct L {
    Index count;
    bool all;
  };
  for (L rl : {L{30, false}, L{0, true}, L{0, false}})
    for (L cl : {L{45, false}, L{0, true}, L{1, false}})
      for (MaskKind mk : {MaskKind::none, MaskKind::value, MaskKind::complement_structural}) {
        const auto A = test::random_mat<T>(60, 70, 0.15, Shape::heavy_row, ++seed);
        const std::vector<Index> rows = rl.all ? iota(60) : random_list(rl.count, 60, false, seed + 1);
        const std::vector<Index> cols = cl.all ? iota(70) : random_list(cl.count, 70, false, seed + 2);
        const IndexList ri = rl.all ? IndexList::all() : IndexList(rows);
        const IndexList ci = cl.all ? IndexList::all() : IndexList(cols);
        const Index m = static_cast<Index>(rows.size()), n = static_cast<Index>(cols.size());
        const auto C0 = test::random_mat<T>(m, n, 0.1, Shape::uniform, seed + 3);
        const MaskCase mask(mk, m, n, false, seed + 4);
        SparseMatrix<T> Cg = test::from_ref(C0, test::gpu()), Cc = test::from_ref(C0);
        extract(Cg, test::from_ref(A, test::gpu()), ri, ci, {.mask = mask.mask(true), .accum = binop::plus<T>{}});
        extract(Cc, test::from_ref(A), ri, ci, {.mask = mask.mask(false), .accum = binop::plus<T>{}});
        INFO("extract rows=" << (rl.all ? "all" : std::to_string(rl.count)) << " cols="
                             << (cl.all ? "all" : std::to_string(cl.count)) << " " << type_traits<T>::name
                             << " mask=" << test::to_string(mk) << " seed=" << seed);
        const auto want =
            ref::write_sparse(C0, ref::extract(A, rows, cols), mask.fn(), test::accum_ref<T>("plus"), false);
        CHECK(test::compare(test::to_ref(Cg), want) == "");
        CHECK(test::compare(test::to_ref(Cg), test::to_ref(Cc)) == "");
      }
  // vectors, and a column of a matrix
  for (bool dense : {false, true})
    for (bool w_dense : {false, true}) {
      const auto u = test::random_vec<T>(150, dense ? 1.0 : 0.3, ++seed);
      const auto idx = random_list(80, 150, false, seed + 1);
      Vector<T> ug = dense ? test::from_ref(u).densified(T{}).to(test::gpu()) : test::from_ref(u, test::gpu());
      const auto w0 = test::random_vec<T>(80, w_dense ? 1.0 : 0.3, seed + 2);
      Vector<T> wg = w_dense ? test::from_ref(w0).densified(T{}).to(test::gpu()) : test::from_ref(w0, test::gpu());
      extract(wg, ug, IndexList(idx));
      ref::Vec<T> t{80, {}};
      for (Index a = 0; a < 80; ++a)
        if (u.e.count(idx[static_cast<std::size_t>(a)])) t.e[a] = u.e.at(idx[static_cast<std::size_t>(a)]);
      INFO("extract vector dense=" << dense << " w_dense=" << w_dense << " seed=" << seed);
      if (w_dense) {
        std::vector<T> wd(80, T{});
        for (auto& [i, x] : w0.e) wd[static_cast<std::size_t>(i)] = x;
        CHECK(test::compare(test::dense_values(wg), ref::write_dense_vector(wd, t, {}, {}, false, T{})) == "");
      } else {
        CHECK(test::compare(test::to_ref(wg), t) == "");
      }
    }
  const auto A = test::random_mat<T>(40, 30, 0.2, Shape::uniform, ++seed);
  const auto rows = random_list(25, 40, false, seed + 1);
  Vector<T> wg(25, test::gpu());
  extract_column(wg, test::from_ref(A, test::gpu()), IndexList(rows), 7);
  ref::Vec<T> want{25, {}};
  for (Index a = 0; a < 25; ++a)
    if (A.e.count({rows[static_cast<std::size_t>(a)], 7})) want.e[a] = A.e.at({rows[static_cast<std::size_t>(a)], 7});
  CHECK(test::compare(test::to_ref(wg), want) == "");
}

TEMPLATE_TEST_CASE("assign on the GPU", "[assign][gpu]", float, double, std::int32_t, std::int64_t, bool) {
  using T = TestType;
  std::uint64_t seed = 800;
  for (bool scalar : {false, true})
    for (bool rows_all : {false, true})
      for (MaskKind mk : {MaskKind::none, MaskKind::value, MaskKind::complement_structural, MaskKind::dense_value})
        for (const auto& acc : test::accum_names)
          for (bool replace : {false, true}) {
            const Index m = 50, n = 40;
            const auto C0 = test::random_mat<T>(m, n, 0.2, Shape::uniform, ++seed);
            const std::vector<Index> rows = rows_all ? iota(m) : random_list(20, m, true, seed + 1);
            const std::vector<Index> cols = random_list(15, n, true, seed + 2);
            const Index R = static_cast<Index>(rows.size()), NC = static_cast<Index>(cols.size());
            const auto S = scalar ? ref::Mat<T>{R, NC, {}} : test::random_mat<T>(R, NC, 0.3, Shape::uniform, seed + 3);
            ref::Mat<T> Sfull = S;
            const T value = T(2);
            if (scalar)
              for (Index a = 0; a < R; ++a)
                for (Index b = 0; b < NC; ++b) Sfull.e[{a, b}] = value;
            const MaskCase mask(mk, m, n, false, seed + 4);
            const IndexList ri = rows_all ? IndexList::all() : IndexList(rows);
            SparseMatrix<T> Cg = test::from_ref(C0, test::gpu()), Cc = test::from_ref(C0);
            test::with_accum<T>(acc, [&](Accum a) {
              const Options og{.mask = mask.mask(true), .accum = a, .replace = replace};
              const Options oc{.mask = mask.mask(false), .accum = a, .replace = replace};
              if (scalar) {
                assign(Cg, value, ri, IndexList(cols), og);
                assign(Cc, value, ri, IndexList(cols), oc);
              } else {
                assign(Cg, test::from_ref(S, test::gpu()), ri, IndexList(cols), og);
                assign(Cc, test::from_ref(S), ri, IndexList(cols), oc);
              }
            });
            // GraphBLAS assign: Z = region step with the accumulator, then C<M, replace> = Z
            const auto Z = ref::assign_region(C0, Sfull, rows, cols, test::accum_ref<T>(acc));
            const auto want = ref::write_sparse(C0, Z, mask.fn(), {}, replace);
            INFO("assign scalar=" << scalar << " rows_all=" << rows_all << " " << type_traits<T>::name
                                  << " mask=" << test::to_string(mk) << " accum='" << acc << "' replace=" << replace
                                  << " seed=" << seed);
            CHECK(test::compare(test::to_ref(Cg), want) == "");
            CHECK(test::compare(test::to_ref(Cg), test::to_ref(Cc)) == "");
          }
  // vectors: BFS's level update assign(levels, depth, all, {.mask = frontier}) and lists
  for (bool scalar : {false, true})
    for (bool w_dense : {false, true})
      for (bool u_dense : {false, true})
        for (MaskKind mk : {MaskKind::none, MaskKind::structural, MaskKind::complement_value})
          for (const auto& acc : test::accum_names) {
            const Index n = 200;
            const auto w0 = test::random_vec<T>(n, w_dense ? 1.0 : 0.3, ++seed);
            const auto idx = random_list(90, n, true, seed + 1);
            const auto u = test::random_vec<T>(90, u_dense ? 1.0 : 0.4, seed + 2);
            const MaskCase mask(mk, n, 1, true, seed + 3);
            Vector<T> wg = w_dense ? test::from_ref(w0).densified(T{}).to(test::gpu()) : test::from_ref(w0, test::gpu());
            Vector<T> wc = wg.to(Device::cpu());
            const T value = T(3);
            test::with_accum<T>(acc, [&](Accum a) {
              const Options og{.mask = mask.mask(true), .accum = a};
              const Options oc{.mask = mask.mask(false), .accum = a};
              if (scalar) {
                assign(wg, value, IndexList(idx), og);
                assign(wc, value, IndexList(idx), oc);
              } else {
                Vector<T> uc = u_dense ? test::from_ref(u).densified(T{}) : test::from_ref(u);
                assign(wg, uc.to(test::gpu()), IndexList(idx), og);
                assign(wc, uc, IndexList(idx), oc);
              }
            });
            ref::Mat<T> W{n, 1, {}}, S{90, 1, {}};
            for (auto& [i, x] : w0.e) W.e[{i, 0}] = x;
            for (Index a = 0; a < 90; ++a)
              if (scalar) S.e[{a, 0}] = value;
              else if (u.e.count(a)) S.e[{a, 0}] = u.e.at(a);
            const auto Z = ref::assign_region(W, S, idx, std::vector<Index>{0}, test::accum_ref<T>(acc));
            INFO("assign vector scalar=" << scalar << " w_dense=" << w_dense << " u_dense=" << u_dense << " "
                                         << type_traits<T>::name << " mask=" << test::to_string(mk) << " accum='"
                                         << acc << "' seed=" << seed);
            ref::Vec<T> zv{n, {}};
            for (auto& [k, x] : Z.e) zv.e[k.first] = x;
            if (w_dense) {
              std::vector<T> wd(static_cast<std::size_t>(n), T{});
              for (auto& [i, x] : w0.e) wd[static_cast<std::size_t>(i)] = x;
              CHECK(test::compare(test::dense_values(wg), ref::write_dense_vector(wd, zv, mask.fn(), {}, false, T{})) ==
                    "");
              CHECK(test::compare(test::dense_values(wg), test::dense_values(wc)) == "");
            } else {
              CHECK(test::compare(test::to_ref(wg), ref::write_vector(w0, zv, mask.fn(), {}, false)) == "");
              CHECK(test::compare(test::to_ref(wg), test::to_ref(wc)) == "");
            }
          }
}
