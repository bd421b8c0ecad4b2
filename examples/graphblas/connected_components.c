/* FastSV connected components (Zhang, Azad and Hu, "FastSV: a distributed-memory
 * connected component algorithm with fast convergence", 2020) in GraphBLAS calls. Every
 * vertex u keeps a parent f(u), initially u, and its grandparent gp(u) = f(f(u)). Each
 * round: mngp(u) = min(gp(u), min over neighbours v of gp(v)) (a min.second product);
 * stochastic hooking f(f(u)) = min(f(f(u)), mngp(u)), written as a product with the
 * parent matrix F (F(u, f(u)) = 1): hook = mngp' F in min.first (the spec leaves assign
 * with repeated indices undefined, and a vector build that merges the repeats with min
 * sorts them: many times slower);
 * aggressive hooking f = min(f, mngp); shortcutting f = min(f, gp); then gp = f(f) (an
 * extract with f's values as indices). Ids only decrease, so the rounds stop when gp
 * no longer changes, every vertex then pointing at its component's smallest id. */
#include <stdlib.h>

#include "grb_internal.h"

GrB_Info grb_connected_components(GrB_Vector *component, const grb_graph *G) {
  GrB_Info info = GrB_SUCCESS;
  GrB_Vector f = NULL, gp = NULL, gp_new = NULL, mngp = NULL, hook = NULL, same = NULL;
  GrB_Matrix F = NULL;
  GrB_Semiring min_second = NULL;
  GrB_Index n = 0, got = 0, *index = NULL, *parent = NULL;
  int64_t *value = NULL;
  bool *ones = NULL;
  if (component) *component = NULL;
  GRB_REQUIRE(component != NULL && G != NULL && G->A != NULL, GrB_NULL_POINTER,
              "grb_connected_components: no output or no graph");
  GRB_REQUIRE(G->symmetric, GrB_INVALID_VALUE,
              "grb_connected_components: the graph must be undirected (grb_graph_symmetrize makes it so)");
  n = G->n;
  GRB_TRY(GrB_Semiring_new(&min_second, GrB_MIN_MONOID_INT64, GrB_SECOND_INT64));
  GRB_TRY(GrB_Vector_new(&f, GrB_INT64, n));
  GRB_TRY(GrB_Vector_assign_INT64(f, NULL, NULL, 0, GrB_ALL, n, NULL));
  GRB_TRY(GrB_Vector_apply_IndexOp_INT64(f, NULL, NULL, GrB_ROWINDEX_INT64, f, 0, NULL));
  GRB_TRY(GrB_Vector_dup(&gp, f));
  GRB_TRY(GrB_Vector_new(&gp_new, GrB_INT64, n));
  GRB_TRY(GrB_Vector_new(&mngp, GrB_INT64, n));
  GRB_TRY(GrB_Vector_new(&hook, GrB_INT64, n));
  GRB_TRY(GrB_Vector_new(&same, GrB_BOOL, n));
  index = malloc((n + 1) * sizeof *index);
  parent = malloc((n + 1) * sizeof *parent);
  value = malloc((n + 1) * sizeof *value);
  ones = malloc((n + 1) * sizeof *ones);
  GRB_REQUIRE(index && parent && value && ones, GrB_OUT_OF_MEMORY, "grb_connected_components: out of memory");
  for (GrB_Index k = 0; k < n; ++k) ones[k] = true;
  GRB_TRY(GrB_Matrix_new(&F, GrB_BOOL, n, n));

  for (;;) {
    bool unchanged = false;
    GRB_TRY(GrB_Vector_assign(mngp, NULL, NULL, gp, GrB_ALL, n, NULL));
    GRB_TRY(GrB_mxv(mngp, NULL, GrB_MIN_INT64, min_second, G->A, gp, NULL));
    /* stochastic hooking: hook(k) = min of mngp(u) over the u with f(u) = k; F's rows
       come in order, one entry each, so its build sorts nothing */
    got = n;
    GRB_TRY(GrB_Vector_extractTuples_INT64(index, value, &got, f));
    for (GrB_Index k = 0; k < got; ++k) parent[k] = (GrB_Index)value[k];
    GRB_TRY(GrB_Matrix_clear(F));
    GRB_TRY(GrB_Matrix_build_BOOL(F, index, parent, ones, got, GrB_LOR));
    GRB_TRY(GrB_vxm(hook, NULL, NULL, GrB_MIN_FIRST_SEMIRING_INT64, mngp, F, NULL));
    GRB_TRY(GrB_Vector_eWiseAdd_BinaryOp(f, NULL, NULL, GrB_MIN_INT64, f, hook, NULL));
    /* aggressive hooking and shortcutting */
    GRB_TRY(GrB_Vector_eWiseAdd_BinaryOp(f, NULL, NULL, GrB_MIN_INT64, f, mngp, NULL));
    GRB_TRY(GrB_Vector_eWiseAdd_BinaryOp(f, NULL, NULL, GrB_MIN_INT64, f, gp, NULL));
    /* gp = f(f) */
    got = n;
    GRB_TRY(GrB_Vector_extractTuples_INT64(index, value, &got, f));
    for (GrB_Index k = 0; k < got; ++k) parent[k] = (GrB_Index)value[k];
    GRB_TRY(GrB_Vector_extract(gp_new, NULL, NULL, f, parent, got, NULL));
    GRB_TRY(GrB_Vector_eWiseMult_BinaryOp(same, NULL, NULL, GrB_EQ_INT64, gp_new, gp, NULL));
    GRB_TRY(GrB_Vector_reduce_BOOL(&unchanged, NULL, GrB_LAND_MONOID_BOOL, same, NULL));
    {
      GrB_Vector swap = gp;
      gp = gp_new, gp_new = swap;
    }
    if (unchanged) break;
  }
  /* flatten what is left: f = f(f) until every vertex points at a root (one or two
     steps, usually none) */
  for (;;) {
    bool flat = false;
    got = n;
    GRB_TRY(GrB_Vector_extractTuples_INT64(index, value, &got, f));
    for (GrB_Index k = 0; k < got; ++k) parent[k] = (GrB_Index)value[k];
    GRB_TRY(GrB_Vector_extract(gp_new, NULL, NULL, f, parent, got, NULL));
    GRB_TRY(GrB_Vector_eWiseMult_BinaryOp(same, NULL, NULL, GrB_EQ_INT64, gp_new, f, NULL));
    GRB_TRY(GrB_Vector_reduce_BOOL(&flat, NULL, GrB_LAND_MONOID_BOOL, same, NULL));
    if (flat) break;
    GRB_TRY(GrB_Vector_assign(f, NULL, NULL, gp_new, GrB_ALL, n, NULL));
  }
  *component = f, f = NULL;
done:
  free(index);
  free(parent);
  free(value);
  free(ones);
  GrB_Matrix_free(&F);
  GrB_Vector_free(&f);
  GrB_Vector_free(&gp);
  GrB_Vector_free(&gp_new);
  GrB_Vector_free(&mngp);
  GrB_Vector_free(&hook);
  GrB_Vector_free(&same);
  GrB_Semiring_free(&min_second);
  return info;
}
