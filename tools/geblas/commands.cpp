// The geblas tool's subcommands: read the graph (timed), move it to the chosen device
// (timed), run one algorithm or product (timed), print a short report, and write the
// full result as CSV when --output is given (format in docs/CLI.md).
#include "commands.hpp"

#include <algorithm>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "geblas/geblas.hpp"
#include "geblas/io_process.hpp"
#include "progress.hpp"

namespace geblas::cli {
namespace {

// The report is collected here and printed only after every output file was written, so
// a failed write never follows a report that reads like success.
std::string g_report;

[[gnu::format(printf, 1, 2)]] void say(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) < sizeof buf) {
    g_report.append(buf, static_cast<std::size_t>(n));
    return;
  }
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  va_start(ap, fmt);
  std::vsnprintf(big.data(), big.size(), fmt, ap);
  va_end(ap);
  big.pop_back();
  g_report += big;
}

struct Timing {
  double read = 0, transfer = 0, compute = 0;
};

Device choose_device(const std::string& s) {
  if (s.empty()) return default_device();
  if (s == "cpu") return Device::cpu();
  const int ordinal = s == "cuda" ? 0 : std::stoi(s.substr(5));
  if (!cuda_compiled()) throw InvalidValue("--device " + s + ": this geblas was built without CUDA");
  if (ordinal >= cuda_device_count())
    throw InvalidValue("--device " + s + ": no such CUDA device (" + std::to_string(cuda_device_count()) +
                       " usable)");
  return Device::cuda(ordinal);
}

io::Format format_of(const std::string& f) {
  if (f == "mtx") return io::Format::matrix_market;
  if (f == "binary") return io::Format::binary;
  if (f == "edges") return io::Format::edge_list;
  if (f == "csv") return io::Format::csv;
  return io::Format::automatic;
}

Duplicates duplicates_of(const std::string& d) {
  if (d == "sum") return binop::plus<double>{};
  if (d == "max") return binop::max<double>{};
  if (d == "min") return binop::min<double>{};
  if (d == "first") return binop::first<double>{};
  return Duplicates::error();
}

// Any format geblas reads (by --format, else detected by content and name), stdin for "-".
template <class T>
SparseMatrix<T> read_graph(const CliArgs& a, Timing& t) {
  io::ReadOptions o;
  o.duplicates = duplicates_of(a.duplicates);
  o.base = a.base;
  o.undirected = a.undirected;
  o.max_dimension = a.max_dimension;
  Stopwatch w;
  SparseMatrix<T> A;
  {
    Spinner spin("reading " + (a.input == "-" ? std::string("standard input") : a.input), a.progress && stderr_is_terminal());
    A = io::read_graph<T>(a.input, o, format_of(a.format));
  }
  t.read = w.seconds();
  return A;
}

// A on `dev`: moved, not copied, when it is already there (SparseMatrix::to copies even
// then, which would double the peak memory of a command on the host).
template <class T>
SparseMatrix<T> place(SparseMatrix<T>&& A, Device dev, Timing& t) {
  Stopwatch w;
  if (A.device() == dev) return std::move(A);
  SparseMatrix<T> out = A.to(dev);
  synchronize(dev);
  t.transfer = w.seconds();
  return out;
}

void require_square(const char* command, Index nrows, Index ncols) {
  if (nrows != ncols)
    throw DimensionMismatch(std::string(command) + " needs a square adjacency matrix, the file holds " +
                            std::to_string(nrows) + " x " + std::to_string(ncols));
}

// CSV output through io::OutputFile: a temporary file renamed over the target only
// when complete, so a failed run leaves the previous file as it was.
std::unique_ptr<io::OutputFile> open_csv(const std::string& path, const char* header) {
  auto f = std::make_unique<io::OutputFile>(path);
  std::fprintf(f->stream(), "%s\n", header);
  return f;
}

void close_csv(std::unique_ptr<io::OutputFile>& f, const std::string&) { f->commit(); }

void print_timing(const Timing& t, Device dev) {
  say("time: read %.3f s, transfer %.3f s, compute %.3f s (%s)\n", t.read, t.transfer, t.compute,
              dev.str().c_str());
}

std::vector<Index> sources_of(const CliArgs& a) {
  if (a.sources.empty()) return {0};
  return {a.sources.begin(), a.sources.end()};
}

// ---------------------------------------------------------------------------- info

