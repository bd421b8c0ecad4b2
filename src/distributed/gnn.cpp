// GNN neighbourhood aggregation on distributed matrices, with the single-device
// definitions of <geblas/algorithms/gnn.hpp>: GraphSAGE mean is one plus_times product
// with D^-1 A over A's pattern (the scaling uses row lengths only, so each rank builds
// its own rows, once, kept with A); max and GCN are the product itself.
#include "distributed/internal.hpp"
#include "distributed/matrices.hpp"

namespace geblas::dist::detail {

namespace {

template <class T>
void fill_inverse_lengths(const Index* off, Index n, T* values) {
  for (Index i = 0; i < n; ++i) {
    const Index len = off[i + 1] - off[i];
    for (Index k = off[i]; k < off[i + 1]; ++k) values[k] = T(1) / static_cast<T>(len);
  }
}

}  // namespace

const DistSparse& sage_mean_matrix(const DistSparse& A) {
  const char* where = "dist::sage_mean_aggregate";
  std::lock_guard<std::mutex> lock(A.plans->mutex);
  if (A.plans->sage_mean) return *A.plans->sage_mean;
  if (A.type != TypeId::float32 && A.type != TypeId::float64)
    throw NotImplemented(std::string(where) + ": float and double only");
  auto M = std::make_shared<DistSparse>(DistSparse{A.comm, A.rows, A.ncols, A.type, {}, std::make_shared<SparsePlanCache>()});
  M->parts.resize(A.parts.size());
  Transport& t = A.comm.transport();
  agree(t, where, [&](int k) {
    const gd::SparseStorage& part = A.parts[static_cast<std::size_t>(k)];
    gd::SparseStorage P = part.device.is_cpu() ? part : gd::to_device(part, Device::cpu());
    if (A.type == TypeId::float32) fill_inverse_lengths(P.row_offsets.as<Index>(), P.nrows, P.values.as<float>());
    else fill_inverse_lengths(P.row_offsets.as<Index>(), P.nrows, P.values.as<double>());
    P.derived.reset();
    M->parts[static_cast<std::size_t>(k)] = part.device.is_cpu() ? std::move(P) : gd::to_device(P, part.device);
  });
  A.plans->sage_mean = M;
  return *M;
}

}  // namespace geblas::dist::detail
