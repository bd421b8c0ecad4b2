// Attention over the stored entries of each row on the host: the row softmax and its
// backward, and the fused GAT aggregation (scores, softmax and the weighted sum of V in
// one walk of each row, alpha kept for the backward). Rows run in parallel; the GAT
// backward's sums over a column's entries (dV and d_er) run over A's entries grouped by
// column, built here by one counting sort of A's column indices, so that each output
// row has one writer and the sums are deterministic.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/trace.hpp"
#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cpu {
namespace {

// The softmax of x[0 .. n) into out (in place allowed): the shift by the largest value
// keeps every exp at most 1. All -inf: no largest finite value, shift 0 gives exp = 0
// everywhere and a zero sum, and the row becomes zeros. A NaN anywhere makes the sum,
// and so every result, NaN.
template <class T>
void softmax_row(T* out, const T* x, Index n) {
  if (n == 0) return;
  T m = -std::numeric_limits<T>::infinity();
  for (Index k = 0; k < n; ++k) m = x[k] > m ? x[k] : m;
  const T shift = m == -std::numeric_limits<T>::infinity() ? T(0) : m;
  T sum = 0;
  for (Index k = 0; k < n; ++k) {
    out[k] = std::exp(x[k] - shift);
    sum += out[k];
  }
  if (sum == T(0)) {
    for (Index k = 0; k < n; ++k) out[k] = 0;
    return;
  }
  const T inv = T(1) / sum;
  for (Index k = 0; k < n; ++k) out[k] *= inv;
}

template <class F>
void visit_real(TypeId t, const char* op, F&& f) {
  if (t == TypeId::float32) f.template operator()<float>();
  else if (t == TypeId::float64) f.template operator()<double>();
  else throw DomainMismatch(std::string(op) + ": float32 or float64 values only");
}

template <class T>
T leaky(T x, T slope) {
  return x > T(0) ? x : x * slope;
}

}  // namespace

void softmax_rows(void* out, const SparseStorage& S) {
  current_dispatch().variant = "rows";
  const Index* ro = S.row_offsets.as<Index>();
  visit_real(S.type, "softmax_rows", [&]<class T>() {
    const T* x = S.values.as<T>();
    T* y = static_cast<T*>(out);
#pragma omp parallel for schedule(dynamic, 256) if (parallel_rows(S.nrows))
    for (Index i = 0; i < S.nrows; ++i) softmax_row(y + ro[i], x + ro[i], ro[i + 1] - ro[i]);
  });
}

void softmax_rows_backward(void* out, const SparseStorage& P, const void* dP) {
  current_dispatch().variant = "rows";
  const Index* ro = P.row_offsets.as<Index>();
  visit_real(P.type, "softmax_rows_backward", [&]<class T>() {
    const T* p = P.values.as<T>();
    const T* dp = static_cast<const T*>(dP);
    T* y = static_cast<T*>(out);
#pragma omp parallel for schedule(dynamic, 256) if (parallel_rows(P.nrows))
    for (Index i = 0; i < P.nrows; ++i) {
      T dot = 0;
      for (Index k = ro[i]; k < ro[i + 1]; ++k) dot += p[k] * dp[k];
      for (Index k = ro[i]; k < ro[i + 1]; ++k) y[k] = p[k] * (dp[k] - dot);
    }
  });
}

void gat_forward(const GatAttention& g) {
  current_dispatch().variant = "rows";
  const SparseStorage& A = *g.A;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  const Index H = g.heads, F = g.features, HF = H * F;
  visit_real(g.type, "gat_forward", [&]<class T>() {
    const T* el = static_cast<const T*>(g.el);
    const T* er = static_cast<const T*>(g.er);
    const T* V = static_cast<const T*>(g.V);
    T* Y = static_cast<T*>(g.Y);
    T* alpha = static_cast<T*>(g.alpha);
    const T slope = static_cast<T>(g.negative_slope);
#pragma omp parallel
    {
      std::vector<T> e;  // one head's scores of the row
#pragma omp for schedule(dynamic, 64)
      for (Index i = 0; i < A.nrows; ++i) {
        const Index b = ro[i], n = ro[i + 1] - b;
        e.resize(static_cast<std::size_t>(n));
        for (Index h = 0; h < H; ++h) {
          for (Index k = 0; k < n; ++k) e[k] = leaky(el[i * H + h] + er[Index(ci[b + k]) * H + h], slope);
          softmax_row(e.data(), e.data(), n);
          for (Index k = 0; k < n; ++k) alpha[(b + k) * H + h] = e[k];
        }
        T* y = Y + i * HF;
        for (Index c = 0; c < HF; ++c) y[c] = 0;
        for (Index k = 0; k < n; ++k) {
          const T* v = V + Index(ci[b + k]) * HF;
          for (Index h = 0; h < H; ++h) {
            const T a = alpha[(b + k) * H + h];
            for (Index f = 0; f < F; ++f) y[h * F + f] += a * v[h * F + f];
          }
        }
      }
    }
  });
}