template <class T>
void info(const CliArgs& a) {
  Timing t;
  const SparseMatrix<T> A = read_graph<T>(a, t);
  const auto off = A.row_offsets();
  const auto cols = A.col_indices();
  const Index n = A.nrows(), m = A.ncols();
  say("graph: %s\nshape: %lld x %lld, entries: %lld\n", a.input.c_str(), static_cast<long long>(n),
              static_cast<long long>(m), static_cast<long long>(A.nvals()));
  Index dmin = n ? off[1] - off[0] : 0, dmax = 0, empty = 0, loops = 0;
  std::vector<Index> indeg(static_cast<std::size_t>(m), 0);
  for (Index i = 0; i < n; ++i) {
    const Index d = off[i + 1] - off[i];
    dmin = std::min(dmin, d);
    dmax = std::max(dmax, d);
    empty += d == 0;
    for (Index k = off[i]; k < off[i + 1]; ++k) {
      ++indeg[static_cast<std::size_t>(cols[k])];
      loops += cols[k] == i;
    }
  }
  const double mean = n ? static_cast<double>(A.nvals()) / static_cast<double>(n) : 0.0;
  say("out-degree: min %lld, mean %.2f, max %lld, vertices without out-edges %lld\n",
              static_cast<long long>(dmin), mean, static_cast<long long>(dmax), static_cast<long long>(empty));
  if (m > 0) {
    const auto [lo, hi] = std::minmax_element(indeg.begin(), indeg.end());
    say("in-degree: min %lld, max %lld\n", static_cast<long long>(*lo), static_cast<long long>(*hi));
  }
  say("self-loops: %lld\n", static_cast<long long>(loops));
  if (n == m) {
    // The pattern is symmetric when every (i, j) has its (j, i): compare sorted rows.
    bool symmetric = true;
    for (Index i = 0; i < n && symmetric; ++i)
      for (Index k = off[i]; k < off[i + 1] && symmetric; ++k) {
        const Index j = cols[k];
        symmetric = std::binary_search(cols.begin() + off[j], cols.begin() + off[j + 1], static_cast<ColIndex>(i));
      }
    say("symmetric pattern: %s\n", symmetric ? "yes" : "no");
  }
  say("time: read %.3f s\n", t.read);
}

// ------------------------------------------------------------------------ pagerank

template <class T>
void pagerank(const CliArgs& a, Device dev) {
  Timing t;
  SparseMatrix<T> A0 = read_graph<T>(a, t);
  require_square("pagerank", A0.nrows(), A0.ncols());
  const SparseMatrix<T> A = place(std::move(A0), dev, t);
  IterationBar bar("pagerank", a.max_iterations, a.progress && stderr_is_terminal());
  algo::PageRankOptions o;
  o.damping = a.damping;
  o.tolerance = a.tolerance;
  o.max_iterations = a.max_iterations;
  o.weighted = a.weighted;
  o.on_iteration = [&](int it, double delta) { bar.update(it, delta, "change"); };
  Stopwatch w;
  auto r = algo::pagerank(A, o);
  synchronize(dev);
  t.compute = w.seconds();
  const std::vector<T> ranks = r.ranks.to_std_vector();
  say("pagerank: %lld vertices, %d iterations, %s (L1 change %.3g), damping %g, %s\n",
              static_cast<long long>(A.nrows()), r.iterations, r.converged ? "converged" : "NOT converged", r.delta,
              a.damping, a.weighted ? "weighted" : "unweighted");
  std::vector<Index> order(ranks.size());
  std::iota(order.begin(), order.end(), Index{0});
  const auto k = static_cast<std::size_t>(std::min<Index>(a.top, static_cast<Index>(order.size())));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](Index x, Index y) { return ranks[x] > ranks[y] || (ranks[x] == ranks[y] && x < y); });
  for (std::size_t p = 0; p < k; ++p)
    say("  %2zu. vertex %lld  rank %.6g\n", p + 1, static_cast<long long>(order[p]),
                static_cast<double>(ranks[order[p]]));
  if (!a.output.empty()) {
    auto f = open_csv(a.output, "vertex,rank");
    for (std::size_t i = 0; i < ranks.size(); ++i) std::fprintf(f->stream(), "%zu,%.9g\n", i, static_cast<double>(ranks[i]));
    close_csv(f, a.output);
  }
  print_timing(t, dev);
}

// ---------------------------------------------------------------------------- sssp

