// The tensor-core row-window SpMM (variants tc_window and tc_window_all): the variants'
// checks, forecast and entry, and the float plus_times run: the tensor-core windows on
// the kernel of tc_window_kernel.cuh in TF32 (mma m16n8k8; the half and bfloat16 run, on
// the same kernel, is in tc_window_16bit.cu). Windows the cost model keeps off tensor
// cores run on the CUDA-core warp loop of row_split and row_pieces (warp_row.cuh) over a
// list of rows and 128-entry pieces of long rows. A row is computed by one kind of core
// only; the pieces of a split row and the segments of a wide window are summed with float
// atomics (so their order may vary between runs).
#include <algorithm>
#include <cstdio>
#include <string>

#include "cuda/check.cuh"
#include "cuda/context.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/policy/tc_cost_model.hpp"
#include "cuda/spmm/tc_window.cuh"
#include "cuda/spmm/tc_window_kernel.cuh"
#include "cuda/spmm/variants.hpp"
#include "cuda/spmm/window_plan.cuh"

namespace geblas::detail::cuda {
namespace {

using tc::blocks;
using tc::c_at;
using Operands = tc::TcOperands<float>;
using P = tc::TcWindowPolicy;

// Rows that several items add into start from zero (without accumulation).
__global__ void __launch_bounds__(P::cc_warps * 32)
    zero_rows_kernel(Operands op, const int* __restrict__ rows, Index count) {
  const Index idx = static_cast<Index>(blockIdx.x) * P::cc_warps + (threadIdx.x >> 5);
  if (idx >= count) return;
  const Index j0 = static_cast<Index>(blockIdx.y) * P::zero_cols + (threadIdx.x & 31);
#pragma unroll
  for (int q = 0; q < P::zero_cols / 32; ++q)
    if (j0 + 32 * q < op.n) c_at(op, rows[idx], j0 + 32 * q) = 0.f;
}

}  // namespace

std::string tc_window_unsupported(TypeId type, SemiringId semiring, bool allow_tf32, const SparseStorage& A,
                                  Index n) {
  const bool b16 = is_16bit_float(type);
  if (type != TypeId::float32 && !b16)
    return "computes float32, float16 and bfloat16 only (the operands are " + std::string(to_string(type)) + ")";
  if (semiring != SemiringId::plus_times)
    return std::string("computes plus_times only (tensor cores multiply and add), not ") + to_string(semiring);
  if (!b16 && !allow_tf32) return "runs float on TF32 tensor cores; set Options::allow_tf32 = true to allow that";
  if (!A.device.is_cuda()) return "runs on CUDA devices only";
  if (A.nvals >= (Index{1} << 31) - 1) return "indexes entries with int32 (A has " + std::to_string(A.nvals) + ")";
  if (n > Index{65535} * 32) return "supports at most 2097120 columns of B";
  return {};
}

namespace {

double routing_threshold(const spmm::SpmmProblem& p, WindowRouting routing) {
  // tc_window_all is the routing with threshold 0: every window with entries on tensor cores.
  return routing == WindowRouting::all_tensor_cores ? 0.0 : tc_threshold(p.type, p.n);
}

}  // namespace

TcWindowForecast tc_window_forecast(const SparseStorage& A, TypeId type, Index n) {
  TcWindowForecast f;
  if (A.nvals == 0) return f;
  f.threshold = tc_threshold(type, n);
  const int k = tc_k_step(type);
  auto plan = cached_window_plan(A);
  auto route = cached_window_route(A, *plan, f.threshold, k);
  auto all = cached_window_route(A, *plan, 0.0, k);
  const double nvals = static_cast<double>(A.nvals);
  f.share = static_cast<double>(route->tc_nvals) / nvals;
  // Each tensor-core window saves its entries' gathers and pays `threshold` gathers per
  // condensed column (the cost model of window_plan.cuh).
  f.gain = (static_cast<double>(route->tc_nvals) - f.threshold * static_cast<double>(route->tc_columns)) / nvals;
  f.gain_all = (static_cast<double>(all->tc_nvals) - f.threshold * static_cast<double>(all->tc_columns)) / nvals;
  f.mixed = route->tc_items > 0 && route->cc_items > 0;
  const double routed_score = f.gain - (tc_min_gain(f.mixed) - tc_min_gain(false));
  const double best = std::max(routed_score, f.gain_all);
  if (best >= tc_min_gain(false))
    f.choice = f.gain_all >= routed_score ? &spmm::tc_window_all_variant() : &spmm::tc_window_variant();
  return f;
}

std::size_t tc_window_workspace(const spmm::SpmmProblem& p, WindowRouting routing) {
  if (!is_16bit_float(p.type) || p.n == 0 || !p.matrix || p.matrix->nrows == 0) return 0;
  const SparseStorage& A = *p.matrix;
  auto plan = cached_window_plan(A);
  auto route = cached_window_route(A, *plan, routing_threshold(p, routing), tc_k_step(p.type));
  return sizeof(float) * static_cast<std::size_t>(route->zero_rows) * static_cast<std::size_t>(p.n);
}

void tc_window_run(const spmm::SpmmProblem& p, WindowRouting routing, void* workspace, cudaStream_t s) {
  const SparseStorage& A = *p.matrix;
  if (p.n == 0 || A.nrows == 0) return;
  auto plan = cached_window_plan(A);
  auto route = cached_window_route(A, *plan, routing_threshold(p, routing), tc_k_step(p.type));
  if (is_16bit_float(p.type)) {
    tc_window_run_16bit(p, *plan, *route, workspace, s);
    return;
  }

  const Operands op = tc::tc_operands<float>(p, *plan, *route, workspace);

  const Index n = p.n;
  if (route->zero_rows > 0 && !p.accumulate) {
    zero_rows_kernel<<<dim3(blocks(route->zero_rows, P::cc_warps), blocks(n, P::zero_cols)), P::cc_warps * 32, 0, s>>>(
        op, route->zero_row_list.as<int>(), route->zero_rows);
    GEBLAS_CUDA_CHECK_LAUNCH();
  }
  if (route->tc_items > 0)
    tc::launch_tc_items<tc::TcTf32>(op, route->tc_item_list.as<int2>(), route->tc_items,
                                    spmm::vector_aligned(p, tc::TcTf32::Shape::tiles), s);
  if (route->cc_items > 0) {
    const int2* items = route->cc_item_list.as<int2>();
    const Index count = route->cc_items;
    // The row-major float plus_times fast path of ops.cuh (16-byte loads when aligned),
    // else its generic path for any layout.
    using Fast = spmm::StaticOps<semiring::plus_times<float>>;
    if (p.b_row_major() && p.c_row_major()) {
      if (spmm::vector_aligned(p, 4))
        tc::launch_cc_items<float, Fast, 4, true>(p, Fast{}, nullptr, nullptr, items, count, s);
      else tc::launch_cc_items<float, Fast, 1, true>(p, Fast{}, nullptr, nullptr, items, count, s);
    } else {
      using Generic = spmm::RuntimeOps<float>;
      tc::launch_cc_items<float, Generic, 1, false>(p, spmm::runtime_ops<float>(SemiringId::plus_times), nullptr,
                                                    nullptr, items, count, s);
    }
  }
}

}  // namespace geblas::detail::cuda
