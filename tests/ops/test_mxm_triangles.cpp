// Triangle counting, C<L> = L (+).(pair) L' with L the strictly lower triangle, on a real
// graph and on test::device(): a structural mask, a transposed B and a sparse output
// together, checked per entry against common-neighbour counts from sorted adjacency
// lists (nothing of geblas's products involved).
#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "geblas/io.hpp"
#include "support/catch.hpp"
#include "support/data.hpp"
#include "support/device.hpp"

using namespace geblas;
using namespace geblas::test;

TEST_CASE("triangle counting: C<L> = L (+).(pair) L' on a real graph", "[mxm][data]") {
  const std::string path = data_file("cora.mtx.gz");
  if (path.empty()) {
    WARN("cora.mtx.gz not found in " << data_dir() << ": real-graph triangle count not run");
    return;
  }
  const auto A = io::read_matrix_market<std::int64_t>(path);
  // L from the tuples (not from geblas's select): (i, j) with j < i
  std::vector<Tuple<std::int64_t>> lower;
  for (const auto& t : A.extract_tuples())
    if (t.col < t.row) lower.push_back(t);
  const auto L = SparseMatrix<std::int64_t>::from_tuples(A.nrows(), A.ncols(), lower).to(device());
  SparseMatrix<std::int64_t> C(A.nrows(), A.ncols(), device());
  mxm(C, L, L, semiring::plus_pair<std::int64_t>{}, {.mask = Mask::structure(L), .transpose_b = true});

  // C(i, j) for each (i, j) of L: the k < j adjacent to both i and j in L
  std::map<Index, std::vector<Index>> rows;
  for (const auto& t : lower) rows[t.row].push_back(t.col);
  for (auto& [i, r] : rows) std::sort(r.begin(), r.end());
  std::map<std::pair<Index, Index>, std::int64_t> want;
  std::int64_t total = 0;
  for (const auto& t : lower) {
    const auto& a = rows[t.row];
    const auto& b = rows[t.col];
    std::vector<Index> common;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
    if (!common.empty()) want[{t.row, t.col}] = static_cast<std::int64_t>(common.size());
    total += static_cast<std::int64_t>(common.size());
  }
  std::map<std::pair<Index, Index>, std::int64_t> got;
  for (const auto& t : C.to(Device::cpu()).extract_tuples()) got[{t.row, t.col}] = t.value;
  INFO("cora on " << device().str() << ": " << total << " triangles in the reference");
  CHECK(total > 0);
  CHECK(got == want);
  CHECK(reduce(C, monoid::plus<std::int64_t>{}) == total);
}
