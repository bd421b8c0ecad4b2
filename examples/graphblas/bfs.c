/* Breadth-first search with levels and parents in GraphBLAS calls, direction-optimising
 * as Beamer, Asanovic and Patterson (2012) describe and as LAGraph expresses it with
 * masks: the next frontier is q<!visited> = q' A (push, min.first: the parent is the
 * smallest frontier vertex with an edge) or q<!visited> = A' q (pull, min.second: the
 * same value through A'), both with the visited set's complement as a structural mask
 * and replace, so the product itself skips visited vertices. The frontier carries its
 * own vertex ids as values, so one product gives the parents too. */
#include "grb_internal.h"

/* Beamer's thresholds: go to pull when the frontier's out-edges exceed 1/8 of the
 * unexplored edges (alpha = 8, the first time) or, after a pull phase, when a growing
 * frontier passes n/8 vertices; back to push when a shrinking frontier falls below
 * n/512 vertices (beta = 512). These are the values GAP and LAGraph use. */
#define BFS_ALPHA 8.0
#define BFS_BETA1 8.0
#define BFS_BETA2 512.0

GrB_Info grb_bfs(GrB_Vector *level, GrB_Vector *parent, const grb_graph *G, GrB_Index source) {
  GrB_Info info = GrB_SUCCESS;
  GrB_Vector q = NULL, pi = NULL, v = NULL, work = NULL;
  GrB_Semiring min_second = NULL;
  GrB_Index n = 0, nq = 1, last_nq = 0, nvisited = 1;
  int64_t edges_unexplored = 0;
  int push = 1, any_pull = 0, can_pull;
  if (level) *level = NULL;
  if (parent) *parent = NULL;
  GRB_REQUIRE(G != NULL && G->A != NULL, GrB_NULL_POINTER, "grb_bfs: no graph");
  GRB_REQUIRE(level != NULL || parent != NULL, GrB_NULL_POINTER, "grb_bfs: neither levels nor parents asked for");
  n = G->n;
  GRB_REQUIRE(source < n, GrB_INVALID_INDEX, "grb_bfs: the source is not a vertex of the graph");
  can_pull = G->AT != NULL && G->out_degree != NULL;
  edges_unexplored = (int64_t)G->nvals;

  GRB_TRY(GrB_Semiring_new(&min_second, GrB_MIN_MONOID_INT64, GrB_SECOND_INT64));
  GRB_TRY(GrB_Vector_new(&q, GrB_INT64, n));
  GRB_TRY(GrB_Vector_setElement_INT64(q, (int64_t)source, source));
  GRB_TRY(GrB_Vector_new(&pi, GrB_INT64, n));
  GRB_TRY(GrB_Vector_setElement_INT64(pi, (int64_t)source, source));
  GRB_TRY(GrB_Vector_new(&v, GrB_INT64, n));
  GRB_TRY(GrB_Vector_setElement_INT64(v, 0, source));
  GRB_TRY(GrB_Vector_new(&work, GrB_INT64, n));

  for (int64_t k = 1; nq > 0 && nvisited < n; ++k) {
    if (can_pull) {
      const int growing = nq > last_nq;
      if (push) {
        int to_pull = 0;
        if (any_pull) {
          to_pull = growing && (double)nq > (double)n / BFS_BETA1;
        } else {
          int64_t frontier_edges = 0;
          GRB_TRY(GrB_Vector_eWiseMult_BinaryOp(work, NULL, NULL, GrB_FIRST_INT64, G->out_degree, q, NULL));
          GRB_TRY(GrB_Vector_reduce_INT64(&frontier_edges, NULL, GrB_PLUS_MONOID_INT64, work, NULL));
          edges_unexplored -= frontier_edges;
          to_pull = growing && (double)frontier_edges > (double)edges_unexplored / BFS_ALPHA;
        }
        if (to_pull) push = 0;
      } else if (!growing && (double)nq <= (double)n / BFS_BETA2) {
        push = 1;
      }
      any_pull = any_pull || !push;
    }
    last_nq = nq;
    if (push) {
      GRB_TRY(GrB_vxm(q, pi, NULL, GrB_MIN_FIRST_SEMIRING_INT64, q, G->A, GrB_DESC_RSC));
    } else {
      GRB_TRY(GrB_mxv(q, pi, NULL, min_second, G->AT, q, GrB_DESC_RSC));
    }
    GRB_TRY(GrB_Vector_nvals(&nq, q));
    if (nq == 0) break;
    nvisited += nq;
    GRB_TRY(GrB_Vector_assign(pi, q, NULL, q, GrB_ALL, n, GrB_DESC_S));
    GRB_TRY(GrB_Vector_assign_INT64(v, q, NULL, k, GrB_ALL, n, GrB_DESC_S));
    /* the next step's values: each frontier vertex's own id */
    GRB_TRY(GrB_Vector_apply_IndexOp_INT64(q, NULL, NULL, GrB_ROWINDEX_INT64, q, 0, NULL));
  }
  if (level) *level = v, v = NULL;
  if (parent) *parent = pi, pi = NULL;
done:
  GrB_Vector_free(&q);
  GrB_Vector_free(&pi);
  GrB_Vector_free(&v);
  GrB_Vector_free(&work);
  GrB_Semiring_free(&min_second);
  if (info < GrB_SUCCESS) {
    if (level) GrB_Vector_free(level);
    if (parent) GrB_Vector_free(parent);
  }
  return info;
}
