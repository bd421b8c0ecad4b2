// bench_spmm: times geblas's CUDA SpMM (the dispatcher and every registered variant)
// against cusparseSpMM (CSR, row-major B and C, fp32; ALG_DEFAULT, CSR_ALG1/2/3) on the
// same device buffers in one process, on the shared graphs and on seeded R-MAT and
// uniform graphs (bench/common/graphs.hpp, shared with bench_algorithms). Each timing is
// the median of >= 20 timed samples after warm-up, taken with CUDA events on geblas's
// own stream; a sample times a batch of back-to-back calls (enough for ~0.3 ms) and
// reports the time per call, so tiny graphs measure each library's fixed per-call cost
// too. Beside it, "geblas:auto-single" times the public mxm one call per sample (host
// wall clock from the call to the end of a stream synchronisation: what a user sees), and
// "cusparse:ALG-single" each cuSPARSE algorithm the same way; the summary's one-call
// column compares the two.
// Every result is checked (plus_times against cuSPARSE's default algorithm, or the CPU
// when cuSPARSE refuses; max_times and min_plus against geblas on the CPU); outputs over
// 5e7 entries are checked on 65536 sampled rows. Prints CSV, then the summary
// PERFORMANCE.md quotes, the memory-floor table and the per-call host overhead.
//
// Memory floor of a case (column floor_ms): (bytes of A as geblas stores it + the B rows
// read + C written) / the device's copy bandwidth, measured once per run (1 GiB D2D
// cudaMemcpy, read + write counted). B rows read: every distinct column's row once when
// B fits in L2, else one row per entry of A (a gather from HBM per entry: the floor of an
// SpMM without reuse, which is what a uniform random graph allows).
// --type=float16|bfloat16 times the 16-bit path instead (bench_16bit below: geblas and
// cuSPARSE on 16-bit matrices with fp32 compute, and geblas fp32 for the ratio).
//
//   bench_spmm [--graphs=all|none|a,b] [--synthetic=none|uniform:ROWS:NNZ,rmat:SCALE:EF,powerlaw:ROWS:NNZ:MAX_ROW,...]
//              [--n=32,64,128,256,512] [--reps=20] [--min-nnz=0] [--variants=1]
//              [--semirings=1] [--single=1] [--overhead=1] [--budget-s=0 (none)]
//              [--csv=FILE] [--type=float32|float16|bfloat16]
//              [--profile=1] [--only=variant,variant,...] [--reorder=0|1|both|scrambled]
// --profile=1 runs each timed implementation once more between cudaProfilerStart and
// cudaProfilerStop, so that `ncu --profile-from-start off` sees exactly one call of each,
// in the order of the CSV rows; --only limits the geblas variants timed (and profiled).
// --reorder renames each square graph's vertices by algo::locality_order (reverse
// Cuthill-McKee) first, as NAME+rcm; "both" keeps each graph as read beside it;
// "scrambled" times each as read, with its ids permuted at random (NAME+scrambled), and
// that renamed by the order (NAME+scrambled+rcm).
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "cusparse_ref.hpp"
#include "geblas/detail/spmm_variants.hpp"
#include "geblas/geblas.hpp"
#include "graphs.hpp"
#include "launch_floor.hpp"
#include "results.hpp"

#define CHECK_CUDA(x)                                                                       \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                         \
    }                                                                                       \
  } while (0)

using namespace geblas;

namespace {

struct Args {
  std::string graphs = "all";
  // rmat:22:16 last, so that the others keep the seeds they have always had
  std::string synthetic = "uniform:1000000:16000000,rmat:20:16,uniform:100000:1000000,rmat:16:8,rmat:22:16";
  std::vector<Index> ns = {32, 64, 128, 256, 512};
  int reps = 20;
  Index min_nnz = 0;
  bool variants = true;
  bool semirings = true;
  bool single = true;    // the geblas:auto-single column
  bool overhead = true;  // the per-call host overhead section
  double budget_s = 0;   // > 0: no new (graph, N) case starts after this many seconds
  std::string csv;
  std::string type = "float32";  // float16 / bfloat16: the 16-bit path (bench_16bit)
  bool profile = false;          // one extra call per implementation inside a profiler range
  std::vector<std::string> only;  // geblas variants to time (empty: every variant)
  std::string reorder = "0";      // 1: renamed by algo::locality_order; both: as read and renamed; scrambled (see the header)
};

using bench::split;

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto val = [&](const char* key) -> const char* {
      const std::string k = std::string("--") + key + "=";
      return s.rfind(k, 0) == 0 ? argv[i] + k.size() : nullptr;
    };
    if (auto v = val("graphs")) a.graphs = v;
    else if (auto v = val("synthetic")) a.synthetic = v;
    else if (auto v = val("n")) { a.ns.clear(); for (auto& x : split(v, ',')) a.ns.push_back(std::stoll(x)); }
    else if (auto v = val("reps")) a.reps = std::max(20, std::atoi(v));
    else if (auto v = val("min-nnz")) a.min_nnz = std::stoll(v);
    else if (auto v = val("variants")) a.variants = std::atoi(v) != 0;
    else if (auto v = val("semirings")) a.semirings = std::atoi(v) != 0;
    else if (auto v = val("single")) a.single = std::atoi(v) != 0;
    else if (auto v = val("overhead")) a.overhead = std::atoi(v) != 0;
    else if (auto v = val("budget-s")) a.budget_s = std::atof(v);
    else if (auto v = val("csv")) a.csv = v;
    else if (auto v = val("type")) a.type = v;
    else if (auto v = val("profile")) a.profile = std::atoi(v) != 0;
    else if (auto v = val("only")) a.only = split(v, ',');
    else if (auto v = val("reorder")) a.reorder = v;
    else { std::fprintf(stderr, "unknown argument %s (see the file header)\n", argv[i]); std::exit(2); }
  }
  if (a.reorder != "0" && a.reorder != "1" && a.reorder != "both" && a.reorder != "scrambled") {
    std::fprintf(stderr, "--reorder=%s: expected 0, 1, both or scrambled\n", a.reorder.c_str());
    std::exit(2);
  }
  if (a.type != "float32" && a.type != "float16" && a.type != "bfloat16") {
    std::fprintf(stderr, "--type=%s: expected float32, float16 or bfloat16\n", a.type.c_str());
    std::exit(2);
  }
  return a;
}

struct Graph {
  std::string name;
  bool shared = false;  // one of the shared graphs (the targets are stated over these)
  SparseMatrix<float> host;
};

Graph rmat_graph(int scale, int edge_factor, std::uint64_t seed) {
  return {"rmat-" + std::to_string(scale) + "-" + std::to_string(edge_factor), false, bench::rmat_csr(scale, edge_factor, seed)};
}

