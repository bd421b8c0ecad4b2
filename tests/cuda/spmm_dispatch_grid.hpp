// A grid of SpMM problem shapes for the dispatcher's rules (test_spmm_dispatch_rules):
// two GPUs' traits, three value widths, N around the rules' thresholds and the
// off-by-one values, row-length profiles of small and large graphs (short, mid-length,
// long and hub rows, few and many rows), and B inside and beyond L2. Only the facts the
// rules read are set (no pointers: nothing runs).
#pragma once

#include <cmath>

#include "cuda/spmm/policy/dispatch_policy.hpp"

namespace geblas::test {

struct RowProfile {
  Index nrows;
  double mean_row;
  Index max_row;
};

// f(problem, row statistics, GPU traits) for every case, in a fixed order.
template <class F>
void for_each_dispatch_case(F&& f) {
  using namespace detail;
  using namespace detail::cuda::spmm;
  const GpuTraits gpus[] = {{132, 52428800, 9, 0}, {66, 6291456, 8, 6}};
  const TypeId types[] = {TypeId::float32, TypeId::float16, TypeId::float64};
  const Index ns[] = {1, 8, 32, 33, 64, 65, 128, 129, 512};
  const RowProfile rows[] = {{5000, 4, 8},      {5000, 4, 200},    {5000, 20, 60},      {50000, 3, 8},
                             {50000, 5, 400},   {50000, 14, 3000}, {12000, 10, 500},    {200000, 6, 50},
                             {200000, 20, 100}, {2000000, 2.5, 20}, {1000000, 30, 5000}, {60000, 40, 129}};
  const Index ks[] = {0 /* square */, 500000, 10000000};
  for (const GpuTraits& g : gpus)
    for (const TypeId t : types)
      for (const Index n : ns)
        for (const RowProfile& r : rows)
          for (const Index k : ks) {
            RowStats s;
            s.nrows = r.nrows;
            s.nvals = static_cast<Index>(std::llround(static_cast<double>(r.nrows) * r.mean_row));
            s.max_row = r.max_row;
            s.mean_row = r.mean_row;
            SpmmProblem p;
            p.m = r.nrows;
            p.k = k == 0 ? r.nrows : k;
            p.n = n;
            p.nnz = s.nvals;
            p.type = t;
            p.b_row_stride = n;
            p.c_row_stride = n;
            p.stats = &s;
            f(p, s, g);
          }
}

}  // namespace geblas::test
