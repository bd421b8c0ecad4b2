// The OpenMP wait policy of a program that links libgeblas: passive by default with no
// variable set by the user (libgeblas_omp_env.so sets it before libgomp reads it), and
// the user's own choice respected. Each case runs wait_policy_probe (linked to libgeblas,
// or loading it with dlopen) in a chosen environment and checks three views against one
// another: geblas::passive_wait(), the probe's environment, and the runtime's own report
// of the settings it started with (OMP_DISPLAY_ENV=verbose), the independent oracle.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/catch.hpp"
#include "support/openmp_settings.hpp"

namespace fs = std::filesystem;

namespace {

struct Probe {
  int code = -1;
  std::string report;    // the probe's stdout
  std::string settings;  // the runtime's settings, from its stderr
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// `env` is what env(1) takes: "-u NAME" and "NAME=value" words. Every wait-policy variable
// is removed first, so the case does not depend on the environment ctest ran in.
Probe run_probe(const char* program, const std::string& env) {
  const fs::path dir = fs::temp_directory_path() / ("geblas-wait-policy-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path out = dir / "out.txt", err = dir / "err.txt";
  const std::string cmd = "env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u KMP_BLOCKTIME " + env +
                          " OMP_DISPLAY_ENV=verbose " + program + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  Probe p;
  p.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  p.report = slurp(out);
  p.settings = slurp(err);
  fs::remove_all(dir);
  return p;
}

const char* const kProbes[] = {GEBLAS_PROBE_LINKED_PATH, GEBLAS_PROBE_DLOPEN_PATH};

}  // namespace

TEST_CASE("a program linked to libgeblas waits passively with no variable set", "[threads][wait_policy]") {
  for (const char* program : kProbes) {
    const Probe p = run_probe(program, "");
    INFO(program << "\nreport:\n" << p.report << "runtime settings:\n" << p.settings);
    REQUIRE(p.code == 0);
    CHECK(p.report.find("passive_wait 1\n") != std::string::npos);
    CHECK(p.report.find("OMP_WAIT_POLICY passive\n") != std::string::npos);
    CHECK(test::openmp_says_passive(p.settings));
    CHECK_FALSE(test::openmp_says_active(p.settings));
  }
}

TEST_CASE("an explicit OMP_WAIT_POLICY=active is respected", "[threads][wait_policy]") {
  for (const char* program : kProbes) {
    const Probe p = run_probe(program, "OMP_WAIT_POLICY=active");
    INFO(program << "\nreport:\n" << p.report << "runtime settings:\n" << p.settings);
    REQUIRE(p.code == 0);
    CHECK(p.report.find("passive_wait 0\n") != std::string::npos);
    CHECK(p.report.find("OMP_WAIT_POLICY active\n") != std::string::npos);
    CHECK(test::openmp_says_active(p.settings));
    CHECK_FALSE(test::openmp_says_passive(p.settings));
  }
}

TEST_CASE("an explicit GOMP_SPINCOUNT is respected", "[threads][wait_policy]") {
  for (const char* program : kProbes) {
    const Probe p = run_probe(program, "GOMP_SPINCOUNT=12345");
    INFO(program << "\nreport:\n" << p.report << "runtime settings:\n" << p.settings);
    REQUIRE(p.code == 0);
    // No policy was added next to the user's spin count.
    CHECK(p.report.find("OMP_WAIT_POLICY (unset)\n") != std::string::npos);
    CHECK(p.report.find("passive_wait 0\n") != std::string::npos);
    if (test::openmp_is_libgomp(p.settings)) {
      CHECK(p.settings.find("GOMP_SPINCOUNT = '12345'") != std::string::npos);
    }
  }
}