// One call of `call` inside a profiler range (ncu --profile-from-start off), after the
// timed calls, so that the profile sees a warm call with caches and plans in place.
void profiled(const std::function<void()>& call, cudaStream_t stream) {
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaProfilerStart());
  call();
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaProfilerStop());
}

// Median milliseconds per call of `call`, queued on `stream`.
double time_ms(const std::function<void()>& call, cudaStream_t stream, int reps) {
  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));
  for (int w = 0; w < 3; ++w) call();
  CHECK_CUDA(cudaStreamSynchronize(stream));
  // batch: enough calls for ~0.3 ms per sample, from one timed call
  CHECK_CUDA(cudaEventRecord(e0, stream));
  call();
  CHECK_CUDA(cudaEventRecord(e1, stream));
  CHECK_CUDA(cudaEventSynchronize(e1));
  float one = 0;
  CHECK_CUDA(cudaEventElapsedTime(&one, e0, e1));
  const int batch = std::clamp(static_cast<int>(0.3 / std::max(one, 1e-4f)), 1, 200);
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    CHECK_CUDA(cudaEventRecord(e0, stream));
    for (int b = 0; b < batch; ++b) call();
    CHECK_CUDA(cudaEventRecord(e1, stream));
    CHECK_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    samples.push_back(ms / batch);
  }
  CHECK_CUDA(cudaEventDestroy(e0));
  CHECK_CUDA(cudaEventDestroy(e1));
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

// Normwise relative error ||got - want|| / ||want|| (infinities must match exactly;
// a NaN fails), so that cancellation in one entry of a stiffness matrix is not noise.
double max_rel_diff(const std::vector<float>& got, const std::vector<float>& want) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double w = want[i], g = got[i];
    if (std::isinf(w) || std::isinf(g)) {
      if (g != w) return INFINITY;
      continue;
    }
    if (std::isnan(g) || std::isnan(w)) return INFINITY;
    num += (g - w) * (g - w);
    den += w * w;
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

struct Row {
  std::string graph;
  bool shared;
  Index rows, nnz, n;
  std::string impl;  // geblas:auto, geblas:<variant>, cusparse:<alg>, geblas-max_times:auto, ...
  std::string chosen;  // the dispatcher's pick for geblas:auto
  double ms;  // < 0: refused / not run
  double err;
  double floor_ms = -1;  // the case's memory floor (float32 path), see the file header
};

bench::Results* g_results = nullptr;  // --results FILE (bench/common/results.hpp)

void record(const Row& r, const char* type) {
  const bench::CaseKey key{{"graph", r.graph}, {"N", std::to_string(r.n)}, {"type", type}, {"impl", r.impl}};
  g_results->add(key, {{"nnz", double(r.nnz)}});
  if (r.ms >= 0) g_results->add(key, {{"ms_per_call", r.ms}}, "ms");
  g_results->add(key, {{"max_rel_err", r.err}});
  if (!r.chosen.empty()) g_results->add_text(key, "chosen", r.chosen);
}

// Rows of C (row-major, leading dimension ld) copied to the host: every row when C has at
// most 5e7 entries, else 65536 rows at a fixed stride (one cudaMemcpy2D), so that the
// largest generated cases are checked without copying gigabytes per variant.
Index sample_stride(Index m, Index n) { return m * n <= Index{50000000} ? 1 : std::max<Index>(1, m / 65536); }

std::vector<float> sampled_rows(const float* C, Index m, Index n, Index ld) {
  const Index stride = sample_stride(m, n);
  const Index count = (m + stride - 1) / stride;
  std::vector<float> out(static_cast<std::size_t>(count * n));
  // geblas computes on its own stream, which need not order with the legacy one
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy2D(out.data(), static_cast<std::size_t>(n) * sizeof(float), C,
                          static_cast<std::size_t>(stride * ld) * sizeof(float), static_cast<std::size_t>(n) * sizeof(float),
                          static_cast<std::size_t>(count), cudaMemcpyDeviceToHost));
  return out;
}

// The same rows of a full row-major host result.
std::vector<float> sampled_rows(const std::vector<float>& full, Index m, Index n) {
  const Index stride = sample_stride(m, n);
  std::vector<float> out;
  for (Index i = 0; i < m; i += stride) out.insert(out.end(), full.begin() + i * n, full.begin() + (i + 1) * n);
  return out;
}

