// The CUDA SpMM entry: builds the problem from storage, takes the forced variant or asks
// the dispatcher, checks it can run, hands it a workspace cached with A, and launches on
// the device's stream. Nothing here allocates, copies or synchronises per call once A's
// row statistics and workspace are cached.
#include "cuda/spmm/dispatcher.hpp"

#include <cstdio>
#include <mutex>

#include "core/derived_cache.hpp"
#include "cuda/context.cuh"
#include "cuda/spmm/policy/dispatch_policy.hpp"
#include "cuda/spmm/tc_window.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

// Device memory kept with A for the variants that need scratch space; grows, never shrinks.
// Shared by every call on geblas's own stream, which orders them.
struct WorkspaceSlot {
  struct State {
    std::mutex mutex;
    RawBuffer buffer;
  };
  std::shared_ptr<State> state = std::make_shared<State>();
};

// The remembered choices for one matrix (remembered_choice). Few keys occur per matrix
// (the N values a program uses); past `capacity` the list starts over.
struct ChoiceKey {
  Index n = 0;
  TypeId type = TypeId::float32;
  std::uint64_t semiring = 0;
  bool accumulate = false, allow_tf32 = false;
  Index b_row_stride = 0, b_col_stride = 0, c_row_stride = 0, c_col_stride = 0;
  unsigned misalignment = 0;  // B's and C's addresses modulo 16, or-ed
  bool operator==(const ChoiceKey&) const = default;
};

struct ChoiceList {
  static constexpr std::size_t capacity = 16;
  struct State {
    std::mutex mutex;
    std::vector<std::pair<ChoiceKey, std::shared_ptr<const Choice>>> entries;
  };
  std::shared_ptr<State> state = std::make_shared<State>();
};

ChoiceKey choice_key(const SpmmProblem& p, std::uint64_t semiring_key) {
  const auto address = [](const void* x) { return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(x) % 16); };
  return ChoiceKey{p.n,
                   p.type,
                   semiring_key,
                   p.accumulate,
                   p.allow_tf32,
                   p.b_row_stride,
                   p.b_col_stride,
                   p.c_row_stride,
                   p.c_col_stride,
                   address(p.B) | address(p.C)};
}

std::shared_ptr<const ChoiceList> choice_list(const SpmmProblem& p, const std::string& cache_name) {
  return derived<ChoiceList>(*p.matrix, cache_name, [] { return ChoiceList{}; });
}

}  // namespace

std::shared_ptr<const Choice> kept_choice(const SpmmProblem& p, const std::string& cache_name,
                                          std::uint64_t semiring_key) {
  const ChoiceKey key = choice_key(p, semiring_key);
  ChoiceList::State& st = *choice_list(p, cache_name)->state;
  std::lock_guard<std::mutex> lock(st.mutex);
  for (const auto& [k, choice] : st.entries)
    if (k == key) return choice;
  return nullptr;
}

std::shared_ptr<const Choice> remember_choice(const SpmmProblem& p, const std::string& cache_name,
                                              std::uint64_t semiring_key, Choice choice) {
  auto kept = std::make_shared<const Choice>(std::move(choice));
  ChoiceList::State& st = *choice_list(p, cache_name)->state;
  std::lock_guard<std::mutex> lock(st.mutex);
  if (st.entries.size() >= ChoiceList::capacity) st.entries.clear();
  st.entries.emplace_back(choice_key(p, semiring_key), kept);
  return kept;
}

Workspace workspace_for(const SparseStorage& A, std::size_t bytes) {
  Workspace w;
  if (bytes == 0) return w;
  if (!on_own_stream(A.device.ordinal())) {
    w.own = RawBuffer(bytes, A.device);
    w.data = w.own.data();
    return w;
  }
  auto slot = derived<WorkspaceSlot>(A, "spmm_ws", [] { return WorkspaceSlot{}; });
  WorkspaceSlot::State& st = *slot->state;
  w.lock = std::unique_lock<std::mutex>(st.mutex);
  if (st.buffer.bytes() < bytes) st.buffer = RawBuffer(bytes, A.device);
  w.data = st.buffer.data();
  return w;
}

