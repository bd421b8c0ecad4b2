/* The graph object the algorithms share (A with A', out-degrees, symmetry and the
 * smallest weight, computed once as LAGraph caches them), the error record, and a
 * small Matrix Market reader (through zlib, so that .mtx and .mtx.gz both read). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "grb_internal.h"

static _Thread_local char last_error[512];

void grb_set_error(GrB_Info info, const char *what, const char *file, int line) {
  snprintf(last_error, sizeof last_error, "%s:%d: %s (GrB_Info %d)", file, line, what, (int)info);
}

const char *grb_last_error(void) { return last_error; }

void grb_graph_free(grb_graph *G) {
  if (!G) return;
  GrB_Matrix_free(&G->A);
  GrB_Matrix_free(&G->AT);
  GrB_Vector_free(&G->out_degree);
  G->n = G->nvals = 0;
}

GrB_Info grb_graph_init(grb_graph *G, GrB_Matrix *A) {
  GrB_Info info = GrB_SUCCESS;
  GrB_Matrix ones = NULL, both = NULL;
  GrB_Index nrows = 0, ncols = 0, nboth = 0;
  if (G) memset(G, 0, sizeof *G);
  GRB_REQUIRE(G != NULL && A != NULL && *A != NULL, GrB_NULL_POINTER, "grb_graph_init: no graph or no matrix");
  G->A = *A;
  *A = NULL;
  GRB_TRY(GrB_Matrix_nrows(&nrows, G->A));
  GRB_TRY(GrB_Matrix_ncols(&ncols, G->A));
  GRB_REQUIRE(nrows == ncols, GrB_DIMENSION_MISMATCH, "grb_graph_init: the matrix is not square");
  G->n = nrows;
  GRB_TRY(GrB_Matrix_nvals(&G->nvals, G->A));
  GRB_TRY(GrB_Matrix_new(&G->AT, GrB_FP32, G->n, G->n));
  GRB_TRY(GrB_transpose(G->AT, NULL, NULL, G->A, NULL));
  /* out-degree: row sums of A's pattern (every entry replaced by 1) */
  GRB_TRY(GrB_Matrix_new(&ones, GrB_INT64, G->n, G->n));
  GRB_TRY(GrB_Matrix_apply_BinaryOp2nd_INT64(ones, NULL, NULL, GrB_ONEB_INT64, G->A, 0, NULL));
  GRB_TRY(GrB_Vector_new(&G->out_degree, GrB_INT64, G->n));
  GRB_TRY(GrB_Matrix_reduce_Monoid(G->out_degree, NULL, NULL, GrB_PLUS_MONOID_INT64, ones, NULL));
  /* symmetric pattern: A and A' have the same entries exactly when their intersection
     has all of them */
  GRB_TRY(GrB_Matrix_new(&both, GrB_BOOL, G->n, G->n));
  GRB_TRY(GrB_Matrix_eWiseMult_BinaryOp(both, NULL, NULL, GrB_ONEB_BOOL, G->A, G->AT, NULL));
  GRB_TRY(GrB_Matrix_nvals(&nboth, both));
  G->symmetric = nboth == G->nvals;
  G->min_weight = 0;
  if (G->nvals > 0) GRB_TRY(GrB_Matrix_reduce_FP32(&G->min_weight, NULL, GrB_MIN_MONOID_FP32, G->A, NULL));
done:
  GrB_Matrix_free(&ones);
  GrB_Matrix_free(&both);
  if (info < GrB_SUCCESS && G) grb_graph_free(G);
  return info;
}

GrB_Info grb_graph_symmetrize(grb_graph *S, const grb_graph *G) {
  GrB_Info info = GrB_SUCCESS;
  GrB_Matrix A = NULL;
  GRB_REQUIRE(S != NULL && G != NULL && G->A != NULL, GrB_NULL_POINTER, "grb_graph_symmetrize: no graph");
  GRB_TRY(GrB_Matrix_new(&A, GrB_FP32, G->n, G->n));
  GRB_TRY(GrB_Matrix_eWiseAdd_BinaryOp(A, NULL, NULL, GrB_FIRST_FP32, G->A, G->AT, NULL));
  GRB_TRY(grb_graph_init(S, &A));
done:
  GrB_Matrix_free(&A);
  return info;
}