// Median wall milliseconds of one call followed by a stream synchronisation, each sample
// one call with the GPU idle before it: the latency a user of the public mxm sees.
double single_call_ms(const std::function<void()>& call, cudaStream_t stream, int reps) {
  for (int w = 0; w < 3; ++w) call();
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

const char* alg_name(cusparseSpMMAlg_t a) {
  switch (a) {
    case CUSPARSE_SPMM_ALG_DEFAULT: return "default";
    case CUSPARSE_SPMM_CSR_ALG1: return "csr_alg1";
    case CUSPARSE_SPMM_CSR_ALG2: return "csr_alg2";
    case CUSPARSE_SPMM_CSR_ALG3: return "csr_alg3";
    default: return "?";
  }
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return NAN;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

// --- --type=float16 | bfloat16 ----------------------------------------------------------
// A, B and C in the 16-bit type (the graph's values and B rounded once on the host);
// geblas's 16-bit path (the dispatcher and every variant that computes the type) against
// cusparseSpMM on the same device buffers with CUDA_R_16F / CUDA_R_16BF matrices and
// CUDA_R_32F compute (every CSR algorithm; a refusal is a row), and geblas's fp32 time on
// the same rounded values (the ratio the issue asks for). Every 16-bit result is checked
// against geblas fp32 on those values: normwise relative error at most 2 units of the
// 16-bit type's rounding (2^-10 half, 2^-7 bfloat16), else "# WRONG RESULT".
template <class H>
int bench_16bit(const Args& args, std::vector<Graph>& graphs, cusparseHandle_t handle, cudaStream_t stream) {
  const Device gpu = Device::cuda(0);
  const char* tname = std::is_same_v<H, geblas::half> ? "float16" : "bfloat16";
  const cudaDataType ctype = std::is_same_v<H, geblas::half> ? CUDA_R_16F : CUDA_R_16BF;
  const double tol = std::is_same_v<H, geblas::half> ? 0x1p-10 : 0x1p-7;
  const auto widen = [](const std::vector<H>& v) {
    std::vector<float> f(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) f[i] = static_cast<float>(v[i]);
    return f;
  };
  const auto to16 = [](const float* p, std::size_t count) {
    std::vector<H> h(count);
    for (std::size_t i = 0; i < count; ++i) h[i] = H(p[i]);
    return h;
  };
  const std::vector<std::string> variants = detail::cuda_spmm_variant_names();
  std::vector<Row> rows;
  std::FILE* csv = args.csv.empty() ? nullptr : std::fopen(args.csv.c_str(), "w");
  const char* header = "graph,shared,rows,nnz,N,impl,chosen,ms_per_call,max_rel_err\n";
  std::printf("# type %s: impl geblas:auto is fp32 on the rounded values; geblas-%s:* and cusparse-%s:* the 16-bit paths\n",
              tname, tname, tname);
  std::printf("%s", header);
  if (csv) std::fputs(header, csv);
  auto emit = [&](const Row& r) {
    char line[512];
    std::snprintf(line, sizeof line, "%s,%d,%lld,%lld,%lld,%s,%s,%.5f,%.2e\n", r.graph.c_str(), r.shared ? 1 : 0,
                  static_cast<long long>(r.rows), static_cast<long long>(r.nnz), static_cast<long long>(r.n),
                  r.impl.c_str(), r.chosen.c_str(), r.ms, r.err);
    std::fputs(line, stdout);
    std::fflush(stdout);
    if (csv) {
      std::fputs(line, csv);
      std::fflush(csv);  // a run cut by a device call's time cap keeps every row printed
    }
    record(r, tname);
    rows.push_back(r);
  };
  for (auto& g : graphs) {
    const Index m = g.host.nrows(), k = g.host.ncols(), nnz = g.host.nvals();
    const std::vector<Index> ro(g.host.row_offsets_data(), g.host.row_offsets_data() + m + 1);
    const std::vector<ColIndex> ci(g.host.col_indices_data(), g.host.col_indices_data() + nnz);
    const std::vector<H> av16 = to16(g.host.values_data(), static_cast<std::size_t>(nnz));
    const SparseMatrix<H> A = SparseMatrix<H>::from_csr(m, k, ro, ci, av16).to(gpu);
    const SparseMatrix<float> Af = SparseMatrix<float>::from_csr(m, k, ro, ci, widen(av16)).to(gpu);
    std::vector<std::int32_t> ro32(ro.begin(), ro.end());
    std::int32_t* d_ro32 = nullptr;
    CHECK_CUDA(cudaMalloc(&d_ro32, ro32.size() * sizeof(std::int32_t)));
    CHECK_CUDA(cudaMemcpy(d_ro32, ro32.data(), ro32.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    for (Index n : args.ns) {
      const std::vector<float> b32 = DenseMatrix<float>::random(k, n, Device::cpu(), 7 + static_cast<std::uint64_t>(n)).to_row_major();
      const std::vector<H> b16 = to16(b32.data(), b32.size());
      const DenseMatrix<H> B = DenseMatrix<H>::from_row_major(k, n, b16, gpu);
      const DenseMatrix<float> Bf = DenseMatrix<float>::from_row_major(k, n, widen(b16), gpu);
      DenseMatrix<H> C(m, n, gpu);
      DenseMatrix<float> Cf(m, n, gpu);
      Row base{g.name, g.shared, m, nnz, n, "", "", -1, 0};

      // geblas fp32 on the rounded values: the reference and the baseline time
      Row rf = base;
      rf.impl = "geblas:auto";
      mxm(Cf, Af, Bf, semiring::plus_times<float>{});
      rf.chosen = last_dispatch().variant;
      const std::vector<float> reference = Cf.to_row_major();
      rf.ms = time_ms([&] { mxm(Cf, Af, Bf, semiring::plus_times<float>{}); }, stream, args.reps);
      emit(rf);

      // cuSPARSE, 16-bit matrices, fp32 compute
      cusparseSpMatDescr_t matA;
      cusparseDnMatDescr_t matB, matC;
      cusparseCreateCsr(&matA, m, k, nnz, d_ro32, const_cast<ColIndex*>(A.col_indices_data()),
                        const_cast<H*>(A.values_data()), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, ctype);
      cusparseCreateDnMat(&matB, k, n, n, const_cast<H*>(B.data()), ctype, CUSPARSE_ORDER_ROW);
      cusparseCreateDnMat(&matC, m, n, n, C.data(), ctype, CUSPARSE_ORDER_ROW);
      const float alpha = 1, beta = 0;
      for (auto alg : {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG1, CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_CSR_ALG3}) {
        Row r = base;
        r.impl = std::string("cusparse-") + tname + ":" + alg_name(alg);
        std::size_t bytes = 0;
        void* buffer = nullptr;
        cusparseStatus_t st = cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                      CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, matB, &beta,
                                                      matC, CUDA_R_32F, alg, &bytes);
        if (st == CUSPARSE_STATUS_SUCCESS) CHECK_CUDA(cudaMalloc(&buffer, std::max<std::size_t>(bytes, 16)));
        if (st == CUSPARSE_STATUS_SUCCESS && alg == CUSPARSE_SPMM_CSR_ALG3)
          st = cusparseSpMM_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                       &alpha, matA, matB, &beta, matC, CUDA_R_32F, alg, buffer);
        if (st == CUSPARSE_STATUS_SUCCESS)
          st = cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA,
                            matB, &beta, matC, CUDA_R_32F, alg, buffer);
        if (st != CUSPARSE_STATUS_SUCCESS) {
          r.chosen = std::string("refused: ") + cusparseGetErrorString(st);
          emit(r);
          if (buffer) cudaFree(buffer);
          continue;
        }
        CHECK_CUDA(cudaStreamSynchronize(stream));
        r.err = max_rel_diff(widen(C.to_row_major()), reference);
        if (r.err > tol) std::printf("# WARNING: cuSPARSE %s differs from geblas fp32 on %s N=%lld: %.2e\n", r.impl.c_str(), g.name.c_str(), static_cast<long long>(n), r.err);
        const auto cus_call = [&] {
          cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, matB,
                       &beta, matC, CUDA_R_32F, alg, buffer);
        };
        r.ms = time_ms(cus_call, stream, args.reps);
        if (args.profile) profiled(cus_call, stream);
        emit(r);
        cudaFree(buffer);
      }
      cusparseDestroySpMat(matA);
      cusparseDestroyDnMat(matB);
      cusparseDestroyDnMat(matC);

      // geblas 16-bit: the dispatcher, then each variant (refusals are rows too)
      std::vector<std::string> impls = {""};
      if (args.variants) impls.insert(impls.end(), variants.begin(), variants.end());
      for (const auto& v : impls) {
        Row r = base;
        r.impl = std::string("geblas-") + tname + ":" + (v.empty() ? std::string("auto") : v);
        const auto call = [&] { detail::mxm(C.storage(), A.storage(), B.storage(), SemiringId::plus_times, {.variant = v}); };
        try {
          call();
        } catch (const InvalidValue&) {
          r.chosen = "refused";
          emit(r);
          continue;
        }
        r.chosen = last_dispatch().variant;
        r.err = max_rel_diff(widen(C.to_row_major()), reference);
        r.ms = time_ms(call, stream, args.reps);
        if (m * n <= Index{50000000}) r.err = std::max(r.err, max_rel_diff(widen(C.to_row_major()), reference));
        if (r.err > tol) std::printf("# WRONG RESULT: %s %s N=%lld err %.2e\n", r.impl.c_str(), g.name.c_str(), static_cast<long long>(n), r.err);
        emit(r);
      }
    }
    cudaFree(d_ro32);
  }
  if (csv) std::fclose(csv);

  // ratios > 1: geblas 16-bit faster
  struct Case { double auto16 = -1, fp32 = -1, def = -1, best = -1, best_variant = -1; std::string best_alg, best_name; };
  std::map<std::pair<std::string, Index>, Case> cases;
  std::map<std::string, bool> shared_of;
  std::map<std::string, Index> nnz_of;
  const std::string g16 = std::string("geblas-") + tname + ":", c16 = std::string("cusparse-") + tname + ":";
  for (const auto& r : rows) {
    Case& c = cases[{r.graph, r.n}];
    shared_of[r.graph] = r.shared;
    nnz_of[r.graph] = r.nnz;
    if (r.ms < 0) continue;
    if (r.impl == "geblas:auto") c.fp32 = r.ms;
    else if (r.impl == g16 + "auto") c.auto16 = r.ms;
    else if (r.impl.rfind(c16, 0) == 0) {
      if (r.impl == c16 + "default") c.def = r.ms;
      if (c.best < 0 || r.ms < c.best) { c.best = r.ms; c.best_alg = r.impl.substr(c16.size()); }
    } else if (r.impl.rfind(g16, 0) == 0 && (c.best_variant < 0 || r.ms < c.best_variant)) {
      c.best_variant = r.ms;
      c.best_name = r.impl.substr(g16.size());
    }
  }
  for (int group = 0; group < 2; ++group) {
    std::printf("\n## summary (%s): %s\n", tname, group == 0 ? "shared graphs with >= 100k nonzeros" : "generated graphs (R-MAT, uniform)");
    std::printf("| N | cases | geomean vs cuSPARSE %s default | geomean vs best cuSPARSE %s | worst vs best cuSPARSE %s (graph) | geomean vs geblas fp32 | auto vs best geblas %s variant (geomean) |\n",
                tname, tname, tname, tname);
    std::printf("|---|---|---|---|---|---|---|\n");
    for (Index n : args.ns) {
      std::vector<double> vd, vb, vf, va;
      double worst = INFINITY;
      std::string worst_g;
      for (const auto& [key, c] : cases) {
        if (key.second != n || c.auto16 <= 0) continue;
        const bool shared = shared_of[key.first];
        if (group == 0 && !(shared && nnz_of[key.first] >= 100000)) continue;
        if (group == 1 && shared) continue;
        if (c.def > 0) vd.push_back(c.def / c.auto16);
        if (c.best > 0) {
          vb.push_back(c.best / c.auto16);
          if (c.best / c.auto16 < worst) { worst = c.best / c.auto16; worst_g = key.first; }
        }
        if (c.fp32 > 0) vf.push_back(c.fp32 / c.auto16);
        if (c.best_variant > 0) va.push_back(c.auto16 / c.best_variant);
      }
      std::printf("| %lld | %zu | %.2fx | %.2fx | %.2fx (%s) | %.2fx | %.3f |\n", static_cast<long long>(n), vb.size(),
                  geomean(vd), geomean(vb), worst, worst_g.c_str(), geomean(vf), geomean(va));
    }
  }
  std::printf("\n## per case (%s, ms): geblas 16-bit auto, best variant, best cuSPARSE, geblas fp32\n", tname);
  for (const auto& [key, c] : cases)
    if (c.auto16 > 0)
      std::printf("%s N=%lld: auto %.4f, best variant %s %.4f, best cuSPARSE %s %.4f, fp32 %.4f\n", key.first.c_str(),
                  static_cast<long long>(key.second), c.auto16, c.best_name.c_str(), c.best_variant, c.best_alg.c_str(),
                  c.best, c.fp32);
  return 0;
}

