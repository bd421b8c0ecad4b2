// Parsing of the geblas tool's command line: `geblas <command> <file> [options]`, options
// as `--name value` or `--name=value`. Numbers must be complete and in range; every
// error names the argument, so a typo never runs with a default silently.
#include "cli_args.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <system_error>

namespace geblas::cli {
namespace {

Command command_from(std::string_view s) {
  if (s == "info") return Command::info;
  if (s == "pagerank") return Command::pagerank;
  if (s == "sssp") return Command::sssp;
  if (s == "bfs") return Command::bfs;
  if (s == "cc") return Command::cc;
  if (s == "tc") return Command::tc;
  if (s == "spmm") return Command::spmm;
  if (s == "convert") return Command::convert;
  if (s == "help" || s == "--help" || s == "-h") return Command::help;
  throw CliError("unknown command '" + std::string(s) +
                 "' (expected info, pagerank, sssp, bfs, cc, tc, spmm, convert or help)");
}

std::int64_t parse_int(std::string_view name, std::string_view v, std::int64_t lo, std::int64_t hi) {
  std::int64_t x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size())
    throw CliError("option --" + std::string(name) + ": '" + std::string(v) + "' is not an integer");
  if (x < lo || x > hi)
    throw CliError("option --" + std::string(name) + ": " + std::string(v) + " is outside [" + std::to_string(lo) +
                   ", " + std::to_string(hi) + "]");
  return x;
}

double parse_real(std::string_view name, std::string_view v, double lo, double hi, bool hi_open) {
  // strtod needs a terminated string; from_chars for double is not in every libstdc++.
  const std::string s(v);
  char* end = nullptr;
  const double x = s.empty() ? 0.0 : std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || std::isspace(static_cast<unsigned char>(s[0])) || !std::isfinite(x))
    throw CliError("option --" + std::string(name) + ": '" + s + "' is not a finite number");
  if (x < lo || x > hi || (hi_open && x == hi))
    throw CliError("option --" + std::string(name) + ": " + s + " is outside [" + std::to_string(lo) + ", " +
                   std::to_string(hi) + (hi_open ? ")" : "]"));
  return x;
}

std::vector<std::int64_t> parse_sources(std::string_view v) {
  std::vector<std::int64_t> out;
  if (v.empty()) throw CliError("option --sources: empty list (expected e.g. 0,17,42)");
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = v.find(',', start);
    const std::string_view item = v.substr(start, comma == std::string_view::npos ? v.npos : comma - start);
    out.push_back(parse_int("sources", item, 0, std::numeric_limits<std::int32_t>::max()));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string parse_device(std::string_view v) {
  if (v == "cpu" || v == "cuda") return std::string(v);
  if (v.starts_with("cuda:")) {
    parse_int("device", v.substr(5), 0, 1023);
    return std::string(v);
  }
  throw CliError("option --device: '" + std::string(v) + "' is not cpu, cuda or cuda:<index>");
}

bool is_flag(std::string_view name) {
  return name == "weighted" || name == "no-progress" || name == "help";
}

}  // namespace

const char* to_string(Command c) {
  switch (c) {
    case Command::help: return "help";
    case Command::info: return "info";
    case Command::pagerank: return "pagerank";
    case Command::sssp: return "sssp";
    case Command::bfs: return "bfs";
    case Command::cc: return "cc";
    case Command::tc: return "tc";
    case Command::spmm: return "spmm";
    case Command::convert: return "convert";
  }
  return "?";
}

