/* Triangle counting in GraphBLAS calls by the masked product the Sandia "LUT" method
 * uses (Wolf et al. 2017; LAGraph's default): with L and U the strictly lower and upper
 * triangles of the undirected graph, C<L> = L * U' with the plus.pair semiring counts,
 * for each edge (i, j) with j < i, the k with j < k < i adjacent to both, so every
 * triangle once; the count is the sum of C. On graphs with skewed degrees the vertices
 * are first relabelled by ascending degree (as LAGraph's presort does): each row of U
 * then holds at most about sqrt(2 |E|) entries, which bounds the dot products. */
#include <stdlib.h>

#include "grb_internal.h"

typedef struct {
  int64_t degree;
  GrB_Index id;
} ranked;

static int by_degree(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->degree != y->degree) return x->degree < y->degree ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int by_value(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* LAGraph's rule: sort when the mean degree exceeds 4x the median of a sample of the
 * degrees (1000 evenly spaced vertices); `degree` holds every vertex's degree. */
#define TC_SAMPLE 1000
static int skewed(const int64_t *degree, GrB_Index n, GrB_Index nvals) {
  int64_t sample[TC_SAMPLE];
  const GrB_Index m = n < TC_SAMPLE ? n : TC_SAMPLE;
  if (m == 0) return 0;
  for (GrB_Index k = 0; k < m; ++k) sample[k] = degree[k * (n / m)];
  qsort(sample, m, sizeof *sample, by_value);
  return (double)nvals / (double)n > 4.0 * (double)sample[m / 2];
}

GrB_Info grb_triangle_count(uint64_t *count, const grb_graph *G, int sort) {
  GrB_Info info = GrB_SUCCESS;
  GrB_Matrix P = NULL, L = NULL, U = NULL, C = NULL;
  GrB_Semiring plus_pair = NULL;
  GrB_Index n = 0, got = 0, *index = NULL, *perm = NULL;
  int64_t *value = NULL, *degree = NULL, total = 0;
  ranked *order = NULL;
  const GrB_Matrix *S = NULL;
  if (count) *count = 0;
  GRB_REQUIRE(count != NULL && G != NULL && G->A != NULL, GrB_NULL_POINTER, "grb_triangle_count: no output or no graph");
  GRB_REQUIRE(G->symmetric, GrB_INVALID_VALUE,
              "grb_triangle_count: the graph must be undirected (grb_graph_symmetrize makes it so)");
  GRB_REQUIRE(sort >= -1 && sort <= 1, GrB_INVALID_VALUE, "grb_triangle_count: sort must be -1, 0 or 1");
  n = G->n;
  S = &G->A;
  if (sort != 0 && n > 0) {
    index = malloc(n * sizeof *index);
    value = malloc(n * sizeof *value);
    degree = calloc(n, sizeof *degree);
    GRB_REQUIRE(index && value && degree, GrB_OUT_OF_MEMORY, "grb_triangle_count: out of memory");
    got = n;
    GRB_TRY(GrB_Vector_extractTuples_INT64(index, value, &got, G->out_degree));
    for (GrB_Index k = 0; k < got; ++k) degree[index[k]] = value[k];
    if (sort == 1 || skewed(degree, n, G->nvals)) {
      order = malloc(n * sizeof *order);
      perm = malloc(n * sizeof *perm);
      GRB_REQUIRE(order && perm, GrB_OUT_OF_MEMORY, "grb_triangle_count: out of memory");
      for (GrB_Index k = 0; k < n; ++k) order[k].degree = degree[k], order[k].id = k;
      qsort(order, n, sizeof *order, by_degree);
      for (GrB_Index k = 0; k < n; ++k) perm[k] = order[k].id;
      GRB_TRY(GrB_Matrix_new(&P, GrB_FP32, n, n));
      GRB_TRY(GrB_Matrix_extract(P, NULL, NULL, G->A, perm, n, perm, n, NULL));
      S = &P;
    }
  }
  GRB_TRY(GrB_Matrix_new(&L, GrB_FP32, n, n));
  GRB_TRY(GrB_Matrix_select_INT64(L, NULL, NULL, GrB_TRIL, *S, -1, NULL));
  GRB_TRY(GrB_Matrix_new(&U, GrB_FP32, n, n));
  GRB_TRY(GrB_Matrix_select_INT64(U, NULL, NULL, GrB_TRIU, *S, 1, NULL));
  GRB_TRY(GrB_Semiring_new(&plus_pair, GrB_PLUS_MONOID_INT64, GrB_ONEB_INT64));
  GRB_TRY(GrB_Matrix_new(&C, GrB_INT64, n, n));
  GRB_TRY(GrB_mxm(C, L, NULL, plus_pair, L, U, GrB_DESC_ST1));
  GRB_TRY(GrB_Matrix_reduce_INT64(&total, NULL, GrB_PLUS_MONOID_INT64, C, NULL));
  *count = (uint64_t)total;
done:
  free(index);
  free(value);
  free(degree);
  free(order);
  free(perm);
  GrB_Matrix_free(&P);
  GrB_Matrix_free(&L);
  GrB_Matrix_free(&U);
  GrB_Matrix_free(&C);
  GrB_Semiring_free(&plus_pair);
  return info;
}
