// Terminal feedback for the geblas tool: a spinner with the elapsed time while a file
// is read (the reader reports no byte counts), a bar or counter for iterations, and the
// wall-clock stopwatch behind the timing breakdown. Everything goes to stderr and only
// when stderr is a terminal, so pipes and CSV output stay clean.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

namespace geblas::cli {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

inline bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

// Shows "<label> ... 2.3 s" every 100 ms until destroyed.
class Spinner {
 public:
  Spinner(std::string label, bool enabled) : label_(std::move(label)) {
    if (!enabled) return;
    thread_ = std::thread([this] {
      const char marks[] = {'|', '/', '-', '\\'};
      for (int k = 0; !done_.load(); ++k) {
        std::fprintf(stderr, "\r%c %s ... %.1f s ", marks[k % 4], label_.c_str(), watch_.seconds());
        std::fflush(stderr);
        for (int t = 0; t < 10 && !done_.load(); ++t) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
    });
  }
  ~Spinner() {
    done_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  Spinner(const Spinner&) = delete;
  Spinner& operator=(const Spinner&) = delete;

 private:
  std::string label_;
  Stopwatch watch_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// How often the terminal line may change: a terminal redraw costs far more than an
// iteration of a small graph (one sssp made 1,035 redraws), and a human reads no faster.
struct ProgressPolicy {
  static constexpr double kMinSecondsBetweenDraws = 0.1;  // at most ~10 redraws a second
};

// One line, redrawn at most every ProgressPolicy::kMinSecondsBetweenDraws: a bar when the
// total is known, else a counter. Destroyed, it erases its line, so the report that
// follows starts on a clean line.
class IterationBar {
 public:
  IterationBar(std::string label, int total, bool enabled) : label_(std::move(label)), total_(total), on_(enabled) {}
  ~IterationBar() { clear(); }
  void clear() {
    if (on_ && drawn_) {
      std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
      drawn_ = false;
    }
  }
  int redraws() const { return redraws_; }
  void update(int iteration, double measure, const char* measure_name) {
    if (!on_) return;
    const double now = clock_.seconds();
    if (drawn_ && now - last_draw_ < ProgressPolicy::kMinSecondsBetweenDraws) return;
    last_draw_ = now;
    ++redraws_;
    drawn_ = true;
    if (total_ > 0) {
      const int width = 30, filled = static_cast<int>(static_cast<double>(width) * iteration / total_);
      std::string bar(static_cast<std::size_t>(filled > width ? width : filled), '#');
      bar.resize(width, '.');
      std::fprintf(stderr, "\r%s [%s] %d/%d %s %.3g ", label_.c_str(), bar.c_str(), iteration, total_, measure_name,
                   measure);
    } else {
      std::fprintf(stderr, "\r%s: round %d, %s %.0f ", label_.c_str(), iteration, measure_name, measure);
    }
    std::fflush(stderr);
  }

 private:
  std::string label_;
  int total_;
  bool on_;
  bool drawn_ = false;
  int redraws_ = 0;
  Stopwatch clock_;
  double last_draw_ = 0;
};

}  // namespace geblas::cli
