/* Error handling shared by the algorithm files: GRB_TRY runs a GraphBLAS call and, on
 * an error, records the call's text and place and jumps to the function's `done:`
 * label, where every object the function made is freed (GrB_free of NULL does nothing). */
#ifndef GEBLAS_GRB_INTERNAL_H
#define GEBLAS_GRB_INTERNAL_H

#include "grb_algorithms.h"

void grb_set_error(GrB_Info info, const char *what, const char *file, int line);

#define GRB_TRY(call)                                      \
  do {                                                     \
    info = (call);                                         \
    if (info < GrB_SUCCESS) {                              \
      grb_set_error(info, #call, __FILE__, __LINE__);      \
      goto done;                                           \
    }                                                      \
  } while (0)

/* A precondition of the caller's: fails with `code` and the message `why`. */
#define GRB_REQUIRE(cond, code, why)                       \
  do {                                                     \
    if (!(cond)) {                                         \
      info = (code);                                       \
      grb_set_error(info, why, __FILE__, __LINE__);        \
      goto done;                                           \
    }                                                      \
  } while (0)

#endif