const SpmmVariant& choose_variant(const SpmmProblem& p, std::string& reason) {
  char buf[160];
  if (p.m == 0 || p.n == 0 || p.nnz == 0) {
    std::snprintf(buf, sizeof buf, "N=%lld, nothing to multiply", static_cast<long long>(p.n));
    reason = buf;
    return row_split_variant();
  }
  std::string tf32_note;
  if (tc_window_variant().can_implement(p, nullptr)) {
    const TcWindowForecast f = tc_window_forecast(*p.matrix, p.type, p.n);
    if (f.choice) {
      const std::string what =
          std::string(to_string(p.type)) + (p.type == TypeId::float32 ? " with allow_tf32" : " plus_times");
      std::snprintf(buf, sizeof buf,
                    "N=%lld, %s, %.0f%% of entries in tensor-core windows, predicted gain %.0f%% (all windows %.0f%%)",
                    static_cast<long long>(p.n), what.c_str(),
                    100 * f.share, 100 * f.gain, 100 * f.gain_all);
      reason = buf;
      return *f.choice;
    }
    std::snprintf(buf, sizeof buf,
                  "tensor-core windows (%.0f%% of entries at threshold %.1f) predict gains of %.0f%% (all windows %.0f%%), "
                  "below the model's minimum; ",
                  100 * f.share, f.threshold, 100 * f.gain, 100 * f.gain_all);
    tf32_note = buf;
  }
  const RowStats& s = *p.stats;
  const char* why = "a warp per row";
  const SpmmVariant* v = &pick_variant(p, s, gpu_traits(p.device), why);
  std::string fallback;
  if (is_16bit_float(p.type) && !v->can_implement(p, nullptr)) {
    // The pick does not compute this 16-bit problem: the small-graph rules, whose variants
    // take every 16-bit problem (fitted on fp32; the 16-bit runs measured the variants,
    // and these rules have not been refit from them).
    fallback = std::string(" (") + v->name + " computes " + std::string(to_string(p.type)) +
               " only for plus_times, max_times, min_plus on row-major operands with N a multiple of 8)";
    v = &small_graph_rules(p, s, why);
  }
  std::snprintf(buf, sizeof buf, "N=%lld, %s, mean row %.1f, max row %lld: %s", static_cast<long long>(p.n),
                std::string(to_string(p.type)).c_str(), s.mean_row, static_cast<long long>(s.max_row), why);
  reason = (tf32_note.empty() ? std::string(buf) : tf32_note + buf) + fallback;
  return *v;
}

SpmmProblem problem_of(const SparseStorage& A, const DenseStorage& B, DenseStorage& C,
                       std::shared_ptr<const RowStats>& stats) {
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
  p.device = C.device.ordinal();
  if (p.m > 0 && p.nnz > 0) stats = cached_row_stats(A);
  p.stats = stats.get();
  p.matrix = &A;
  return p;
}

void run_product(const SpmmProblem& p, std::string_view forced, DispatchRecord* record, const SpmmPath& path) {
  const SparseStorage& A = *p.matrix;
  const SpmmVariant* v = nullptr;
  std::shared_ptr<const Choice> choice;
  if (!forced.empty()) {
    v = &path.forced(forced);
  } else {
    choice = remembered_choice(p, path.cache_name, path.semiring_key, [&] { return path.choose(p); });
    v = choice->variant;
  }
  std::string why;
  if (!v->can_implement(p, &why))
    throw InvalidValue("mxm(sparse x dense) on " + A.device.str() + ": variant '" + v->name +
                       "' cannot run this problem: " + why);
  if (record) {
    record->variant.assign(v->name);
    record->reason = choice ? choice->reason : path.forced_reason(*v, p);
  }
  if (p.m == 0 || p.n == 0) return;
  DeviceGuard guard(p.device);
  const Workspace ws = workspace_for(A, v->workspace_bytes(p));
  path.run(*v, p, ws.data, stream(p.device));
}

namespace {

// The built-in kernels: every registered variant, the dispatcher's rules.
class BuiltinPath final : public SpmmPath {
 public:
  explicit BuiltinPath(Device device, SemiringId semiring)
      : SpmmPath("spmm_choice", static_cast<std::uint64_t>(semiring)), device_(device) {}

  const SpmmVariant& forced(std::string_view name) const override {
    if (const SpmmVariant* v = find_variant(name)) return *v;
    std::string names;
    for (const auto* x : variants()) names += std::string(names.empty() ? "" : ", ") + x->name;
    throw InvalidValue("mxm(sparse x dense) on " + device_.str() + ": unknown variant '" + std::string(name) +
                       "' (the CUDA backend has: " + names + ")");
  }

  Choice choose(const SpmmProblem& p) const override {
    Choice c;
    c.variant = &choose_variant(p, c.reason);
    if (p.accumulate) c.reason += ", fused accumulate";
    return c;
  }

  std::string forced_reason(const SpmmVariant&, const SpmmProblem& p) const override {
    return p.accumulate ? "forced by Options::variant, fused accumulate" : "forced by Options::variant";
  }

  void run(const SpmmVariant& v, const SpmmProblem& p, void* workspace, cudaStream_t stream) const override {
    v.run(p, workspace, stream);
  }

 private:
  Device device_;
};

}  // namespace

void mxm_sparse_dense(const SpmmArgs& args) {
  std::shared_ptr<const RowStats> stats;
  SpmmProblem p = problem_of(*args.A, *args.B, *args.C, stats);
  p.semiring = args.semiring;
  p.accumulate = args.accumulate;
  p.allow_tf32 = args.allow_tf32;
  run_product(p, args.variant, args.record, BuiltinPath(args.C->device, args.semiring));
}

}  // namespace geblas::detail::cuda::spmm
