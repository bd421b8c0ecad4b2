// Fuzz target: the geblas tool's argument parser (tools/geblas/cli_args.cpp). The input
// is split at NUL bytes into argv. parse_cli() must either throw CliError or return
// arguments inside the ranges docs/CLI.md promises; anything else (another exception, a
// crash, an out-of-range field) is a failure.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"geblas"};
  std::string cur;
  for (std::size_t k = 0; k < size; ++k) {
    if (data[k] == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[k]));
    }
  }
  if (!cur.empty() || size == 0) args.push_back(cur);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);

  using geblas::cli::Command;
  geblas::cli::CliArgs a;
  try {
    a = geblas::cli::parse_cli(static_cast<int>(args.size()), argv.data());
  } catch (const geblas::cli::CliError& e) {
    GEBLAS_FUZZ_CHECK(e.what()[0] != '\0', "CliError without a message");
    return 0;
  }
  if (a.command == Command::help || a.command == Command::version) {
    GEBLAS_FUZZ_CHECK(!a.text.empty(), "help or version without text");
    return 0;
  }
  GEBLAS_FUZZ_CHECK(a.base == 0 || a.base == 1, "base %d", a.base);
  GEBLAS_FUZZ_CHECK(a.max_dimension >= 0 && a.max_dimension <= std::numeric_limits<std::int32_t>::max(),
                    "max_dimension %lld", static_cast<long long>(a.max_dimension));
  GEBLAS_FUZZ_CHECK(a.format == "auto" || a.format == "mtx" || a.format == "binary" || a.format == "edges" ||
                        a.format == "csv",
                    "format '%s'", a.format.c_str());
  GEBLAS_FUZZ_CHECK(a.duplicates == "error" || a.duplicates == "sum" || a.duplicates == "max" ||
                        a.duplicates == "min" || a.duplicates == "first",
                    "duplicates '%s'", a.duplicates.c_str());
  GEBLAS_FUZZ_CHECK(!a.input.empty(), "empty input name");
  GEBLAS_FUZZ_CHECK(a.command != Command::convert || !a.convert_to.empty(), "convert without an output");
  GEBLAS_FUZZ_CHECK(a.threads >= 0 && a.threads <= 4096, "threads %d", a.threads);
  GEBLAS_FUZZ_CHECK(a.top >= 0 && a.top <= std::numeric_limits<std::int32_t>::max(), "top %lld", static_cast<long long>(a.top));
  GEBLAS_FUZZ_CHECK(a.n >= 1 && a.n <= (1 << 16), "n %lld", static_cast<long long>(a.n));
  GEBLAS_FUZZ_CHECK(a.repeat >= 1 && a.repeat <= 100000, "repeat %d", a.repeat);
  GEBLAS_FUZZ_CHECK(std::isfinite(a.damping) && a.damping >= 0 && a.damping < 1, "damping %g", a.damping);
  GEBLAS_FUZZ_CHECK(std::isfinite(a.tolerance) && a.tolerance >= 0 && a.tolerance <= 1, "tolerance %g", a.tolerance);
  GEBLAS_FUZZ_CHECK(a.max_iterations >= 1 && a.max_iterations <= 1000000, "max_iterations %d", a.max_iterations);
  for (auto s : a.sources)
    GEBLAS_FUZZ_CHECK(s >= 0 && s <= std::numeric_limits<std::int32_t>::max(), "source %lld", static_cast<long long>(s));
  GEBLAS_FUZZ_CHECK(a.sources.empty() || a.command == Command::sssp || a.command == Command::bfs,
                    "sources on command %s", geblas::cli::to_string(a.command));
  GEBLAS_FUZZ_CHECK(a.device.empty() || a.device == "cpu" || a.device == "cuda" || a.device.rfind("cuda:", 0) == 0,
                    "device '%s'", a.device.c_str());
  GEBLAS_FUZZ_CHECK(!a.semiring.empty(), "empty semiring");
  // File names are not checked here: an empty or odd name passes the parser and is
  // refused by the reader or writer that opens it (IoError), a clean error.
  return 0;
}
