/* Delta-stepping single-source shortest paths (Meyer and Sanders 2003) in GraphBLAS
 * calls, in the form Sridhar et al. ("Delta-stepping SSSP: from vertices and edges to
 * GraphBLAS implementations", 2019) give it and LAGraph follows: the edges split once
 * into light (w <= delta) and heavy (w > delta) matrices; bucket i holds the tentative
 * distances in [i delta, (i+1) delta); its vertices relax their light edges (min.plus
 * products) until the bucket stops changing, then the bucket's settled vertices relax
 * their heavy edges once. The next bucket is the one of the smallest tentative distance
 * not yet settled, so empty buckets cost nothing. Distances are FP32, +inf where
 * unreachable. */
#include <math.h>

#include "grb_internal.h"

/* r = f' B; then t<r < t> = r and pending<r < t> = r, with the improved entries in m
 * (bool, r's pattern). */
static GrB_Info relax(GrB_Vector t, GrB_Vector pending, GrB_Vector r, GrB_Vector m, GrB_Vector f, GrB_Matrix B,
                      GrB_Index n) {
  GrB_Info info = GrB_SUCCESS;
  GRB_TRY(GrB_vxm(r, NULL, NULL, GrB_MIN_PLUS_SEMIRING_FP32, f, B, NULL));
  GRB_TRY(GrB_Vector_eWiseMult_BinaryOp(m, NULL, NULL, GrB_LT_FP32, r, t, NULL));
  GRB_TRY(GrB_Vector_assign(t, m, NULL, r, GrB_ALL, n, NULL));
  GRB_TRY(GrB_Vector_assign(pending, m, NULL, r, GrB_ALL, n, NULL));
done:
  return info;
}

GrB_Info grb_sssp(GrB_Vector *distance, const grb_graph *G, GrB_Index source, float delta) {
  GrB_Info info = GrB_SUCCESS;
  GrB_Matrix AL = NULL, AH = NULL;
  GrB_Vector t = NULL, pending = NULL, f = NULL, r = NULL, m = NULL, s = NULL;
  GrB_Index n = 0, nf = 0, np = 0;
  if (distance) *distance = NULL;
  GRB_REQUIRE(distance != NULL && G != NULL && G->A != NULL, GrB_NULL_POINTER, "grb_sssp: no output or no graph");
  n = G->n;
  GRB_REQUIRE(source < n, GrB_INVALID_INDEX, "grb_sssp: the source is not a vertex of the graph");
  GRB_REQUIRE(delta > 0 && isfinite(delta), GrB_INVALID_VALUE, "grb_sssp: delta must be finite and > 0");
  GRB_REQUIRE(G->min_weight >= 0, GrB_INVALID_VALUE, "grb_sssp: a weight is negative (or NaN)");

  GRB_TRY(GrB_Matrix_new(&AL, GrB_FP32, n, n));
  GRB_TRY(GrB_Matrix_select_FP32(AL, NULL, NULL, GrB_VALUELE_FP32, G->A, delta, NULL));
  GRB_TRY(GrB_Matrix_new(&AH, GrB_FP32, n, n));
  GRB_TRY(GrB_Matrix_select_FP32(AH, NULL, NULL, GrB_VALUEGT_FP32, G->A, delta, NULL));

  /* t: every tentative distance (dense, +inf where unreached); pending: the reached
     vertices not yet settled, so that finding and emptying a bucket costs what the
     bucket holds, not n */
  GRB_TRY(GrB_Vector_new(&t, GrB_FP32, n));
  GRB_TRY(GrB_Vector_assign_FP32(t, NULL, NULL, INFINITY, GrB_ALL, n, NULL));
  GRB_TRY(GrB_Vector_setElement_FP32(t, 0, source));
  GRB_TRY(GrB_Vector_new(&pending, GrB_FP32, n));
  GRB_TRY(GrB_Vector_setElement_FP32(pending, 0, source));
  GRB_TRY(GrB_Vector_new(&f, GrB_FP32, n));
  GRB_TRY(GrB_Vector_new(&r, GrB_FP32, n));
  GRB_TRY(GrB_Vector_new(&m, GrB_BOOL, n));
  GRB_TRY(GrB_Vector_new(&s, GrB_BOOL, n));

  for (;;) {
    float nearest = 0;
    double i;
    float upper;
    GRB_TRY(GrB_Vector_nvals(&np, pending));
    if (np == 0) break;
    /* the lowest non-empty bucket: the one of the smallest pending distance. The
       quotient may round up past a bucket boundary: one bucket back then. */
    GRB_TRY(GrB_Vector_reduce_FP32(&nearest, NULL, GrB_MIN_MONOID_FP32, pending, NULL));
    i = floor((double)nearest / delta);
    if ((float)(i * delta) > nearest) i -= 1;
    upper = (float)((i + 1) * delta);
    if (!(nearest < upper)) upper = nextafterf(nearest, INFINITY); /* a boundary that rounds onto `nearest` */
    GRB_TRY(GrB_Vector_select_FP32(f, NULL, NULL, GrB_VALUELT_FP32, pending, upper, NULL));
    GRB_TRY(GrB_Vector_nvals(&nf, f));
    GRB_TRY(GrB_Vector_clear(s));
    while (nf > 0) {
      GRB_TRY(GrB_Vector_assign_BOOL(s, f, NULL, true, GrB_ALL, n, GrB_DESC_S));
      GRB_TRY(GrB_Vector_assign(pending, f, NULL, pending, GrB_ALL, n, GrB_DESC_RSC));
      GRB_TRY(relax(t, pending, r, m, f, AL, n));
      /* the improved vertices that stay in this bucket form the next light frontier */
      GRB_TRY(GrB_Vector_select_FP32(f, m, NULL, GrB_VALUELT_FP32, r, upper, GrB_DESC_R));
      GRB_TRY(GrB_Vector_nvals(&nf, f));
    }
    /* the bucket is settled: its vertices relax their heavy edges once */
    GRB_TRY(GrB_Vector_eWiseMult_BinaryOp(f, NULL, NULL, GrB_SECOND_FP32, s, t, NULL));
    GRB_TRY(relax(t, pending, r, m, f, AH, n));
  }
  *distance = t, t = NULL;
done:
  GrB_Matrix_free(&AL);
  GrB_Matrix_free(&AH);
  GrB_Vector_free(&t);
  GrB_Vector_free(&pending);
  GrB_Vector_free(&f);
  GrB_Vector_free(&r);
  GrB_Vector_free(&m);
  GrB_Vector_free(&s);
  return info;
}
