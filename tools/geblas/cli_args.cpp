// Parsing of the geblas tool's command line with CLI11: `geblas <command> <graph>
// [options]`, options as `--name value` or `--name=value`, per-command `--help` listing
// every option with its default. Numeric values are taken as text and converted here,
// strictly (complete, finite, in range), so that every error names the argument and a
// typo never runs with a default silently.
#include "cli_args.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <system_error>

#include "geblas/io_process.hpp"
#include "geblas/semiring.hpp"
#include "geblas/version.hpp"

namespace geblas::cli {
namespace {

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

// A byte count with an optional binary suffix: 4096, 64K, 512M, 16G, 1T.
std::uint64_t parse_bytes(std::string_view name, std::string_view v) {
  static constexpr std::string_view suffixes = "KMGT";
  int shift = 0;
  std::string_view digits = v;
  if (!v.empty()) {
    const std::size_t s = suffixes.find(static_cast<char>(std::toupper(static_cast<unsigned char>(v.back()))));
    if (s != std::string_view::npos) {
      shift = 10 * static_cast<int>(s + 1);
      digits.remove_suffix(1);
    }
  }
  std::uint64_t x = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), x);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || x == 0)
    throw CliError("option --" + std::string(name) + ": '" + std::string(v) +
                   "' is not a positive byte count (e.g. 4096, 64K, 512M, 16G)");
  if (x > (std::numeric_limits<std::uint64_t>::max() >> shift))
    throw CliError("option --" + std::string(name) + ": '" + std::string(v) + "' is too large");
  return x << shift;
}

std::string size_text(std::uint64_t bytes) {
  static constexpr const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (u < 4 && bytes % 1024 == 0 && bytes >= 1024) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + units[u];
}

// Option values as typed; converted and checked after CLI11 has split the line.
struct Raw {
  std::string threads, top = "10", n = "64", repeat = "10", sources, damping = "0.85", tolerance = "1e-6",
                       max_iterations = "100", type = "double", weights = "abs", format = "auto",
                       duplicates = "error", base = "0", max_dimension, device, stream_limit;
  bool no_progress = false;
};

constexpr const char* kCommands[] = {"info", "pagerank", "sssp", "bfs", "cc", "tc", "spmm", "convert"};

Command command_named(std::string_view s) {
  if (s == "info") return Command::info;
  if (s == "pagerank") return Command::pagerank;
  if (s == "sssp") return Command::sssp;
  if (s == "bfs") return Command::bfs;
  if (s == "cc") return Command::cc;
  if (s == "tc") return Command::tc;
  if (s == "spmm") return Command::spmm;
  return Command::convert;
}

// Said before CLI11 parses, whose own words for these ("The following arguments were
// not expected", "At Most 1 required but received 2") do not name the mistake.
void check_command_and_repeats(int argc, const char* const* argv) {
  const std::string_view first = argv[1];
  if (!first.starts_with('-') && first != "help" &&
      std::find(std::begin(kCommands), std::end(kCommands), first) == std::end(kCommands)) {
    std::string list;
    for (const char* c : kCommands) list += std::string(list.empty() ? "" : ", ") + c;
    throw CliError("unknown command '" + std::string(first) + "' (commands: " + list + ", help)");
  }
  std::vector<std::string_view> seen;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--") break;
    if (!a.starts_with("--")) continue;
    a = a.substr(0, a.find('='));
    if (std::find(seen.begin(), seen.end(), a) != seen.end())
      throw CliError("option " + std::string(a) + " is given twice; give each option once");
    seen.push_back(a);
  }
}

const char* kDescription =
    "geblas: graph algorithms and sparse products on graph files, on the GPU when there is one.\n"
    "Graphs: Matrix Market (.mtx, .mtx.gz), geblas binary, whitespace (SNAP) or CSV edge lists;\n"
    "'-' reads standard input. A(i,j) is an edge i -> j; vertex ids are 0-based in all output.\n"
    "Exit codes: 0 success, 1 the run failed, 2 the command line is wrong.\n"
    "Documentation: " GEBLAS_INSTALLED_DOC_DIR "/CLI.md (installed), or docs/CLI.md in the geblas source tree.";

void add_common(CLI::App* sub, CliArgs& a, Raw& r, bool computes) {
  sub->add_option("--format", r.format, "input format: auto (by content, then name), mtx, binary, edges, csv")->type_name("FORMAT")
      ->capture_default_str();
  sub->add_option("--duplicates", r.duplicates, "an edge given twice: error, sum, max, min or first")->type_name("HOW")->capture_default_str();
  sub->add_option("--base", r.base, "edge lists: the first vertex id, 0 or 1")->type_name("0|1")->capture_default_str();
  sub->add_flag("--undirected", a.undirected, "edge lists: every line is an edge both ways");
  sub->add_option("--max-dimension", r.max_dimension,
                  "largest vertex count accepted (default: automatic, max(2^24, 16 x entries))")->type_name("N");
  sub->add_option("--stream-limit", r.stream_limit,
                  "most bytes read from a pipe, FIFO, socket, device or standard input, e.g. 16G (default " +
                      size_text(geblas::io::default_max_stream_bytes) + ")")->type_name("BYTES");
  sub->add_option("--threads", r.threads, "CPU threads (default: all cores)")->type_name("N");
  sub->add_flag("--no-progress", r.no_progress, "no progress bar (it is shown only when stderr is a terminal)");
  if (computes) {
    sub->add_option("--device", r.device, "cpu, cuda or cuda:<i> (default: GPU 0 if present, else the CPU)")->type_name("DEVICE");
    sub->add_option("--type", r.type, "value type of the computation: float or double")->type_name("TYPE")->capture_default_str();
  }
}

