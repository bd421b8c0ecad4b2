// mxv and vxm entry points: validation, the choice between pull (rows of M, one dot
// product per output entry) and push (rows of M' scattered from a sparse u), and the
// write-back. vxm is w' = u' A, i.e. w = A' u with the multiply's operands swapped,
// so both run as "t = M u" over M = A or A' (the transpose comes from A's cache).
#include <string>

#include "core/backend.hpp"
#include "core/derived_cache.hpp"
#include "core/trace.hpp"
#include "core/validate.hpp"
#include "geblas/operations/mxv.hpp"

namespace geblas::detail {
namespace {

// Push pays when u has few entries: its work is their out-degree, against pull's whole
// matrix. 1/16 is a first guess, not measured: Beamer's direction-optimising BFS
// switches at a comparable share of the edges; tune it with a bench before trusting it.
constexpr Index push_max_share = 16;

ScalarBytes semiring_identity(SemiringId s, TypeId t) {
  ScalarBytes out;
  visit_type(t, [&]<class T>() {
    visit_semiring<T>(s, [&]<class S>() { *static_cast<T*>(out.data()) = S::identity(); });
  });
  return out;
}

// w<m> = accum(w, M u) with M = A' when m_is_a_transposed, else A; u_first swaps the
// multiply's operands (vxm).
void run(const char* op, VectorStorage& w, const SparseStorage& A, const VectorStorage& u, SemiringId s,
         const Options& o, bool m_is_a_transposed, bool u_first) {
  check_semiring(op, s, w.type);
  check_type(op, "A", A.type, w.type);
  check_type(op, "u", u.type, w.type);
  check_accum(op, o, w.type);
  const Device dev = w.device;
  check_device(op, "A", A.device, dev);
  check_device(op, "u", u.device, dev);
  // M is m x n: its rows give w, its columns meet u.
  const Index m = m_is_a_transposed ? A.ncols : A.nrows;
  const Index n = m_is_a_transposed ? A.nrows : A.ncols;
  if (u.size != n)
    throw DimensionMismatch(std::string(op) + ": u has size " + std::to_string(u.size) + " but A is " +
                            shape(A.nrows, A.ncols) + " and u must match its " +
                            (m_is_a_transposed ? "rows" : "columns") + (o.transpose_a ? " (transpose_a)" : ""));
  if (w.size != m)
    throw DimensionMismatch(std::string(op) + ": w has size " + std::to_string(w.size) + " but the product has size " +
                            std::to_string(m));
  check_vector_mask(op, o, w.size, dev);
  if (o.transpose_b) throw InvalidValue(std::string(op) + ": transpose_b does not apply to a vector");

  bool push = !u.dense && u.nvals * push_max_share < u.size;
  if (o.variant == "push") {
    if (u.dense) throw InvalidValue(std::string(op) + ": variant \"push\" needs a sparse u");
    push = true;
  } else if (o.variant == "pull") {
    push = false;
  } else if (!o.variant.empty()) {
    throw InvalidValue(std::string(op) + ": unknown variant \"" + std::string(o.variant) +
                       "\" (mxv and vxm take \"pull\" or \"push\")");
  }

  const Backend& be = backend_for(dev);
  DispatchRecord& rec = begin_dispatch(op, be.name);
  // Pull reads the rows of M, push the rows of M'. M = A' when m_is_a_transposed.
  const bool needs_transpose = push ? !m_is_a_transposed : m_is_a_transposed;
  std::shared_ptr<const SparseStorage> At;
  if (needs_transpose) At = cached_transpose(A);
  MxvArgs args;
  args.A = needs_transpose ? At.get() : &A;
  args.u = &u;
  args.semiring = s;
  args.u_first = u_first;
  args.mask = o.mask.empty() ? nullptr : &o.mask;
  VectorResult t;
  args.t = &t;
  args.record = &rec;
  required(push ? be.mxv_push : be.mxv_pull, push ? "mxv(push)" : "mxv(pull)", dev)(args);
  required(be.write_vector, "mask/accumulate", dev)(w, t, o, semiring_identity(s, w.type));
  end_dispatch();
}

}  // namespace

void mxv(VectorStorage& w, const SparseStorage& A, const VectorStorage& u, SemiringId s, const Options& o) {
  run("mxv", w, A, u, s, o, /*m_is_a_transposed=*/o.transpose_a, /*u_first=*/false);
}

void vxm(VectorStorage& w, const VectorStorage& u, const SparseStorage& A, SemiringId s, const Options& o) {
  run("vxm", w, A, u, s, o, /*m_is_a_transposed=*/!o.transpose_a, /*u_first=*/true);
}

}  // namespace geblas::detail
