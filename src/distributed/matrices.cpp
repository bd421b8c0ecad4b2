// Building row-partitioned matrices: scattering a host matrix (every process passes the
// same one and keeps its ranks' rows), reading a Matrix Market file per process, and
// gathering a dense matrix back to the host. Every constructor checks, on every rank,
// that the communicator and the partition agree before any rank keeps a part.
#include <cstring>

#include "distributed/internal.hpp"
#include "distributed/matrices.hpp"
#include "geblas/io.hpp"

namespace geblas::dist::detail {

namespace gd = geblas::detail;

std::int64_t partition_hash(const Partition& p, Index extra) {
  // FNV-1a over the offsets: equal on every process iff they were given the same split
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
  };
  for (Index o : p.offsets) mix(static_cast<std::uint64_t>(o));
  mix(static_cast<std::uint64_t>(extra));
  return static_cast<std::int64_t>(h >> 2);
}

void check_same_everywhere(Transport& t, const char* where, const std::string& what, std::int64_t value) {
  const std::size_t n = t.local_ranks().size();
  std::vector<std::vector<std::int64_t>> v(n, std::vector<std::int64_t>{value, -value});
  const auto m = t.max_over_ranks(v);
  if (m[0] != value || -m[1] != value)
    throw InvalidValue(std::string(where) + ": the " + what + " differs between processes (every process must pass the same)");
}

void check_partition(const Communicator& comm, const Partition& p, Index n, const char* where, const char* what) {
  if (p.parts() != comm.size())
    throw InvalidValue(std::string(where) + ": the " + what + " partition has " + std::to_string(p.parts()) +
                       " parts but the communicator has " + std::to_string(comm.size()) + " ranks");
  if (p.size() != n)
    throw DimensionMismatch(std::string(where) + ": the " + what + " partition covers " + std::to_string(p.size()) +
                            " rows, the matrix has " + std::to_string(n));
}

namespace {

gd::SparseStorage rows_of(const gd::SparseStorage& A, Index b, Index e) {
  const Index* off = A.row_offsets.as<Index>();
  const std::size_t es = size_of(A.type);
  const Index k0 = off[b], k1 = off[e];
  std::vector<Index> o(static_cast<std::size_t>(e - b + 1));
  for (Index i = b; i <= e; ++i) o[static_cast<std::size_t>(i - b)] = off[i] - k0;
  gd::RawBuffer cols(static_cast<std::size_t>(k1 - k0) * sizeof(ColIndex), Device::cpu());
  gd::RawBuffer vals(static_cast<std::size_t>(k1 - k0) * es, Device::cpu());
  if (k1 > k0) {
    std::memcpy(cols.data(), A.col_indices.as<ColIndex>() + k0, cols.bytes());
    std::memcpy(vals.data(), A.values.as<unsigned char>() + static_cast<std::size_t>(k0) * es, vals.bytes());
  }
  return gd::adopt_csr(e - b, A.ncols, gd::host_buffer_from(o), std::move(cols), std::move(vals), A.type, Device::cpu());
}

DistSparse scatter_host(const Communicator& comm, const gd::SparseStorage& H, const std::optional<Partition>& rows,
                        const char* where) {
  Transport& t = comm.transport();
  t.check_usable(where);
  DistSparse d{comm, {}, H.ncols, H.type, {}, std::make_shared<SparsePlanCache>()};
  d.parts.resize(t.local_ranks().size());
  agree(t, where, [&](int k) {
    if (k == 0) {
      d.rows = rows ? *rows
                    : Partition::for_products(
                          std::vector<Index>(H.row_offsets.as<Index>(), H.row_offsets.as<Index>() + H.nrows + 1),
                          comm.size());
    }
    check_partition(comm, rows ? *rows : d.rows, H.nrows, where, "row");
  });
  check_same_everywhere(t, where, "row partition and matrix shape", partition_hash(d.rows, H.ncols));
  agree(t, where, [&](int k) {
    const int r = t.local_ranks()[static_cast<std::size_t>(k)];
    gd::SparseStorage part = rows_of(H, d.rows.begin(r), d.rows.end(r));
    const Device dev = t.device(r);
    d.parts[static_cast<std::size_t>(k)] = dev.is_cpu() ? std::move(part) : gd::to_device(part, dev);
  });
  return d;
}

}  // namespace

DistSparse scatter(const Communicator& comm, const gd::SparseStorage& A, const std::optional<Partition>& rows) {
  if (A.device.is_cpu()) return scatter_host(comm, A, rows, "dist::DistSparseMatrix::scatter");
  return scatter_host(comm, gd::to_device(A, Device::cpu()), rows, "dist::DistSparseMatrix::scatter");
}

