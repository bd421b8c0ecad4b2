// The geblas command-line tool: runs graph algorithms and timed products on graph files,
// on the GPU when there is one. Exit codes: 0 success, 1 the run failed (unreadable
// file, bad data, a failed write, standard output included), 2 the command line is wrong.
#include <csignal>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include "cli_args.hpp"
#include "commands.hpp"
#include "geblas/error.hpp"
#include "geblas/io_process.hpp"
#include "geblas/version.hpp"

namespace {

// The library's messages name its C++ options; a tool user has these instead.
constexpr std::pair<std::string_view, std::string_view> kOptionNames[] = {
    {"ReadOptions::duplicates", "--duplicates"},
    {"ReadOptions::max_dimension", "--max-dimension"},
    {"ReadOptions::base", "--base"},
    {"geblas::io::set_max_stream_bytes()", "--stream-limit"},
    {"a geblas::io::Format", "--format mtx|binary|edges|csv"},
};

std::string in_tool_terms(std::string m) {
  for (const auto& [api, option] : kOptionNames)
    for (std::size_t at; (at = m.find(api)) != std::string::npos;) m.replace(at, api.size(), option);
  return m;
}

// A message as the terminal may show it: control bytes (a file name can hold any byte
// but '/' and NUL) as \xNN, so that no message sends raw bytes to a terminal.
std::string printable(std::string_view m) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (const char ch : m) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

void report_error(const char* prefix, const char* what) {
  std::fprintf(stderr, "%s%s\n", prefix, printable(in_tool_terms(what)).c_str());
}

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
  // A closed pipe is a failed write (exit 1, with a message), not a silent death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  // An interrupted write leaves no temporary file behind.
  geblas::io::remove_temporary_files_on_signals();
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
    report_error("geblas: usage error: ", (std::string(e.what()) + " (try 'geblas help')").c_str());
    return 2;
  } catch (const geblas::Error& e) {
    report_error("", e.what());  // already reads "geblas: <kind>: <what>"
    return 1;
  } catch (const std::exception& e) {
    report_error("geblas: error: ", e.what());
    return 1;
  }
}
