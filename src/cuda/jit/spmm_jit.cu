// Sparse x dense with a run-time semiring on a CUDA device: the variant chosen by the
// built-in dispatch rules (restricted to the variants compiled for run-time semirings,
// jit::variants()), its kernels from compiler.hpp, loaded and launched through the
// driver API on the device's geblas stream. The driver functions are looked up through
// the runtime (cudaGetDriverEntryPointByVersion), so libgeblas.so does not link
// libcuda and still loads on machines without a GPU driver.
#include <cuda.h>

#include <map>
#include <mutex>
#include <tuple>

#include "core/derived_cache.hpp"
#include "cuda/check.cuh"
#include "cuda/context.cuh"
#include "cuda/jit/compiler.hpp"
#include "cuda/spmm/dispatcher.hpp"
#include "cuda/spmm/ge_spmm_kernel.cuh"
#include "cuda/spmm/merge_path_kernel.cuh"
#include "cuda/spmm/nnz_split_kernel.cuh"
#include "cuda/spmm/nnz_split_plan.hpp"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/piece_fold_kernel.cuh"
#include "cuda/spmm/policy/dispatch_policy.hpp"
#include "cuda/spmm/row_group_kernel.cuh"
#include "cuda/spmm/row_pieces_kernel.cuh"
#include "cuda/spmm/row_pieces_plan.hpp"
#include "cuda/spmm/row_split_kernel.cuh"

namespace geblas::detail::jit {
namespace {

// Kernel arguments are laid out by the NVRTC side with rtc_shim.cuh's index types.
static_assert(sizeof(Index) == sizeof(long long) && sizeof(ColIndex) == sizeof(int),
              "rtc_shim.cuh's Index and ColIndex must have geblas/types.hpp's widths");

namespace sp = cuda::spmm;

// The driver functions geblas uses, from the runtime's entry-point query.
struct Driver {
  CUresult (*module_load_data)(CUmodule*, const void*) = nullptr;
  CUresult (*module_get_function)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*launch_kernel_ex)(const CUlaunchConfig*, CUfunction, void**, void**) = nullptr;
  CUresult (*get_error_string)(CUresult, const char**) = nullptr;
};

template <class F>
void entry(const char* name, F& fn) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  GEBLAS_CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &status));
  if (status != cudaDriverEntryPointSuccess || !p)
    throw CudaError(std::string("geblas::jit: the CUDA driver has no ") + name, 0);
  fn = reinterpret_cast<F>(p);
}

const Driver& driver() {
  static const Driver d = [] {
    Driver x;
    entry("cuModuleLoadData", x.module_load_data);
    entry("cuModuleGetFunction", x.module_get_function);
    entry("cuLaunchKernelEx", x.launch_kernel_ex);
    entry("cuGetErrorString", x.get_error_string);
    return x;
  }();
  return d;
}

void check_driver(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* msg = nullptr;
  driver().get_error_string(r, &msg);
  throw CudaError(std::string("geblas::jit: ") + what + ": " + (msg ? msg : "unknown CUDA driver error"),
                  static_cast<int>(r));
}

// The loaded kernels of one (semiring, kernel set, device). Modules stay loaded for the
// life of the process (their functions may be in use on a stream).
struct Loaded {
  std::string semiring_key;  // guards against a 64-bit hash collision
  std::vector<CUfunction> kernels;
};
using FunctionKey = std::tuple<std::uint64_t, std::string, int, bool, int>;

struct FunctionCache {
  std::mutex mutex;
  std::map<FunctionKey, std::shared_ptr<const Loaded>> entries;
};
FunctionCache& function_cache() {
  static FunctionCache c;
  return c;
}

std::shared_ptr<const Loaded> loaded_kernels(const SemiringImpl& s, const KernelSet& set, int device, int cc) {
  FunctionCache& fc = function_cache();
  const FunctionKey key{s.hash, set.variant, set.vector, set.row_major, device};
  {
    std::lock_guard<std::mutex> lock(fc.mutex);
    auto it = fc.entries.find(key);
    if (it != fc.entries.end() && it->second->semiring_key == s.key) return it->second;
  }
  const auto module = compiled_module(s, set, cc, nullptr);
  auto l = std::make_shared<Loaded>();
  l->semiring_key = s.key;
  CUmodule mod = nullptr;
  check_driver(driver().module_load_data(&mod, module->image.data()), "cuModuleLoadData");
  for (const std::string& name : module->lowered) {
    CUfunction f = nullptr;
    check_driver(driver().module_get_function(&f, mod, name.c_str()), "cuModuleGetFunction");
    l->kernels.push_back(f);
  }
  std::lock_guard<std::mutex> lock(fc.mutex);
  fc.entries.insert_or_assign(key, l);
  return l;
}

