// The geblas command-line tool: runs graph algorithms and timed products on graph files,
// on the GPU when there is one. Exit codes: 0 success, 1 the run failed (unreadable
// file, bad data, a failed write, standard output included), 2 the command line is wrong.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "cli_args.hpp"
#include "commands.hpp"
#include "geblas/error.hpp"
#include "geblas/version.hpp"

namespace {
// A report that could not reach stdout (a full disk, a closed pipe) is a failed run.
int finish_stdout() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int e = errno;
    std::fprintf(stderr, "geblas: i/o error: cannot write to standard output: %s\n", e ? std::strerror(e) : "write failed");
    return 1;
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace geblas::cli;
  try {
    const CliArgs args = parse_cli(argc, argv);
    if (args.command == Command::version) {
      std::printf("geblas %s\n", geblas::version());
      return finish_stdout();
    }
    if (args.command == Command::help) {
      std::fputs(args.text.c_str(), stdout);
      return finish_stdout();
    }
    run(args);
    return finish_stdout();
  } catch (const CliError& e) {
    std::fprintf(stderr, "geblas: usage error: %s (try 'geblas help')\n", e.what());
    return 2;
  } catch (const geblas::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());  // already reads "geblas: <kind>: <what>"
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "geblas: error: %s\n", e.what());
    return 1;
  }
}
