/* grb_algos: runs one of the GraphBLAS-only algorithms on a Matrix Market graph and
 * prints a summary of its result and its time (after the graph's set-up: A', degrees).
 *
 *   grb_algos bfs|sssp|pagerank|cc|tc GRAPH.mtx[.gz] [SOURCE] [DELTA]
 *
 * cc and tc run on the undirected graph under a directed one (A + A'). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grb_algorithms.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int fail(GrB_Info info) {
  fprintf(stderr, "grb_algos: %s\n", info < 0 ? grb_last_error() : "failed");
  GrB_finalize();
  return 1;
}

int main(int argc, char **argv) {
  GrB_Matrix A = NULL;
  grb_graph G, S;
  GrB_Vector v = NULL, p = NULL;
  GrB_Info info;
  const char *algo;
  GrB_Index source = 0, nv = 0;
  double t0;
  if (argc < 3) {
    fprintf(stderr, "usage: grb_algos bfs|sssp|pagerank|cc|tc GRAPH.mtx[.gz] [SOURCE] [DELTA]\n");
    return 2;
  }
  algo = argv[1];
  if (argc > 3) source = strtoull(argv[3], NULL, 10);
  if (GrB_init(GrB_NONBLOCKING) != GrB_SUCCESS) return 1;
  if ((info = grb_read_matrix_market(&A, argv[2])) < 0) return fail(info);
  if ((info = grb_graph_init(&G, &A)) < 0) return fail(info);
  printf("%s: %llu vertices, %llu entries%s\n", argv[2], (unsigned long long)G.n, (unsigned long long)G.nvals,
         G.symmetric ? " (undirected)" : "");
  if (strcmp(algo, "bfs") == 0) {
    GrB_Index depth = 0;
    t0 = now_s();
    if ((info = grb_bfs(&v, &p, &G, source)) < 0) return fail(info);
    printf("bfs from %llu: %.3f ms", (unsigned long long)source, 1e3 * (now_s() - t0));
    GrB_Vector_nvals(&nv, v);
    if (nv > 0) {
      int64_t d = 0;
      GrB_Vector_reduce_INT64(&d, NULL, GrB_MAX_MONOID_INT64, v, NULL);
      depth = (GrB_Index)d;
    }
    printf(", %llu vertices reached, depth %llu\n", (unsigned long long)nv, (unsigned long long)depth);
  } else if (strcmp(algo, "sssp") == 0) {
    const float delta = argc > 4 ? strtof(argv[4], NULL) : 1.0f;
    float far = 0;
    GrB_Vector reached = NULL;
    t0 = now_s();
    if ((info = grb_sssp(&v, &G, source, delta)) < 0) return fail(info);
    printf("sssp from %llu (delta %g): %.3f ms", (unsigned long long)source, delta, 1e3 * (now_s() - t0));
    GrB_Vector_new(&reached, GrB_FP32, G.n);
    GrB_Vector_select_FP32(reached, NULL, NULL, GrB_VALUELT_FP32, v, INFINITY, NULL);
    GrB_Vector_nvals(&nv, reached);
    GrB_Vector_reduce_FP32(&far, NULL, GrB_MAX_MONOID_FP32, reached, NULL);
    printf(", %llu vertices reached, largest distance %g\n", (unsigned long long)nv, far);
    GrB_Vector_free(&reached);
  } else if (strcmp(algo, "pagerank") == 0) {
    int iters = 0;
    float top = 0;
    t0 = now_s();
    if ((info = grb_pagerank(&v, &iters, &G, 0.85f, 1e-4f, 100)) < 0) return fail(info);
    printf("pagerank: %.3f ms, %d iterations", 1e3 * (now_s() - t0), iters);
    GrB_Vector_reduce_FP32(&top, NULL, GrB_MAX_MONOID_FP32, v, NULL);
    printf(", largest rank %g\n", top);
  } else if (strcmp(algo, "cc") == 0 || strcmp(algo, "tc") == 0) {
    const grb_graph *U = &G;
    if (!G.symmetric) {
      if ((info = grb_graph_symmetrize(&S, &G)) < 0) return fail(info);
      U = &S;
      printf("(on A + A': %llu entries)\n", (unsigned long long)S.nvals);
    }
    t0 = now_s();
    if (algo[0] == 'c') {
      GrB_Vector roots = NULL;
      if ((info = grb_connected_components(&v, U)) < 0) return fail(info);
      printf("cc: %.3f ms", 1e3 * (now_s() - t0));
      /* a component's label is its smallest vertex: count the vertices labelled themselves */
      GrB_Vector_new(&roots, GrB_INT64, G.n);
      GrB_Vector_apply_IndexOp_INT64(roots, NULL, NULL, GrB_ROWINDEX_INT64, v, 0, NULL);
      GrB_Vector_eWiseMult_BinaryOp(roots, NULL, NULL, GrB_EQ_INT64, roots, v, NULL);
      GrB_Vector_select_BOOL(roots, NULL, NULL, GrB_VALUEEQ_BOOL, roots, true, NULL);
      GrB_Vector_nvals(&nv, roots);
      printf(", %llu components\n", (unsigned long long)nv);
      GrB_Vector_free(&roots);
    } else {
      uint64_t count = 0;
      if ((info = grb_triangle_count(&count, U, -1)) < 0) return fail(info);
      printf("tc: %.3f ms, %llu triangles\n", 1e3 * (now_s() - t0), (unsigned long long)count);
    }
    if (U == &S) grb_graph_free(&S);
  } else {
    fprintf(stderr, "grb_algos: unknown algorithm '%s' (bfs, sssp, pagerank, cc, tc)\n", algo);
    grb_graph_free(&G);
    GrB_finalize();
    return 2;
  }
  GrB_Vector_free(&v);
  GrB_Vector_free(&p);
  grb_graph_free(&G);
  GrB_finalize();
  return 0;
}