// The kernels that wait for the stream's previous kernel in their first instruction
// (row_split, row_group, row_pieces, nnz_split, the fold) are launched early, as the
// built-in variants launch them (early_launch.cuh: programmatic stream serialization);
// the others (merge_path, its fix-up, crc, cwm) after the previous kernel, as theirs are.
enum class Start { early, serialized };

void launch(CUfunction f, unsigned gx, unsigned gy, unsigned threads, void** args, cudaStream_t stream,
            Start start = Start::early) {
  CUlaunchAttribute early{};
  early.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  early.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config{};
  config.gridDimX = gx;
  config.gridDimY = gy;
  config.gridDimZ = 1;
  config.blockDimX = threads;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = reinterpret_cast<CUstream>(stream);
  config.attrs = &early;
  config.numAttrs = start == Start::early ? 1 : 0;
  check_driver(driver().launch_kernel_ex(&config, f, args, nullptr), "cuLaunchKernelEx");
}

// The fold of cut rows, behind the product.
void launch_fold(CUfunction f, unsigned gx, void** args, cudaStream_t stream) {
  launch(f, gx, 1, sp::PieceFoldPolicy::threads, args, stream);
}

template <class T, bool RowMajor>
void run_set(const sp::SpmmProblem& p, const KernelSet& set, const Loaded& l, cudaStream_t stream) {
  auto op = sp::operands<T, RowMajor>(p);
  char ops = 0;  // the operator struct is empty: its type is the whole semiring
  if (set.variant == "row_split" || set.variant == "row_group") {
    const bool split = set.variant == "row_split";
    const sp::LaunchShape sh = split ? sp::row_split_shape(p.m, p.n, set.vector) : sp::row_group_shape(p.m, p.n, set.vector);
    int log_w = sh.log_w;
    void* args[] = {&op, &ops, &log_w};
    launch(l.kernels[0], sh.grid_x, sh.grid_y,
           split ? sp::RowSplitPolicy::block_threads : sp::RowGroupPolicy::block_threads, args, stream);
    return;
  }
  if (set.variant == "merge_path") {
    // the slicing and the workspace layout of the built-in merge_path (merge_path_kernel.cuh)
    const sp::MergeSlicing sl = sp::merge_path_slicing(p.m, p.nnz, p.n, sizeof(T));
    const sp::Workspace ws = sp::workspace_for(*p.matrix, sp::merge_path_workspace_bytes(sl, p.n, sizeof(T)));
    auto* carry_row = static_cast<Index*>(ws.data);
    auto* carry = reinterpret_cast<T*>(static_cast<char*>(ws.data) + sp::merge_path_carry_offset(sl.slices));
    const sp::LaunchShape sh = sp::merge_path_shape(sl.slices, p.n, set.vector);
    Index nnz = p.nnz, items = sl.items, slices = sl.slices;
    int group = 1 << sh.log_w, log_group = sh.log_w;
    void* args[] = {&op, &ops, &nnz, &items, &slices, &group, &log_group, &carry_row, &carry};
    launch(l.kernels[0], sh.grid_x, sh.grid_y, sp::MergePathPolicy::block_threads, args, stream, Start::serialized);
    void* fixup_args[] = {&op, &ops, &slices, &carry_row, &carry};
    launch(l.kernels[1], sp::merge_fixup_blocks(slices), 1, sp::MergePathPolicy::fixup_threads, fixup_args, stream,
           Start::serialized);
    return;
  }
  if (set.variant == "crc" || set.variant == "cwm") {
    const int cf = set.variant == "crc" ? sp::ge::CrcPolicy::coarsening : sp::ge::CwmPolicy::coarsening;
    const sp::LaunchShape sh = sp::ge::ge_spmm_shape(p.m, p.n, cf);
    void* args[] = {&op, &ops};
    launch(l.kernels[0], sh.grid_x, sh.grid_y, sp::ge::GePolicy::block_threads, args, stream, Start::serialized);
    return;
  }
  sp::NnzSplitShape shape{};
  if (sp::nnz_split_shape(set.variant, shape)) {
    const sp::NnzSplitLaunch nl = sp::nnz_split_prepare(p, shape, set.vector);
    if (nl.unit_count == 0) return;
    // A's cached scratch, as the built-in variants take it (dispatcher.hpp)
    const sp::Workspace ws = sp::workspace_for(
        *p.matrix, static_cast<std::size_t>(nl.piece_count) * static_cast<std::size_t>(p.n) * sizeof(T));
    T* partial = static_cast<T*>(ws.data);
    const void* units = nl.units;
    const void* cut = nl.cut_rows;
    Index unit_count = nl.unit_count;
    unsigned* counters = nl.counters;
    int log_w = nl.log_w;
    void* args[] = {&op, &ops, &log_w, &units, &unit_count, &partial, &cut, &counters};
    launch(l.kernels[0], nl.grid_x, nl.grid_y, sp::nnz::NnzSplitPolicy::block_threads, args, stream);
    if (!counters && nl.cut_count > 0) {
      void* fold_args[] = {&op, &ops, &cut, &partial};
      launch_fold(l.kernels[1], sp::grid_limit(nl.cut_count), fold_args, stream);
    }
    return;
  }
  const auto plan =
      sp::row_pieces_plan(*p.matrix, sp::row_pieces_piece_length(p, set.variant == "row_pieces_long", set.vector));
  const sp::Workspace ws = sp::workspace_for(
      *p.matrix, static_cast<std::size_t>(plan->piece_count) * static_cast<std::size_t>(p.n) * sizeof(T));
  T* partial = static_cast<T*>(ws.data);
  const sp::Unit* units = plan->units.as<sp::Unit>();
  Index unit_count = plan->unit_count;
  Index slot_rows = sp::row_pieces_slot_rows(unit_count, plan->short_rows, p.n, set.vector);
  const sp::LaunchShape sh = sp::row_pieces_shape(unit_count, slot_rows, p.n, set.vector);
  int log_w = sh.log_w;
  Index synced_units = plan->synced_units;
  const sp::CutRow* cut = plan->cut_rows.as<sp::CutRow>();
  void* args[] = {&op, &ops, &log_w, &units, &unit_count, &synced_units, &slot_rows, &partial};
  launch(l.kernels[0], sh.grid_x, sh.grid_y, sp::RowPiecesPolicy::block_threads, args, stream);
  if (plan->cut_count > 0) {
    void* fold_args[] = {&op, &ops, &cut, &partial};
    launch_fold(l.kernels[1], sp::grid_limit(plan->cut_count), fold_args, stream);
  }
}

}  // namespace

