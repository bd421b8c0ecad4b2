// BFS against a queue BFS: levels of every vertex, and parents checked exactly (the
// smallest in-neighbour one level up, for one source and many, computed by the oracle
// from the levels), forced push, forced pull and automatic; on random graphs, graphs
// with hubs and isolated vertices, paths and grids with many levels, duplicate input
// edges, and the real graphs of the data folder.
#include <set>
#include <string>
#include <vector>

#include "algorithms/graphs.hpp"
#include "algorithms/traversal_graphs.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

template <class T>
void check_single_on(const SparseMatrix<T>& A, const oracle::Graph& g, Index s, algo::BfsDirection dir,
                     const std::string& what) {
  double reported = 0;
  int levels_reported = 0;
  const auto r = algo::bfs(A, s, {.direction = dir, .on_iteration = [&](int level, double reached) {
                                    levels_reported = level;
                                    reported += reached;
                                  }});
  const auto want_level = oracle::bfs_levels(g, s);
  const auto want_parent = oracle::bfs_parents(g, s, want_level, /*smallest=*/true);
  INFO(what << " n=" << g.n << " source=" << s << " direction=" << static_cast<int>(dir));
  CHECK(r.levels.device() == algotest::device());
  const auto level = r.levels.to_std_vector(-1);
  const auto parent = r.parents.to_std_vector(-1);
  CHECK(r.levels.nvals() == r.parents.nvals());
  int bad = 0;
  algo::VertexId depth = 0;
  for (Index i = 0; i < g.n; ++i) {
    depth = std::max(depth, want_level[i]);
    if (level[i] != want_level[i] || parent[i] != want_parent[i])
      if (bad++ < 5)
        UNSCOPED_INFO("vertex " << i << ": level " << level[i] << " want " << want_level[i] << ", parent " << parent[i]
                                << " want " << want_parent[i]);
  }
  CHECK(bad == 0);
  CHECK(r.depth == depth);
  // One callback per level, with the vertices first reached there.
  CHECK(levels_reported == r.depth);
  CHECK(reported == static_cast<double>(r.levels.nvals() - 1));
  if (r.depth > 0) CHECK(r.edges_examined > 0);
}

// Automatic runs twice: on a fresh matrix (on the host: pulls through A when the pattern
// is symmetric, pushes otherwise) and after a forced pull has cached A' (push/pull
// switching on every device).
void check_single(const oracle::Graph& g, Index s, algo::BfsDirection dir, const std::string& what) {
  const auto A = algotest::to_matrix<float>(g);
  check_single_on(A, g, s, dir, what);
  if (dir == algo::BfsDirection::automatic) {
    (void)algo::bfs(A, s, {.direction = algo::BfsDirection::pull});
    check_single_on(A, g, s, dir, what + " with A' cached");
  }
}

