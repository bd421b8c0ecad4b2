// A program that uses libgeblas and nothing else that starts OpenMP (no -fopenmp, no
// libgomp of its own), as a user's program would: linked to libgeblas, or, built with
// GEBLAS_PROBE_DLOPEN, loading it with dlopen as Python loads an extension. It reports on
// stdout what geblas and the environment say about the OpenMP wait policy, after a
// parallel run; test_wait_policy runs it in chosen environments and compares that
// with what the runtime itself prints (OMP_DISPLAY_ENV=verbose, on stderr).
#include <cstdio>
#include <cstdlib>

#if defined(GEBLAS_PROBE_DLOPEN)
#include <dlfcn.h>
#else
#include "geblas/geblas.hpp"
#endif

namespace {
void report(bool passive_wait) {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  std::printf("passive_wait %d\n", passive_wait ? 1 : 0);
  std::printf("OMP_WAIT_POLICY %s\n", policy ? policy : "(unset)");
}
}  // namespace

int main(int argc, char** argv) {
#if defined(GEBLAS_PROBE_DLOPEN)
  (void)argc;
  (void)argv;
  void* lib = dlopen(GEBLAS_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "wait_policy_probe: dlopen %s: %s\n", GEBLAS_LIBRARY_PATH, dlerror());
    return 1;
  }
  // geblas::passive_wait(), by its C++ name.
  auto passive_wait = reinterpret_cast<bool (*)()>(dlsym(lib, "_ZN6geblas12passive_waitEv"));
  if (!passive_wait) {
    std::fprintf(stderr, "wait_policy_probe: no geblas::passive_wait in %s\n", GEBLAS_LIBRARY_PATH);
    return 1;
  }
  report(passive_wait());
#else
  (void)argc;
  // Must return here: the environment names a policy in every case the test runs.
  geblas::use_passive_wait(argv);
  // PageRank on geblas's OpenMP threads, so that the runtime has started its team.
  const auto a = geblas::io::read_graph<double>(GEBLAS_PROBE_GRAPH);
  if (geblas::algo::pagerank(a).iterations < 1) return 1;
  report(geblas::passive_wait());
#endif
  return 0;
}
