// The dispatch record names the kernel that really ran, written by the CUDA backend
// itself: the sparse x sparse method chosen for each mask kind (masked dot products when
// the mask lists the entries to compute: sparse and not complemented; expand-sort-
// compress otherwise) and each one forced, dense x sparse and dense x dense; every case's
// result is also checked entry by entry (tests/ops/mxm_driver.hpp), so a right record over
// a wrong result still fails. The products themselves, on every device: tests/ops/.
#include <string>

#include "ops/mxm_driver.hpp"
#include "support/catch.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

struct MaskChoice {
  MaskKind kind;
  bool structural, complement;
  const char* name;
};
const MaskChoice mask_choices[] = {{MaskKind::none, false, false, "none"},
                                   {MaskKind::sparse, false, false, "sparse value"},
                                   {MaskKind::sparse, true, false, "sparse structural"},
                                   {MaskKind::sparse, false, true, "sparse value complemented"},
                                   {MaskKind::sparse, true, true, "sparse structural complemented"},
                                   {MaskKind::dense, false, false, "dense value"}};

MxmCase sparse_sparse_case(const MaskChoice& mc, std::uint64_t seed) {
  MxmCase c;
  c.form = Form::sparse_sparse;
  c.m = 40;
  c.k = 70;
  c.n = 35;
  c.shape = (seed & 1) ? Shape::heavy_row : Shape::uniform;
  c.seed = seed;
  c.mask = mc.kind;
  c.spec.structural = mc.structural;
  c.spec.complement = mc.complement;
  return c;
}

bool lists_entries(const MaskChoice& mc) { return mc.kind == MaskKind::sparse && !mc.complement; }

}  // namespace

TEST_CASE("the CUDA backend records the sparse x sparse method it ran, chosen or forced", "[dispatch][gpu]") {
  std::uint64_t seed = 1400;
  for (const MaskChoice& mc : mask_choices)
    for (const char* forced : {"", "hash", "esc", "masked_dot"}) {
      if (std::string(forced) == "masked_dot" && !lists_entries(mc)) continue;  // refused: next test
      for (const char* semiring : {"plus_times", "min_plus"}) {
        MxmCase c = sparse_sparse_case(mc, ++seed);
        c.semiring = semiring;
        c.variant = forced;
        c.transpose_b = seed & 2;
        DispatchRecord ran;
        const std::string e = run_case<float>(c, &ran);
        INFO(describe(c) << " mask kind " << mc.name << " ran " << ran.variant);
        CHECK(e == "");
        CHECK(ran.operation == "mxm(sparse x sparse)");
        CHECK(ran.backend == "cuda");
        CHECK(ran.variant == (*forced ? std::string(forced) : lists_entries(mc) ? "masked_dot" : "hash"));
      }
    }
}

TEST_CASE("a sparse x sparse method the CUDA backend cannot run is InvalidValue, never replaced", "[dispatch][gpu]") {
  // masked_dot computes only the entries a mask lists; gustavson is the CPU's method
  std::uint64_t seed = 1500;
  for (const MaskChoice& mc : mask_choices)
    for (const char* forced : {"masked_dot", "gustavson"}) {
      if (std::string(forced) == "masked_dot" && lists_entries(mc)) continue;
      MxmCase c = sparse_sparse_case(mc, ++seed);
      c.variant = forced;
      INFO(describe(c) << " mask kind " << mc.name);
      CHECK_THROWS_AS(run_case<float>(c), InvalidValue);
    }
}

TEST_CASE("the CUDA backend records dense x sparse and dense x dense", "[dispatch][gpu]") {
  std::uint64_t seed = 1600;
  for (Form form : {Form::dense_sparse, Form::dense_dense})
    for (const MaskChoice& mc : mask_choices) {
      MxmCase c;
      c.form = form;
      c.semiring = "min_plus";
      c.m = 33;
      c.k = 17;
      c.n = 40;
      c.shape = Shape::empty_rows;
      c.seed = ++seed;
      c.mask = mc.kind;
      c.spec.structural = mc.structural;
      c.spec.complement = mc.complement;
      c.accum = (seed & 1) ? "min" : "";
      DispatchRecord ran;
      const std::string e = run_case<double>(c, &ran);
      INFO(describe(c) << " mask kind " << mc.name << " ran " << ran.variant);
      CHECK(e == "");
      CHECK(ran.backend == "cuda");
      CHECK(ran.variant == (form == Form::dense_sparse ? "dot_bt" : "tiled"));
    }
}
