// Bench results as data: each bench hands its measurements to one Results, which appends
// them as CSV rows to the file named by --results FILE (or $GEBLAS_BENCH_RESULTS), each
// row with the run's provenance (date, commit, device, host, command), so that a table in
// docs/PERFORMANCE.md can be rendered from the file (tools/render_performance.py) and
// traced back to the run that made it. The columns are RESULT_COLUMNS in results.cpp;
// bench/common/results.py writes the same ones for the Python benches.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace geblas::bench {

// key=value pairs that name one measured case, e.g. {{"graph", "wiki-Vote"}, {"N", "32"}};
// written as "graph=wiki-Vote;N=32" in the file, in the given order.
using CaseKey = std::vector<std::pair<std::string, std::string>>;

class Results {
 public:
  // Takes "--results FILE" / "--results=FILE" out of argv (argc shrinks, so the bench's
  // own parser never sees it) and falls back to $GEBLAS_BENCH_RESULTS; without either,
  // add() does nothing. The command recorded is argv as given, minus the results option.
  Results(std::string bench, int& argc, char** argv);
  ~Results();  // writes what was added (see write())
  Results(const Results&) = delete;
  Results& operator=(const Results&) = delete;

  bool enabled() const { return !path_.empty(); }
  // What ran the measurements: a GPU bench passes its device's name; the default is the
  // host's CPU model and core count.
  void set_device(std::string device) { device_ = std::move(device); }
  // One measurement; unit "x" marks a ratio (the renderer prints it as 1.23x).
  void add(const CaseKey& key, const std::string& metric, double value, const std::string& unit = "");
  // Several measurements of one case in one unit.
  void add(const CaseKey& key, const std::vector<std::pair<std::string, double>>& metrics, const std::string& unit = "") {
    for (const auto& [metric, value] : metrics) add(key, metric, value, unit);
  }
  void add_text(const CaseKey& key, const std::string& metric, const std::string& value);
  // A value as a bench printed it: "1.23x" is stored as 1.23 with unit "x", other text as is.
  void add_printed(const CaseKey& key, const std::string& metric, const std::string& printed);
  // Appends the rows added so far to the file (the header first when the file is new or
  // empty) and clears them. Throws std::runtime_error when the file cannot be written:
  // a run whose results were asked for and lost must not look like a success.
  void write();

 private:
  std::string bench_, path_, command_, date_, commit_, device_, host_;
  std::vector<std::vector<std::string>> rows_;
};

// The CPU model and logical core count, e.g. "AMD EPYC 9B45 (2 cores)".
std::string cpu_description();
// The name of CUDA device `device` ("no CUDA device" in a build or on a host without one).
std::string gpu_name(int device = 0);

}  // namespace geblas::bench