template <class T>
void sssp(const CliArgs& a, Device dev) {
  Timing t;
  SparseMatrix<T> A0 = read_graph<T>(a, t);
  require_square("sssp", A0.nrows(), A0.ncols());
  // Edge weights from the stored values by --weights: abs (|value|, the default), signed
  // (as stored; Bellman-Ford with negative-cycle detection) or unit (every edge 1).
  // A NaN weight has no shortest-path meaning under any of them and is refused. The
  // values are rewritten in place in the matrix just read (on the host, nothing derived
  // from it yet), so the command holds one copy of the graph.
  {
    geblas::detail::SparseStorage& s = A0.storage();
    const Index* off = A0.row_offsets_data();
    const ColIndex* cols = A0.col_indices_data();
    T* w = s.values.template as<T>();
    for (Index i = 0; i < A0.nrows(); ++i)
      for (Index k = off[i]; k < off[i + 1]; ++k) {
        T& x = w[k];
        if (std::isnan(static_cast<double>(x)))
          throw InvalidValue("sssp: edge " + std::to_string(i) + " -> " + std::to_string(cols[k]) + " of '" + a.input +
                             "' has weight NaN; shortest paths need numbers (fix the file, or --weights unit)");
        if (a.weights == Weights::abs) x = x < T{0} ? -x : x;
        else if (a.weights == Weights::unit) x = T{1};
      }
    s.derived.reset();
  }
  const SparseMatrix<T> A = place(std::move(A0), dev, t);
  const std::vector<Index> sources = sources_of(a);
  const Index n = A.nrows(), k = static_cast<Index>(sources.size());
  IterationBar bar("sssp", 0, a.progress && stderr_is_terminal());
  algo::SsspOptions o;
  o.allow_negative = a.weights == Weights::signed_;
  o.on_iteration = [&](int round, double changed) { bar.update(round, changed, "changed"); };
  Stopwatch sw;
  std::vector<T> dist;  // n x k row-major
  int rounds = 0;
  if (k == 1) {
    auto r = algo::sssp(A, sources[0], o);
    synchronize(dev);
    dist = r.distances.to_std_vector();
    rounds = r.rounds;
  } else {
    auto r = algo::sssp(A, sources, o);
    synchronize(dev);
    dist = r.distances.to_row_major();
    rounds = r.rounds;
  }
  t.compute = sw.seconds();
  const T inf = geblas::detail::upper_bound_value<T>();
  // One source runs near-far frontier relaxation (Bellman-Ford when weights are signed);
  // several sources one min_plus SpMM per round.
  say("sssp: %lld source(s), %d rounds (%s), weights %s\n", static_cast<long long>(k), rounds,
      k > 1 ? "one min_plus SpMM each"
            : (a.weights == Weights::signed_ ? "Bellman-Ford, negative cycles detected" : "near-far frontier relaxation"),
      a.weights == Weights::abs ? "abs (|stored value|)" : a.weights == Weights::signed_ ? "signed (as stored)" : "unit (1 per edge)");
  for (Index j = 0; j < k && j < std::max<Index>(a.top, 1); ++j) {
    Index reached = 0, far = sources[j];
    for (Index i = 0; i < n; ++i) {
      const T d = dist[static_cast<std::size_t>(i * k + j)];
      if (d == inf) continue;
      ++reached;
      if (d > dist[static_cast<std::size_t>(far * k + j)]) far = i;
    }
    say("  source %lld: reached %lld of %lld, farthest vertex %lld at distance %.6g\n",
                static_cast<long long>(sources[j]), static_cast<long long>(reached), static_cast<long long>(n),
                static_cast<long long>(far), static_cast<double>(dist[static_cast<std::size_t>(far * k + j)]));
  }
  if (!a.output.empty()) {
    auto f = open_csv(a.output, "source,vertex,distance");
    for (Index j = 0; j < k; ++j)
      for (Index i = 0; i < n; ++i)
        if (const T d = dist[static_cast<std::size_t>(i * k + j)]; d != inf)
          std::fprintf(f->stream(), "%lld,%lld,%.9g\n", static_cast<long long>(sources[j]), static_cast<long long>(i),
                       static_cast<double>(d));
    close_csv(f, a.output);
  }
  print_timing(t, dev);
}

// ----------------------------------------------------------------------------- bfs

