// Thread count and wait policy of geblas's OpenMP regions (see <geblas/threads.hpp> for
// how the passive policy is set before GCC's libgomp reads it).
#include "geblas/threads.hpp"

#include <omp.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "geblas/error.hpp"
#include "omp_env/omp_env.hpp"

namespace geblas {
namespace {
// The default nthreads, captured before any set_num_threads call so that 0 restores it.
const int g_default_threads = omp_get_max_threads();

// What libgomp saw at load time: the environment is the same now unless the program
// changed it since, which use_passive_wait's re-exec makes irrelevant.
bool env_says_passive() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  if (policy && (strcasecmp(policy, "passive") == 0)) return true;
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  return spin && std::strcmp(spin, "0") == 0;
}
}  // namespace

void set_num_threads(int n) {
  if (n < 0) throw InvalidValue("set_num_threads: " + std::to_string(n) + " threads (need >= 1, or 0 for the default)");
  omp_set_num_threads(n == 0 ? g_default_threads : n);
}

int get_num_threads() { return omp_get_max_threads(); }

bool passive_wait() { return env_says_passive(); }

void use_passive_wait(char** argv) {
  // Set already: by the user, or by libgeblas_omp_env.so when libgeblas was loaded.
  if (geblas_omp_wait_policy_in_environment()) return;
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  // /proc/self/exe is this very program even when argv[0] is a bare name or was moved.
  execv("/proc/self/exe", argv);
  // exec failed (no /proc, say): run on with the runtime's default policy; keep the
  // variable out of the environment of any child so that it matches what we run with.
  unsetenv("OMP_WAIT_POLICY");
}

}  // namespace geblas
