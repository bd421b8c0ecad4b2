// The half and bfloat16 run of the tensor-core row-window SpMM (tc_window,
// tc_window_all; plus_times with A, B and C all 16-bit). Products of 16-bit values are
// exact in fp32 and the mma accumulates in fp32, so the result is of the same class as
// the CUDA-core path: computed in fp32, rounded once when C is stored.
//
// Both kinds of window run the kernels of tc_window_kernel.cuh: tensor cores with mma
// m16n8k16, eight n8 tiles per warp; CUDA cores with row_split's warp loop on 16-bit
// values (entry slots, 16-byte loads of 8 values of B, fp32 accumulators).
//
// A row computed by several items (a segmented window, a long row cut into pieces) is
// summed in an fp32 scratch row (atomics, order may vary between runs) and rounded into
// C once by a last kernel, so no 16-bit partial sum is ever stored.
#include "cuda/check.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/tc_window.cuh"
#include "cuda/spmm/tc_window_kernel.cuh"
#include "cuda/spmm/window_plan.cuh"

namespace geblas::detail::cuda {
namespace {

using tc::BFloat;
using tc::blocks;
using tc::c_at;
using tc::Half;
using tc::u16;
using Op16 = tc::TcOperands<u16>;
using P = tc::TcWindowPolicy;

// Rounds the scratch rows into C (adding C's old value when accumulating): the one
// rounding of the rows that several items summed. grid: (split rows, column blocks).
template <class L>
__global__ void __launch_bounds__(P::finish_cols) finish16_kernel(Op16 op, const int* __restrict__ rows) {
  const Index j = static_cast<Index>(blockIdx.y) * P::finish_cols + threadIdx.x;
  if (j >= op.n) return;
  const Index slot = blockIdx.x;
  const float v = op.scratch[slot * op.n + j];
  u16& out = c_at(op, rows[slot], j);
  out = L::from_float(op.accumulate ? L::to_float(out) + v : v);
}

template <class L>
void run16(const spmm::SpmmProblem& p, const WindowPlan& plan, const WindowRoute& route, void* workspace,
           cudaStream_t s) {
  const Op16 op = tc::tc_operands<u16>(p, plan, route, workspace);

  const Index n = p.n;
  const bool vec = spmm::vector_aligned(p, tc::Tc16<L>::Shape::tiles);
  if (route.zero_rows > 0)
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(workspace, 0, sizeof(float) * static_cast<std::size_t>(route.zero_rows * n), s));
  if (route.tc_items > 0) tc::launch_tc_items<tc::Tc16<L>>(op, route.tc_item_list.as<int2>(), route.tc_items, vec, s);
  if (route.cc_items > 0) {
    using Stored = typename L::Stored;
    using Ops = spmm::StaticOps<semiring::plus_times<float>, Stored>;
    const int2* items = route.cc_item_list.as<int2>();
    const Index count = route.cc_items;
    const int* slots = route.row_slot.as<int>();
    float* scratch = static_cast<float*>(workspace);
    if (vec) tc::launch_cc_items<Stored, Ops, 8, true>(p, Ops{}, slots, scratch, items, count, s);
    else if (p.b_row_major() && p.c_row_major())
      tc::launch_cc_items<Stored, Ops, 1, true>(p, Ops{}, slots, scratch, items, count, s);
    else tc::launch_cc_items<Stored, Ops, 1, false>(p, Ops{}, slots, scratch, items, count, s);
  }
  if (route.zero_rows > 0) {
    const dim3 grid(static_cast<unsigned>(route.zero_rows), blocks(n, P::finish_cols));
    finish16_kernel<L><<<grid, P::finish_cols, 0, s>>>(op, route.zero_row_list.as<int>());
    GEBLAS_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

void tc_window_run_16bit(const spmm::SpmmProblem& p, const WindowPlan& plan, const WindowRoute& route,
                         void* workspace, cudaStream_t stream) {
  if (p.type == TypeId::float16) run16<Half>(p, plan, route, workspace, stream);
  else run16<BFloat>(p, plan, route, workspace, stream);
}

}  // namespace geblas::detail::cuda
