// The CSV writer behind Results (results.hpp). Provenance is gathered once per run:
// the commit from $GEBLAS_COMMIT or `git rev-parse` in the source tree the bench was
// built from ("-dirty" when it has uncommitted changes), the UTC start time, the host
// name and the command line.
#include "results.hpp"

#include <unistd.h>

#ifdef GEBLAS_BENCH_CUSPARSE
#include <cuda_runtime.h>
#endif

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace geblas::bench {
namespace {

// The one list of columns; bench/common/results.py and tools/render_performance.py read
// files with exactly these.
const std::array<const char*, 11> RESULT_COLUMNS = {"date", "bench", "commit", "device", "host", "command",
                                                    "notes", "case", "metric", "value", "unit"};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string shell_output(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    if (pclose(p) != 0) return "";
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string current_commit() {
  if (const char* c = std::getenv("GEBLAS_COMMIT"); c && *c) return c;
#ifdef GEBLAS_BENCH_SOURCE_DIR
  const std::string git = "git -C '" GEBLAS_BENCH_SOURCE_DIR "' ";
  const std::string head = shell_output(git + "rev-parse --short HEAD 2>/dev/null");
  if (!head.empty())
    return head + (shell_output(git + "status --porcelain --untracked-files=no 2>/dev/null").empty() ? "" : "-dirty");
#endif
  return "unknown";
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

std::string shell_quoted(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t'\"$\\;&|<>*?()") == std::string::npos) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string cpu_description() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return model + " (" + std::to_string(std::thread::hardware_concurrency()) + " cores)";
}

std::string gpu_name(int device) {
#ifdef GEBLAS_BENCH_CUSPARSE
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) return prop.name;
#else
  (void)device;
#endif
  return "no CUDA device";
}

Results::Results(std::string bench, int& argc, char** argv) : bench_(std::move(bench)) {
  int out = 1;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s == "--results" && a + 1 < argc) {
      path_ = argv[++a];
    } else if (s.rfind("--results=", 0) == 0) {
      path_ = s.substr(10);
    } else {
      argv[out++] = argv[a];
    }
  }
  argc = out;
  argv[argc] = nullptr;
  if (path_.empty())
    if (const char* env = std::getenv("GEBLAS_BENCH_RESULTS")) path_ = env;
  if (!enabled()) return;
  std::ostringstream cmd;
  for (int a = 0; a < argc; ++a) cmd << (a ? " " : "") << shell_quoted(argv[a]);
  command_ = cmd.str();
  date_ = utc_now();
  commit_ = current_commit();
  device_ = cpu_description();
  char host[256] = {};
  host_ = gethostname(host, sizeof host - 1) == 0 ? host : "unknown";
}

Results::~Results() {
  try {
    write();
  } catch (const std::exception& e) {
    std::cerr << bench_ << ": " << e.what() << "\n";
  }
}

void Results::add(const CaseKey& key, const std::string& metric, double value, const std::string& unit) {
  if (!enabled()) return;
  char buf[64];
  // counts (entries, bytes) exactly; measurements to 6 significant digits
  if (value == std::floor(value) && std::fabs(value) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", value);
  else
    std::snprintf(buf, sizeof buf, "%.6g", value);
  add_text(key, metric, buf);
  rows_.back().back() = unit;
}

void Results::add_text(const CaseKey& key, const std::string& metric, const std::string& value) {
  if (!enabled()) return;
  // ';' separates the pairs, so a name or value holding one (or '%') is %-escaped
  const auto escaped = [](const std::string& t) {
    std::string out;
    for (char c : t) out += c == '%' ? std::string("%25") : c == ';' ? std::string("%3B") : std::string(1, c);
    return out;
  };
  std::string k;
  for (const auto& [name, v] : key) k += (k.empty() ? "" : ";") + escaped(name) + "=" + escaped(v);
  rows_.push_back({date_, bench_, commit_, device_, host_, command_, "", k, metric, value, ""});
}

void Results::add_printed(const CaseKey& key, const std::string& metric, const std::string& printed) {
  if (!enabled()) return;
  add_text(key, metric, printed);
  if (printed.size() > 1 && printed.back() == 'x') {
    char* end = nullptr;
    const std::string number = printed.substr(0, printed.size() - 1);
    std::strtod(number.c_str(), &end);
    if (end && *end == '\0') {
      rows_.back()[9] = number;
      rows_.back()[10] = "x";
    }
  }
}

void Results::write() {
  if (!enabled() || rows_.empty()) return;
  std::ifstream existing(path_);
  const bool fresh = !existing || existing.peek() == std::ifstream::traits_type::eof();
  existing.close();
  std::ofstream f(path_, std::ios::app);
  if (!f) throw std::runtime_error("cannot open the results file " + path_);
  if (fresh)
    for (std::size_t c = 0; c < RESULT_COLUMNS.size(); ++c) f << (c ? "," : "") << RESULT_COLUMNS[c];
  if (fresh) f << "\n";
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size(); ++c) f << (c ? "," : "") << csv_field(row[c]);
    f << "\n";
  }
  f.flush();
  if (!f) throw std::runtime_error("writing the results file " + path_ + " failed");
  std::cerr << bench_ << ": " << rows_.size() << " results appended to " << path_ << "\n";
  rows_.clear();
}

}  // namespace geblas::bench