void check_multi(const oracle::Graph& g, const std::vector<Index>& sources, const std::string& what,
                 algo::BfsDirection dir = algo::BfsDirection::automatic) {
  const auto r = algo::bfs(algotest::to_matrix<double>(g), sources, {.direction = dir});
  INFO(what << " n=" << g.n << " k=" << sources.size());
  const auto level = r.levels.to_col_major(), parent = r.parents.to_col_major();
  int bad = 0;
  for (std::size_t j = 0; j < sources.size(); ++j) {
    const auto wl = oracle::bfs_levels(g, sources[j]);
    const auto wp = oracle::bfs_parents(g, sources[j], wl, /*smallest=*/true);
    for (Index i = 0; i < g.n; ++i) {
      const auto p = static_cast<std::size_t>(j) * static_cast<std::size_t>(g.n) + static_cast<std::size_t>(i);
      if ((level[p] != wl[i] || parent[p] != wp[i]) && bad++ < 5)
        UNSCOPED_INFO("column " << j << " vertex " << i << ": level " << level[p] << " want " << wl[i] << ", parent "
                                << parent[p] << " want " << wp[i]);
    }
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("bfs matches a queue BFS on random graphs", "[algo][bfs]") {
  for (std::uint64_t seed : {31, 32})
    for (std::int64_t n : {1, 2, 50, 600})
      for (bool symmetric : {false, true}) {
        const auto g = algotest::random_graph(n, 1.5, seed, symmetric);
        for (auto dir : {algo::BfsDirection::automatic, algo::BfsDirection::push, algo::BfsDirection::pull})
          check_single(g, (n * 3) / 7, dir, "random seed " + std::to_string(seed));
        std::vector<Index> sources;
        for (Index k = 0; k < std::min<Index>(n, 37); ++k) sources.push_back((k * 13) % n);
        check_multi(g, sources, "random seed " + std::to_string(seed));
      }
}

TEST_CASE("bfs matches a queue BFS on real graphs", "[algo][bfs][data]") {
  for (const std::string name : {"power.mtx.gz", "email-Eu-core.mtx.gz", "wiki-Vote.mtx.gz", "citeseer.mtx.gz"}) {
    const auto g = algotest::real_graph(name);
    if (g.n < 0) {
      WARN("skipped: " << name << " not found under " << geblas::test::data_dir());
      continue;
    }
    for (auto dir : {algo::BfsDirection::automatic, algo::BfsDirection::push, algo::BfsDirection::pull})
      check_single(g, 1, dir, name);
    check_multi(g, {0, 1, g.n / 2, g.n - 1}, name);
  }
}

TEST_CASE("bfs on other value types and edge cases", "[algo][bfs][errors]") {
  const auto dev = algotest::device();
  oracle::Graph g{4, {{0, 1, 1}, {1, 1, 1}, {1, 2, 1}}};  // a self-loop; vertex 3 unreachable
  std::vector<Tuple<bool>> tb;
  for (const auto& e : g.edges) tb.push_back({e.from, e.to, true});
  const auto B = SparseMatrix<bool>::from_tuples(4, 4, tb, {}, dev);
  const auto r = algo::bfs(B, 0);
  CHECK(r.levels.to_std_vector(-1) == std::vector<algo::VertexId>{0, 1, 2, -1});
  CHECK(r.parents.to_std_vector(-1) == std::vector<algo::VertexId>{0, 0, 1, -1});
  const auto m = algo::bfs(algotest::to_matrix<std::int32_t>(g), {3, 0});
  CHECK(m.levels.to_row_major() == std::vector<algo::VertexId>{-1, 0, -1, 1, -1, 2, 0, -1});
  CHECK_THROWS_AS(algo::bfs(B, 4), IndexOutOfBounds);
  CHECK_THROWS_AS(algo::bfs(B, std::vector<Index>{1, -2}), IndexOutOfBounds);
  CHECK_THROWS_AS(algo::bfs(B, std::vector<Index>{}), InvalidValue);
  CHECK_THROWS_AS(algo::bfs(SparseMatrix<float>(2, 3, dev), 0), DimensionMismatch);
}

TEST_CASE("bfs on graphs with hubs, isolated vertices and self-loops", "[algo][bfs]") {
  // The hubs make the automatic rule switch to pull after a level or two and back.
  for (bool symmetric : {false, true})
    for (std::uint64_t seed : {41, 42}) {
      const auto g = algotest::hub_graph(20000, 120000, seed, symmetric);
      const std::string what = std::string("hubs ") + (symmetric ? "symmetric" : "directed");
      for (auto dir : {algo::BfsDirection::automatic, algo::BfsDirection::push, algo::BfsDirection::pull}) {
        check_single(g, 0, dir, what);      // the biggest hub
        check_single(g, 9000, dir, what);   // a low-degree vertex
        check_single(g, 19999, dir, what);  // isolated: depth 0
      }
      check_multi(g, {0, 9000, 19999, 5, 0}, what);  // a repeated source is its own column
    }
}

TEST_CASE("bfs pushes the edges of heavy vertices in pieces", "[algo][bfs]") {
  // Sources whose out-degrees sit on both sides of the sizes where the GPU's push step
  // cuts a vertex's edges into pieces (256 and its multiples), a second-level hub whose
  // edges reach vertices already on the frontier's level (the parent must still be the
  // smallest in-neighbour one level up), on a sparse random graph.
  const std::int64_t n = 9000;
  auto g = algotest::random_graph(n, 1.2, 61);
  std::set<std::pair<std::int64_t, std::int64_t>> present;
  for (const auto& e : g.edges) present.emplace(e.from, e.to);
  auto add = [&](std::int64_t a, std::int64_t b) {
    if (present.emplace(a, b).second) g.edges.push_back({a, b, 1.0});
  };
  const std::vector<std::int64_t> degrees = {255, 256, 257, 512, 513, 3000};
  for (std::size_t k = 0; k < degrees.size(); ++k) {
    const auto s = static_cast<std::int64_t>(10 + k);
    for (std::int64_t d = 0; d < degrees[k]; ++d) add(s, (s * 131 + d * 7 + 1) % n);
  }
  for (std::int64_t d = 0; d < 5000; ++d) add(20, (d * 3 + 2) % n);  // vertex 20: a hub one level down
  for (std::size_t k = 0; k < degrees.size(); ++k) add(static_cast<std::int64_t>(10 + k), 20);
  for (auto dir : {algo::BfsDirection::automatic, algo::BfsDirection::push, algo::BfsDirection::pull})
    for (std::size_t k = 0; k < degrees.size(); ++k)
      check_single(g, static_cast<Index>(10 + k), dir, "heavy source " + std::to_string(degrees[k]));
  check_multi(g, {10, 11, 12, 13, 14, 15, 20}, "heavy sources", algo::BfsDirection::push);
}

TEST_CASE("bfs from more sources than one 64-bit word holds", "[algo][bfs]") {
  // 130 sources: two full groups of 64 and a partial one on the GPU's many-source
  // traversal, with repeated, isolated and hub sources; every column against the oracle,
  // and the per-level callback against the columns' level counts.
  for (bool symmetric : {false, true}) {
    const auto g = algotest::hub_graph(6000, 30000, 81, symmetric);
    std::vector<Index> sources;
    for (Index j = 0; j < 130; ++j) sources.push_back((j * 97) % 6000);
    sources[7] = sources[3];  // a repeated source
    sources[64] = 5999;       // isolated (the last fifth never appears)
    sources[129] = 0;         // the biggest hub
    const std::string what = std::string("130 sources ") + (symmetric ? "symmetric" : "directed");
    check_multi(g, sources, what);
    std::vector<double> per_level;
    const auto r = algo::bfs(algotest::to_matrix<float>(g), sources,
                             {.on_iteration = [&](int level, double reached) {
                               CHECK(level == static_cast<int>(per_level.size()) + 1);
                               per_level.push_back(reached);
                             }});
    std::vector<double> want(1, 0);
    algo::VertexId depth = 0;
    for (Index s : sources) {
      const auto lv = oracle::bfs_levels(g, s);
      for (auto l : lv) {
        if (l <= 0) continue;
        if (static_cast<std::size_t>(l) > want.size()) want.resize(static_cast<std::size_t>(l), 0);
        want[static_cast<std::size_t>(l - 1)] += 1;
        depth = std::max(depth, l);
      }
    }
    want.resize(static_cast<std::size_t>(depth));
    INFO(what);
    CHECK(r.depth == depth);
    CHECK(per_level == want);
  }
}

TEST_CASE("bfs with many levels: paths and grids", "[algo][bfs]") {
  const auto path = algotest::path_graph(5000, 3);
  for (auto dir : {algo::BfsDirection::automatic, algo::BfsDirection::push, algo::BfsDirection::pull})
    check_single(path, 0, dir, "path");
  check_single(path, 4999, algo::BfsDirection::automatic, "path from its end");
  check_multi(path, {0, 2500}, "path", algo::BfsDirection::push);
  const auto grid = algotest::grid_graph(150, 40, 4);
  for (auto dir : {algo::BfsDirection::automatic, algo::BfsDirection::push, algo::BfsDirection::pull})
    check_single(grid, 0, dir, "grid");
  check_multi(grid, {0, 3000, 5999}, "grid", algo::BfsDirection::pull);
}

TEST_CASE("bfs on a matrix built from duplicate tuples", "[algo][bfs]") {
  const auto g = algotest::hub_graph(3000, 15000, 43, false);
  const auto t = algotest::with_duplicates(g);
  const auto A = SparseMatrix<double>::from_tuples(g.n, g.n, t.rows, t.cols, t.values, binop::min<double>{},
                                                   algotest::device());
  REQUIRE(A.nvals() == static_cast<Index>(g.edges.size()));
  for (auto dir : {algo::BfsDirection::automatic, algo::BfsDirection::push, algo::BfsDirection::pull})
    check_single_on(A, g, 0, dir, "duplicates");
}

TEST_CASE("bfs on the road graph luxembourg_osm", "[algo][bfs][data]") {
  const auto g = algotest::real_graph("luxembourg_osm.mtx.gz");
  if (g.n < 0) {
    WARN("skipped: luxembourg_osm.mtx.gz not found under " << geblas::test::data_dir());
    return;
  }
  for (auto dir : {algo::BfsDirection::automatic, algo::BfsDirection::push, algo::BfsDirection::pull})
    check_single(g, 0, dir, "luxembourg_osm");
  check_multi(g, {0, g.n / 2}, "luxembourg_osm");
  // Direction optimisation on a road graph stays push: each edge read about once.
  const auto r = algo::bfs(algotest::to_matrix<float>(g), 0);
  CHECK(r.edges_examined <= 1.01 * static_cast<double>(g.edges.size()));
}

TEST_CASE("bfs on the host: where the pull step reads its in-edges", "[algo][bfs]") {
  if (!algotest::device().is_cpu()) return;  // the GPU always has A'
  auto reason = [] {
    const auto rec = last_dispatch();
    CHECK(rec.operation == "bfs");
    return rec.reason;
  };
  // Symmetric hubs: pulls through A itself, builds nothing.
  const auto sym = algotest::hub_graph(20000, 120000, 45, true);
  const auto S = algotest::to_matrix<float>(sym);
  check_single_on(S, sym, 0, algo::BfsDirection::automatic, "symmetric hubs");
  CHECK(reason() == "pulls through A: symmetric pattern");
  // Directed hubs: the first traversal pushes and marks A; the second builds A' at its
  // first pull level; the third finds it cached.
  const auto dir = algotest::hub_graph(20000, 120000, 46, false);
  const auto D = algotest::to_matrix<float>(dir);
  check_single_on(D, dir, 0, algo::BfsDirection::automatic, "directed hubs");
  CHECK(reason() == "pushes: A' not cached, built when A is traversed again");
  check_single_on(D, dir, 0, algo::BfsDirection::automatic, "directed hubs, second");
  CHECK(reason() == "pulls through A', built for this call");
  check_single_on(D, dir, 0, algo::BfsDirection::automatic, "directed hubs again");
  CHECK(reason() == "pulls through A'");
  // A directed path never has a large frontier: push only, A' never built.
  const auto path = algotest::path_graph(3000, 5);
  const auto P = algotest::to_matrix<float>(path);
  check_single_on(P, path, 0, algo::BfsDirection::automatic, "path");
  CHECK(reason() == "never worth pulling, A' not built");
}

TEST_CASE("bfs on the host: the symmetric-pattern test, on sparse and dense rows", "[algo][bfs]") {
  if (!algotest::device().is_cpu()) return;  // the host's test of A's pattern
  // Mean degree 2 and 40 take the test's two methods (a search per entry, cursors per
  // row). Each graph is tested whole, then with one entry's mirror removed, or one entry
  // of a row moved to another column (as many entries above the diagonal as below), at a
  // row the test's sample misses (it probes rows s n / 1024), so only the full test can
  // see it.
  // Both sizes are past the host's parallel threshold (2^15 entries).
  auto reason = [] { return last_dispatch().reason; };
  for (const auto& [n, degree] : {std::pair<std::int64_t, double>{24000, 1.0}, {4000, 20.0}}) {
    auto sampled = [n = n](std::int64_t v) {
      const std::int64_t s = (v * 1024 + n - 1) / n;
      return s * n / 1024 == v;
    };
    const auto g = algotest::random_graph(n, degree, 71, /*symmetric=*/true);
    const auto S = algotest::to_matrix<float>(g);
    check_single_on(S, g, 0, algo::BfsDirection::automatic, "symmetric");
    CHECK(reason() == "pulls through A: symmetric pattern");
    // An entry (i, j), i > j, off the sample: its mirror (j, i) removed, or moved to (i, c).
    const auto at = std::find_if(g.edges.begin(), g.edges.end(), [&](const auto& e) {
      return e.from > e.to && !sampled(e.from) && !sampled(e.to);
    });
    REQUIRE(at != g.edges.end());
    const std::int64_t i = at->from, j = at->to;
    INFO("degree " << degree << ", entry (" << i << ", " << j << ")");
    oracle::Graph one_way = g;
    std::erase_if(one_way.edges, [&](const auto& e) { return e.from == j && e.to == i; });
    const auto D = algotest::to_matrix<float>(one_way);
    check_single_on(D, one_way, 0, algo::BfsDirection::automatic, "one entry without its mirror");
    CHECK(reason() != "pulls through A: symmetric pattern");
    oracle::Graph moved = g;
    std::int64_t c = j + 1;
    auto present = [&](std::int64_t col) {
      return std::any_of(moved.edges.begin(), moved.edges.end(), [&](const auto& e) { return e.from == i && e.to == col; });
    };
    while (c == i || present(c)) ++c;
    REQUIRE(c < i);  // still below the diagonal: the counts above and below stay equal
    for (auto& e : moved.edges)
      if (e.from == i && e.to == j) e.to = c;
    const auto M = algotest::to_matrix<float>(moved);
    check_single_on(M, moved, 0, algo::BfsDirection::automatic, "one entry moved");
    CHECK(reason() != "pulls through A: symmetric pattern");
  }
}

TEST_CASE("bfs's symmetry test sees a mirror missing where a row's cursor runs into the next row", "[algo][bfs]") {
  if (!algotest::device().is_cpu()) return;  // the host's test of A's pattern
  // The cursor test (mean degree 40) walks one cursor per row j over the mirrors of
  // column j's entries. Row 100's neighbours all lie below 50 and row 101's smallest is
  // 60, so when row 60 offers its extra entry (60, 100), whose mirror (100, 60) is absent,
  // row 100's cursor has matched all of its row and sits on row 101's first entry, 60:
  // the entry matches there. The test must still fail the pattern: row 60's own cursor
  // stops at (60, 100), which no row 100 entry consumes. Rows 60 and 100 are off the
  // probes' sample (rows s n / 1024).
  const std::int64_t n = 4000;
  oracle::Graph g = algotest::random_graph(n, 20.0, 72, /*symmetric=*/true);
  std::erase_if(g.edges, [](const auto& e) { return e.from == 100 || e.to == 100 || e.from == 101 || e.to == 101; });
  auto link = [&](std::int64_t a, std::int64_t b) {
    g.edges.push_back({a, b, 1});
    g.edges.push_back({b, a, 1});
  };
  for (std::int64_t v = 3; v < 50; v += 5) link(100, v);
  link(101, 60);
  for (std::int64_t v = 70; v < 2000; v += 97) link(101, v);
  const auto S = algotest::to_matrix<float>(g);
  check_single_on(S, g, 0, algo::BfsDirection::automatic, "symmetric");
  CHECK(last_dispatch().reason == "pulls through A: symmetric pattern");
  oracle::Graph extra = g;
  extra.edges.push_back({60, 100, 1});
  const auto E = algotest::to_matrix<float>(extra);
  check_single_on(E, extra, 0, algo::BfsDirection::automatic, "an entry without its mirror");
  CHECK(last_dispatch().reason != "pulls through A: symmetric pattern");
}

TEST_CASE("bfs on a graph large enough for the parallel levels", "[algo][bfs]") {
  // 140,000 vertices and about 600k entries: the hub levels read more than 2^17 edges and
  // a pull level visits more than 2^17 vertices, so the host runs them with OpenMP.
  const auto g = algotest::hub_graph(140000, 300000, 44, true);
  for (auto dir : {algo::BfsDirection::automatic, algo::BfsDirection::push, algo::BfsDirection::pull})
    check_single(g, 0, dir, "large hubs");
}

TEST_CASE("bfs on the host: push and pull levels in one team, for any thread count", "[algo][bfs]") {
  if (!algotest::device().is_cpu()) return;  // the host's traversal and its thread teams
  // 140,000 vertices: the hub levels read more than 2^17 edges and the pull levels visit
  // more than 2^17 vertices, so they run in a team; the first and last levels are small
  // and run on the calling thread. A push-only traversal reads exactly the out-edges of
  // the reached vertices; an automatic one that pulled reads fewer (a pull stops at the
  // first frontier in-neighbour), and after its pull levels it pushes again (the frontier
  // converted back from bits to a queue).
  const int threads_before = get_num_threads();
  for (const bool symmetric : {true, false}) {
    const auto g = algotest::hub_graph(140000, 300000, symmetric ? 47 : 48, symmetric);
    const auto A = algotest::to_matrix<float>(g);
    (void)algo::bfs(A, 0, {.direction = algo::BfsDirection::pull});  // A' cached: the directed graph pulls too
    std::vector<double> out_degree(static_cast<std::size_t>(g.n), 0);
    for (const auto& e : g.edges) out_degree[static_cast<std::size_t>(e.from)] += 1;
    for (const Index source : {Index{0}, Index{777}, g.n / 2}) {
      const auto want = oracle::bfs_levels(g, source);
      double reached_out_edges = 0;
      for (Index v = 0; v < g.n; ++v)
        if (want[static_cast<std::size_t>(v)] >= 0) reached_out_edges += out_degree[static_cast<std::size_t>(v)];
      for (const int threads : {1, 2, 3, 4}) {
        set_num_threads(threads);
        const std::string what = std::string(symmetric ? "symmetric" : "directed") + " hubs, " +
                                 std::to_string(threads) + " threads";
        check_single_on(A, g, source, algo::BfsDirection::automatic, what);
        check_single_on(A, g, source, algo::BfsDirection::push, what);
        check_single_on(A, g, source, algo::BfsDirection::pull, what);
        INFO(what << ", source " << source);
        const auto automatic = algo::bfs(A, source);
        const auto push = algo::bfs(A, source, {.direction = algo::BfsDirection::push});
        CHECK(push.edges_examined == reached_out_edges);
        if (reached_out_edges > 1e5) CHECK(automatic.edges_examined < reached_out_edges);
      }
    }
  }
  set_num_threads(threads_before);
}
