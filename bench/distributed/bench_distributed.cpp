// bench_distributed: one GPU against G GPUs of this node (one process) for the
// sparse x dense product (N = 64..512), a PageRank-style iteration (the product with
// N = 1 and the vector ops), algo::pagerank against dist::pagerank (per iteration of a
// whole call, and per marginal iteration: 2x minus 1x the iterations) and algo::bfs
// against dist::bfs (4 sources), on generated R-MAT and uniform graphs (bench/common). Each
// case reports the medians after warm-up, the speedup (single / distributed), and the
// bytes the row exchange and the all-gather move per product; the distributed result is
// checked against the single-GPU one on sampled rows (exact for max_times, the fp32
// bound for plus_times). Times are host wall-clock around each call with every GPU
// synchronised before and after (one GPU's CUDA events cannot time work spread over
// several); the single-GPU time is also given by CUDA events on its stream.
//
//   bench_distributed [--graphs=rmat:22:16,uniform:4194304:67108864] [--n=64,128,256,512]
//                     [--gpus=2] [--reps=5] [--budget-s=300] [--pagerank-iters=20]
//                     [--project=4,8,64] [--p2p=auto|nccl|peer[,...]] [--row-cost=0[,...]]
//                     [--bfs-detail=0|1]
// --p2p lists the point-to-point transfers of the distributed runs (CommOptions::
// point_to_point; default auto): every listed one gets its communicator and its rows,
// timed in turn within each repetition, so that one run compares NCCL's send / recv with
// peer copies; the last column names the communicator (nccl, nccl+peer).
// --row-cost lists Partition::balanced's row costs (default 0: nnz-balanced): each gets
// its own split of A, C and B, run beside the others (the last column names it). After
// each SpMM row, one more product per exchange is timed by phase on the devices
// (DistMxmOptions::timings: packing, owned product, transfers, wait, remote product).
// --project lists rank counts for which the rows each rank would receive are counted on
// the host (host transport, one product with N = 1, no GPU needed): the input of the
// extrapolation in docs/DISTRIBUTED.md; and, per rank, the share of its rows (and of
// their entries) whose columns it owns itself with B split like A. --bfs-detail=1 also
// times one BFS level's product alone (one GPU, distributed, and the latter by phase). A
// case whose single-GPU operands (A, or B and C of that width) do not fit runs on the
// GPUs alone (single_ms "oom", unchecked).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "geblas/distributed.hpp"
#include "geblas/geblas.hpp"
#include "graphs.hpp"
#include "results.hpp"

#if defined(GEBLAS_BENCH_CUDA_EVENTS)
#include <cuda_runtime.h>

#include "geblas/detail/spmm_variants.hpp"
#endif

using namespace geblas;
using Clock = std::chrono::steady_clock;