void clear_loaded_functions() {
  FunctionCache& fc = function_cache();
  std::lock_guard<std::mutex> lock(fc.mutex);
  fc.entries.clear();
}

void cuda_jit_spmm(const JitSpmmArgs& args) {
  const SparseStorage& A = *args.A;
  const DenseStorage& B = *args.B;
  DenseStorage& C = *args.C;
  const SemiringImpl& s = *args.semiring;
  std::shared_ptr<const RowStats> stats;
  sp::SpmmProblem p = sp::problem_of(A, B, C, stats);

  const bool row_major = p.b_row_major() && p.c_row_major();
  const int full = static_cast<int>(16 / size_of(p.type));
  const int vector = row_major && full > 1 && sp::vector_aligned(p, full) ? full : 1;
  const sp::SpmmVariant* v = nullptr;
  std::shared_ptr<const sp::Choice> choice;
  if (!args.variant.empty()) {
    if (!is_jit_variant(std::string(args.variant)))
      throw InvalidValue("mxm(sparse x dense) on " + C.device.str() + " with " + s.name + ": " +
                         not_compiled_reason(std::string(args.variant)));
    v = sp::find_variant(args.variant);
  } else {
    choice = sp::remembered_choice(p, "jit_spmm_choice", s.hash, [&] {
      sp::Choice c;
      std::string reason;
      if (p.m == 0 || p.n == 0 || p.nnz == 0) {
        c.variant = &sp::row_split_variant();
        reason = "nothing to multiply";
      } else {
        const char* why = "";
        c.variant = &sp::pick_variant(p, *p.stats, sp::gpu_traits(p.device), why);
        reason = why;
        if (!is_jit_variant(c.variant->name)) {
          // The variants not compiled for run-time semirings: the small-graph rules choose
          // among those that are, and the trace says so.
          reason = std::string("the rules pick ") + c.variant->name + " (" + why +
                   "), not compiled for run-time semirings; small-graph rules: ";
          c.variant = &sp::small_graph_rules(p, *p.stats, why);
          reason += why;
        }
      }
      c.reason = s.name + " (run-time, V=" + std::to_string(vector) + "): " + reason;
      return c;
    });
    v = choice->variant;
  }
  std::string cannot;
  if (!v->can_implement(p, &cannot))
    throw InvalidValue("mxm(sparse x dense) on " + C.device.str() + ": variant '" + v->name +
                       "' cannot run this problem: " + cannot);
  const KernelSet set = kernel_set(v->name, vector, row_major);
  if (args.record) {
    args.record->variant.assign(v->name);
    if (choice) args.record->reason.assign(choice->reason);
    else args.record->reason = s.name + " (run-time, V=" + std::to_string(set.vector) + "): forced by Options::variant";
  }
  if (p.m == 0 || p.n == 0) return;
  cuda::DeviceGuard guard(p.device);
  const sp::GpuTraits& g = sp::gpu_traits(p.device);
  const std::shared_ptr<const Loaded> l = loaded_kernels(s, set, p.device, g.cc_major * 10 + g.cc_minor);
  const cudaStream_t stream = cuda::stream(p.device);
  visit_type(p.type, [&]<class T>() {
    if (row_major) run_set<T, true>(p, set, *l, stream);
    else run_set<T, false>(p, set, *l, stream);
  });
}

}  // namespace geblas::detail::jit
