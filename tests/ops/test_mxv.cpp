// mxv and vxm on test::device() against the reference: every built-in semiring and type,
// dense and sparse u (pull and push, chosen and forced), dense and sparse w, every mask
// case, with and without accumulator and replace, transpose_a, shapes from empty to tall
// and wide, and larger matrices with a heavy row, empty rows or no entries.
#include <optional>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/ops_harness.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

template <class T>
std::vector<std::string> semirings_for() {
  if constexpr (std::is_same_v<T, bool>) return {"lor_land", "any_second"};
  else
    return {"plus_times", "max_times", "min_plus",   "max_plus",   "min_times",  "max_min",
            "min_max",    "plus_pair", "min_second", "any_second", "plus_second"};
}

// shape: of A; by default uniform or (one seed in three) empty rows. accum_override:
// the accumulator's name, else the semiring's add.
template <class T>
void run_all(const std::vector<Dims>& dims, std::optional<Shape> shape, const std::string& accum_override,
             std::uint64_t seed) {
  int combo = 0;
  for (const std::string& name : semirings_for<T>()) {
    const SemiringId sid = semiring_from_string(name.c_str());
    const ref::SemiringOps<T> sops = ref::semiring<T>(name);
    for (const Dims& d : dims)
      for (MaskCase mc : all_mask_cases) {
        ++combo;
        ++seed;
        if (!in_sweep(combo)) continue;
        const bool vxm = combo & 1, u_dense = combo & 2, w_dense = combo & 4, use_accum = combo & 8,
                   replace = combo & 16, transpose_a = combo & 32;
        // A is stored so that the product is m x n -> w of size m, u of size n.
        const Index am = (vxm != transpose_a) ? d.n : d.m, an = (vxm != transpose_a) ? d.m : d.n;
        auto [A, Ap] = random_matrix<T>(am, an, 0.15, seed,
                                        shape      ? *shape
                                        : seed % 3 ? Shape::uniform
                                                   : Shape::empty_rows);
        // A sparse u of ~5% takes the push path; ~50% the pull path.
        auto [u, up] = random_vector<T>(d.n, (combo & 64) ? 0.05 : 0.5, u_dense, seed + 1);
        auto [w, wp] = random_vector<T>(d.m, 0.3, w_dense, seed + 2);
        MaskHolder mh(mc, d.m, 1, /*vector=*/true, seed + 3);
        Options o;
        o.mask = mh.mask;
        o.replace = replace;
        o.transpose_a = transpose_a;
        const std::string accum_name =
            accum_override.empty() ? name.substr(0, name.find('_')) : accum_override;  // the semiring's add
        if (use_accum)
          o.accum = accum_of<T>(*[&] {
            static const std::vector<std::pair<std::string, BinaryOpId>> ids = {{"plus", BinaryOpId::plus},
                                                                                {"max", BinaryOpId::max},
                                                                                {"min", BinaryOpId::min},
                                                                                {"lor", BinaryOpId::lor},
                                                                                {"any", BinaryOpId::any}};
            for (const auto& [n, id] : ids)
              if (n == accum_name) return &id;
            return &ids[0].second;
          }());
        const ref::Binary<T> accum = ref::binary<T>(accum_name == "any" ? "first" : accum_name);
        const ref::Partial<T> M = (vxm != transpose_a) ? ref::transpose(Ap) : Ap;
        std::vector<std::vector<T>> terms;
        const ref::Partial<T> t = ref::mxv(M, up, sops, vxm, &terms);
        const ref::Partial<T> want =
            ref::write_back(wp, t, mh.allow, replace, use_accum ? &accum : nullptr, w_dense, sops.identity);
        for (const char* variant : {"", "pull", "push"}) {
          if (std::string(variant) == "push" && u_dense) continue;
          Vector<T> got = w;
          Options ov = o;
          ov.variant = variant;
          if (vxm) detail::vxm(got.storage(), u.storage(), A.storage(), sid, ov);
          else detail::mxv(got.storage(), A.storage(), u.storage(), sid, ov);
          INFO((vxm ? "vxm " : "mxv ") << name << " " << type_traits<T>::name << " m=" << d.m << " n=" << d.n
                                       << " mask=" << to_string(mc) << " u_dense=" << u_dense
                                       << " u_nvals=" << u.nvals() << " w_dense=" << w_dense << " accum=" << use_accum
                                       << " replace=" << replace << " transpose_a=" << transpose_a << " variant='"
                                       << variant << "' ran=" << last_dispatch().variant << " seed=" << seed << " on "
                                       << device().str());
          CHECK(got.is_dense() == w_dense);
          if (name.starts_with("any_"))
            CHECK(compare_any(partial_of(got), want, wp, mh.allow, terms, use_accum ? &accum : nullptr) == "");
          else CHECK(compare_partial(partial_of(got), want, device_tol<T>()) == "");
        }
      }
  }
}

}  // namespace