void gat_backward(const GatAttention& g) {
  current_dispatch().variant = "rows_then_columns";
  const SparseStorage& A = *g.A;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  const Index n = A.nrows, H = g.heads, F = g.features, HF = H * F, nnz = A.nvals;
  visit_real(g.type, "gat_backward", [&]<class T>() {
    const T* el = static_cast<const T*>(g.el);
    const T* er = static_cast<const T*>(g.er);
    const T* V = static_cast<const T*>(g.V);
    const T* dY = static_cast<const T*>(g.dY);
    const T* alpha = static_cast<const T*>(g.alpha);
    T* dV = static_cast<T*>(g.dV);
    T* d_el = static_cast<T*>(g.d_el);
    T* d_er = static_cast<T*>(g.d_er);
    const T slope = static_cast<T>(g.negative_slope);
    // d_s for every entry and head, in A's order (what the column pass sums into d_er).
    std::vector<T> ds(static_cast<std::size_t>(nnz * H));
#pragma omp parallel for schedule(dynamic, 64) if (parallel_rows(n))
    for (Index i = 0; i < n; ++i) {
      for (Index h = 0; h < H; ++h) {
        const T* dy = dY + i * HF + h * F;
        T dot = 0;  // sum over the row of alpha d_alpha
        for (Index k = ro[i]; k < ro[i + 1]; ++k) {
          const T* v = V + Index(ci[k]) * HF + h * F;
          T da = 0;
          for (Index f = 0; f < F; ++f) da += dy[f] * v[f];
          ds[k * H + h] = da;
          dot += alpha[k * H + h] * da;
        }
        T sum = 0;
        for (Index k = ro[i]; k < ro[i + 1]; ++k) {
          const T s = el[i * H + h] + er[Index(ci[k]) * H + h];
          const T de = alpha[k * H + h] * (ds[k * H + h] - dot);
          ds[k * H + h] = s > T(0) ? de : de * slope;
          sum += ds[k * H + h];
        }
        d_el[i * H + h] = sum;
      }
    }
    // A's entries grouped by column (the pattern of A'), each with its row.
    std::vector<Index> start(static_cast<std::size_t>(A.ncols + 1), 0);
    for (Index k = 0; k < nnz; ++k) ++start[ci[k] + 1];
    for (Index j = 0; j < A.ncols; ++j) start[j + 1] += start[j];
    std::vector<Index> edge(static_cast<std::size_t>(nnz)), row(static_cast<std::size_t>(nnz));
    {
      std::vector<Index> next(start.begin(), start.end() - 1);
      for (Index i = 0; i < n; ++i)
        for (Index k = ro[i]; k < ro[i + 1]; ++k) {
          const Index at = next[ci[k]]++;
          edge[at] = k;
          row[at] = i;
        }
    }
#pragma omp parallel for schedule(dynamic, 64) if (parallel_rows(A.ncols))
    for (Index j = 0; j < A.ncols; ++j) {
      T* dv = dV + j * HF;
      for (Index c = 0; c < HF; ++c) dv[c] = 0;
      for (Index h = 0; h < H; ++h) d_er[j * H + h] = 0;
      for (Index t = start[j]; t < start[j + 1]; ++t) {
        const Index k = edge[t];
        const T* dy = dY + row[t] * HF;
        for (Index h = 0; h < H; ++h) {
          const T a = alpha[k * H + h];
          for (Index f = 0; f < F; ++f) dv[h * F + f] += a * dy[h * F + f];
          d_er[j * H + h] += ds[k * H + h];
        }
      }
    }
  });
}

}  // namespace geblas::detail::cpu