template <class T>
void bfs(const CliArgs& a, Device dev) {
  Timing t;
  SparseMatrix<T> A0 = read_graph<T>(a, t);
  require_square("bfs", A0.nrows(), A0.ncols());
  const SparseMatrix<T> A = place(std::move(A0), dev, t);
  const std::vector<Index> sources = sources_of(a);
  const Index n = A.nrows(), k = static_cast<Index>(sources.size());
  IterationBar bar("bfs", 0, a.progress && stderr_is_terminal());
  algo::BfsOptions o;
  o.on_iteration = [&](int level, double reached) { bar.update(level, reached, "new"); };
  Stopwatch sw;
  std::vector<algo::VertexId> level(static_cast<std::size_t>(n * k), -1);  // n x k row-major
  int depth = 0;
  if (k == 1) {
    auto r = algo::bfs(A, sources[0], o);
    synchronize(dev);
    for (const auto& [i, l] : r.levels.extract_tuples()) level[static_cast<std::size_t>(i)] = l;
    depth = r.depth;
  } else {
    auto r = algo::bfs(A, sources, o);
    synchronize(dev);
    level = r.levels.to_row_major();
    depth = r.depth;
  }
  t.compute = sw.seconds();
  say("bfs: %lld source(s), depth %d\n", static_cast<long long>(k), depth);
  for (Index j = 0; j < k && j < std::max<Index>(a.top, 1); ++j) {
    Index reached = 0;
    algo::VertexId deepest = 0;
    for (Index i = 0; i < n; ++i)
      if (const auto l = level[static_cast<std::size_t>(i * k + j)]; l >= 0) {
        ++reached;
        deepest = std::max(deepest, l);
      }
    say("  source %lld: reached %lld of %lld, %lld levels\n", static_cast<long long>(sources[j]),
                static_cast<long long>(reached), static_cast<long long>(n), static_cast<long long>(deepest + 1));
  }
  if (!a.output.empty()) {
    auto f = open_csv(a.output, "source,vertex,level");
    for (Index j = 0; j < k; ++j)
      for (Index i = 0; i < n; ++i)
        if (const auto l = level[static_cast<std::size_t>(i * k + j)]; l >= 0)
          std::fprintf(f->stream(), "%lld,%lld,%lld\n", static_cast<long long>(sources[j]), static_cast<long long>(i),
                       static_cast<long long>(l));
    close_csv(f, a.output);
  }
  print_timing(t, dev);
}

// ------------------------------------------------------------------------------ cc

template <class T>
void cc(const CliArgs& a, Device dev) {
  Timing t;
  SparseMatrix<T> A0 = read_graph<T>(a, t);
  require_square("cc", A0.nrows(), A0.ncols());
  const SparseMatrix<T> A = place(std::move(A0), dev, t);
  IterationBar bar("cc", 0, a.progress && stderr_is_terminal());
  algo::ComponentsOptions o;
  o.on_iteration = [&](int round, double changed) { bar.update(round, changed, "changed"); };
  Stopwatch sw;
  auto r = algo::connected_components(A, o);
  synchronize(dev);
  t.compute = sw.seconds();
  const auto labels = r.labels.to_std_vector();
  std::vector<Index> size(labels.size(), 0);
  for (auto l : labels) ++size[static_cast<std::size_t>(l)];
  std::vector<Index> roots;
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels[i] == static_cast<algo::VertexId>(i)) roots.push_back(static_cast<Index>(i));
  std::sort(roots.begin(), roots.end(), [&](Index x, Index y) { return size[x] > size[y] || (size[x] == size[y] && x < y); });
  say("cc: %lld components in %d rounds\n", static_cast<long long>(r.count), r.rounds);
  for (std::size_t p = 0; p < roots.size() && static_cast<Index>(p) < a.top; ++p)
    say("  component %lld: %lld vertices\n", static_cast<long long>(roots[p]),
                static_cast<long long>(size[static_cast<std::size_t>(roots[p])]));
  if (!a.output.empty()) {
    auto f = open_csv(a.output, "vertex,component");
    for (std::size_t i = 0; i < labels.size(); ++i) std::fprintf(f->stream(), "%zu,%lld\n", i, static_cast<long long>(labels[i]));
    close_csv(f, a.output);
  }
  print_timing(t, dev);
}

// ------------------------------------------------------------------------------ tc

template <class T>
void tc(const CliArgs& a, Device dev) {
  Timing t;
  SparseMatrix<T> A0 = read_graph<T>(a, t);
  require_square("tc", A0.nrows(), A0.ncols());
  const SparseMatrix<T> A = place(std::move(A0), dev, t);
  Stopwatch sw;
  const std::int64_t triangles = algo::triangle_count(A);
  synchronize(dev);
  t.compute = sw.seconds();
  say("tc: %lld triangles\n", static_cast<long long>(triangles));
  if (!a.output.empty()) {
    auto f = open_csv(a.output, "triangles");
    std::fprintf(f->stream(), "%lld\n", static_cast<long long>(triangles));
    close_csv(f, a.output);
  }
  print_timing(t, dev);
}