CliArgs parse_cli(int argc, const char* const* argv) {
  CliArgs a;
  if (argc < 2 || argv == nullptr) throw CliError("no command given");
  for (int i = 0; i < argc; ++i)
    if (argv[i] == nullptr) throw CliError("argument " + std::to_string(i) + " is null");
  a.command = command_from(argv[1]);
  if (a.command == Command::help) return a;
  std::vector<std::string> positional;
  for (int i = 2; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (!arg.starts_with("--")) {
      positional.emplace_back(arg);
      continue;
    }
    std::string_view name = arg.substr(2), value;
    bool has_value = false;
    if (const auto eq = name.find('='); eq != name.npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (name.empty()) throw CliError("empty option name in '" + std::string(arg) + "'");
    if (is_flag(name)) {
      if (has_value) throw CliError("option --" + std::string(name) + " takes no value");
      if (name == "weighted") a.weighted = true;
      else if (name == "no-progress") a.progress = false;
      else { a.command = Command::help; return a; }
      continue;
    }
    if (!has_value) {
      if (i + 1 >= argc) throw CliError("option --" + std::string(name) + " needs a value");
      value = argv[++i];
    }
    if (name == "device") a.device = parse_device(value);
    else if (name == "threads") a.threads = static_cast<int>(parse_int(name, value, 1, 4096));
    else if (name == "top") a.top = parse_int(name, value, 0, std::numeric_limits<std::int32_t>::max());
    else if (name == "output") {
      if (value.empty()) throw CliError("option --output: empty file name");
      a.output = std::string(value);
    } else if (name == "semiring") {
      if (value.empty()) throw CliError("option --semiring: empty name");
      a.semiring = std::string(value);  // checked against the library's names when used
    } else if (name == "n") a.n = parse_int(name, value, 1, 1 << 16);
    else if (name == "repeat") a.repeat = static_cast<int>(parse_int(name, value, 1, 100000));
    else if (name == "sources") a.sources = parse_sources(value);
    else if (name == "damping") a.damping = parse_real(name, value, 0.0, 1.0, /*hi_open=*/true);
    else if (name == "tolerance") a.tolerance = parse_real(name, value, 0.0, 1.0, false);
    else if (name == "max-iterations") a.max_iterations = static_cast<int>(parse_int(name, value, 1, 1000000));
    else if (name == "type") {
      if (value == "double") a.use_double = true;
      else if (value == "float") a.use_double = false;
      else throw CliError("option --type: '" + std::string(value) + "' is not float or double");
    } else {
      throw CliError("unknown option --" + std::string(name));
    }
  }
  const std::size_t want = a.command == Command::convert ? 2 : 1;
  if (positional.size() < want)
    throw CliError(std::string(to_string(a.command)) + ": missing " +
                   (positional.empty() ? "input file" : "output file") + " (see geblas help)");
  if (positional.size() > want)
    throw CliError(std::string(to_string(a.command)) + ": unexpected argument '" + positional[want] + "'");
  a.input = positional[0];
  if (a.command == Command::convert) a.convert_to = positional[1];
  if (!a.sources.empty() && a.command != Command::sssp && a.command != Command::bfs)
    throw CliError("option --sources applies to sssp and bfs only");
  return a;
}

std::string usage() {
  return R"(usage: geblas <command> <graph> [options]

Graphs: Matrix Market (.mtx, .mtx.gz) or geblas binary files; A(i,j) is an edge i -> j,
vertex ids are 0-based in all output.

commands:
  info       shape, entries, degree statistics
  pagerank   PageRank (pattern; --weighted uses the values as out-edge weights)
  sssp       shortest paths from --sources (|value| as edge weight, 1 for pattern files)
  bfs        breadth-first levels from --sources
  cc         connected components of the symmetrized pattern
  tc         triangles of the symmetrized pattern without self-loops
  spmm       one timed product A x X, X dense with --n columns, over --semiring
  convert    geblas convert <in> <out>: Matrix Market <-> binary (by the output's name:
             .mtx or .mtx.gz writes Matrix Market, anything else the binary format)

options:
  --device cpu|cuda|cuda:<i>   where to run (default: GPU 0 if present, else the CPU)
  --threads N                  CPU threads (default: OpenMP's default)
  --top K                      rows to print (default 10)
  --output FILE                write the full result as CSV (see docs/CLI.md)
  --sources a,b,c              sources for sssp and bfs (default 0)
  --semiring NAME              spmm semiring (default plus_times)
  --n N                        spmm: columns of X (default 64)
  --repeat R                   spmm: timed runs after one warm-up (default 10)
  --damping D --tolerance T --max-iterations M --weighted     pagerank
  --type float|double          value type (default double)
  --no-progress                no progress bar (it is shown only on a terminal anyway)
)";
}

}  // namespace geblas::cli
