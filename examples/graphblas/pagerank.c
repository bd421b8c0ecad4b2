/* PageRank in GraphBLAS calls, the iteration of the GAP benchmark (Beamer, Asanovic and
 * Patterson 2015) as LAGraph writes it: with d_out = out-degree / damping,
 *     w = r ./ d_out;   r_new = teleport + A' w   (plus.second: A's values unused)
 * repeated until the L1 change ||r_new - r||_1 falls below the tolerance. Unlike GAP,
 * the rank of dangling vertices (no out-edges) is not dropped but spread uniformly, so
 * the ranks sum to 1 (the standard definition, which LAGraph's sink-aware PageRank and
 * geblas follow). Ranks are FP32, as in GAP. */
#include "grb_internal.h"

GrB_Info grb_pagerank(GrB_Vector *rank, int *iterations, const grb_graph *G, float damping, float tolerance,
                      int max_iterations) {
  GrB_Info info = GrB_SUCCESS;
  GrB_Vector r = NULL, prior = NULL, d_out = NULL, w = NULL, sink = NULL;
  GrB_Semiring plus_second = NULL;
  GrB_Index n = 0, n_out = 0;
  int k = 0;
  if (rank) *rank = NULL;
  if (iterations) *iterations = 0;
  GRB_REQUIRE(rank != NULL && G != NULL && G->A != NULL, GrB_NULL_POINTER, "grb_pagerank: no output or no graph");
  GRB_REQUIRE(G->AT != NULL && G->out_degree != NULL, GrB_INVALID_OBJECT,
              "grb_pagerank: the graph has no A' or out-degrees (grb_graph_init computes them)");
  GRB_REQUIRE(damping >= 0 && damping < 1, GrB_INVALID_VALUE, "grb_pagerank: damping must lie in [0, 1)");
  GRB_REQUIRE(tolerance > 0, GrB_INVALID_VALUE, "grb_pagerank: tolerance must be > 0");
  GRB_REQUIRE(max_iterations > 0, GrB_INVALID_VALUE, "grb_pagerank: max_iterations must be > 0");
  n = G->n;
  GRB_REQUIRE(n > 0, GrB_INVALID_VALUE, "grb_pagerank: the graph has no vertices");
  GRB_TRY(GrB_Vector_nvals(&n_out, G->out_degree));
  const float teleport = (1 - damping) / (float)n;

  GRB_TRY(GrB_Semiring_new(&plus_second, GrB_PLUS_MONOID_FP32, GrB_SECOND_FP32));
  GRB_TRY(GrB_Vector_new(&d_out, GrB_FP32, n));
  GRB_TRY(GrB_Vector_apply_BinaryOp2nd_FP32(d_out, NULL, NULL, GrB_DIV_FP32, G->out_degree, damping, NULL));
  GRB_TRY(GrB_Vector_new(&r, GrB_FP32, n));
  GRB_TRY(GrB_Vector_assign_FP32(r, NULL, NULL, 1.0f / (float)n, GrB_ALL, n, NULL));
  GRB_TRY(GrB_Vector_new(&prior, GrB_FP32, n));
  GRB_TRY(GrB_Vector_new(&w, GrB_FP32, n));
  GRB_TRY(GrB_Vector_new(&sink, GrB_FP32, n));

  for (k = 1; k <= max_iterations; ++k) {
    GrB_Vector swap = prior;
    float dangling = 0, change = 0;
    prior = r, r = swap;
    GRB_TRY(GrB_Vector_eWiseMult_BinaryOp(w, NULL, NULL, GrB_DIV_FP32, prior, d_out, NULL));
    if (n_out < n) {
      /* the rank held by vertices without out-edges, spread over every vertex */
      GRB_TRY(GrB_Vector_assign(sink, G->out_degree, NULL, prior, GrB_ALL, n, GrB_DESC_RSC));
      GRB_TRY(GrB_Vector_reduce_FP32(&dangling, NULL, GrB_PLUS_MONOID_FP32, sink, NULL));
    }
    GRB_TRY(GrB_Vector_assign_FP32(r, NULL, NULL, teleport + damping * dangling / (float)n, GrB_ALL, n, NULL));
    GRB_TRY(GrB_mxv(r, NULL, GrB_PLUS_FP32, plus_second, G->AT, w, NULL));
    /* the L1 change; prior is overwritten, it is the next iteration's output */
    GRB_TRY(GrB_Vector_eWiseAdd_BinaryOp(prior, NULL, NULL, GrB_MINUS_FP32, prior, r, NULL));
    GRB_TRY(GrB_Vector_apply(prior, NULL, NULL, GrB_ABS_FP32, prior, NULL));
    GRB_TRY(GrB_Vector_reduce_FP32(&change, NULL, GrB_PLUS_MONOID_FP32, prior, NULL));
    if (change < tolerance) break;
  }
  if (iterations) *iterations = k > max_iterations ? max_iterations : k;
  *rank = r, r = NULL;
done:
  GrB_Vector_free(&r);
  GrB_Vector_free(&prior);
  GrB_Vector_free(&d_out);
  GrB_Vector_free(&w);
  GrB_Vector_free(&sink);
  GrB_Semiring_free(&plus_second);
  return info;
}