GrB_Info grb_graph_from_csr(grb_graph *G, GrB_Index n, const int64_t *row_offsets, const int32_t *col_indices,
                            const float *weights) {
  GrB_Info info = GrB_SUCCESS;
  GrB_Matrix A = NULL;
  GrB_Index *I = NULL, *J = NULL, m = 0;
  float *X = NULL;
  if (G) memset(G, 0, sizeof *G);
  GRB_REQUIRE(G != NULL && row_offsets != NULL && (col_indices != NULL || row_offsets[n] == 0), GrB_NULL_POINTER,
              "grb_graph_from_csr: no graph or no arrays");
  m = (GrB_Index)row_offsets[n];
  I = malloc((m + 1) * sizeof *I);
  J = malloc((m + 1) * sizeof *J);
  X = malloc((m + 1) * sizeof *X);
  GRB_REQUIRE(I && J && X, GrB_OUT_OF_MEMORY, "grb_graph_from_csr: out of memory");
  for (GrB_Index i = 0; i < n; ++i)
    for (int64_t e = row_offsets[i]; e < row_offsets[i + 1]; ++e) {
      GRB_REQUIRE(col_indices[e] >= 0 && (GrB_Index)col_indices[e] < n, GrB_INVALID_INDEX,
                  "grb_graph_from_csr: a column index is outside [0, n)");
      I[e] = i, J[e] = (GrB_Index)col_indices[e], X[e] = weights ? weights[e] : 1.0f;
    }
  GRB_TRY(GrB_Matrix_new(&A, GrB_FP32, n, n));
  GRB_TRY(GrB_Matrix_build_FP32(A, I, J, X, m, GrB_PLUS_FP32));
  GRB_TRY(grb_graph_init(G, &A));
done:
  free(I);
  free(J);
  free(X);
  GrB_Matrix_free(&A);
  return info;
}

