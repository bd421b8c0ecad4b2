// CPU threads of geblas's OpenMP regions: how many, and how idle threads wait.
//
// Waiting: GCC's OpenMP runtime (libgomp) lets a thread that finished its share of a
// parallel region spin for a while (about 300,000 polls) before sleeping, unless
// OMP_WAIT_POLICY=passive (or GOMP_SPINCOUNT) is set. On a machine whose cores are busy
// with other work the spinning threads take the cores the working threads need: BFS on
// luxembourg_osm took 49-54 s with 2 threads on a loaded 2-core machine, 4.9 s with
// OMP_WAIT_POLICY=passive. libgomp reads these variables once, when it is loaded, before
// any code of a program or of libgeblas runs. So libgeblas comes with a second library,
// libgeblas_omp_env.so, that the loader initialises before libgomp: when the environment
// names no policy (OMP_WAIT_POLICY, GOMP_SPINCOUNT, KMP_BLOCKTIME) it sets
// OMP_WAIT_POLICY=passive, and the program's idle threads sleep with no action of its
// own; the variable stays set, so child processes inherit it. A program that prefers
// spinning (dedicated cores, many short regions) sets OMP_WAIT_POLICY=active and is left
// alone. The one case it cannot reach: libgomp already running before libgeblas is
// loaded (a dlopen of geblas, say from Python, after another module started libgomp);
// there the runtime keeps the policy it started with.
#pragma once

#include "geblas/config.hpp"

namespace geblas {

// Threads for the OpenMP regions geblas starts from the calling thread (OpenMP's
// nthreads setting is per thread: call it from the thread that calls geblas). n >= 1;
// 0 restores the default (OMP_NUM_THREADS, else one per core). Throws InvalidValue for
// n < 0.
GEBLAS_API void set_num_threads(int n);
// The number of threads the next parallel region started from this thread will use.
GEBLAS_API int get_num_threads();

// True when the environment asks for a non-spinning wait (OMP_WAIT_POLICY=passive, set
// by libgeblas_omp_env.so or the user, or GOMP_SPINCOUNT=0): the policy the runtime runs
// with, except where libgomp ran before libgeblas was loaded (above).
GEBLAS_API bool passive_wait();

// For a libgomp that was running before libgeblas was loaded: when the environment names
// no wait policy, sets OMP_WAIT_POLICY=passive and re-executes the program (same
// arguments, same open files) so that the runtime starts with it. Returns normally when
// a policy was already named (always so in a program linked to libgeblas, whose load set
// it) or when re-executing failed (then the program runs with the runtime's default
// policy); on success it does not return. `argv` is main's argv.
GEBLAS_API void use_passive_wait(char** argv);

}  // namespace geblas
