// The CUDA SpMM entry: builds the problem from storage, takes the forced variant or asks
// the dispatcher, checks it can run, hands it a workspace cached with A, and launches on
// the device's stream. Nothing here allocates, copies or synchronises per call once A's
// row statistics and workspace are cached.
#include "cuda/spmm/dispatcher.hpp"

#include <cstdint>
#include <cstdio>
#include <mutex>

#include "core/derived_cache.hpp"
#include "cuda/context.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

struct DispatchPolicy {
  // A row longer than this many times the entries a warp consumes per step (see
  // row_pieces.cu) would serialise one warp for longer than the rest of the product takes
  // on the shared power-law graphs; row_pieces cuts such rows (H100 measurement in
  // docs/notes/spmm-tuning.md). Below it both run the same kernel and row_split saves
  // the work list.
  static constexpr int long_row_steps = 8;
  static constexpr int unroll = 4;  // must match RowSplitPolicy::unroll
};


// Device memory kept with A for the variants that need scratch space; grows, never shrinks.
struct WorkspaceSlot {
  struct State {
    std::mutex mutex;
    RawBuffer buffer;
  };
  std::shared_ptr<State> state = std::make_shared<State>();
};

void* workspace_for(const SparseStorage& A, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  auto slot = derived<WorkspaceSlot>(A, "spmm_ws", [] { return WorkspaceSlot{}; });
  WorkspaceSlot::State& st = *slot->state;
  std::lock_guard<std::mutex> lock(st.mutex);
  if (st.buffer.bytes() < bytes) st.buffer = RawBuffer(bytes, A.device);
  return st.buffer.data();
}

// The vector width the fast kernels use for this problem (1 when B or C is not aligned).
int vector_aligned_hint(const SpmmProblem& p) {
  const int full = static_cast<int>(16 / p.value_bytes());
  if (p.type != TypeId::float32 && p.type != TypeId::float64) return 1;
  if (!p.b_row_major() || !p.c_row_major() || p.n % full != 0 || p.b_row_stride % full != 0 ||
      p.c_row_stride % full != 0 || reinterpret_cast<std::uintptr_t>(p.B) % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(p.C) % 16 != 0)
    return 1;
  return full;
}

}  // namespace

const SpmmVariant& choose_variant(const SpmmProblem& p, std::string& reason) {
  char buf[160];
  if (p.m == 0 || p.n == 0 || p.nnz == 0) {
    std::snprintf(buf, sizeof buf, "N=%lld, nothing to multiply", static_cast<long long>(p.n));
    reason = buf;
    return row_split_variant();
  }
  const RowStats& s = *p.stats;
  const int v = vector_aligned_hint(p);
  int lanes = 1;
  while (lanes < 32 && static_cast<Index>(lanes) * v < p.n) lanes *= 2;
  const Index long_row = static_cast<Index>(DispatchPolicy::long_row_steps) * (32 / lanes) * DispatchPolicy::unroll;
  const bool cut = s.max_row > long_row;
  std::snprintf(buf, sizeof buf, "N=%lld, mean row %.1f, max row %lld %s %lld: %s", static_cast<long long>(p.n),
                s.mean_row, static_cast<long long>(s.max_row), cut ? ">" : "<=", static_cast<long long>(long_row),
                cut ? "cut long rows into pieces" : "a warp per row");
  reason = buf;
  return cut ? row_pieces_variant() : row_split_variant();
}

void mxm_sparse_dense(const SpmmArgs& args) {
  const SparseStorage& A = *args.A;
  const DenseStorage& B = *args.B;
  DenseStorage& C = *args.C;
  SpmmProblem p;
  p.m = A.nrows;
  p.k = A.ncols;
  p.n = C.ncols;
  p.nnz = A.nvals;
  p.row_offsets = A.row_offsets.as<Index>();
  p.col_indices = A.col_indices.as<ColIndex>();
  p.values = A.values.data();
  p.B = B.data.data();
  p.b_row_stride = B.layout == Layout::row_major ? B.ld : 1;
  p.b_col_stride = B.layout == Layout::row_major ? 1 : B.ld;
  p.C = C.data.data();
  p.c_row_stride = C.layout == Layout::row_major ? C.ld : 1;
  p.c_col_stride = C.layout == Layout::row_major ? 1 : C.ld;
  p.type = C.type;
  p.semiring = args.semiring;
  p.accumulate = args.accumulate;
  p.device = C.device.ordinal();
  std::shared_ptr<const RowStats> stats;
  if (p.m > 0 && p.nnz > 0) stats = cached_row_stats(A);
  p.stats = stats.get();
  p.matrix = &A;

  const SpmmVariant* v = nullptr;
  std::string reason;
  if (!args.variant.empty()) {
    v = find_variant(args.variant);
    if (!v) {
      std::string names;
      for (const auto* x : variants()) names += std::string(names.empty() ? "" : ", ") + x->name;
      throw InvalidValue("mxm(sparse x dense) on " + C.device.str() + ": unknown variant '" +
                         std::string(args.variant) + "' (the CUDA backend has: " + names + ")");
    }
    reason = "forced by Options::variant";
  } else {
    v = &choose_variant(p, reason);
  }
  std::string why;
  if (!v->can_implement(p, &why))
    throw InvalidValue("mxm(sparse x dense) on " + C.device.str() + ": variant '" + v->name +
                       "' cannot run this problem: " + why);
  if (args.record) {
    args.record->variant = v->name;
    args.record->reason = args.accumulate ? reason + ", fused accumulate" : reason;
  }
  if (p.m == 0 || p.n == 0) return;
  DeviceGuard guard(p.device);
  void* ws = workspace_for(A, v->workspace_bytes(p));
  v->run(p, ws, stream(p.device));
}

}  // namespace geblas::detail::cuda::spmm
