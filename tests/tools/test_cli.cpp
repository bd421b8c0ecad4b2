// The geblas tool end to end: small Matrix Market files written here, the tool run with
// --output, every CSV row compared with the independent oracles of
// tests/algorithms/oracles.hpp; failing runs must exit non-zero with one line on stderr.
// Also the argument parser on its own (the library the fuzzer drives).
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/oracles.hpp"
#include "cli_args.hpp"
#include "geblas/io.hpp"
#include "geblas/threads.hpp"
#include "geblas/version.hpp"
#include "support/catch.hpp"
#include "support/data.hpp"
#include "support/openmp_settings.hpp"

namespace fs = std::filesystem;

namespace {

struct Run {
  int code = -1;
  std::string out, err;
};

fs::path scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("geblas-cli-test-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

Run tool(const std::string& args) {
  const fs::path out = scratch() / "stdout.txt", err = scratch() / "stderr.txt";
  const std::string cmd = std::string(GEBLAS_TOOL_PATH) + " " + args + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// The tool under a file-size limit of `blocks` KiB (ulimit -f; SIGXFSZ ignored so that
// the write fails with EFBIG, as on a full disk, instead of killing the process).
Run tool_with_limit(const std::string& args, int blocks) {
  const fs::path out = scratch() / "stdout.txt", err = scratch() / "stderr.txt";
  const std::string cmd = "bash -c \"trap '' XFSZ; ulimit -f " + std::to_string(blocks) + "; exec " +
                          std::string(GEBLAS_TOOL_PATH) + " " + args + "\" >" + out.string() + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// A general, weighted, directed graph with an isolated vertex (5), a self-loop (2,2),
// a negative stored value (used as |value| by sssp), two components and a triangle.
oracle::Graph small_graph() {
  return {7,
          {{0, 1, 2.5}, {1, 2, 1.0}, {2, 0, 4.0}, {0, 3, 7.0}, {3, 4, -1.5}, {2, 2, 3.0}, {4, 3, 2.0}, {6, 4, 1.0}}};
}

fs::path write_mtx(const oracle::Graph& g, const std::string& name) {
  const fs::path p = scratch() / name;
  std::ofstream f(p);
  f << "%%MatrixMarket matrix coordinate real general\n% test graph\n" << g.n << " " << g.n << " " << g.edges.size() << "\n";
  for (const auto& e : g.edges) f << e.from + 1 << " " << e.to + 1 << " " << e.weight << "\n";
  return p;
}

std::vector<std::vector<std::string>> csv(const fs::path& p, const std::string& header) {
  std::ifstream f(p);
  std::string line;
  REQUIRE(std::getline(f, line));
  CHECK(line == header);
  std::vector<std::vector<std::string>> rows;
  while (std::getline(f, line)) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    std::string c;
    while (std::getline(s, c, ',')) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

}  // namespace

TEST_CASE("geblas pagerank writes every vertex's rank", "[tool]") {
  const auto g = small_graph();
  const auto file = write_mtx(g, "small.mtx");
  const auto out = scratch() / "pr.csv";
  for (bool weighted : {false, true}) {
    const Run r = tool("pagerank " + file.string() + " --device cpu --tolerance 1e-12 --max-iterations 500 --output " +
                       out.string() + (weighted ? " --weighted" : ""));
    INFO(r.err);
    REQUIRE(r.code == (weighted ? 1 : 0));  // weighted: the stored -1.5 is a negative weight
    if (weighted) {
      CHECK(one_line(r.err));
      continue;
    }
    const auto rows = csv(out, "vertex,rank");
    const auto want = oracle::pagerank(g, Eigen::VectorXd::Constant(7, 1.0 / 7), 0.85, false);
    REQUIRE(rows.size() == 7);
    for (std::size_t i = 0; i < 7; ++i) {
      CHECK(std::stoll(rows[i][0]) == static_cast<long long>(i));
      CHECK(std::abs(std::stod(rows[i][1]) - want(static_cast<Eigen::Index>(i))) < 1e-8);
    }
  }
}

TEST_CASE("geblas sssp and bfs write reached vertices only", "[tool]") {
  auto g = small_graph();
  const auto file = write_mtx(g, "small.mtx");
  for (auto& e : g.edges) e.weight = std::abs(e.weight);
  const auto out = scratch() / "paths.csv";
  for (std::string sources : {"0", "0,6,5"}) {
    const Run r = tool("sssp " + file.string() + " --device cpu --sources " + sources + " --output " + out.string());
    INFO(r.err);
    REQUIRE(r.code == 0);
    std::map<std::pair<long long, long long>, double> got;
    for (const auto& row : csv(out, "source,vertex,distance")) got[{std::stoll(row[0]), std::stoll(row[1])}] = std::stod(row[2]);
    std::size_t expected = 0;
    std::stringstream ss(sources);
    std::string s;
    while (std::getline(ss, s, ',')) {
      const auto d = oracle::dijkstra(g, std::stoll(s));
      for (std::size_t v = 0; v < d.size(); ++v)
        if (!std::isinf(d[v])) {
          ++expected;
          CHECK(got[{std::stoll(s), static_cast<long long>(v)}] == d[v]);
        }
    }
    CHECK(got.size() == expected);

    const Run b = tool("bfs " + file.string() + " --device cpu --sources " + sources + " --output " + out.string());
    REQUIRE(b.code == 0);
    const auto rows = csv(out, "source,vertex,level");
    std::size_t reached = 0;
    ss = std::stringstream(sources);
    while (std::getline(ss, s, ',')) {
      const auto lv = oracle::bfs_levels(g, std::stoll(s));
      for (long long l : lv) reached += l >= 0;
      for (const auto& row : rows)
        if (row[0] == s) CHECK(std::stoll(row[2]) == lv[static_cast<std::size_t>(std::stoll(row[1]))]);
    }
    CHECK(rows.size() == reached);
  }
}

TEST_CASE("geblas cc and tc work on the symmetrized pattern", "[tool]") {
  const auto g = small_graph();
  const auto file = write_mtx(g, "small.mtx");
  const auto out = scratch() / "cc.csv";
  Run r = tool("cc " + file.string() + " --device cpu --output " + out.string());
  REQUIRE(r.code == 0);
  const auto want = oracle::components(g);
  const auto rows = csv(out, "vertex,component");
  REQUIRE(rows.size() == want.size());
  for (std::size_t i = 0; i < rows.size(); ++i) CHECK(std::stoll(rows[i][1]) == want[i]);
  r = tool("tc " + file.string() + " --device cpu --output " + out.string());
  REQUIRE(r.code == 0);
  const auto t = csv(out, "triangles");
  REQUIRE(t.size() == 1);
  CHECK(std::stoll(t[0][0]) == oracle::triangles(g));
}

TEST_CASE("geblas info, spmm and convert run", "[tool]") {
  const auto file = write_mtx(small_graph(), "small.mtx");
  Run r = tool("info " + file.string());
  CHECK(r.code == 0);
  CHECK(r.out.find("shape: 7 x 7, entries: 8") != std::string::npos);
  r = tool("spmm " + file.string() + " --device cpu --semiring max_plus --n 5 --repeat 2");
  CHECK(r.code == 0);
  CHECK(r.out.find("median") != std::string::npos);
  const auto bin = scratch() / "small.geb", back = scratch() / "back.mtx";
  const Run to_binary = tool("convert " + file.string() + " " + bin.string());
  if (to_binary.code != 0 && to_binary.err.find("not implemented") != std::string::npos) {
    WARN("skipped the convert round trip: this build's io says: " << to_binary.err);
    return;
  }
  CHECK(to_binary.code == 0);
  CHECK(tool("convert " + bin.string() + " " + back.string()).code == 0);
  // The round trip keeps the graph: tc on the binary file agrees with the oracle.
  const auto out = scratch() / "tc2.csv";
  REQUIRE(tool("tc " + bin.string() + " --device cpu --output " + out.string()).code == 0);
  CHECK(std::stoll(csv(out, "triangles")[0][0]) == oracle::triangles(small_graph()));
  REQUIRE(tool("tc " + back.string() + " --device cpu --output " + out.string()).code == 0);
  CHECK(std::stoll(csv(out, "triangles")[0][0]) == oracle::triangles(small_graph()));
}

TEST_CASE("geblas reads the shared .mtx.gz graphs", "[tool][data]") {
  const std::string path = geblas::test::data_file("karate.mtx.gz");
  if (path.empty()) {
    WARN("skipped: karate.mtx.gz not found under " << geblas::test::data_dir());
    return;
  }
  const auto out = scratch() / "karate.csv";
  REQUIRE(tool("tc " + path + " --device cpu --output " + out.string()).code == 0);
  oracle::Graph g;
  const auto A = geblas::io::read_matrix_market<double>(path);
  g.n = A.nrows();
  for (const auto& t : A.extract_tuples()) g.edges.push_back({t.row, t.col, t.value});
  CHECK(std::stoll(csv(out, "triangles")[0][0]) == oracle::triangles(g));
}

TEST_CASE("geblas fails with one line and a non-zero exit", "[tool][errors]") {
  const auto file = write_mtx(small_graph(), "small.mtx");
  const auto bad = scratch() / "bad.mtx";
  std::ofstream(bad) << "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 9 1.0\n";
  const auto junk = scratch() / "junk.bin";
  std::ofstream(junk) << "this is not a graph";
  struct Case {
    std::string args;
    int code;
  };
  for (const Case& c : std::vector<Case>{
           {"pagerank /no/such/file.mtx", 1},
           {"pagerank " + bad.string(), 1},
           {"pagerank " + junk.string(), 1},
           {"sssp " + file.string() + " --device cpu --sources 7", 1},
           {"bfs " + file.string() + " --device cpu --sources 1,x", 2},
           {"pagerank " + file.string() + " --damping 1.5", 2},
           {"pagerank " + file.string() + " --frobnicate", 2},
           {"pagerank", 2},
           {"explode " + file.string(), 2},
           {"spmm " + file.string() + " --device cpu --semiring no_such", 1},
           {"pagerank " + file.string() + " --device tpu", 2},
       }) {
    const Run r = tool(c.args);
    INFO("geblas " << c.args << " -> " << r.code << ": " << r.err);
    CHECK(r.code == c.code);
    CHECK(one_line(r.err));
    CHECK(r.err.rfind("geblas: ", 0) == 0);
  }
}

TEST_CASE("parse_cli accepts the documented forms and rejects the rest", "[tool][cli]") {
  using namespace geblas::cli;
  auto parse = [](std::vector<const char*> v) {
    v.insert(v.begin(), "geblas");
    return parse_cli(static_cast<int>(v.size()), v.data());
  };
  const CliArgs a = parse({"sssp", "g.mtx", "--sources=1,2,3", "--device", "cuda:1", "--top", "5", "--threads=3",
                           "--output", "o.csv", "--type", "float"});
  CHECK(a.command == Command::sssp);
  CHECK(a.input == "g.mtx");
  CHECK(a.sources == std::vector<std::int64_t>{1, 2, 3});
  CHECK(a.device == "cuda:1");
  CHECK(a.top == 5);
  CHECK(a.threads == 3);
  CHECK(a.output == "o.csv");
  CHECK_FALSE(a.use_double);
  CHECK(parse({"convert", "a.mtx", "b.geb"}).convert_to == "b.geb");
  CHECK(parse({"help"}).command == Command::help);
  CHECK(parse({"pagerank", "g", "--help"}).command == Command::help);
  CHECK(parse({"pagerank", "-h"}).text.find("--damping") != std::string::npos);
  CHECK(parse({"--version"}).command == Command::version);
  // CLI11's flag forms: --flag=true/1 sets it, --flag=false/0 clears it.
  CHECK(parse({"pagerank", "g", "--weighted=1"}).weighted);
  CHECK_FALSE(parse({"pagerank", "g", "--weighted=0"}).weighted);
  CHECK(parse({"sssp", "-", "--weights", "signed"}).weights == Weights::signed_);
  CHECK(parse({"sssp", "-", "--weights=unit"}).input == "-");
  const CliArgs e = parse({"info", "g.csv", "--format", "csv", "--base", "1", "--undirected", "--duplicates", "max",
                           "--max-dimension", "100"});
  CHECK(e.format == "csv");
  CHECK(e.base == 1);
  CHECK(e.undirected);
  CHECK(e.duplicates == "max");
  CHECK(e.max_dimension == 100);
  CHECK(parse({"pagerank", "g", "--damping", "0.5", "--weighted"}).damping == 0.5);
  for (std::vector<const char*> bad : std::vector<std::vector<const char*>>{
           {}, {"nope"}, {"pagerank"}, {"pagerank", "a", "b"}, {"convert", "a"}, {"pagerank", "g", "--top"},
           {"pagerank", "g", "--top", "-1"}, {"pagerank", "g", "--top", "1x"}, {"pagerank", "g", "--damping", "1"},
           {"pagerank", "g", "--damping", "nan"}, {"pagerank", "g", "--tolerance", " 1"}, {"bfs", "g", "--sources", ""},
           {"bfs", "g", "--sources", "1,,2"}, {"bfs", "g", "--sources", "-1"}, {"cc", "g", "--sources", "1"},
           {"pagerank", "g", "--weighted=maybe"}, {"pagerank", "g", "--device", "cuda:"}, {"pagerank", "g", "h", "--"},
           {"pagerank", "g", "--threads", "0"}, {"spmm", "g", "--n", "99999999999999999999"},
           {"sssp", "g", "--weights", "square"}, {"info", "g", "--format", "xls"}, {"info", "g", "--base", "2"},
           {"info", "g", "--duplicates", "average"}, {"info", "g", "--device", "cpu"}, {"bfs", "g", "--weights", "abs"},
           {"help", "nope"}}) {
    INFO("args: " << bad.size());
    CHECK_THROWS_AS(parse(bad), CliError);
  }
}

TEST_CASE("parse_cli names an unknown command, a repeated option and a bad byte count", "[tool][cli]") {
  using namespace geblas::cli;
  auto message = [](std::vector<const char*> v) -> std::string {
    v.insert(v.begin(), "geblas");
    try {
      (void)parse_cli(static_cast<int>(v.size()), v.data());
    } catch (const CliError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  CHECK(message({"frobnicate", "karate.mtx.gz"}) ==
        "unknown command 'frobnicate' (commands: info, pagerank, sssp, bfs, cc, tc, spmm, convert, help)");
  CHECK(message({"pagerank", "g", "--top", "3", "--top=4"}) == "option --top is given twice; give each option once");
  CHECK(message({"info", "g", "--undirected", "--undirected"}) == "option --undirected is given twice; give each option once");
  CHECK(message({"info", "g", "--stream-limit", "12Q"}) ==
        "option --stream-limit: '12Q' is not a positive byte count (e.g. 4096, 64K, 512M, 16G)");
  CHECK(message({"info", "g", "--stream-limit", "0"}).find("is not a positive byte count") != std::string::npos);
  CHECK(message({"info", "g", "--stream-limit", "99999999999T"}).find("is too large") != std::string::npos);
  auto limit = [](const char* v) {
    std::vector<const char*> a = {"geblas", "info", "g", "--stream-limit", v};
    return parse_cli(static_cast<int>(a.size()), a.data()).stream_limit;
  };
  CHECK(limit("4096") == 4096);
  CHECK(limit("64K") == 64u << 10);
  CHECK(limit("512m") == 512u << 20);
  CHECK(limit("16G") == std::uint64_t{16} << 30);
  CHECK(limit("1T") == std::uint64_t{1} << 40);
  std::vector<const char*> plain = {"geblas", "info", "g"};
  CHECK(parse_cli(3, plain.data()).stream_limit == 0);
}

namespace {

// Bellman-Ford on the edge list: the oracle for --weights signed (Dijkstra needs >= 0).
std::vector<double> bellman_ford(const oracle::Graph& g, std::int64_t s) {
  std::vector<double> d(static_cast<std::size_t>(g.n), oracle::inf);
  d[static_cast<std::size_t>(s)] = 0;
  for (std::int64_t round = 0; round < g.n; ++round)
    for (const auto& e : g.edges)
      if (d[static_cast<std::size_t>(e.from)] + e.weight < d[static_cast<std::size_t>(e.to)])
        d[static_cast<std::size_t>(e.to)] = d[static_cast<std::size_t>(e.from)] + e.weight;
  return d;
}

std::map<long long, double> distances_from_csv(const fs::path& p) {
  std::map<long long, double> got;
  for (const auto& row : csv(p, "source,vertex,distance")) got[std::stoll(row[1])] = std::stod(row[2]);
  return got;
}

void check_distances(const std::map<long long, double>& got, const std::vector<double>& want) {
  std::size_t reached = 0;
  for (std::size_t v = 0; v < want.size(); ++v)
    if (!std::isinf(want[v])) {
      ++reached;
      INFO("vertex " << v);
      REQUIRE(got.count(static_cast<long long>(v)) == 1);
      CHECK(std::abs(got.at(static_cast<long long>(v)) - want[v]) <= 1e-12);
    }
  CHECK(got.size() == reached);
}

}  // namespace

TEST_CASE("geblas sssp --weights abs, signed and unit", "[tool][sssp]") {
  const auto g = small_graph();  // 3 -> 4 has the stored value -1.5
  const auto file = write_mtx(g, "small.mtx");
  const auto out = scratch() / "w.csv";
  auto abs_g = g, unit_g = g;
  for (auto& e : abs_g.edges) e.weight = std::abs(e.weight);
  for (auto& e : unit_g.edges) e.weight = 1;
  Run r = tool("sssp " + file.string() + " --device cpu --output " + out.string());
  REQUIRE(r.code == 0);
  CHECK(r.out.find("weights abs") != std::string::npos);
  check_distances(distances_from_csv(out), oracle::dijkstra(abs_g, 0));
  r = tool("sssp " + file.string() + " --device cpu --weights signed --output " + out.string());
  INFO(r.err);
  REQUIRE(r.code == 0);
  check_distances(distances_from_csv(out), bellman_ford(g, 0));
  r = tool("sssp " + file.string() + " --device cpu --weights unit --output " + out.string());
  REQUIRE(r.code == 0);
  check_distances(distances_from_csv(out), oracle::dijkstra(unit_g, 0));
  // A reachable negative cycle (3 -> 4 -> 3 with -1.5 and -2) is an error under signed only.
  auto cyc = g;
  for (auto& e : cyc.edges)
    if (e.from == 4 && e.to == 3) e.weight = -2;
  const auto cfile = write_mtx(cyc, "cycle.mtx");
  r = tool("sssp " + cfile.string() + " --device cpu --weights signed");
  CHECK(r.code == 1);
  CHECK(r.err.find("negative cycle") != std::string::npos);
  CHECK(tool("sssp " + cfile.string() + " --device cpu").code == 0);
  // NaN weights are refused, naming the edge.
  const auto nan_file = scratch() / "nan.mtx";
  std::ofstream(nan_file) << "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 3 nan\n";
  r = tool("sssp " + nan_file.string() + " --device cpu");
  CHECK(r.code == 1);
  CHECK(r.err.find("1 -> 2") != std::string::npos);
  CHECK(r.err.find("NaN") != std::string::npos);
}

TEST_CASE("geblas --version, per-command help and one error prefix", "[tool][cli]") {
  Run r = tool("--version");
  CHECK(r.code == 0);
  CHECK(r.out == std::string("geblas ") + GEBLAS_VERSION_STRING + "\n");
  r = tool("pagerank -h");
  CHECK(r.code == 0);
  CHECK(r.out.find("--damping") != std::string::npos);
  CHECK(r.out.find("0.85") != std::string::npos);  // defaults shown
  CHECK(r.out.find("--semiring") == std::string::npos);  // only pagerank's options
  r = tool("help");
  CHECK(r.code == 0);
  for (const char* c : {"info", "pagerank", "sssp", "bfs", "cc", "tc", "spmm", "convert", "Exit codes"})
    CHECK(r.out.find(c) != std::string::npos);
  r = tool("help sssp");
  CHECK(r.code == 0);
  CHECK(r.out.find("--weights") != std::string::npos);
  r = tool("info /no/such/file.mtx");
  CHECK(r.code == 1);
  CHECK(one_line(r.err));
  CHECK(r.err.find("geblas:", 1) == std::string::npos);  // the prefix once
  r = tool("info");
  CHECK(r.code == 2);
  CHECK(r.err.find("geblas:", 1) == std::string::npos);
}

TEST_CASE("geblas reads edge lists, CSV and standard input", "[tool][inputs]") {
  const auto snap = scratch() / "g.txt";
  std::ofstream(snap) << "# SNAP style\n0\t1\n1\t2\n2\t0\n2\t3\n";
  Run r = tool("tc " + snap.string() + " --device cpu");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("tc: 1 triangles") != std::string::npos);
  const auto csvf = scratch() / "g.csv";
  std::ofstream(csvf) << "src,dst,w\n1,2,1\n2,3,1\n1,2,5\n";
  r = tool("info " + csvf.string() + " --base 1");
  CHECK(r.code == 1);
  CHECK(r.err.find(":4: duplicate edge") != std::string::npos);
  const auto out = scratch() / "csv-sssp.csv";
  r = tool("sssp " + csvf.string() + " --base 1 --duplicates max --device cpu --output " + out.string());
  REQUIRE(r.code == 0);
  check_distances(distances_from_csv(out), {0, 5, 6});
  r = tool("sssp " + csvf.string() + " --base 1 --duplicates min --device cpu --output " + out.string());
  REQUIRE(r.code == 0);
  check_distances(distances_from_csv(out), {0, 1, 2});
  r = tool("info - --no-progress < " + snap.string());
  CHECK(r.code == 0);
  CHECK(r.out.find("shape: 4 x 4, entries: 4") != std::string::npos);
  const auto gz = scratch() / "g.mtx.gz";
  geblas::io::write_matrix_market(gz.string(), geblas::io::read_graph<double>(snap.string()));
  r = tool("info - < " + gz.string());
  CHECK(r.code == 0);
  CHECK(r.out.find("shape: 4 x 4, entries: 4") != std::string::npos);
  const auto junk = scratch() / "junk.dat";
  std::ofstream(junk) << "what is this\n";
  r = tool("info " + junk.string());
  CHECK(r.code == 1);
  CHECK(r.err.find("tried geblas binary") != std::string::npos);
  const auto huge = scratch() / "huge.mtx";
  std::ofstream(huge) << "%%MatrixMarket matrix coordinate real general\n200000000 200000000 1\n1 1 1\n";
  r = tool("info " + huge.string());
  CHECK(r.code == 1);
  CHECK(r.err.find("--max-dimension") != std::string::npos);
}

TEST_CASE("geblas never destroys a previous file and reports every write error", "[tool][safe]") {
  const auto file = write_mtx(small_graph(), "safe.mtx");
  const std::string original = slurp(file);
  // Output == input: refused before any work, the input intact.
  for (const std::string& args : {"pagerank " + file.string() + " --device cpu --output " + file.string(),
                                  "convert " + file.string() + " " + file.string(),
                                  "convert " + file.string() + " " + (file.parent_path() / "." / file.filename()).string()}) {
    const Run r = tool(args);
    INFO(args << "\nstderr: " << r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("is the input") != std::string::npos);
    CHECK(r.out.empty());
    CHECK(slurp(file) == original);
  }
  // An unwritable folder (a path under a regular file; tests may run as root) and a
  // missing one: refused before the computation, with no report on stdout.
  for (const std::string& target : {file.string() + "/out.csv", (scratch() / "missing" / "out.csv").string()}) {
    const Run r = tool("pagerank " + file.string() + " --device cpu --output " + target);
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK(r.out.empty());
    CHECK(one_line(r.err));
  }
  // A write that fails part-way (file-size limit, as a full disk): the previous file stays.
  const auto prev = scratch() / "prev.csv";
  std::ofstream(prev) << "previous\n";
  Run r = tool_with_limit("cc " + file.string() + " --device cpu --output " + prev.string(), 0);
  CHECK(r.code == 1);
  CHECK(r.out.empty());  // no success report before the failed write
  CHECK(slurp(prev) == "previous\n");
  const auto prev_mtx = scratch() / "prev.mtx";
  std::ofstream(prev_mtx) << "previous\n";
  r = tool_with_limit("convert " + file.string() + " " + prev_mtx.string(), 0);
  CHECK(r.code == 1);
  CHECK(slurp(prev_mtx) == "previous\n");
  // stdout errors: /dev/full.
  for (const std::string& args : std::vector<std::string>{"info " + file.string(), "--version", "help",
                                  "cc " + file.string() + " --device cpu --output -"}) {
    const std::string cmd = std::string(GEBLAS_TOOL_PATH) + " " + args + " >/dev/full 2>" + (scratch() / "full.err").string();
    const int status = std::system(cmd.c_str());
    INFO(args);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(slurp(scratch() / "full.err").find("standard output") != std::string::npos);
  }
  // "-" is standard output: the CSV there, the report on stderr, no file named "-".
  r = tool("cc " + file.string() + " --device cpu --output -");
  CHECK(r.code == 0);
  CHECK(r.out.rfind("vertex,component\n", 0) == 0);
  CHECK(r.err.find("cc: ") != std::string::npos);
  CHECK(!fs::exists("-"));
  r = tool("convert " + file.string() + " -");
  CHECK(r.code == 0);
  CHECK(r.out.rfind("%%MatrixMarket", 0) == 0);
}

TEST_CASE("the tool runs OpenMP with a passive wait unless told otherwise", "[tool][threads]") {
  // The OpenMP runtime prints its settings at start with OMP_DISPLAY_ENV=verbose.
  const fs::path err = scratch() / "omp.err";
  auto settings = [&](const std::string& env) {
    const std::string cmd = "env " + env + " OMP_DISPLAY_ENV=verbose " + std::string(GEBLAS_TOOL_PATH) +
                            " --version >/dev/null 2>" + err.string();
    REQUIRE(std::system(cmd.c_str()) == 0);
    return slurp(err);
  };
  const std::string chosen_by_library = settings("-u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u KMP_BLOCKTIME");
  const std::string chosen_by_user = settings("OMP_WAIT_POLICY=active");
  INFO("library's choice:\n" << chosen_by_library << "\nuser's choice:\n" << chosen_by_user);
  CHECK(test::openmp_says_passive(chosen_by_library));
  CHECK(test::openmp_says_active(chosen_by_user));
  CHECK_FALSE(test::openmp_says_passive(chosen_by_user));
}

TEST_CASE("set_num_threads / get_num_threads", "[tool][threads]") {
  const int before = geblas::get_num_threads();
  geblas::set_num_threads(3);
  CHECK(geblas::get_num_threads() == 3);
  geblas::set_num_threads(0);
  CHECK(geblas::get_num_threads() == before);
  CHECK_THROWS_AS(geblas::set_num_threads(-1), geblas::InvalidValue);
}

TEST_CASE("the progress line is throttled, erased before the report, and off without a terminal", "[tool][progress]") {
  // A path of 3000 vertices: sssp needs 3000 rounds, each a redraw without throttling.
  const auto path = scratch() / "path.txt";
  {
    std::ofstream f(path);
    for (int i = 0; i + 1 < 3000; ++i) f << i << ' ' << i + 1 << '\n';
  }
  const std::string args = "sssp " + path.string() + " --device cpu --threads 1";
  Run r = tool(args);
  REQUIRE(r.code == 0);
  CHECK(r.err.find('\r') == std::string::npos);  // stderr is a file: no bar
  if (std::system("command -v script >/dev/null 2>&1") != 0) {
    WARN("skipped the terminal part: util-linux 'script' is not installed");
    return;
  }
  // Under script(1) stderr is a pseudo-terminal; its transcript holds every byte drawn.
  const auto log = scratch() / "tty.log";
  const auto start = std::chrono::steady_clock::now();
  const std::string cmd = "script -qec '" + std::string(GEBLAS_TOOL_PATH) + " " + args + "' " + log.string() + " >/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string tty = slurp(log);
  std::size_t redraws = 0;
  for (std::size_t p = tty.find("sssp: round"); p != std::string::npos; p = tty.find("sssp: round", p + 1)) ++redraws;
  INFO("redraws " << redraws << " in " << seconds << " s");
  CHECK(redraws >= 1);
  CHECK(static_cast<double>(redraws) <= 10 * seconds + 2);
  const auto report = tty.find("sssp: 1 source(s)");
  REQUIRE(report != std::string::npos);
  CHECK(tty.compare(report - 4, 4, "\r\033[K") == 0);  // the bar's line erased first
}