TEST_CASE("mxv / vxm match the reference for every semiring, type, mask and storage", "[mxv]") {
  for_each_type([&]<class T>() { run_all<T>(sweep_dims, std::nullopt, "", 7000); });
}

// Several thread blocks' worth of rows, frontiers small enough to push, a row holding
// half the entries, empty rows, no entries; the min accumulator (lor for bool).
TEMPLATE_TEST_CASE("mxv / vxm on larger and skewed matrices", "[mxv]", bool, std::int32_t, std::int64_t, float,
                   double) {
  const std::vector<Dims> dims = {{300, 200}, {129, 257}, {33, 17}};
  const std::string accum = std::is_same_v<TestType, bool> ? "lor" : "min";
  std::uint64_t seed = 70000;
  for (Shape shape : {Shape::heavy_row, Shape::empty_rows, Shape::empty})
    run_all<TestType>(dims, shape, accum, seed += 100000);
}

TEST_CASE("mxv through the public templates: PageRank-like step and BFS push step", "[mxv]") {
  // Each backend records its own kernel's name for the pull and the push step.
  const std::string pull = device().is_cpu() ? "pull" : "csr_vector";
  const std::string push = device().is_cpu() ? "push" : "warp_scatter";
  auto [A, Ap] = random_matrix<double>(50, 50, 0.1, 99);
  auto [u, up] = random_vector<double>(50, 1.0, true, 100);
  Vector<double> w = Vector<double>::dense(50, 0.0, device());
  mxv(w, A, u, semiring::plus_times<double>{});
  const auto want = ref::mxv(Ap, up, ref::semiring<double>("plus_times"), false);
  CHECK(compare_partial(partial_of(w),
                        ref::write_back(ref::Partial<double>(50, 1, 0.0, true), want, ref::Flags::Constant(50, 1, 1),
                                        false, static_cast<const ref::Binary<double>*>(nullptr), true, 0.0)) == "");
  CHECK(last_dispatch().variant == pull);

  // One BFS level: frontier q (bool, sparse), visited mask complemented, push.
  auto [B, Bp] = random_matrix<bool>(200, 200, 0.02, 101);
  const bool one[1] = {true};
  Vector<bool> q = Vector<bool>::from_tuples(200, std::vector<Index>{3}, std::span<const bool>(one, 1)).to(device());
  Vector<bool> next(200, device());
  vxm(next, q, B, semiring::lor_land<bool>{}, {.mask = Mask::structure(q).complement()});
  CHECK(last_dispatch().variant == push);
  std::vector<char> want_next(200, 0);
  for (long long j = 0; j < 200; ++j) want_next[static_cast<std::size_t>(j)] = Bp.has(3, j) && Bp.v(3, j) && j != 3;
  std::vector<char> got_next(200, 0);
  for (auto [i, x] : next.to(Device::cpu()).extract_tuples()) got_next[static_cast<std::size_t>(i)] = x;
  CHECK(got_next == want_next);
}