#define GRB_TO_DENSE(NAME, T, SUFFIX)                                                                     \
  GrB_Info NAME(T *out, GrB_Vector v, T fill) {                                                           \
    GrB_Info info = GrB_SUCCESS;                                                                          \
    GrB_Index size = 0, nv = 0, *I = NULL;                                                                \
    T *X = NULL;                                                                                          \
    GRB_REQUIRE(out != NULL && v != NULL, GrB_NULL_POINTER, #NAME ": no output or no vector");            \
    GRB_TRY(GrB_Vector_size(&size, v));                                                                   \
    GRB_TRY(GrB_Vector_nvals(&nv, v));                                                                    \
    I = malloc((nv + 1) * sizeof *I);                                                                     \
    X = malloc((nv + 1) * sizeof *X);                                                                     \
    GRB_REQUIRE(I && X, GrB_OUT_OF_MEMORY, #NAME ": out of memory");                                      \
    GRB_TRY(GrB_Vector_extractTuples_##SUFFIX(I, X, &nv, v));                                             \
    for (GrB_Index k = 0; k < size; ++k) out[k] = fill;                                                   \
    for (GrB_Index k = 0; k < nv; ++k) out[I[k]] = X[k];                                                  \
  done:                                                                                                   \
    free(I);                                                                                              \
    free(X);                                                                                              \
    return info;                                                                                          \
  }
GRB_TO_DENSE(grb_vector_to_dense_int64, int64_t, INT64)
GRB_TO_DENSE(grb_vector_to_dense_fp32, float, FP32)

/* ---- Matrix Market ---- */

static int read_line(gzFile f, char *buf, int size) { return gzgets(f, buf, size) != NULL; }

GrB_Info grb_read_matrix_market(GrB_Matrix *A, const char *path) {
  GrB_Info info = GrB_SUCCESS;
  gzFile f = NULL;
  char line[1024], object[64], format[64], field[64], symmetry[64];
  GrB_Index *I = NULL, *J = NULL;
  float *X = NULL;
  unsigned long long nrows = 0, ncols = 0, nnz = 0, k = 0, m = 0;
  int pattern, symmetric;
  GRB_REQUIRE(A != NULL && path != NULL, GrB_NULL_POINTER, "grb_read_matrix_market: no output or no path");
  *A = NULL;
  f = gzopen(path, "rb");
  GRB_REQUIRE(f != NULL, GrB_INVALID_VALUE, "grb_read_matrix_market: cannot open the file");
  GRB_REQUIRE(read_line(f, line, sizeof line) &&
                  sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", object, format, field, symmetry) == 4,
              GrB_INVALID_VALUE, "grb_read_matrix_market: no %%MatrixMarket header on line 1");
  for (char *p = field; *p; ++p) *p = (char)tolower((unsigned char)*p);
  for (char *p = symmetry; *p; ++p) *p = (char)tolower((unsigned char)*p);
  GRB_REQUIRE(strcmp(format, "coordinate") == 0, GrB_INVALID_VALUE,
              "grb_read_matrix_market: only coordinate files are read");
  pattern = strcmp(field, "pattern") == 0;
  GRB_REQUIRE(pattern || strcmp(field, "real") == 0 || strcmp(field, "integer") == 0, GrB_INVALID_VALUE,
              "grb_read_matrix_market: the field must be pattern, integer or real");
  symmetric = strcmp(symmetry, "symmetric") == 0;
  GRB_REQUIRE(symmetric || strcmp(symmetry, "general") == 0, GrB_INVALID_VALUE,
              "grb_read_matrix_market: the symmetry must be general or symmetric");
  do {
    GRB_REQUIRE(read_line(f, line, sizeof line), GrB_INVALID_VALUE, "grb_read_matrix_market: no size line");
  } while (line[0] == '%');
  GRB_REQUIRE(sscanf(line, "%llu %llu %llu", &nrows, &ncols, &nnz) == 3, GrB_INVALID_VALUE,
              "grb_read_matrix_market: the size line is not 'rows cols entries'");
  I = malloc((2 * nnz + 1) * sizeof *I);
  J = malloc((2 * nnz + 1) * sizeof *J);
  X = malloc((2 * nnz + 1) * sizeof *X);
  GRB_REQUIRE(I && J && X, GrB_OUT_OF_MEMORY, "grb_read_matrix_market: out of memory");
  while (k < nnz && read_line(f, line, sizeof line)) {
    unsigned long long i, j;
    double v = 1;
    if (line[0] == '%' || line[0] == '\n') continue;
    GRB_REQUIRE(sscanf(line, "%llu %llu %lf", &i, &j, &v) >= 2 && i >= 1 && j >= 1 && i <= nrows && j <= ncols,
                GrB_INVALID_VALUE, "grb_read_matrix_market: an entry is not 'row col [value]' within the size");
    if (pattern) v = 1;
    I[m] = i - 1, J[m] = j - 1, X[m] = (float)v, ++m;
    if (symmetric && i != j) I[m] = j - 1, J[m] = i - 1, X[m] = (float)v, ++m;
    ++k;
  }
  GRB_REQUIRE(k == nnz, GrB_INVALID_VALUE, "grb_read_matrix_market: fewer entries than the size line says");
  GRB_TRY(GrB_Matrix_new(A, GrB_FP32, nrows, ncols));
  GRB_TRY(GrB_Matrix_build_FP32(*A, I, J, X, m, GrB_PLUS_FP32));
done:
  if (f) gzclose(f);
  free(I);
  free(J);
  free(X);
  if (info < GrB_SUCCESS && A) GrB_Matrix_free(A);
  return info;
}