namespace {

// The columns of every result line; emit() prints a line and records it (--results FILE).
constexpr const char* RESULT_HEADER =
    "graph,op,N,single_ms,single_event_ms,dist_rows_ms,dist_allgather_ms,speedup_rows,speedup_allgather,"
    "rows_bytes,allgather_bytes,check,transport";
bench::Results* g_results = nullptr;

__attribute__((format(printf, 1, 2))) void emit(const char* fmt, ...) {
  char line[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(line, sizeof line, fmt, args);
  va_end(args);
  std::fputs(line, stdout);
  std::string text = line;
  if (!text.empty() && text.back() == '\n') text.pop_back();
  const auto fields = [](const std::string& csv) {  // empty fields kept: they are columns not measured
    std::vector<std::string> out(1);
    for (char ch : csv) {
      if (ch == ',') out.emplace_back();
      else out.back().push_back(ch);
    }
    return out;
  };
  const auto names = fields(RESULT_HEADER), values = fields(text);
  if (values.size() < 4) return;
  const bench::CaseKey key{{"graph", values.at(0)}, {"op", values.at(1)}, {"N", values.at(2)},
                           {"transport", values.back()}};
  for (std::size_t c = 3; c + 1 < values.size() && c < names.size(); ++c)
    if (!values[c].empty()) g_results->add_printed(key, names[c], values[c]);
}

struct Args {
  std::string graphs = "rmat:22:16,uniform:4194304:67108864";
  std::vector<Index> widths{64, 128, 256, 512};
  int gpus = 2, reps = 5, pagerank_iters = 20;
  std::vector<Index> project;
  std::vector<dist::PointToPoint> p2p{dist::PointToPoint::automatic};
  std::vector<Index> row_costs{0};  // Partition::balanced's row_cost, one run each
  double budget_s = 300;
  bool bfs_detail = false;
};

std::optional<std::vector<dist::PointToPoint>> parse_p2p(const std::string& s) {
  std::vector<dist::PointToPoint> out;
  for (const auto& x : bench::split(s, ',')) {
    if (x == "auto") out.push_back(dist::PointToPoint::automatic);
    else if (x == "nccl") out.push_back(dist::PointToPoint::nccl);
    else if (x == "peer") out.push_back(dist::PointToPoint::peer_copies);
    else return std::nullopt;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

void sync_all(int gpus) {
  for (int d = 0; d < gpus; ++d) synchronize(Device::cuda(d));
}

// Host wall-clock of `f` with every GPU idle before and after, in ms.
template <class F>
double wall_ms(int gpus, F&& f) {
  sync_all(gpus);
  const auto t0 = Clock::now();
  f();
  sync_all(gpus);
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// CUDA-event time of `f` on geblas's stream of GPU 0, in ms (NaN without CUDA events).
template <class F>
double event_ms(F&& f) {
#if defined(GEBLAS_BENCH_CUDA_EVENTS)
  auto s = static_cast<cudaStream_t>(geblas::detail::cuda_stream_handle(0));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a, s);
  f();
  cudaEventRecord(b, s);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms;
#else
  f();
  return NAN;
#endif
}

// Copies rows [b, e) of a row-major matrix on GPU 0 into a part on another device.
void copy_rows(detail::DenseStorage& dst, const detail::DenseStorage& src, Index b, Index e) {
  detail::copy_bytes(dst.data.data(), dst.device,
                     src.data.as<unsigned char>() + static_cast<std::size_t>(b * src.ncols) * size_of(src.type), src.device,
                     static_cast<std::size_t>((e - b) * src.ncols) * size_of(src.type));
}

dist::DistDenseMatrix<float> distribute(const dist::Communicator& comm, const dist::Partition& p, const DenseMatrix<float>& B) {
  dist::DistDenseMatrix<float> d(comm, p, B.ncols());
  for (std::size_t k = 0; k < comm.local_ranks().size(); ++k) {
    const int r = comm.local_ranks()[k];
    copy_rows(d.state().parts[k], B.storage(), p.begin(r), p.end(r));
  }
  return d;
}

// Compares sampled rows of the distributed result with the single-GPU one.
bool check(const dist::DistDenseMatrix<float>& C, const DenseMatrix<float>& R, bool exact, const char* what) {
  const Index n = R.nrows(), N = R.ncols();
  const Index step = std::max<Index>(1, n / 512);
  std::vector<float> a(static_cast<std::size_t>(N)), b(static_cast<std::size_t>(N));
  const auto& p = C.partition();
  std::size_t bad = 0;
  for (Index i = 0; i < n; i += step) {
    int r = 0;
    while (i >= p.end(r)) ++r;
    const auto& part = C.state().parts[static_cast<std::size_t>(r)];  // single process: every rank is local
    detail::copy_bytes(a.data(), Device::cpu(), part.data.as<float>() + (i - p.begin(r)) * N, part.device, a.size() * 4);
    detail::copy_bytes(b.data(), Device::cpu(), R.data() + i * N, R.device(), b.size() * 4);
    for (Index k = 0; k < N; ++k) {
      const float x = a[static_cast<std::size_t>(k)], y = b[static_cast<std::size_t>(k)];
      const bool ok = exact ? x == y : std::abs(x - y) <= 1e-4f * (1 + std::abs(y));
      if (!ok && bad++ < 3) std::printf("  CHECK FAILED %s: C(%lld,%lld) = %.9g, single GPU %.9g\n", what, static_cast<long long>(i),
                                        static_cast<long long>(k), x, y);
    }
  }
  return bad == 0;
}

// With B split like A (as the timed runs split it), the rows of each rank whose columns
// all lie in its own part, and their entries: the work a product could do before any
// row of B arrives. The rest of the rank's rows need the exchange first, so a product
// that writes each row of C once (no owned / remote split) can overlap the exchange with
// this share of the work only.
void print_owned_rows(const SparseMatrix<float>& H, const dist::Partition& split, const std::string& name) {
  const Index* ro = H.row_offsets_data();
  const ColIndex* ci = H.col_indices_data();
  std::printf("# projection %s p=%d: rows whose columns are all the rank's own (rows, entries), per rank:",
              name.c_str(), split.parts());
  for (int r = 0; r < split.parts(); ++r) {
    const Index b = split.begin(r), e = split.end(r);
    Index rows = 0, entries = 0;
    for (Index i = b; i < e; ++i) {
      bool own = true;
      for (Index k = ro[i]; k < ro[i + 1] && own; ++k) own = ci[k] >= b && ci[k] < e;
      if (own) ++rows, entries += ro[i + 1] - ro[i];
    }
    const Index all = ro[e] - ro[b];
    std::printf(" %.3f / %.3f", e > b ? double(rows) / double(e - b) : 0.0, all ? double(entries) / double(all) : 0.0);
  }
  std::printf("\n");
}

// A graph too large for one GPU: the distributed product alone, B generated per rank.
// There is no single-GPU result to check it against, so the line says "unchecked".
void run_dist_only(const dist::Communicator& comm, const dist::DistSparseMatrix<float>& dA, Index N, const Args& a,
                   const std::string& name, const std::string& label) {
  const auto& rows = dA.partition();
  dist::DistDenseMatrix<float> dB(comm, dist::Partition::even(dA.ncols(), comm.size()), N);
  for (std::size_t k = 0; k < comm.local_ranks().size(); ++k) {
    const int r = comm.local_ranks()[k];
    auto part = DenseMatrix<float>::random(dB.partition().count(r), N, comm.device(r), 7 + static_cast<std::uint64_t>(r));
    dB.state().parts[k] = std::move(part.storage());
  }
  dist::DistDenseMatrix<float> dC(comm, rows, N);
  std::vector<double> tr;
  dist::ExchangeStats st;
  for (int rep = 0; rep < a.reps + 2; ++rep) {
    const double t = wall_ms(a.gpus, [&] { st = dist::mxm(dC, dA, dB, semiring::plus_times<float>{}); });
    if (rep >= 2) tr.push_back(t);
  }
  emit("%s,spmm,%lld,oom,,%.3f,,,,%llu,,unchecked,%s\n", name.c_str(), static_cast<long long>(N), median(tr),
              static_cast<unsigned long long>(st.bytes_sent), label.c_str());
  std::fflush(stdout);
}

// The pattern of H' as 64-bit integer ones (what dist::bfs multiplies by), on the host.
SparseMatrix<std::int64_t> transpose_pattern(const SparseMatrix<float>& H) {
  const auto T = transposed(H);
  return SparseMatrix<std::int64_t>::from_csr(T.nrows(), T.ncols(), T.row_offsets(), T.col_indices(),
                                              std::vector<std::int64_t>(static_cast<std::size_t>(T.nvals()), 1));
}

std::vector<Index> parse_list(const std::string& s) {
  std::vector<Index> out;
  for (const auto& x : bench::split(s, ',')) out.push_back(std::stoll(x));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Results results("bench_distributed", argc, argv);
  g_results = &results;
  results.set_device(std::to_string(cuda_device_count()) + " x " + bench::gpu_name());
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto val = [&](const char* k) { return s.substr(std::strlen(k)); };
    if (s.rfind("--graphs=", 0) == 0) a.graphs = val("--graphs=");
    else if (s.rfind("--n=", 0) == 0) a.widths = parse_list(val("--n="));
    else if (s.rfind("--gpus=", 0) == 0) a.gpus = std::stoi(val("--gpus="));
    else if (s.rfind("--reps=", 0) == 0) a.reps = std::stoi(val("--reps="));
    else if (s.rfind("--budget-s=", 0) == 0) a.budget_s = std::stod(val("--budget-s="));
    else if (s.rfind("--project=", 0) == 0) a.project = parse_list(val("--project="));
    else if (s.rfind("--row-cost=", 0) == 0) a.row_costs = parse_list(val("--row-cost="));
    else if (s.rfind("--pagerank-iters=", 0) == 0) a.pagerank_iters = std::stoi(val("--pagerank-iters="));
    else if (s.rfind("--bfs-detail=", 0) == 0) a.bfs_detail = val("--bfs-detail=") == "1";
    else if (s.rfind("--p2p=", 0) == 0) {
      const auto p = parse_p2p(val("--p2p="));
      if (!p) {
        std::fprintf(stderr, "--p2p=%s: expected a list of auto, nccl, peer\n", val("--p2p=").c_str());
        return 2;
      }
      a.p2p = *p;
    } else {
      std::fprintf(stderr, "unknown argument %s (see the file's header)\n", s.c_str());
      return 2;
    }
  }
  const bool gpus_ok = dist::nccl_compiled() && cuda_device_count() >= a.gpus;
  if (!gpus_ok) {
    std::printf("SKIPPED%s: needs the NCCL transport and %d GPUs (NCCL %s, %d GPUs)\n",
                a.project.empty() ? "" : " (but the --project counts)", a.gpus,
                dist::nccl_compiled() ? "built" : "not built", cuda_device_count());
    if (a.project.empty()) return 0;
  }
  const auto t_start = Clock::now();
  auto over_budget = [&] { return std::chrono::duration<double>(Clock::now() - t_start).count() > a.budget_s; };
  std::vector<int> devs;
  for (int d = 0; d < a.gpus; ++d) devs.push_back(d);
  // one communicator per listed transport; an unavailable one (peer copies without peer
  // access) is reported and left out
  std::vector<dist::Communicator> comms;
  if (gpus_ok)
    for (dist::PointToPoint p : a.p2p) {
      try {
        comms.push_back(dist::Communicator::nccl(devs, {.point_to_point = p}));
      } catch (const InvalidValue& e) {
        std::printf("# SKIPPED a transport: %s\n", e.what());
      }
    }
  std::string names;
  for (const auto& c : comms) names += (names.empty() ? "" : ", ") + c.name();
  std::printf("# bench_distributed: 1 GPU vs %d GPUs (one process; exchanges: %s), reps %d, median ms\n", a.gpus,
              names.empty() ? "none" : names.c_str(), a.reps);
  std::printf("%s\n", RESULT_HEADER);
  int failures = 0;
  for (auto& g : bench::generated_graphs(a.graphs)) {
    if (over_budget()) { std::printf("# budget spent: %s not started\n", g.name.c_str()); break; }
    const auto& H = g.A;
    const Index n = H.nrows();
    std::printf("# %s: %lld x %lld, %lld entries\n", g.name.c_str(), static_cast<long long>(n), static_cast<long long>(H.ncols()),
                static_cast<long long>(H.nvals()));
    for (Index p : a.project) {
      const auto hc = dist::Communicator::host(static_cast<int>(p));
      auto hA = dist::DistSparseMatrix<float>::scatter(hc, H);
      auto hx = dist::DistDenseMatrix<float>(hc, dist::Partition::even(H.ncols(), static_cast<int>(p)), 1);
      dist::DistDenseMatrix<float> hy(hc, hA.partition(), 1);
      const auto st = dist::mxm(hy, hA, hx, semiring::plus_times<float>{});
      std::printf("# projection %s p=%lld: halo rows %llu in all (%.3f of (p-1) n), bytes per product at N=256: %.3e\n",
                  g.name.c_str(), static_cast<long long>(p), static_cast<unsigned long long>(st.halo_rows),
                  double(st.halo_rows) / (double(p - 1) * double(H.ncols())), double(st.halo_rows) * 256 * 4);
      print_owned_rows(H, hA.partition(), g.name);
    }
    if (comms.empty()) continue;
    // one configuration per (transport, row cost of the split); the last column names it
    std::vector<dist::DistSparseMatrix<float>> dAs;
    std::vector<const dist::Communicator*> cc;
    std::vector<std::string> label;
    const std::vector<Index> offsets = H.row_offsets();
    for (const auto& comm : comms)
      for (Index rc : a.row_costs) {
        const auto split = dist::Partition::balanced(offsets, comm.size(), rc);
        dAs.push_back(dist::DistSparseMatrix<float>::scatter(comm, H, split));
        cc.push_back(&comm);
        label.push_back(comm.name() + (a.row_costs.size() > 1 || rc != 0 ? " row_cost=" + std::to_string(rc) : ""));
        std::printf("# %s: rows per rank", label.back().c_str());
        for (int r = 0; r < split.parts(); ++r)
          std::printf(" %lld (%lld entries)", static_cast<long long>(split.count(r)),
                      static_cast<long long>(offsets[static_cast<std::size_t>(split.end(r))] -
                                             offsets[static_cast<std::size_t>(split.begin(r))]));
        std::printf("\n");
      }
    const std::size_t T = dAs.size();
    std::optional<SparseMatrix<float>> A1opt;
    try {
      A1opt = H.to(Device::cuda(0));
    } catch (const OutOfMemory&) {
      std::printf("# %s does not fit on one GPU: distributed runs only\n", g.name.c_str());
    }
    // every split on the GPUs alone, unchecked: the operands do not fit one GPU
    auto dist_only = [&](Index N) {
      for (std::size_t c = 0; c < T; ++c) {
        try {
          run_dist_only(*cc[c], dAs[c], N, a, g.name, label[c]);
        } catch (const OutOfMemory& e) {
          std::printf("# %s N=%lld SKIPPED: %s\n", g.name.c_str(), static_cast<long long>(N), e.what());
        }
      }
    };
    for (Index N : a.widths) {
      if (over_budget()) { std::printf("# budget spent: %s N=%lld not started\n", g.name.c_str(), static_cast<long long>(N)); break; }
      if (!A1opt) {
        dist_only(N);
        continue;
      }
      const auto& A1 = *A1opt;
      try {
        const auto B1 = DenseMatrix<float>::random(H.ncols(), N, Device::cuda(0), 7);
        DenseMatrix<float> C1(n, N, Device::cuda(0));
        std::vector<dist::DistDenseMatrix<float>> dBs, dCs;
        for (std::size_t c = 0; c < T; ++c) {
          dBs.push_back(distribute(*cc[c], dAs[c].partition(), B1));
          dCs.emplace_back(*cc[c], dAs[c].partition(), N);
        }
        std::vector<double> ts, te;
        std::vector<std::vector<double>> tr(T), tg(T);
        std::vector<dist::ExchangeStats> srows(T), sall(T);
        for (int rep = 0; rep < a.reps + 2; ++rep) {  // two warm-up runs: plans, pools, NCCL connections
          const double w = wall_ms(a.gpus, [&] { mxm(C1, A1, B1, semiring::plus_times<float>{}); });
          const double e = event_ms([&] { mxm(C1, A1, B1, semiring::plus_times<float>{}); });
          if (rep >= 2) {
            ts.push_back(w);
            te.push_back(e);
          }
          for (std::size_t c = 0; c < T; ++c) {  // the transports in turn, each after the same single-GPU run
            const double r =
                wall_ms(a.gpus, [&] { srows[c] = dist::mxm(dCs[c], dAs[c], dBs[c], semiring::plus_times<float>{}); });
            const double q = wall_ms(a.gpus, [&] {
              sall[c] = dist::mxm(dCs[c], dAs[c], dBs[c], semiring::plus_times<float>{},
                                  {.exchange = dist::Exchange::allgather});
            });
            if (rep >= 2) {
              tr[c].push_back(r);
              tg[c].push_back(q);
            }
          }
        }
        std::vector<bool> ok(T);
        for (std::size_t c = 0; c < T; ++c) ok[c] = check(dCs[c], C1, false, "plus_times");
        mxm(C1, A1, B1, semiring::max_times<float>{});
        for (std::size_t c = 0; c < T; ++c) {
          dist::mxm(dCs[c], dAs[c], dBs[c], semiring::max_times<float>{});
          ok[c] = check(dCs[c], C1, true, "max_times") && ok[c];
          failures += ok[c] ? 0 : 1;
          emit("%s,spmm,%lld,%.3f,%.3f,%.3f,%.3f,%.2f,%.2f,%llu,%llu,%s,%s\n", g.name.c_str(),
                      static_cast<long long>(N), median(ts), median(te), median(tr[c]), median(tg[c]),
                      median(ts) / median(tr[c]), median(ts) / median(tg[c]),
                      static_cast<unsigned long long>(srows[c].bytes_sent),
                      static_cast<unsigned long long>(sall[c].bytes_sent), ok[c] ? "ok" : "WRONG", label[c].c_str());
        }
        // where the time goes: one more product of each exchange, timed by phase on the devices
        for (std::size_t c = 0; c < T; ++c)
          for (const auto ex : {dist::Exchange::rows, dist::Exchange::allgather}) {
            const auto st =
                dist::mxm(dCs[c], dAs[c], dBs[c], semiring::plus_times<float>{}, {.exchange = ex, .timings = true});
            for (const auto& r : st.times)
              std::printf(
                  "# phases %s N=%lld %s %s rank %d: pack %.3f, owned product %.3f, transfers %.3f "
                  "(%.0f GB/s sent), waited %.3f, remote product %.3f ms\n",
                  g.name.c_str(), static_cast<long long>(N), ex == dist::Exchange::rows ? "rows" : "allgather",
                  label[c].c_str(), r.rank, r.pack_ms, r.local_ms, r.transfer_ms,
                  r.transfer_ms > 0 ? double(st.bytes_sent) / double(st.times.size()) / r.transfer_ms / 1e6 : 0.0,
                  r.wait_ms, r.remote_ms);
          }
        std::fflush(stdout);
      } catch (const OutOfMemory& e) {
        // A fits on one GPU but B and C of this width do not: the GPUs alone, from here on
        std::printf("# %s N=%lld: the single-GPU operands do not fit (%s): distributed runs only\n", g.name.c_str(),
                    static_cast<long long>(N), e.what());
        A1opt.reset();
        dist_only(N);
      }
    }
    if (over_budget() || a.pagerank_iters <= 0 || !A1opt) continue;
    const auto& A1 = *A1opt;
    // PageRank-style step: x = d * (A x) + (1 - d) / n, the product with N = 1 and two
    // vector ops per rank. A's values stand for the normalised link matrix (the work per
    // step is the same); d is divided by A's largest absolute row sum so that x stays
    // bounded (unscaled, it overflowed to inf within 20 steps and the check compared infs).
    double max_row_sum = 0;
    {
      const auto& S = H.storage();
      const Index* off = S.row_offsets.as<Index>();
      const float* v = S.values.as<float>();
      for (Index i = 0; i < S.nrows; ++i) {
        double sum = 0;
        for (Index e = off[i]; e < off[i + 1]; ++e) sum += std::abs(double(v[e]));
        max_row_sum = std::max(max_row_sum, sum);
      }
    }
    const float damping = static_cast<float>(0.85 / std::max(1.0, max_row_sum)), teleport = 0.15f / static_cast<float>(n);
    const DenseMatrix<float> x0 = DenseMatrix<float>::constant(n, 1, 1.0f / static_cast<float>(n), Device::cuda(0));
    DenseMatrix<float> x1 = DenseMatrix<float>::constant(n, 1, 1.0f / static_cast<float>(n), Device::cuda(0));
    DenseMatrix<float> y1(n, 1, Device::cuda(0));
    auto step1 = [&] {
      mxm(y1, A1, x1, semiring::plus_times<float>{});
      apply(y1, y1, binop::times<float>{}, damping);
      apply(x1, y1, binop::plus<float>{}, teleport);
    };
    step1();
    const double t1 = wall_ms(a.gpus, [&] { for (int it = 0; it < a.pagerank_iters; ++it) step1(); }) / a.pagerank_iters;
    for (std::size_t c = 0; c < T; ++c) {
      const auto& comm = *cc[c];
      auto dx = distribute(comm, dAs[c].partition(), x0);
      dist::DistDenseMatrix<float> dy(comm, dAs[c].partition(), 1);
      dist::ExchangeStats spr;
      auto stepd = [&] {
        spr = dist::mxm(dy, dAs[c], dx, semiring::plus_times<float>{});
        for (std::size_t k = 0; k < comm.local_ranks().size(); ++k) {
          DenseMatrix<float> y(std::move(dy.state().parts[k])), x(std::move(dx.state().parts[k]));
          apply(y, y, binop::times<float>{}, damping);
          apply(x, y, binop::plus<float>{}, teleport);
          dy.state().parts[k] = std::move(y.storage());
          dx.state().parts[k] = std::move(x.storage());
        }
      };
      stepd();
      auto steps = [&] {
        for (int it = 0; it < a.pagerank_iters; ++it) stepd();
      };
      const double td = wall_ms(a.gpus, steps) / a.pagerank_iters;
      const bool ok = check(dx, x1, false, "pagerank x");
      failures += ok ? 0 : 1;
      emit("%s,pagerank_step,1,%.3f,,%.3f,,%.2f,,%llu,,%s,%s\n", g.name.c_str(), t1, td, t1 / td,
                  static_cast<unsigned long long>(spr.bytes_sent), ok ? "ok" : "WRONG", label[c].c_str());
    }
    // The whole algorithm: algo::pagerank (one fused pass per iteration on one GPU) against
    // dist::pagerank, both for a fixed number of iterations (tolerance 0), per iteration.
    if (!over_budget()) {
      algo::PageRankOptions po;
      po.tolerance = 0;
      po.max_iterations = a.pagerank_iters;
      dist::PageRankOptions pd{po.damping, 0.0, a.pagerank_iters};
      algo::pagerank(A1, po);  // warm-up: A', degrees, plans
      for (const auto& dA : dAs) dist::pagerank(dA, pd);
      algo::PageRankResult<float> r1;
      const double p1 = wall_ms(a.gpus, [&] { r1 = algo::pagerank(A1, po); }) / a.pagerank_iters;
      const auto ref = r1.ranks.to(Device::cpu()).to_std_vector();
      std::vector<bool> pok(T);
      for (std::size_t c = 0; c < T; ++c) {
        std::optional<dist::PageRankResult<float>> rd;
        const double pdms = wall_ms(a.gpus, [&] { rd = dist::pagerank(dAs[c], pd); }) / a.pagerank_iters;
        const auto got = rd->ranks.gather().to_row_major();
        double err = 0;
        for (std::size_t i = 0; i < ref.size(); ++i) err = std::max(err, std::abs(double(ref[i]) - double(got[i])));
        pok[c] = err < 1e-5;
        failures += pok[c] ? 0 : 1;
        emit("%s,pagerank,1,%.3f,,%.3f,,%.2f,,,,%s (max abs diff %.2e),%s\n", g.name.c_str(), p1, pdms,
                    p1 / pdms, pok[c] ? "ok" : "WRONG", err, label[c].c_str());
      }
      // Per iteration without the set-up and the final normalisation of a call: the
      // difference between runs of 2 x and 1 x the iterations, divided by the
      // iterations (median of the reps).
      algo::PageRankOptions po2 = po;
      po2.max_iterations = 2 * a.pagerank_iters;
      dist::PageRankOptions pd2 = pd;
      pd2.max_iterations = 2 * a.pagerank_iters;
      std::vector<double> m1;
      std::vector<std::vector<double>> md(T);
      for (int rep = 0; rep < std::max(1, a.reps / 2) && !over_budget(); ++rep) {
        const double s1 = wall_ms(a.gpus, [&] { algo::pagerank(A1, po); });
        const double l1 = wall_ms(a.gpus, [&] { algo::pagerank(A1, po2); });
        m1.push_back((l1 - s1) / a.pagerank_iters);
        for (std::size_t c = 0; c < T; ++c) {
          const double sd = wall_ms(a.gpus, [&] { dist::pagerank(dAs[c], pd); });
          const double ld = wall_ms(a.gpus, [&] { dist::pagerank(dAs[c], pd2); });
          md[c].push_back((ld - sd) / a.pagerank_iters);
        }
      }
      if (!m1.empty())
        for (std::size_t c = 0; c < T; ++c)
          emit("%s,pagerank_iteration,1,%.3f,,%.3f,,%.2f,,,,%s,%s\n", g.name.c_str(), median(m1), median(md[c]),
                      median(m1) / median(md[c]), pok[c] ? "ok" : "WRONG", label[c].c_str());
    }
    // BFS from 4 sources: algo::bfs (the direction-optimising traversal, one per source)
    // against dist::bfs (one min.second product with N = 4 per level); exact check.
    if (!over_budget()) {
      const std::vector<Index> sources{0, n / 3, n / 2, n - 1};
      auto b1 = algo::bfs(A1, sources);
      for (const auto& dA : dAs) dist::bfs(dA, sources);  // warm-up: A' as a pattern, the exchange plans
      const double t1b = wall_ms(a.gpus, [&] { b1 = algo::bfs(A1, sources); });
      const auto lev1 = b1.levels.to_row_major(), par1 = b1.parents.to_row_major();
      for (std::size_t c = 0; c < T; ++c) {
        std::optional<dist::BfsResult> rb;
        const double tdb = wall_ms(a.gpus, [&] { rb = dist::bfs(dAs[c], sources); });
        const bool bok = lev1 == rb->levels.gather().to_row_major() && par1 == rb->parents.gather().to_row_major();
        failures += bok ? 0 : 1;
        emit("%s,bfs,%zu,%.3f,,%.3f,,%.2f,,,,%s (depth %d),%s\n", g.name.c_str(), sources.size(), t1b, tdb,
                    t1b / tdb, bok ? "ok" : "WRONG", rb->depth, label[c].c_str());
      }
      // --bfs-detail: one level's product alone (Y = A' min.second F, N = 4, int64, the
      // sources as the frontier) on one GPU and distributed, the latter by phase
      if (a.bfs_detail) {
        const auto HT = transpose_pattern(H);
        const auto T1 = HT.to(Device::cuda(0));
        std::vector<std::int64_t> f(static_cast<std::size_t>(n) * sources.size(),
                                    std::numeric_limits<std::int64_t>::max());
        for (std::size_t c = 0; c < sources.size(); ++c)
          f[static_cast<std::size_t>(sources[c]) * sources.size() + c] = sources[c];
        const auto F = DenseMatrix<std::int64_t>::from_row_major(n, static_cast<Index>(sources.size()), f);
        const auto F1 = F.to(Device::cuda(0));
        DenseMatrix<std::int64_t> Y1(n, static_cast<Index>(sources.size()), Device::cuda(0));
        std::vector<double> ts;
        for (int rep = 0; rep < a.reps + 2; ++rep)
          ts.push_back(wall_ms(a.gpus, [&] { mxm(Y1, T1, F1, semiring::min_second<std::int64_t>{}); }));
        const auto rec = last_dispatch();
        std::printf("# bfs product %s: one GPU %.3f ms (%s: %s)\n", g.name.c_str(), median(ts), rec.variant.c_str(),
                    rec.reason.c_str());
        for (std::size_t c = 0; c < T; ++c) {
          const auto dT = dist::DistSparseMatrix<std::int64_t>::scatter(*cc[c], HT, dAs[c].partition());
          const auto dF = dist::DistDenseMatrix<std::int64_t>::scatter(*cc[c], F, dAs[c].partition());
          dist::DistDenseMatrix<std::int64_t> dY(*cc[c], dAs[c].partition(), static_cast<Index>(sources.size()));
          std::vector<double> td;
          for (int rep = 0; rep < a.reps + 2; ++rep)
            td.push_back(wall_ms(a.gpus, [&] { dist::mxm(dY, dT, dF, semiring::min_second<std::int64_t>{}); }));
          std::printf("# bfs product %s %s: distributed %.3f ms\n", g.name.c_str(), label[c].c_str(), median(td));
          const auto st = dist::mxm(dY, dT, dF, semiring::min_second<std::int64_t>{}, {.timings = true});
          for (const auto& r : st.times)
            std::printf(
                "# bfs product phases %s rank %d: pack %.3f, owned product %.3f, transfers %.3f, waited %.3f, "
                "remote product %.3f ms\n",
                label[c].c_str(), r.rank, r.pack_ms, r.local_ms, r.transfer_ms, r.wait_ms, r.remote_ms);
        }
      }
    }
    std::fflush(stdout);
  }
  std::printf("# done: %d case(s) with wrong results\n", failures);
  return failures ? 1 : 0;
}
