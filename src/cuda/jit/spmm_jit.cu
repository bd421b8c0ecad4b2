// Sparse x dense with a run-time semiring on a CUDA device: the dispatcher's run_product
// with the built-in dispatch rules (restricted to the variants compiled for run-time
// semirings, jit::variants()), and each family's own launcher (the one its built-in
// kernels use) over the kernels from compiler.hpp, loaded and launched through the
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
#include "cuda/spmm/ge_spmm.cuh"
#include "cuda/spmm/merge_path.cuh"
#include "cuda/spmm/nnz_split.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/policy/dispatch_policy.hpp"
#include "cuda/spmm/row_launch.cuh"
#include "cuda/spmm/row_pieces.cuh"

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

// The loaded kernels of one launch configuration, in the interface the families'
// launchers take (spmm::BuiltKernels, early_launch.cuh): kernel I gets (op, ops, args...),
// the arguments in the kernel parameters' exact types (the launchers pass them so).
template <class T, bool RowMajor>
struct LoadedKernels {
  using Compute = T;  // run-time semirings compute in the stored type
  sp::Operands<T, RowMajor> op;
  const Loaded* loaded;

  template <int I, class... Args>
  void launch(sp::Start start, dim3 grid, unsigned threads, cudaStream_t stream, const Args&... args) const {
    sp::Operands<T, RowMajor> o = op;
    char ops = 0;  // the operator struct is empty: its type is the whole semiring
    void* params[] = {&o, &ops, const_cast<void*>(static_cast<const void*>(&args))...};
    CUlaunchAttribute early{};
    early.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    early.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config{};
    config.gridDimX = grid.x;
    config.gridDimY = grid.y;
    config.gridDimZ = 1;
    config.blockDimX = threads;
    config.blockDimY = config.blockDimZ = 1;
    config.hStream = reinterpret_cast<CUstream>(stream);
    config.attrs = &early;
    config.numAttrs = start == sp::Start::early ? 1 : 0;
    check_driver(driver().launch_kernel_ex(&config, loaded->kernels.at(I), params, nullptr), "cuLaunchKernelEx");
  }
};

// v through its family's launcher; kernel_names (compiler.cpp) loads each family's
// kernels in the order its launcher numbers them.
template <class T, bool RowMajor>
void run_family(const sp::SpmmVariant& v, const sp::SpmmProblem& p, int vector, const Loaded& l, void* workspace,
                cudaStream_t stream) {
  const LoadedKernels<T, RowMajor> k{sp::operands<T, RowMajor>(p), &l};
  switch (v.family) {
    case sp::Family::row_split:
    case sp::Family::row_group: return sp::launch_rows(v, p, vector, k, stream);
    case sp::Family::row_pieces:
      return sp::launch_row_pieces(p, sp::row_pieces_piece_length(p, v.shape.long_pieces, sp::row_pieces_piece_vector(v, p)), vector, k,
                                   workspace, stream);
    case sp::Family::nnz_split: return sp::launch_nnz_split(v, p, vector, k, workspace, stream);
    case sp::Family::merge_path: return sp::launch_merge_path(p, vector, k, workspace, stream);
    case sp::Family::ge_spmm: return sp::ge::launch_ge(v, p, k, stream);
    case sp::Family::tc_window: break;  // not compiled for run-time semirings (kernel_set refused it)
  }
  throw Error(Info::panic, std::string("geblas::jit: no launcher for variant ") + v.name);
}

// Run-time semirings: the variants compiled for them, the built-in rules.
class RuntimePath final : public sp::SpmmPath {
 public:
  RuntimePath(const SemiringImpl& s, Device device, int vector, bool row_major)
      : SpmmPath("jit_spmm_choice", s.hash), s_(s), device_(device), vector_(vector), row_major_(row_major) {}

  const sp::SpmmVariant& forced(std::string_view name) const override {
    const std::string n(name);
    if (!is_jit_variant(n))
      throw InvalidValue("mxm(sparse x dense) on " + device_.str() + " with " + s_.name + ": " + not_compiled_reason(n));
    return *sp::find_variant(name);
  }

  sp::Choice choose(const sp::SpmmProblem& p) const override {
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
    c.reason = s_.name + " (run-time, V=" + std::to_string(vector_) + "): " + reason;
    return c;
  }

  std::string forced_reason(const sp::SpmmVariant& v, const sp::SpmmProblem&) const override {
    return s_.name + " (run-time, V=" + std::to_string(kernel_set(v.name, vector_, row_major_).vector) +
           "): forced by Options::variant";
  }

  void run(const sp::SpmmVariant& v, const sp::SpmmProblem& p, void* workspace, cudaStream_t stream) const override {
    const KernelSet set = kernel_set(v.name, vector_, row_major_);
    const sp::GpuTraits& g = sp::gpu_traits(p.device);
    const std::shared_ptr<const Loaded> l = loaded_kernels(s_, set, p.device, g.cc_major * 10 + g.cc_minor);
    visit_type(p.type, [&]<class T>() {
      if (row_major_) run_family<T, true>(v, p, set.vector, *l, workspace, stream);
      else run_family<T, false>(v, p, set.vector, *l, workspace, stream);
    });
  }

 private:
  const SemiringImpl& s_;
  Device device_;
  int vector_;
  bool row_major_;
};

}  // namespace

void clear_loaded_functions() {
  FunctionCache& fc = function_cache();
  std::lock_guard<std::mutex> lock(fc.mutex);
  fc.entries.clear();
}

void cuda_jit_spmm(const JitSpmmArgs& args) {
  std::shared_ptr<const RowStats> stats;
  sp::SpmmProblem p = sp::problem_of(*args.A, *args.B, *args.C, stats);
  p.runtime_semiring = true;
  const bool row_major = p.b_row_major() && p.c_row_major();
  sp::run_product(p, args.variant, args.record, RuntimePath(*args.semiring, args.C->device, sp::runtime_vector(p), row_major));
}

}  // namespace geblas::detail::jit
