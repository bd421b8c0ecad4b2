// The geblas command-line tool: runs graph algorithms and timed products on Matrix
// Market or binary graph files, on the GPU when there is one. Exit codes: 0 success,
// 1 the run failed (unreadable file, bad data, ...), 2 the command line is wrong.
#include <cstdio>
#include <exception>

#include "cli_args.hpp"
#include "commands.hpp"
#include "geblas/error.hpp"

int main(int argc, char** argv) {
  using namespace geblas::cli;
  try {
    const CliArgs args = parse_cli(argc, argv);
    if (args.command == Command::help) {
      std::fputs(usage().c_str(), stdout);
      return 0;
    }
    run(args);
    return 0;
  } catch (const CliError& e) {
    std::fprintf(stderr, "geblas: %s (try 'geblas help')\n", e.what());
    return 2;
  } catch (const geblas::Error& e) {
    std::fprintf(stderr, "geblas: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "geblas: error: %s\n", e.what());
    return 1;
  }
}