// Per-call host overhead of the public mxm (validation, dispatch, launch; issue 12's
// target is <= 3 us) on a tiny generated graph and the smallest loaded one:
//   host, GPU idle: the time the call takes on the host, the stream synchronised before
//     it (so no queue back-pressure) and after it (median of 2000);
//   forced: the same with Options::variant naming the variant the dispatcher picked, so
//     that the difference is the dispatcher's own cost;
//   back-to-back: 2000 calls queued without synchronising, wall time / 2000: the rate a
//     loop of calls reaches (host-bound when it exceeds the kernel time);
//   GPU per call: CUDA events around batches (time_ms), the device's side.
// Above the table, the floor: one empty kernel queued by each way of launching one
// (launch_floor.cu), timed the same way. A call that
// synchronises inside shows up as host time near the GPU time.
struct HostTimes {
  double median = 0, p90 = 0;
};

template <class F>
HostTimes host_times(F&& call, cudaStream_t stream) {
  for (int w = 0; w < 20; ++w) call();
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<double> host;
  for (int r = 0; r < 2000; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    host.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    CHECK_CUDA(cudaStreamSynchronize(stream));
  }
  std::sort(host.begin(), host.end());
  return {host[host.size() / 2], host[host.size() * 9 / 10]};
}

void host_overhead(const Args& args, const std::vector<Graph>& graphs, cudaStream_t stream) {
  const Device gpu = Device::cuda(0);
  std::vector<Graph> small;
  small.push_back(rmat_graph(8, 8, 7));
  small.back().name = "rmat-8-8 (tiny)";
  const Graph* smallest = nullptr;
  for (const auto& g : graphs)
    if (!smallest || g.host.nvals() < smallest->host.nvals()) smallest = &g;
  std::printf("\n## per-call host overhead of the public mxm (target <= 3 us)\n");
  // Each way three times, interleaved, so that a drift of the host's clock or load does
  // not favour the way measured first; the best of the three medians is printed.
  std::map<LaunchWay, HostTimes> floor;
  for (int round = 0; round < 3; ++round)
    for (LaunchWay way : launch_ways) {
      const HostTimes t = host_times([&] { CHECK_CUDA(launch_empty(way, stream)); }, stream);
      auto [it, fresh] = floor.try_emplace(way, t);
      if (!fresh && t.median < it->second.median) it->second = t;
    }
  std::printf("floor, one empty kernel, host us (median / p90, best of 3 interleaved runs of 2000):\n");
  for (LaunchWay way : launch_ways)
    std::printf("- %s: %.2f / %.2f\n", launch_way_name(way), floor[way].median, floor[way].p90);
  std::printf("\n");
  std::printf(
      "| graph | nnz | N | variant | host us, GPU idle (median / p90) | forced variant, host us (median / p90) "
      "| back-to-back us per call | GPU us per call (events) |\n|---|---|---|---|---|---|---|---|\n");
  auto run = [&](const Graph& g) {
    const SparseMatrix<float> A = g.host.to(gpu);
    for (Index n : {args.ns.front(), args.ns.back()}) {
      const DenseMatrix<float> B = DenseMatrix<float>::random(A.ncols(), n, gpu, 3);
      DenseMatrix<float> C(A.nrows(), n, gpu);
      auto call = [&] { mxm(C, A, B, semiring::plus_times<float>{}); };
      const HostTimes host = host_times(call, stream);
      const std::string variant = last_dispatch().variant;
      Options forced;
      forced.variant = variant;
      const HostTimes host_forced = host_times([&] { mxm(C, A, B, semiring::plus_times<float>{}, forced); }, stream);
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < 2000; ++r) call();
      CHECK_CUDA(cudaStreamSynchronize(stream));
      const double b2b = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 2000;
      const double gpu_us = time_ms(call, stream, args.reps) * 1e3;
      std::printf("| %s | %lld | %lld | %s | %.2f / %.2f | %.2f / %.2f | %.2f | %.2f |\n", g.name.c_str(),
                  static_cast<long long>(A.nvals()), static_cast<long long>(n), variant.c_str(), host.median, host.p90,
                  host_forced.median, host_forced.p90, b2b, gpu_us);
    }
  };
  run(small.front());
  if (smallest) run(*smallest);
}

}  // namespace

