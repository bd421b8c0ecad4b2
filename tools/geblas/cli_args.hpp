// The command line of the geblas tool, parsed into a plain struct. Kept apart from the
// tool (a small static library, no geblas calls) so that it can be tested and fuzzed on
// its own: parse_cli() either returns a complete, checked CliArgs or throws CliError.
// The grammar (subcommands, per-command help with defaults) is CLI11's; the values are
// checked here, strictly, so that a typo never runs with a default.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace geblas::cli {

// A usage error: bad subcommand, unknown option, missing or malformed value.
class CliError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// help and version print `text` (CliArgs::text) and exit 0.
enum class Command { help, version, info, pagerank, sssp, bfs, cc, tc, spmm, convert };

// How sssp turns stored values into edge weights.
enum class Weights { abs, signed_, unit };

struct CliArgs {
  Command command = Command::help;
  std::string text;                    // help / version: what to print
  std::string input;                   // the graph file ("-": standard input)
  std::string convert_to;              // convert: the file to write ("-": standard output)
  std::string device;                  // "" (GPU if present, else CPU), "cpu", "cuda", "cuda:<i>"
  int threads = 0;                     // 0: OpenMP's default
  std::int64_t top = 10;               // rows printed by pagerank, cc, sssp, bfs
  std::string output;                  // CSV file ("" : none, "-": standard output)
  std::string semiring = "plus_times"; // spmm
  std::int64_t n = 64;                 // spmm: columns of the dense operand
  int repeat = 10;                     // spmm: timed runs (after one warm-up)
  std::vector<std::int64_t> sources;   // sssp, bfs (empty: vertex 0)
  bool weighted = false;               // pagerank
  double damping = 0.85;               // pagerank
  double tolerance = 1e-6;             // pagerank
  int max_iterations = 100;            // pagerank
  Weights weights = Weights::abs;      // sssp
  bool use_double = true;              // --type double (default) or float
  bool progress = true;                // --no-progress turns the terminal progress bar off
  // Reading the graph.
  std::string format = "auto";         // auto, mtx, binary, edges, csv
  std::string duplicates = "error";    // error, sum, max, min, first
  int base = 0;                        // edge lists: ids start at 0 or 1
  bool undirected = false;             // edge lists: each line is an edge both ways
  std::int64_t max_dimension = 0;      // 0: the readers' automatic limit
  std::uint64_t stream_limit = 0;      // bytes read from a pipe or standard input (0: the library's default)
};

// argv[0] is the program name. Throws CliError naming the offending argument.
CliArgs parse_cli(int argc, const char* const* argv);

// The general help text.
std::string usage();

const char* to_string(Command c);

}  // namespace geblas::cli
