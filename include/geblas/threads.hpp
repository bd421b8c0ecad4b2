// CPU threads of geblas's OpenMP regions: how many, and how idle threads wait.
//
// Waiting: GCC's OpenMP runtime (libgomp) lets a thread that finished its share of a
// parallel region spin for a while (about 300,000 polls) before sleeping, unless
// OMP_WAIT_POLICY=passive (or GOMP_SPINCOUNT) is set. On a machine whose cores are busy
// with other work the spinning threads take the cores the working threads need: BFS on
// luxembourg_osm took 49-54 s with 2 threads on a loaded 2-core machine, 4.9 s with
// OMP_WAIT_POLICY=passive. libgomp reads these variables once, when it is loaded, before
// any code of a program or of geblas runs, so setting them later (setenv, a library
// constructor) has no effect. What works:
//   - set OMP_WAIT_POLICY=passive in the environment of the program (shell, service
//     file, launcher);
//   - or call geblas::use_passive_wait(argv) first thing in main(): when neither
//     OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set it sets OMP_WAIT_POLICY=passive and
//     re-executes the program (same arguments, same open files), so the runtime starts
//     with it. The geblas tool does this. A program that prefers spinning (dedicated
//     cores, many short regions) sets OMP_WAIT_POLICY=active and is left alone.
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

// True when the OpenMP runtime was started with a non-spinning wait policy
// (OMP_WAIT_POLICY=passive, or GOMP_SPINCOUNT=0, in the environment at load time).
GEBLAS_API bool passive_wait();

// See the header comment. Returns normally when nothing had to be done (a variable was
// already set) or when re-executing failed (then the program runs with the runtime's
// default policy); on success it does not return. `argv` is main's argv.
GEBLAS_API void use_passive_wait(char** argv);

}  // namespace geblas