namespace {

// A distributed matrix read from a file by rows: each process reads the rows of its ranks
// with `read_rows(begin, end, counts)` (a reader of io::detail's *_rows form); without a
// given split, a first pass counts the entries of every row (n values per process, not
// the matrix) for the default split (Partition::for_products). `file_rows()` is the file's row count.
template <class ReadRows, class FileRows>
DistSparse read_by_rows(const Communicator& comm, TypeId type, const std::optional<Partition>& rows, const char* where,
                        ReadRows&& read_rows, FileRows&& file_rows) {
  Transport& t = comm.transport();
  t.check_usable(where);
  const auto& locals = t.local_ranks();
  Partition p;
  agree(t, where, [&](int k) {
    if (k != 0) return;
    if (rows) {
      p = *rows;
      return;
    }
    std::vector<Index> counts;
    read_rows(Index{0}, Index{0}, &counts);
    std::vector<Index> offsets(counts.size() + 1, 0);
    for (std::size_t i = 0; i < counts.size(); ++i) offsets[i + 1] = offsets[i] + counts[i];
    p = Partition::for_products(offsets, comm.size());
  });
  agree(t, where, [&](int k) {
    if (k == 0) check_partition(comm, p, file_rows(), where, "row");
  });
  gd::SparseStorage H;  // the rows of this process's ranks (contiguous: local ranks are consecutive)
  agree(t, where, [&](int k) {
    if (k == 0) H = read_rows(p.begin(locals.front()), p.end(locals.back()), nullptr);
  });
  const Index first = p.begin(locals.front());
  check_same_everywhere(t, where, "row partition and matrix shape", partition_hash(p, H.ncols));
  DistSparse d{comm, p, H.ncols, type, {}, std::make_shared<SparsePlanCache>()};
  d.parts.resize(locals.size());
  agree(t, where, [&](int k) {
    const int r = locals[static_cast<std::size_t>(k)];
    gd::SparseStorage part = rows_of(H, p.begin(r) - first, p.end(r) - first);
    const Device dev = t.device(r);
    d.parts[static_cast<std::size_t>(k)] = dev.is_cpu() ? std::move(part) : gd::to_device(part, dev);
  });
  return d;
}

}  // namespace

DistSparse read_matrix_market(const Communicator& comm, const std::string& path, TypeId type,
                              const std::optional<Partition>& rows) {
  // Every line of the file is parsed and checked as in a full read; only the rows of
  // this process's ranks are kept.
  return read_by_rows(
      comm, type, rows, "dist::DistSparseMatrix::read_matrix_market",
      [&](Index begin, Index end, std::vector<Index>* counts) {
        return io::detail::read_matrix_market_rows(path, type, io::ReadOptions{}, begin, end, counts);
      },
      [&] { return io::read_matrix_market_header(path).nrows; });
}

DistSparse read_binary(const Communicator& comm, const std::string& path, TypeId type,
                       const std::optional<Partition>& rows, bool verify_checksum) {
  // Each process keeps only its rows' part of the file (and, for the balanced split, reads
  // the row offsets); the checksum pass, when asked for, comes with the part's read.
  return read_by_rows(
      comm, type, rows, "dist::DistSparseMatrix::read_binary",
      [&](Index begin, Index end, std::vector<Index>* counts) {
        return io::detail::read_binary_rows(path, type, begin, end, counts, verify_checksum && !counts);
      },
      [&] { return io::read_binary_header(path).nrows; });
}

DistDense make_dense(const Communicator& comm, const Partition& rows, Index ncols, TypeId type) {
  const char* where = "dist::DistDenseMatrix";
  Transport& t = comm.transport();
  t.check_usable(where);
  DistDense d{comm, rows, ncols, type, {}};
  d.parts.resize(t.local_ranks().size());
  agree(t, where, [&](int k) {
    check_partition(comm, rows, rows.size(), where, "row");
    gd::check_dimensions(rows.size(), ncols, where);
    const int r = t.local_ranks()[static_cast<std::size_t>(k)];
    d.parts[static_cast<std::size_t>(k)] = gd::make_dense(rows.count(r), ncols, Layout::row_major, type, t.device(r));
  });
  return d;
}

DistDense scatter(const Communicator& comm, const gd::DenseStorage& B, const std::optional<Partition>& rows) {
  const char* where = "dist::DistDenseMatrix::scatter";
  Transport& t = comm.transport();
  const gd::DenseStorage H = B.device.is_cpu() ? B : gd::to_device(B, Device::cpu());
  Partition p;
  agree(t, where, [&](int k) {
    if (k == 0) p = rows ? *rows : Partition::even(H.nrows, comm.size());
    check_partition(comm, p, H.nrows, where, "row");
  });
  check_same_everywhere(t, where, "row partition and matrix shape", partition_hash(p, H.ncols));
  DistDense d = make_dense(comm, p, H.ncols, H.type);
  const std::size_t es = size_of(H.type);
  agree(t, where, [&](int k) {
    const int r = t.local_ranks()[static_cast<std::size_t>(k)];
    gd::DenseStorage part = gd::make_dense(p.count(r), H.ncols, Layout::row_major, H.type, Device::cpu());
    auto* dst = part.data.as<unsigned char>();
    const auto* src = H.data.as<unsigned char>();
    if (H.layout == Layout::row_major) {
      for (Index i = p.begin(r); i < p.end(r); ++i)
        std::memcpy(dst + static_cast<std::size_t>((i - p.begin(r)) * H.ncols) * es,
                    src + static_cast<std::size_t>(i * H.ld) * es, static_cast<std::size_t>(H.ncols) * es);
    } else {
      for (Index i = p.begin(r); i < p.end(r); ++i)
        for (Index j = 0; j < H.ncols; ++j) {
        const Index s = j * H.ld + i;
          std::memcpy(dst + static_cast<std::size_t>((i - p.begin(r)) * H.ncols + j) * es, src + static_cast<std::size_t>(s) * es, es);
        }
    }
    const Device dev = t.device(r);
    d.parts[static_cast<std::size_t>(k)] = dev.is_cpu() ? std::move(part) : gd::to_device(part, dev);
  });
  return d;
}

}  // namespace geblas::dist::detail