// ---------------------------------------------------------------------------- spmm

template <class T>
void spmm(const CliArgs& a, Device dev) {
  if (!a.output.empty()) throw CliError("spmm writes no CSV; drop --output");
  const SemiringId s = semiring_from_string(a.semiring.c_str());
  if (!supports_semiring(s, type_id<T>))
    throw InvalidValue("--semiring " + a.semiring + " is not available for " + std::string(to_string(type_id<T>)));
  Timing t;
  SparseMatrix<T> A0 = read_graph<T>(a, t);
  const SparseMatrix<T> A = place(std::move(A0), dev, t);
  const auto X = DenseMatrix<T>::random(A.ncols(), a.n, dev);
  DenseMatrix<T> Y(A.nrows(), a.n, dev);
  auto once = [&] {
    visit_semiring<T>(s, [&]<class S>() { mxm(Y, A, X, S{}); });
    synchronize(dev);
  };
  once();  // warm-up: kernel selection, transposes, caches
  const std::string variant = last_dispatch().variant;
  std::vector<double> times;
  for (int r = 0; r < a.repeat; ++r) {
    Stopwatch sw;
    once();
    times.push_back(sw.seconds());
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  t.compute = median;
  const double flops = 2.0 * static_cast<double>(A.nvals()) * static_cast<double>(a.n);
  say("spmm: %s, %s, A %lld x %lld with %lld entries, N = %lld, variant %s\n", a.semiring.c_str(),
              std::string(to_string(type_id<T>)).c_str(), static_cast<long long>(A.nrows()),
              static_cast<long long>(A.ncols()), static_cast<long long>(A.nvals()), static_cast<long long>(a.n),
              variant.empty() ? "-" : variant.c_str());
  say("  median %.3f ms, min %.3f ms over %d runs, %.2f GFLOP/s (2 nnz N / median)\n", median * 1e3,
              times.front() * 1e3, a.repeat, flops / median * 1e-9);
  print_timing(t, dev);
}

// ------------------------------------------------------------------------- convert

void convert(const CliArgs& a) {
  Timing t;
  const SparseMatrix<double> A = read_graph<double>(a, t);
  const std::string& out = a.convert_to;
  const bool to_mm = out == "-" || out.ends_with(".mtx") || out.ends_with(".mtx.gz");
  Stopwatch w;
  if (to_mm) io::write_matrix_market(out, A);
  else io::write_binary(out, A);
  say("convert: %s -> %s (%s), %lld x %lld, %lld entries\n", a.input.c_str(), out.c_str(),
              to_mm ? "Matrix Market" : "binary", static_cast<long long>(A.nrows()), static_cast<long long>(A.ncols()),
              static_cast<long long>(A.nvals()));
  say("time: read %.3f s, write %.3f s\n", t.read, w.seconds());
}

template <class T>
void dispatch(const CliArgs& a, Device dev) {
  switch (a.command) {
    case Command::info: return info<T>(a);
    case Command::pagerank: return pagerank<T>(a, dev);
    case Command::sssp: return sssp<T>(a, dev);
    case Command::bfs: return bfs<T>(a, dev);
    case Command::cc: return cc<T>(a, dev);
    case Command::tc: return tc<T>(a, dev);
    case Command::spmm: return spmm<T>(a, dev);
    case Command::convert: return convert(a);
    case Command::help:
    case Command::version: return;
  }
}

}  // namespace

void run(const CliArgs& a) {
  // Output paths are checked before the work: not the input, folder present and
  // writable; otherwise minutes of computation end in a failed write.
  if (!a.output.empty()) io::check_output_path(a.output, {a.input});
  if (a.command == Command::convert) io::check_output_path(a.convert_to, {a.input});
  g_report.clear();
  io::set_max_stream_bytes(a.stream_limit);
  if (a.threads > 0) set_num_threads(a.threads);
  const Device dev = (a.command == Command::info || a.command == Command::convert) ? Device::cpu()
                                                                                  : choose_device(a.device);
  if (a.use_double) dispatch<double>(a, dev);
  else dispatch<float>(a, dev);
  // With the CSV on standard output, the report goes to stderr so that stdout is CSV only.
  std::FILE* report_to = (a.output == "-" || a.convert_to == "-") ? stderr : stdout;
  if (!g_report.empty() && std::fwrite(g_report.data(), 1, g_report.size(), report_to) != g_report.size())
    throw IoError(std::string("error writing the report to ") + (report_to == stdout ? "standard output" : "standard error"));
}

}  // namespace geblas::cli