int main(int argc, char** argv) {
  bench::Results results("bench_spmm", argc, argv);
  g_results = &results;
  const Args args = parse(argc, argv);
  if (cuda_device_count() == 0) {
    std::printf("bench_spmm: no CUDA device, nothing to measure\n");
    return 0;
  }
  const Device gpu = Device::cuda(0);
  auto stream = static_cast<cudaStream_t>(detail::cuda_stream_handle(0));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  results.set_device(prop.name);
  std::printf("# device: %s, %d SMs, L2 %d MB; reps=%d (median)\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, args.reps);
  const auto t_start = std::chrono::steady_clock::now();
  const auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count(); };
  cusparseHandle_t handle;
  if (cusparseCreate(&handle) != CUSPARSE_STATUS_SUCCESS) { std::fprintf(stderr, "cusparseCreate failed\n"); return 2; }
  cusparseSetStream(handle, stream);

  // --- the graphs -------------------------------------------------------------------
  std::vector<Graph> graphs;
  if (args.graphs != "none") {
    const char* env = std::getenv("GEBLAS_DATA_DIR");
    const std::filesystem::path dir = env && *env ? env : GEBLAS_DEFAULT_DATA_DIR;
    std::vector<std::string> names;
    if (args.graphs == "all") {
      if (std::filesystem::is_directory(dir))
        for (const auto& e : std::filesystem::directory_iterator(dir)) {
          const std::string f = e.path().filename().string();
          if (f.ends_with(".mtx.gz") && f.find(".features.") == std::string::npos) names.push_back(f.substr(0, f.size() - 7));
        }
      std::sort(names.begin(), names.end());
      if (names.empty()) std::printf("# no shared graphs under %s\n", dir.c_str());
    } else {
      names = split(args.graphs, ',');
    }
    for (const auto& name : names) {
      auto A = io::read_matrix_market<float>((dir / (name + ".mtx.gz")).string());
      if (A.nvals() < args.min_nnz) continue;
      graphs.push_back({name, true, std::move(A)});
    }
  }
  try {
    for (auto& g : bench::generated_graphs(args.synthetic == "none" ? std::string() : args.synthetic))
      graphs.push_back({std::move(g.name), false, std::move(g.A)});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bad --synthetic: %s\n", e.what());
    return 2;
  }

  if (args.reorder != "0") {
    // The caller-side locality order (algo::locality_order): each square graph renamed,
    // P = A(order, order), as "NAME+rcm" (not counted as a shared graph in the summary);
    // "scrambled" also times the graph with its ids permuted at random first (no
    // locality left in the ids, as hashed or arrival-order ids give), as read and renamed.
    std::vector<Graph> renamed;
    for (auto& g : graphs) {
      if (args.reorder != "1") renamed.push_back(g);
      if (g.host.nrows() != g.host.ncols()) {
        if (args.reorder == "1") renamed.push_back(g);
        continue;
      }
      std::optional<Graph> scrambled;
      if (args.reorder == "scrambled") {
        std::vector<Index> ids(static_cast<std::size_t>(g.host.nrows()));  // new vertex i is old ids[i]
        std::iota(ids.begin(), ids.end(), Index{0});
        std::shuffle(ids.begin(), ids.end(), std::mt19937_64(2026));
        SparseMatrix<float> S(g.host.nrows(), g.host.ncols());
        extract(S, g.host, ids, ids);
        scrambled = Graph{g.name + "+scrambled", false, std::move(S)};
      }
      const Graph& base = scrambled ? *scrambled : g;
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<Index> order = algo::locality_order(base.host);
      const double order_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      SparseMatrix<float> P(base.host.nrows(), base.host.ncols());
      extract(P, base.host, order, order);
      std::printf("# %s: algo::locality_order %.3f s, extract %.3f s\n", base.name.c_str(), order_s,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - order_s);
      Graph ordered{base.name + "+rcm", false, std::move(P)};
      if (scrambled) renamed.push_back(std::move(*scrambled));
      renamed.push_back(std::move(ordered));
    }
    graphs = std::move(renamed);
  }

  if (args.type != "float32") {
    const int rc = args.type == "float16" ? bench_16bit<geblas::half>(args, graphs, handle, stream)
                                          : bench_16bit<geblas::bfloat16>(args, graphs, handle, stream);
    cusparseDestroy(handle);
    return rc;
  }

  const double copy_gbs = bench::device_copy_bandwidth_gbs();
  std::printf("# device copy bandwidth (1 GiB D2D cudaMemcpy, read + write): %.0f GB/s; floor_ms uses it\n", copy_gbs);
  const std::vector<std::string> variants = detail::cuda_spmm_variant_names();
  std::vector<Row> rows;
  std::FILE* csv = args.csv.empty() ? nullptr : std::fopen(args.csv.c_str(), "w");
  const char* header = "graph,shared,rows,nnz,N,impl,chosen,ms_per_call,max_rel_err,floor_ms\n";
  std::printf("%s", header);
  if (csv) std::fputs(header, csv);
  auto emit = [&](const Row& r) {
    char line[512];
    std::snprintf(line, sizeof line, "%s,%d,%lld,%lld,%lld,%s,%s,%.5f,%.2e,%.5f\n", r.graph.c_str(), r.shared ? 1 : 0,
                  static_cast<long long>(r.rows), static_cast<long long>(r.nnz), static_cast<long long>(r.n),
                  r.impl.c_str(), r.chosen.c_str(), r.ms, r.err, r.floor_ms);
    std::fputs(line, stdout);
    std::fflush(stdout);
    if (csv) {
      std::fputs(line, csv);
      std::fflush(csv);  // a run cut by a device call's time cap keeps every row printed
    }
    record(r, "float32");
    rows.push_back(r);
  };

  for (auto& g : graphs) {
    const SparseMatrix<float> A = g.host.to(gpu);
    const Index m = A.nrows(), k = A.ncols(), nnz = A.nvals();
    // cuSPARSE gets 32-bit row offsets (its CSR SpMM wants one index type); the column
    // indices and values are geblas's own device buffers.
    std::vector<std::int32_t> ro32(static_cast<std::size_t>(m + 1));
    {
      const Index* ro = g.host.row_offsets_data();
      for (Index i = 0; i <= m; ++i) ro32[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(ro[i]);
    }
    std::int32_t* d_ro32 = nullptr;
    CHECK_CUDA(cudaMalloc(&d_ro32, ro32.size() * sizeof(std::int32_t)));
    CHECK_CUDA(cudaMemcpy(d_ro32, ro32.data(), ro32.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    Index distinct_cols = 0;
    {
      std::vector<char> seen(static_cast<std::size_t>(k), 0);
      for (Index e = 0; e < nnz; ++e) seen[static_cast<std::size_t>(g.host.col_indices_data()[e])] = 1;
      for (char x : seen) distinct_cols += x;
    }
    for (Index n : args.ns) {
      if (args.budget_s > 0 && elapsed_s() > args.budget_s) {
        std::printf("# SKIPPED (budget of %.0f s spent): %s N=%lld\n", args.budget_s, g.name.c_str(), static_cast<long long>(n));
        continue;
      }
      // B on the host only where a CPU product needs it; a large B is tiled on the device
      // from one random block (generating gigabytes on the host would take most of a
      // device call; the values do not change the timing, and every check compares
      // products of the same B).
      const bool host_b = k * n <= Index{50000000} || (n == args.ns.front() && nnz <= 3000000) ||
                          (args.semirings && nnz * n <= Index{500000000});
      DenseMatrix<float> Bh = host_b ? DenseMatrix<float>::random(k, n, Device::cpu(), 7 + static_cast<std::uint64_t>(n))
                                     : DenseMatrix<float>(0, 0);
      DenseMatrix<float> B = host_b ? Bh.to(gpu) : DenseMatrix<float>(k, n, gpu);
      if (!host_b) {
        // one block up, then doubling device-to-device copies; ordered after geblas's
        // stream (B's allocation) and before it (the products read B)
        const std::vector<float> block = DenseMatrix<float>::random(1, Index{1} << 22, Device::cpu(), 7 + static_cast<std::uint64_t>(n)).to_row_major();
        const std::size_t total = static_cast<std::size_t>(B.ld()) * static_cast<std::size_t>(k);
        const std::size_t first = std::min(block.size(), total);
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(B.data(), block.data(), first * sizeof(float), cudaMemcpyHostToDevice));
        for (std::size_t filled = first; filled < total;) {
          const std::size_t count = std::min(filled, total - filled);
          CHECK_CUDA(cudaMemcpy(B.data() + filled, B.data(), count * sizeof(float), cudaMemcpyDeviceToDevice));
          filled += count;
        }
        CHECK_CUDA(cudaDeviceSynchronize());
      }
      auto host_B = [&]() -> const DenseMatrix<float>& {
        if (Bh.nrows() != k) Bh = B.to(Device::cpu());
        return Bh;
      };
      DenseMatrix<float> C(m, n, gpu);
      const auto c_rows = [&] { return sampled_rows(C.data(), m, n, C.ld()); };
      // bytes of A (int64 offsets, int32 columns, fp32 values) + B rows read + C written
      const double b_bytes = static_cast<double>(n) * 4 *
                             (static_cast<double>(k) * n * 4 <= prop.l2CacheSize ? static_cast<double>(distinct_cols)
                                                                                 : static_cast<double>(nnz));
      const double floor_ms = ((m + 1) * 8.0 + nnz * 8.0 + b_bytes + static_cast<double>(m) * n * 4) / (copy_gbs * 1e9) * 1e3;
      Row base{g.name, g.shared, m, nnz, n, "", "", -1, 0, floor_ms};

      // cuSPARSE
      cusparseSpMatDescr_t matA;
      cusparseDnMatDescr_t matB, matC;
      cusparseCreateCsr(&matA, m, k, nnz, d_ro32, const_cast<ColIndex*>(A.col_indices_data()),
                        const_cast<float*>(A.values_data()), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
      cusparseCreateDnMat(&matB, k, n, n, const_cast<float*>(B.data()), CUDA_R_32F, CUSPARSE_ORDER_ROW);
      cusparseCreateDnMat(&matC, m, n, n, C.data(), CUDA_R_32F, CUSPARSE_ORDER_ROW);
      const float alpha = 1, beta = 0;
      std::vector<float> reference;
      std::map<std::string, double> cus_ms;
      for (auto alg : {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG1, CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_CSR_ALG3}) {
        Row r = base;
        r.impl = std::string("cusparse:") + alg_name(alg);
        std::size_t bytes = 0;
        void* buffer = nullptr;
        cusparseStatus_t st = cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                      CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, matB, &beta,
                                                      matC, CUDA_R_32F, alg, &bytes);
        if (st == CUSPARSE_STATUS_SUCCESS) CHECK_CUDA(cudaMalloc(&buffer, std::max<std::size_t>(bytes, 16)));
        if (st == CUSPARSE_STATUS_SUCCESS && alg == CUSPARSE_SPMM_CSR_ALG3)
          st = cusparseSpMM_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                       &alpha, matA, matB, &beta, matC, CUDA_R_32F, alg, buffer);
        if (st == CUSPARSE_STATUS_SUCCESS)
          st = cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA,
                            matB, &beta, matC, CUDA_R_32F, alg, buffer);
        if (st != CUSPARSE_STATUS_SUCCESS) {
          r.chosen = std::string("refused: ") + cusparseGetErrorString(st);
          emit(r);
          if (buffer) cudaFree(buffer);
          continue;
        }
        CHECK_CUDA(cudaStreamSynchronize(stream));
        std::vector<float> got = c_rows();
        if (reference.empty()) {
          // cuSPARSE's default result is the reference when it runs; it is itself checked
          // against geblas on the CPU on the first N of graphs up to 3M entries.
          reference = got;
          if (n == args.ns.front() && nnz <= 3000000) {
            DenseMatrix<float> Ch(m, n);
            mxm(Ch, g.host, host_B(), semiring::plus_times<float>{});
            r.err = max_rel_diff(got, sampled_rows(Ch.to_row_major(), m, n));
            if (r.err > 1e-5) std::printf("# WARNING: cuSPARSE differs from the CPU on %s N=%lld: %.2e\n", g.name.c_str(), static_cast<long long>(n), r.err);
          }
        } else {
          r.err = max_rel_diff(got, reference);
        }
        const auto cus_call = [&] {
          cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, matB,
                       &beta, matC, CUDA_R_32F, alg, buffer);
        };
        r.ms = time_ms(cus_call, stream, args.reps);
        if (args.profile) profiled(cus_call, stream);
        cus_ms[r.impl] = r.ms;
        emit(r);
        if (args.single) {
          // one call per sample, timed as geblas:auto-single is, so that the column that
          // compares what users see pays the same launch and synchronisation on both sides
          Row s1 = r;
          s1.impl += "-single";
          s1.ms = single_call_ms(cus_call, stream, args.reps);
          s1.err = max_rel_diff(c_rows(), reference);
          emit(s1);
        }
        cudaFree(buffer);
      }
      cusparseDestroySpMat(matA);
      cusparseDestroyDnMat(matB);
      cusparseDestroyDnMat(matC);
      if (reference.empty()) {
        DenseMatrix<float> Ch(m, n);
        mxm(Ch, g.host, host_B(), semiring::plus_times<float>{});
        reference = sampled_rows(Ch.to_row_major(), m, n);
      }

      // geblas: the dispatcher, then each variant
      std::vector<std::string> impls = {""};
      if (args.variants)
        for (const auto& v : variants)
          if (args.only.empty() || std::find(args.only.begin(), args.only.end(), v) != args.only.end())
            impls.push_back(v);
      for (const auto& v : impls) {
        Row r = base;
        r.impl = "geblas:" + (v.empty() ? std::string("auto") : v);
        mxm(C, A, B, semiring::plus_times<float>{}, {.variant = v});
        r.chosen = last_dispatch().variant;
        r.err = max_rel_diff(c_rows(), reference);
        r.ms = time_ms([&] { mxm(C, A, B, semiring::plus_times<float>{}, {.variant = v}); }, stream, args.reps);
        if (args.profile) profiled([&] { mxm(C, A, B, semiring::plus_times<float>{}, {.variant = v}); }, stream);
        // checked again after the timed calls: state kept between calls (cached plans,
        // workspaces, arrival counters) must leave every call's result right (sampled
        // rows beyond 5e7 outputs, see sampled_rows).
        r.err = std::max(r.err, max_rel_diff(c_rows(), reference));
        if (r.err > 1e-5) std::printf("# WRONG RESULT: %s %s N=%lld err %.2e\n", r.impl.c_str(), g.name.c_str(), static_cast<long long>(n), r.err);
        emit(r);
        if (v.empty() && args.single) {
          // the public mxm one call per sample, as a user calls it
          Row s1 = base;
          s1.impl = "geblas:auto-single";
          s1.chosen = r.chosen;
          s1.ms = single_call_ms([&] { mxm(C, A, B, semiring::plus_times<float>{}); }, stream, args.reps);
          s1.err = max_rel_diff(c_rows(), reference);
          if (s1.err > 1e-5) std::printf("# WRONG RESULT: %s %s N=%lld err %.2e\n", s1.impl.c_str(), g.name.c_str(), static_cast<long long>(n), s1.err);
          emit(s1);
        }
      }
      if (args.semirings) {
        for (const std::string s : {"max_times", "min_plus"}) {
          Row r = base;
          r.impl = "geblas-" + s + ":auto";
          auto run = [&] {
            if (s == "max_times") mxm(C, A, B, semiring::max_times<float>{});
            else mxm(C, A, B, semiring::min_plus<float>{});
          };
          run();
          r.chosen = last_dispatch().variant;
          if (nnz * n <= Index{500000000}) {
            DenseMatrix<float> Ch(m, n);
            if (s == "max_times") mxm(Ch, g.host, host_B(), semiring::max_times<float>{});
            else mxm(Ch, g.host, host_B(), semiring::min_plus<float>{});
            r.err = max_rel_diff(c_rows(), sampled_rows(Ch.to_row_major(), m, n));
            if (r.err > 1e-6) std::printf("# WRONG RESULT: %s %s N=%lld err %.2e\n", r.impl.c_str(), g.name.c_str(), static_cast<long long>(n), r.err);
          } else {
            r.err = -1;  // not checked: CPU reference too slow for this size
          }
          r.ms = time_ms(run, stream, args.reps);
          emit(r);
        }
      }
    }
    cudaFree(d_ro32);
  }
  if (csv) std::fclose(csv);

  // --- summary ----------------------------------------------------------------------
  // ratio = cuSPARSE time / geblas time (> 1: geblas faster)
  struct Case {
    double auto_ms = -1, def = -1, best = -1, max_times = -1, min_plus = -1, best_variant = -1, single = -1,
           best_single = -1, floor = -1;
    std::string best_name;
  };
  std::map<std::pair<std::string, Index>, Case> cases;
  std::map<std::string, bool> shared_of;
  std::map<std::string, Index> nnz_of;
  for (const auto& r : rows) {
    Case& c = cases[{r.graph, r.n}];
    shared_of[r.graph] = r.shared;
    nnz_of[r.graph] = r.nnz;
    if (r.ms < 0) continue;
    c.floor = r.floor_ms;
    if (r.impl == "geblas:auto") c.auto_ms = r.ms;
    else if (r.impl == "geblas:auto-single") c.single = r.ms;
    else if (r.impl.rfind("cusparse:", 0) == 0 && r.impl.size() > 7 &&
             r.impl.compare(r.impl.size() - 7, 7, "-single") == 0)
      c.best_single = c.best_single < 0 ? r.ms : std::min(c.best_single, r.ms);
    else if (r.impl == "cusparse:default") { c.def = r.ms; c.best = c.best < 0 ? r.ms : std::min(c.best, r.ms); }
    else if (r.impl.rfind("cusparse:", 0) == 0) c.best = c.best < 0 ? r.ms : std::min(c.best, r.ms);
    else if (r.impl == "geblas-max_times:auto") c.max_times = r.ms;
    else if (r.impl == "geblas-min_plus:auto") c.min_plus = r.ms;
    else if (r.impl.rfind("geblas:", 0) == 0 && (c.best_variant < 0 || r.ms < c.best_variant)) { c.best_variant = r.ms; c.best_name = r.impl.substr(7); }
  }
  for (int group = 0; group < 2; ++group) {
    std::printf("\n## summary: %s\n", group == 0 ? "shared graphs with >= 100k nonzeros" : "generated graphs (R-MAT, uniform)");
    std::printf(
        "| N | cases | geomean vs cuSPARSE default | geomean vs best cuSPARSE | worst vs best cuSPARSE (graph) | auto "
        "vs best geblas variant (geomean) | max_times / plus_times (geomean, worst) | min_plus / plus_times (geomean, "
        "worst) | one call per sample: geomean, worst vs best cuSPARSE one call per sample (graph) |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    for (Index n : args.ns) {
      std::vector<double> vd, vb, va, vmax, vmin, vs;
      double worst = INFINITY, wmax = 0, wmin = 0, wsingle = INFINITY;
      std::string worst_g, worst_single_g;
      for (const auto& [key, c] : cases) {
        if (key.second != n || c.auto_ms <= 0) continue;
        const bool shared = shared_of[key.first];
        if (group == 0 && !(shared && nnz_of[key.first] >= 100000)) continue;
        if (group == 1 && shared) continue;
        if (c.def > 0) vd.push_back(c.def / c.auto_ms);
        if (c.best > 0) {
          vb.push_back(c.best / c.auto_ms);
          if (c.best / c.auto_ms < worst) { worst = c.best / c.auto_ms; worst_g = key.first; }
        }
        if (c.best_variant > 0) va.push_back(c.auto_ms / c.best_variant);
        if (c.max_times > 0) { vmax.push_back(c.max_times / c.auto_ms); wmax = std::max(wmax, c.max_times / c.auto_ms); }
        if (c.min_plus > 0) { vmin.push_back(c.min_plus / c.auto_ms); wmin = std::max(wmin, c.min_plus / c.auto_ms); }
        if (c.single > 0 && c.best_single > 0) {
          vs.push_back(c.best_single / c.single);
          if (c.best_single / c.single < wsingle) {
            wsingle = c.best_single / c.single;
            worst_single_g = key.first;
          }
        }
      }
      // A column whose implementation was not timed in this run (--semirings=0,
      // --single=0, --variants=0) says so instead of printing nan.
      char cmax[48] = "not timed", cmin[48] = "not timed", csingle[160] = "not timed", cvar[24] = "not timed";
      if (!vmax.empty()) std::snprintf(cmax, sizeof cmax, "%.3f, %.3f", geomean(vmax), wmax);
      if (!vmin.empty()) std::snprintf(cmin, sizeof cmin, "%.3f, %.3f", geomean(vmin), wmin);
      if (!vs.empty())
        std::snprintf(csingle, sizeof csingle, "%.2fx, %.2fx (%s)", geomean(vs), wsingle, worst_single_g.c_str());
      if (!va.empty()) std::snprintf(cvar, sizeof cvar, "%.3f", geomean(va));
      std::printf("| %lld | %zu | %.2fx | %.2fx | %.2fx (%s) | %s | %s | %s | %s |\n", static_cast<long long>(n),
                  vb.size(), geomean(vd), geomean(vb), worst, worst_g.c_str(), cvar, cmax, cmin, csingle);
      const bench::CaseKey key{{"group", group == 0 ? "shared >= 100k" : "generated"}, {"N", std::to_string(n)}};
      g_results->add(key, {{"cases", double(vb.size())}});
      g_results->add(key, {{"geomean vs cuSPARSE default", geomean(vd)}, {"geomean vs best cuSPARSE", geomean(vb)},
                           {"worst vs best cuSPARSE", worst}}, "x");
      g_results->add_text(key, "worst graph", worst_g);
      if (!vs.empty()) {
        g_results->add(key, {{"one call: geomean", geomean(vs)}, {"one call: worst", wsingle}}, "x");
        g_results->add_text(key, "one call: worst graph", worst_single_g);
      }
    }
  }
  std::printf("\n## memory floor (copy bandwidth %.0f GB/s): time / floor, 1.00 = at the floor; generated graphs and shared graphs >= 1M entries\n", copy_gbs);
  std::printf("| graph | N | floor ms | geblas auto ms | auto / floor | one call / floor | best cuSPARSE / floor |\n|---|---|---|---|---|---|---|\n");
  for (const auto& [key, c] : cases)
    if (c.auto_ms > 0 && c.floor > 0 && (!shared_of[key.first] || nnz_of[key.first] >= 1000000))
      std::printf("| %s | %lld | %.4f | %.4f | %.2f | %.2f | %.2f |\n", key.first.c_str(), static_cast<long long>(key.second),
                  c.floor, c.auto_ms, c.auto_ms / c.floor, c.single > 0 ? c.single / c.floor : NAN, c.best > 0 ? c.best / c.floor : NAN);
  std::printf("\n## per case: best geblas variant vs auto's pick (ms); one call per sample; floor\n");
  for (const auto& [key, c] : cases)
    if (c.auto_ms > 0)
      std::printf(
          "%s N=%lld: auto %.4f, best variant %s %.4f, best cuSPARSE %.4f, one call %.4f (cuSPARSE %.4f), floor %.4f "
          "(auto/floor %.2f)\n",
          key.first.c_str(), static_cast<long long>(key.second), c.auto_ms, c.best_name.c_str(), c.best_variant, c.best,
          c.single, c.best_single, c.floor, c.auto_ms / c.floor);
  if (args.overhead) host_overhead(args, graphs, stream);
  std::printf("\n# cusparseSpMMOp (custom semirings in cuSPARSE) is not timed: it compiles a kernel per plan with\n"
              "# nvJitLink (seconds per case), which does not fit a device call; max_times / min_plus are compared\n"
              "# with geblas's own plus_times instead.\n");
  cusparseDestroy(handle);
  return 0;
}
