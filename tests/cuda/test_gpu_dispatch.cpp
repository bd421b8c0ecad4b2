// The dispatch record names the kernel that really ran, written by the CUDA backend
// itself: the sparse x sparse method chosen for each mask kind (under a sparse mask that
// is not complemented masked dot products or hash by the mask's entries against the
// products, the rule checked on both sides; hash otherwise) and each one forced, the
// masked product by both methods under every mask form, accumulator and replace, dense x
// sparse and dense x dense; every case's
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
        if (*forced) CHECK(ran.variant == forced);
        else if (lists_entries(mc)) CHECK((ran.variant == "masked_dot" || ran.variant == "hash"));
        else CHECK(ran.variant == "hash");
      }
    }
}

TEST_CASE("under a sparse mask the rule picks masked_dot when the mask is sparse and hash when it is dense",
          "[dispatch][gpu]") {
  // 200 x 200 x 200, A 10% and B 20% full: about 160000 products, and 20 + 40 merge steps
  // per mask entry. A 0.5% mask (200 entries, 12000 steps) is far below the rule's 2 x
  // 160000; a 90% mask (36000 entries, 2.2 million steps) far above it.
  struct Side {
    double mask_density;
    const char* want;
  };
  std::uint64_t seed = 1700;
  for (const bool structural : {false, true})
    for (const Side side : {Side{0.005, "masked_dot"}, Side{0.9, "hash"}}) {
      MxmCase c;
      c.form = Form::sparse_sparse;
      c.m = c.k = c.n = 200;
      c.density = 0.1;
      c.seed = ++seed;
      c.mask = MaskKind::sparse;
      c.mask_density = side.mask_density;
      c.spec.structural = structural;
      DispatchRecord ran;
      const std::string e = run_case<float>(c, &ran);
      INFO(describe(c) << " ran " << ran.variant << " (" << ran.reason << ")");
      CHECK(e == "");
      CHECK(ran.variant == side.want);
      CHECK(ran.reason.find("sparse mask") != std::string::npos);
      CHECK(ran.reason.find("products") != std::string::npos);
    }
}

TEST_CASE("the masked sparse x sparse product by masked_dot and by hash, every mask form, accumulator and replace",
          "[dispatch][gpu]") {
  // Both methods forced on the same inputs; each result checked entry by entry against the
  // host oracle (mxm_driver.hpp). Complemented masks list no entries: hash only.
  std::uint64_t seed = 1800;
  for (const double mask_density : {0.03, 0.4, 1.0})
    for (const bool structural : {false, true})
      for (const bool complement : {false, true})
        for (const char* forced : {"masked_dot", "hash"}) {
          if (complement && std::string(forced) == "masked_dot") continue;
          for (const char* accum : {"", "plus"})
            for (const bool replace : {false, true}) {
              MxmCase c;
              c.form = Form::sparse_sparse;
              c.m = 67;
              c.k = 45;
              c.n = 129;
              c.seed = ++seed;
              c.shape = (seed & 1) ? Shape::heavy_row : Shape::uniform;
              c.semiring = (seed & 2) ? "plus_times" : "min_plus";
              c.mask = MaskKind::sparse;
              c.mask_density = mask_density;
              c.spec.structural = structural;
              c.spec.complement = complement;
              c.accum = accum;
              c.replace = replace;
              c.variant = forced;
              DispatchRecord ran;
              const std::string e = run_case<double>(c, &ran);
              INFO(describe(c) << " ran " << ran.variant);
              CHECK(e == "");
              CHECK(ran.variant == forced);
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
