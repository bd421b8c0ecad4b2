// The entry of libgeblas_omp_env.so (omp_env.cpp says why that library exists).
#pragma once

#define GEBLAS_OMP_ENV_API __attribute__((visibility("default")))

extern "C" {
// True when the environment names a wait policy for the OpenMP runtime now:
// OMP_WAIT_POLICY, GOMP_SPINCOUNT (GCC's libgomp) or KMP_BLOCKTIME (LLVM's libomp).
// Such a choice is the user's and is never overridden.
GEBLAS_OMP_ENV_API bool geblas_omp_wait_policy_in_environment();
}
