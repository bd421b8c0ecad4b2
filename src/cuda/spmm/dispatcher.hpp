// The SpMM dispatcher's choice of a variant from cheap facts about the problem (shape,
// N, A's cached row statistics), the one sequence every product goes through (forced or
// remembered choice, check, record, workspace, launch: run_product), and the CUDA
// backend's mxm_sparse_dense entry.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "core/backend.hpp"
#include "cuda/spmm/variants.hpp"

namespace geblas::detail::cuda::spmm {

// The problem C = A (+).(x) B as the variants see it, for the built-in semirings and the
// run-time ones alike (semiring, accumulate and allow_tf32 left to the caller). `stats`
// keeps A's cached row statistics alive while p.stats points at them.
SpmmProblem problem_of(const SparseStorage& A, const DenseStorage& B, DenseStorage& C,
                       std::shared_ptr<const RowStats>& stats);

// The variant the dispatcher picks for `p` (p.stats set), with the facts that chose it.
const SpmmVariant& choose_variant(const SpmmProblem& p, std::string& reason);

// A choice of variant with the facts that chose it (the trace's reason).
struct Choice {
  const SpmmVariant* variant = nullptr;
  std::string reason;
};

// The choice for `p` kept with A under `cache_name`, keyed by everything a choice reads
// besides A itself: N, the type, the semiring (`semiring_key`: a built-in's id or a
// run-time semiring's hash), accumulate, allow_tf32, B's and C's layouts and 16-byte
// alignment; null where none is kept yet. remember_choice keeps one.
std::shared_ptr<const Choice> kept_choice(const SpmmProblem& p, const std::string& cache_name,
                                          std::uint64_t semiring_key);
std::shared_ptr<const Choice> remember_choice(const SpmmProblem& p, const std::string& cache_name,
                                              std::uint64_t semiring_key, Choice choice);

// The kept choice, else the one `decide()` makes, kept. Deciding formats the reason,
// which a loop of small products should not pay on every call; a template, so that the
// caller's lambda is not wrapped (and allocated) on every call.
template <class Decide>
std::shared_ptr<const Choice> remembered_choice(const SpmmProblem& p, const std::string& cache_name,
                                                std::uint64_t semiring_key, Decide&& decide) {
  if (auto kept = kept_choice(p, cache_name, semiring_key)) return kept;
  return remember_choice(p, cache_name, semiring_key, decide());
}

// Scratch for one launch of a variant on A (its workspace_bytes), valid until the
// Workspace is destroyed: A's cached buffer on geblas's own stream (locked until then, so
// that the kernel is queued before another call can grow it), else a stream-ordered
// buffer of the call's own.
struct Workspace {
  std::unique_lock<std::mutex> lock;
  RawBuffer own;
  void* data = nullptr;
};
Workspace workspace_for(const SparseStorage& A, std::size_t bytes);

// How a product reaches its kernels once its problem is built: the built-in kernels
// compiled into geblas (mxm_sparse_dense) or a run-time semiring's, compiled by NVRTC
// (src/cuda/jit/spmm_jit.cu). run_product does everything else the same for both.
class SpmmPath {
 public:
  SpmmPath(const char* cache_name, std::uint64_t semiring_key) : cache_name(cache_name), semiring_key(semiring_key) {}
  virtual ~SpmmPath() = default;
  // The variant called `name` (Options::variant), or an InvalidValue naming the choices.
  virtual const SpmmVariant& forced(std::string_view name) const = 0;
  // The dispatcher's choice for p (p.stats set) with the facts that chose it.
  virtual Choice choose(const SpmmProblem& p) const = 0;
  // The trace's reason for a forced variant v.
  virtual std::string forced_reason(const SpmmVariant& v, const SpmmProblem& p) const = 0;
  // Launches v on p (on its device, p.m and p.n > 0) with its workspace.
  virtual void run(const SpmmVariant& v, const SpmmProblem& p, void* workspace, cudaStream_t stream) const = 0;

  const char* const cache_name;       // the name A keeps this path's choices under
  const std::uint64_t semiring_key;   // a built-in semiring's id or a run-time semiring's hash
};

// The product p (from problem_of, A = *p.matrix) with the variant forced by name (empty:
// the path's remembered choice), checked with can_implement, written to `record` (when
// set), run on geblas's stream for p's device.
void run_product(const SpmmProblem& p, std::string_view forced, DispatchRecord* record, const SpmmPath& path);

// Backend::mxm_sparse_dense for CUDA devices.
void mxm_sparse_dense(const SpmmArgs& args);

}  // namespace geblas::detail::cuda::spmm
