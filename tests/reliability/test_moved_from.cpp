// Moved-from SparseMatrix, DenseMatrix and Vector objects: each is the empty object of
// its default constructor (0 x 0, or size 0, no entries), so every operation family either
// works on it as on any empty object or reports a dimension mismatch; none reads the
// buffers the object gave away.
#include <cstdint>
#include <utility>
#include <vector>

#include "geblas/algorithms.hpp"
#include "geblas/geblas.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

SparseMatrix<float> small_graph() {
  return SparseMatrix<float>::from_tuples(3, 3, std::vector<Index>{0, 1, 2, 2}, std::vector<Index>{1, 2, 0, 1},
                                          std::vector<float>{1, 2, 3, 4});
}

SparseMatrix<float> moved_sparse() {
  SparseMatrix<float> A = small_graph();
  SparseMatrix<float> B = std::move(A);
  REQUIRE(B.nvals() == 4);
  return A;  // NOLINT(bugprone-use-after-move): the moved-from object is what is tested
}

}  // namespace

TEST_CASE("a moved-from SparseMatrix is the empty 0 x 0 matrix", "[reliability][moved]") {
  SparseMatrix<float> A = small_graph();
  SparseMatrix<float> B(std::move(A));
  CHECK(B.nvals() == 4);
  CHECK(A.nrows() == 0);  // NOLINT(bugprone-use-after-move)
  CHECK(A.ncols() == 0);
  CHECK(A.nvals() == 0);
  CHECK(A.extract_tuples().empty());
  CHECK(A.row_offsets() == std::vector<Index>{0});
  CHECK(A.col_indices().empty());
  CHECK(A.device().is_cpu());

  // Move assignment leaves the source empty too, and the target holds what was moved.
  SparseMatrix<float> C = small_graph();
  SparseMatrix<float> D;
  D = std::move(C);
  CHECK(D.extract_tuples() == small_graph().extract_tuples());
  CHECK(C.nrows() == 0);  // NOLINT(bugprone-use-after-move)
  CHECK(C.nvals() == 0);

  // Every operation family, on the empty object: it works as on an empty matrix.
  SparseMatrix<float> E = moved_sparse();
  SparseMatrix<float> P(0, 0);
  mxm(P, E, E, semiring::plus_times<float>{});
  CHECK(P.nrows() == 0);
  CHECK(P.nvals() == 0);
  DenseMatrix<float> Y(0, 4);
  mxm(Y, E, DenseMatrix<float>(0, 4), semiring::plus_times<float>{});
  CHECK(Y.nrows() == 0);
  SparseMatrix<float> T;
  transpose(T, E);
  CHECK(T.nvals() == 0);
  SparseMatrix<float> S;
  ewise_add(S, E, E, binop::plus<float>{});
  CHECK(S.nvals() == 0);
  apply(S, E, unop::abs<float>{});
  CHECK(S.nvals() == 0);
  select(S, E, selectop::tril{});
  CHECK(S.nvals() == 0);
  Vector<float> w;
  reduce(w, E, monoid::plus<float>{});
  CHECK(w.size() == 0);
  CHECK(reduce(E, monoid::plus<float>{}) == 0.0f);
  mxv(w, E, Vector<float>(0), semiring::plus_times<float>{});
  CHECK(w.size() == 0);
  CHECK(convert<double>(E).nvals() == 0);
  CHECK(E.to(Device::cpu()).nvals() == 0);

  // Against an operand of another shape: a dimension error, never a read of freed memory.
  const SparseMatrix<float> G = small_graph();
  SparseMatrix<float> Q(3, 3);
  CHECK_THROWS_AS(mxm(Q, E, G, semiring::plus_times<float>{}), DimensionMismatch);
  CHECK_THROWS_AS(mxm(Q, G, E, semiring::plus_times<float>{}), DimensionMismatch);
  CHECK_THROWS_AS(ewise_add(Q, E, G, binop::plus<float>{}), DimensionMismatch);
  Vector<float> w3(3);
  CHECK_THROWS_AS(mxv(w3, E, Vector<float>::dense(3, 1.0f), semiring::plus_times<float>{}), DimensionMismatch);

  // The algorithms: an empty graph has no vertices, so no source is valid, and PageRank has
  // no ranks.
  const auto pr = algo::pagerank(E);
  CHECK(pr.ranks.size() == 0);
  CHECK_THROWS_AS(algo::sssp(E, 0), IndexOutOfBounds);
  CHECK_THROWS_AS(algo::bfs(E, 0), IndexOutOfBounds);
  CHECK(algo::triangle_count(E) == 0);
  CHECK(algo::connected_components(E).labels.size() == 0);

  // A moved-from object can be assigned again and used as before.
  E = small_graph();
  CHECK(E.extract_tuples() == small_graph().extract_tuples());
}

TEST_CASE("a moved-from DenseMatrix is the empty 0 x 0 matrix", "[reliability][moved]") {
  DenseMatrix<float> A = DenseMatrix<float>::from_row_major(2, 3, {1, 2, 3, 4, 5, 6});
  DenseMatrix<float> B(std::move(A));
  CHECK(B.to_row_major() == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(A.nrows() == 0);  // NOLINT(bugprone-use-after-move)
  CHECK(A.ncols() == 0);
  CHECK(A.to_row_major().empty());

  DenseMatrix<float> C(0, 0);
  mxm(C, A, A, semiring::plus_times<float>{});
  CHECK(C.nrows() == 0);
  Vector<float> w;
  reduce(w, A, monoid::max<float>{});
  CHECK(w.size() == 0);
  CHECK(convert<double>(A).nrows() == 0);

  DenseMatrix<float> E(2, 2);
  CHECK_THROWS_AS(mxm(E, A, B, semiring::plus_times<float>{}), DimensionMismatch);
  CHECK_THROWS_AS(mxm(E, B, A, semiring::plus_times<float>{}), DimensionMismatch);
  const auto G = SparseMatrix<float>::from_tuples(2, 2, std::vector<Index>{0}, std::vector<Index>{1},
                                                  std::vector<float>{1});
  CHECK_THROWS_AS(mxm(E, G, A, semiring::plus_times<float>{}), DimensionMismatch);
}

TEST_CASE("a moved-from Vector is the empty vector of size 0", "[reliability][moved]") {
  for (bool dense : {false, true}) {
    INFO((dense ? "dense" : "sparse"));
    Vector<float> u = dense ? Vector<float>::dense(5, 2.0f)
                            : Vector<float>::from_tuples(5, std::vector<Index>{1, 3}, std::vector<float>{1, 2});
    Vector<float> v = std::move(u);
    CHECK(v.size() == 5);
    CHECK(u.size() == 0);  // NOLINT(bugprone-use-after-move)
    CHECK(u.nvals() == 0);
    CHECK(u.extract_tuples().empty());
    CHECK(u.to_std_vector().empty());
    CHECK(reduce(u, monoid::plus<float>{}) == 0.0f);
    Vector<float> w;
    ewise_add(w, u, u, binop::plus<float>{});
    CHECK(w.size() == 0);
    mxv(w, SparseMatrix<float>(0, 0), u, semiring::plus_times<float>{});
    CHECK(w.size() == 0);
    CHECK(u.densified(0.0f).size() == 0);

    Vector<float> w4(4);
    CHECK_THROWS_AS(mxv(w4, SparseMatrix<float>(4, 5), u, semiring::plus_times<float>{}), DimensionMismatch);
    CHECK_THROWS_AS(ewise_add(w4, u, Vector<float>(4), binop::plus<float>{}), DimensionMismatch);
  }
}