void add_output(CLI::App* sub, CliArgs& a) {
  sub->add_option("--output", a.output, "write the full result as CSV to FILE ('-': standard output; see docs/CLI.md)")->type_name("FILE");
}

void add_top(CLI::App* sub, Raw& r) { sub->add_option("--top", r.top, "rows printed in the report")->type_name("K")->capture_default_str(); }

}  // namespace

const char* to_string(Command c) {
  switch (c) {
    case Command::help: return "help";
    case Command::version: return "version";
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

namespace {

// Builds the whole command line grammar over `a` and `r`.
void build(CLI::App& app, CliArgs& a, Raw& r, std::string& help_topic) {
  app.description(kDescription);
  app.set_version_flag("--version", std::string("geblas ") + GEBLAS_VERSION_STRING);
  app.require_subcommand(0, 1);
  app.fallthrough(false);
  auto graph = [&](CLI::App* sub) {
    sub->add_option("graph", a.input, "the graph file ('-': standard input)")->required()->type_name("GRAPH");
  };

  CLI::App* info = app.add_subcommand("info", "shape, entries, degree statistics, self-loops, symmetry");
  graph(info);
  add_common(info, a, r, false);

  CLI::App* pr = app.add_subcommand("pagerank", "PageRank (the pattern; --weighted uses the values as out-edge weights)");
  graph(pr);
  pr->add_option("--damping", r.damping, "damping factor in [0, 1)")->type_name("D")->capture_default_str();
  pr->add_option("--tolerance", r.tolerance, "stop when the L1 change is below this")->type_name("T")->capture_default_str();
  pr->add_option("--max-iterations", r.max_iterations, "iteration limit")->type_name("M")->capture_default_str();
  pr->add_flag("--weighted", a.weighted, "use the stored values (>= 0) as out-edge weights");
  add_top(pr, r);
  add_output(pr, a);
  add_common(pr, a, r, true);

  CLI::App* sssp = app.add_subcommand("sssp", "shortest paths from --sources (frontier relaxation for one source, min_plus SpMM rounds for several)");
  graph(sssp);
  sssp->add_option("--sources", r.sources, "comma-separated source vertices (default: 0)")->type_name("LIST");
  sssp->add_option("--weights", r.weights,
                   "edge weight from the stored value: abs (|value|), signed (negative weights allowed, a reachable "
                   "negative cycle is an error) or unit (every edge 1); NaN values are refused")->type_name("abs|signed|unit")
      ->capture_default_str();
  add_top(sssp, r);
  add_output(sssp, a);
  add_common(sssp, a, r, true);

  CLI::App* bfs = app.add_subcommand("bfs", "breadth-first levels from --sources");
  graph(bfs);
  bfs->add_option("--sources", r.sources, "comma-separated source vertices (default: 0)")->type_name("LIST");
  add_top(bfs, r);
  add_output(bfs, a);
  add_common(bfs, a, r, true);

  CLI::App* cc = app.add_subcommand("cc", "connected components of the symmetrized pattern");
  graph(cc);
  add_top(cc, r);
  add_output(cc, a);
  add_common(cc, a, r, true);

  CLI::App* tc = app.add_subcommand("tc", "triangles of the symmetrized pattern without self-loops");
  graph(tc);
  add_output(tc, a);
  add_common(tc, a, r, true);

  CLI::App* spmm = app.add_subcommand("spmm", "one timed product A x X, X dense with --n columns, over --semiring");
  graph(spmm);
  // The names come from the built-in list (geblas/semiring.hpp): the ones defined for
  // the tool's float values.
  std::string semiring_names;
  for (int k = 0; k < geblas::semiring_count; ++k)
    if (geblas::supports_semiring(static_cast<geblas::SemiringId>(k), geblas::TypeId::float32))
      semiring_names += std::string(semiring_names.empty() ? "" : ", ") + geblas::semiring_table[k].name;
  spmm->add_option("--semiring", a.semiring, semiring_names)->type_name("NAME")
      ->capture_default_str();
  spmm->add_option("--n", r.n, "columns of X")->type_name("N")->capture_default_str();
  spmm->add_option("--repeat", r.repeat, "timed runs after one warm-up")->type_name("R")->capture_default_str();
  add_common(spmm, a, r, true);

  CLI::App* convert = app.add_subcommand(
      "convert", "convert <in> <out>: any input format to Matrix Market (.mtx, .mtx.gz, '-') or binary (other names)");
  graph(convert);
  convert->add_option("out", a.convert_to, "the file to write ('-': Matrix Market on standard output)")
      ->required()
      ->type_name("OUT");
  add_common(convert, a, r, false);

  CLI::App* help = app.add_subcommand("help", "general help, or a command's: geblas help <command>");
  help->add_option("command", help_topic, "a command");
}

}  // namespace

CliArgs parse_cli(int argc, const char* const* argv) {
  CliArgs a;
  if (argc < 1 || argv == nullptr) throw CliError("no command given");
  for (int i = 0; i < argc; ++i)
    if (argv[i] == nullptr) throw CliError("argument " + std::to_string(i) + " is null");
  if (argc < 2) throw CliError("no command given");
  check_command_and_repeats(argc, argv);
  Raw r;
  std::string help_topic;
  CLI::App app{"", "geblas"};
  build(app, a, r, help_topic);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    a = CliArgs{};
    a.command = Command::help;
    a.text = app.help();
    return a;
  } catch (const CLI::CallForAllHelp&) {
    a = CliArgs{};
    a.command = Command::help;
    a.text = app.help("", CLI::AppFormatMode::All);
    return a;
  } catch (const CLI::CallForVersion& e) {
    a = CliArgs{};
    a.command = Command::version;
    a.text = std::string(e.what()) + "\n";
    return a;
  } catch (const CLI::Error& e) {
    throw CliError(e.what());
  }
  const auto chosen = app.get_subcommands();
  if (chosen.empty()) throw CliError("no command given");
  const std::string name = chosen.front()->get_name();
  if (name == "help") {
    a = CliArgs{};
    a.command = Command::help;
    if (help_topic.empty()) {
      // app.help() would describe the selected subcommand ("help" itself).
      a.text = app.get_formatter()->make_help(&app, "geblas", CLI::AppFormatMode::Normal);
    } else {
      CLI::App* sub = nullptr;
      for (const char* c : kCommands)
        if (help_topic == c) sub = app.get_subcommand(c);
      if (!sub) throw CliError("help: unknown command '" + help_topic + "'");
      a.text = sub->help();
    }
    return a;
  }
  a.command = command_named(name);
  CLI::App* sub = chosen.front();
  // Options this command has and the user gave.
  auto given = [&](const char* opt) {
    const CLI::Option* o = sub->get_option_no_throw(opt);
    return o != nullptr && o->count() > 0;
  };
  a.progress = !r.no_progress;

  // Values, strictly.
  if (!r.threads.empty()) a.threads = static_cast<int>(parse_int("threads", r.threads, 1, 4096));
  a.top = parse_int("top", r.top, 0, std::numeric_limits<std::int32_t>::max());
  a.n = parse_int("n", r.n, 1, 1 << 16);
  a.repeat = static_cast<int>(parse_int("repeat", r.repeat, 1, 100000));
  if (given("--sources")) a.sources = parse_sources(r.sources);
  a.damping = parse_real("damping", r.damping, 0.0, 1.0, /*hi_open=*/true);
  a.tolerance = parse_real("tolerance", r.tolerance, 0.0, 1.0, false);
  a.max_iterations = static_cast<int>(parse_int("max-iterations", r.max_iterations, 1, 1000000));
  if (!r.device.empty() || given("--device")) a.device = parse_device(r.device);
  if (r.type == "double") a.use_double = true;
  else if (r.type == "float") a.use_double = false;
  else throw CliError("option --type: '" + r.type + "' is not float or double");
  if (r.weights == "abs") a.weights = Weights::abs;
  else if (r.weights == "signed") a.weights = Weights::signed_;
  else if (r.weights == "unit") a.weights = Weights::unit;
  else throw CliError("option --weights: '" + r.weights + "' is not abs, signed or unit");
  if (r.format != "auto" && r.format != "mtx" && r.format != "binary" && r.format != "edges" && r.format != "csv")
    throw CliError("option --format: '" + r.format + "' is not auto, mtx, binary, edges or csv");
  a.format = r.format;
  if (r.duplicates != "error" && r.duplicates != "sum" && r.duplicates != "max" && r.duplicates != "min" &&
      r.duplicates != "first")
    throw CliError("option --duplicates: '" + r.duplicates + "' is not error, sum, max, min or first");
  a.duplicates = r.duplicates;
  a.base = static_cast<int>(parse_int("base", r.base, 0, 1));
  if (!r.stream_limit.empty()) a.stream_limit = parse_bytes("stream-limit", r.stream_limit);
  if (!r.max_dimension.empty())
    a.max_dimension = parse_int("max-dimension", r.max_dimension, 1, std::numeric_limits<std::int32_t>::max());
  if (given("--output") && a.output.empty()) throw CliError("option --output: empty file name");
  if (a.semiring.empty()) throw CliError("option --semiring: empty name");
  if (a.input.empty()) throw CliError(name + ": empty input file name");
  if (a.command == Command::convert && a.convert_to.empty()) throw CliError("convert: empty output file name");
  return a;
}

std::string usage() {
  Raw r;
  CliArgs a;
  std::string topic;
  CLI::App app{"", "geblas"};
  build(app, a, r, topic);
  return app.get_formatter()->make_help(&app, "geblas", CLI::AppFormatMode::Normal);
}

}  // namespace geblas::cli
