/* Graph algorithms written in GraphBLAS C API calls only (spec 2.0): breadth-first
 * search, delta-stepping shortest paths, PageRank, FastSV connected components and
 * masked L*U' triangle counting. They use the spec's names (GrB_*) and nothing of any
 * one implementation, so the same sources build against any spec-2.0 GraphBLAS by
 * changing the include path and the library. geblas uses them as a "LAGraph-style"
 * comparator: they follow the published descriptions of LAGraph's algorithms but are
 * geblas's own code, not LAGraph.
 *
 * Every function returns GrB_SUCCESS or a negative GrB_Info; on an error nothing is
 * returned in its outputs and grb_last_error() says which call failed and where. */
#ifndef GEBLAS_GRB_ALGORITHMS_H
#define GEBLAS_GRB_ALGORITHMS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* GraphBLAS.h itself has no C++ guard */
#endif

#include <GraphBLAS.h>

/* A graph and the properties the algorithms read, computed once (as LAGraph caches
 * them with its graph): A(i, j) is an edge from i to j, with weight A(i, j) (FP32). */
typedef struct {
  GrB_Matrix A;           /* n x n, FP32 */
  GrB_Matrix AT;          /* A' (the pull step of BFS, PageRank) */
  GrB_Vector out_degree;  /* INT64, entries only where a vertex has out-edges */
  GrB_Index n;
  GrB_Index nvals;
  bool symmetric;         /* pattern of A equals that of A' (CC and TC need it) */
  float min_weight;       /* smallest entry of A (SSSP refuses negative weights); 0 when empty */
} grb_graph;

/* Takes ownership of *A (set to NULL) and computes A', the out-degrees, symmetry and
 * the smallest weight. A must be square. */
GrB_Info grb_graph_init(grb_graph *G, GrB_Matrix *A);
/* The undirected graph under G: the pattern of A + A' (weights of A where present,
 * else of A'), as a new graph. */
GrB_Info grb_graph_symmetrize(grb_graph *S, const grb_graph *G);
void grb_graph_free(grb_graph *G);
/* A graph from CSR arrays (row i's edges are col_indices[row_offsets[i] ..
 * row_offsets[i+1]), with those weights; weights NULL: every weight 1). */
GrB_Info grb_graph_from_csr(grb_graph *G, GrB_Index n, const int64_t *row_offsets, const int32_t *col_indices,
                            const float *weights);
/* A vector's entries written into out[0 .. size), `fill` where it has none. */
GrB_Info grb_vector_to_dense_int64(int64_t *out, GrB_Vector v, int64_t fill);
GrB_Info grb_vector_to_dense_fp32(float *out, GrB_Vector v, float fill);

/* Reads a Matrix Market coordinate file (plain or gzip; pattern, integer or real;
 * general or symmetric, mirrored) into an FP32 matrix; pattern entries are 1. */
GrB_Info grb_read_matrix_market(GrB_Matrix *A, const char *path);

/* BFS from `source`: *level(i) = hops from the source, *parent(i) = the smallest
 * in-neighbour of i on the previous level (parent(source) = source), both INT64 and
 * holding the reached vertices only. Either output may be NULL. Push (q' A) while the
 * frontier is small, pull (A' q) when it is large, by Beamer's rule on the frontier's
 * out-edges; both masked by the complement of the visited set. */
GrB_Info grb_bfs(GrB_Vector *level, GrB_Vector *parent, const grb_graph *G, GrB_Index source);

/* Delta-stepping single-source shortest paths (Meyer and Sanders; in GraphBLAS form as
 * Sridhar et al. 2019 describe it): *distance is a dense FP32 vector, +inf where
 * unreachable. Weights must be >= 0; delta > 0 is the bucket width. */
GrB_Info grb_sssp(GrB_Vector *distance, const grb_graph *G, GrB_Index source, float delta);

/* PageRank as the GAP benchmark defines its iteration (Jacobi, ranks in FP32, stop at
 * an L1 change below `tolerance`), with the rank of dangling vertices spread uniformly
 * (the standard definition; GAP drops it). *rank is dense FP32 and sums to 1. */
GrB_Info grb_pagerank(GrB_Vector *rank, int *iterations, const grb_graph *G, float damping, float tolerance,
                      int max_iterations);

/* FastSV connected components (Zhang, Azad and Hu 2020) of an undirected graph
 * (G->symmetric): *component(i) = the smallest vertex id of i's component, INT64. */
GrB_Info grb_connected_components(GrB_Vector *component, const grb_graph *G);

/* Triangles of an undirected graph (G->symmetric), self-loops ignored: the sum of
 * C<L> = L * U' (plus-pair, L and U the strictly lower and upper triangles, "Sandia
 * LUT"). sort: 1 relabels the vertices by ascending degree first, 0 does not, -1
 * decides from a degree sample (sorted when the mean degree exceeds 4x the median). */
GrB_Info grb_triangle_count(uint64_t *count, const grb_graph *G, int sort);

/* What the last failing call of this thread was, and where; "" when none failed. */
const char *grb_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
