// libgeblas_omp_env.so: makes the idle OpenMP threads of a program that links libgeblas
// sleep instead of spin, with no variable set by the user.
//
// GCC's libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its own ELF constructor;
// without them a thread that finished its share of a parallel region polls for about
// 300,000 rounds before it sleeps, which on a machine whose cores are busy takes the cores
// the working threads need. A constructor in libgeblas runs too late (libgeblas depends on
// libgomp, so libgomp is initialised first), and a running program cannot change the
// policy. This library does not depend on libgomp and comes AFTER libgomp in libgeblas's
// DT_NEEDED list (src/CMakeLists.txt): glibc's loader (2.35 and later sort by depth-first
// search over DT_NEEDED) initialises the later of two sibling dependencies first, at
// start-up and in dlopen alike, so this constructor sets the variable before libgomp
// reads it. tests/core/test_wait_policy checks the runtime's own view of the policy.
// LLVM's libomp reads the variable at its first parallel region, which is later still.
// The variable stays in the environment, so child processes inherit the choice.
#include "omp_env/omp_env.hpp"

#include <cstdlib>

namespace {
__attribute__((constructor)) void choose_passive_wait() {
  if (!geblas_omp_wait_policy_in_environment()) setenv("OMP_WAIT_POLICY", "passive", 0);
}
}  // namespace

bool geblas_omp_wait_policy_in_environment() {
  return std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT") || std::getenv("KMP_BLOCKTIME");
}
