// bench_spmm_hybrid: the tensor-core row-window SpMM (tc_window, forced and chosen by
// the dispatcher with allow_tf32; tc_window_all, every window on tensor cores) against
// geblas's fp32 CUDA-core path and the best cuSPARSE algorithm, on the shared graphs,
// plus the window plan's build time. Every output is checked against cuSPARSE's fp32
// result within the TF32 bound (2e-3 of |A| |B|, computed by cuSPARSE as well); a
// failed check marks the row FAIL and the program exits 1.
//
// Timing: a batch of `reps` calls followed by a device synchronisation, repeated
// `batches` times after `warmup` calls; the median batch divided by reps. cuSPARSE is
// timed the same way (wall clock around the same synchronisation), so both include
// launch overheads alike.
//
//   bench_spmm_hybrid [--min-nnz 100000] [--n 64,128,256,512] [--graphs a.mtx.gz,...]
//                     [--thresholds 1,1.5,2,3,4] [--reps 20] [--batches 7] [--reorder 0|1]
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "geblas/tensor_cores.hpp"

using namespace geblas;

namespace {

#define CHECK_CUDA(x)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #x, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(2);                                                                                \
    }                                                                                              \
  } while (0)
#define CHECK_CUSPARSE(x)                                                                          \
  do {                                                                                             \
    cusparseStatus_t s_ = (x);                                                                     \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                           \
      std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #x, cusparseGetErrorString(s_), __FILE__, __LINE__); \
      std::exit(2);                                                                                \
    }                                                                                              \
  } while (0)

struct Args {
  Index min_nnz = 100000;
  std::vector<Index> ns = {64, 128, 256, 512};
  std::vector<std::string> graphs;
  std::vector<double> thresholds;
  int reps = 20, batches = 7, warmup = 3;
  bool reorder = false;  // permute A's rows by window_row_order first (every path sees the same A)
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string x;
  while (std::getline(in, x, ',')) if (!x.empty()) out.push_back(x);
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Milliseconds per call of fn (which queues work), synchronised by sync.
double time_ms(const Args& a, const std::function<void()>& fn, const std::function<void()>& sync) {
  for (int i = 0; i < a.warmup; ++i) fn();
  sync();
  std::vector<double> t;
  for (int b = 0; b < a.batches; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < a.reps; ++i) fn();
    sync();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / a.reps);
  }
  return median(t);
}

std::filesystem::path data_dir() {
  if (const char* e = std::getenv("GEBLAS_DATA_DIR"); e && *e) return e;
  return GEBLAS_BENCH_DATA_DIR;
}

// cuSPARSE SpMM on int32 CSR copies of A (and of |A|), row-major B and C.
struct Cusparse {
  cusparseHandle_t h = nullptr;
  cudaStream_t stream = nullptr;
  int *ro = nullptr, *ci = nullptr;
  float *v = nullptr, *vabs = nullptr;
  Index m = 0, k = 0, nnz = 0;

  explicit Cusparse(const SparseMatrix<float>& A) : m(A.nrows()), k(A.ncols()), nnz(A.nvals()) {
    CHECK_CUSPARSE(cusparseCreate(&h));
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_CUSPARSE(cusparseSetStream(h, stream));
    const auto r64 = A.row_offsets();
    std::vector<int> r32(r64.begin(), r64.end());
    const auto c = A.col_indices();
    auto vals = A.values();
    CHECK_CUDA(cudaMalloc(&ro, sizeof(int) * r32.size()));
    CHECK_CUDA(cudaMalloc(&ci, sizeof(int) * std::max<std::size_t>(1, c.size())));
    CHECK_CUDA(cudaMalloc(&v, sizeof(float) * std::max<std::size_t>(1, vals.size())));
    CHECK_CUDA(cudaMalloc(&vabs, sizeof(float) * std::max<std::size_t>(1, vals.size())));
    CHECK_CUDA(cudaMemcpy(ro, r32.data(), sizeof(int) * r32.size(), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(ci, c.data(), sizeof(int) * c.size(), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(v, vals.data(), sizeof(float) * vals.size(), cudaMemcpyHostToDevice));
    for (auto& x : vals) x = std::abs(x);
    CHECK_CUDA(cudaMemcpy(vabs, vals.data(), sizeof(float) * vals.size(), cudaMemcpyHostToDevice));
  }
  ~Cusparse() {
    cudaFree(ro); cudaFree(ci); cudaFree(v); cudaFree(vabs);
    cusparseDestroy(h);
    cudaStreamDestroy(stream);
  }

  // C = A B (or |A| B with `absolute`), B k x n and C m x n row-major device arrays.
  struct Call {
    cusparseSpMatDescr_t a{};
    cusparseDnMatDescr_t b{}, c{};
    void* work = nullptr;
    cusparseSpMMAlg_t alg{};
    cusparseHandle_t h{};
    bool run() const {
      const float one = 1, zero = 0;
      return cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, b, &zero, c,
                          CUDA_R_32F, alg, work) == CUSPARSE_STATUS_SUCCESS;
    }
    ~Call() {
      if (a) cusparseDestroySpMat(a);
      if (b) cusparseDestroyDnMat(b);
      if (c) cusparseDestroyDnMat(c);
      if (work) cudaFree(work);
    }
  };
  // Null when cuSPARSE refuses the algorithm for this problem.
  std::unique_ptr<Call> prepare(const float* B, float* C, Index n, cusparseSpMMAlg_t alg, bool absolute) {
    auto call = std::make_unique<Call>();
    call->alg = alg;
    call->h = h;
    CHECK_CUSPARSE(cusparseCreateCsr(&call->a, m, k, nnz, ro, ci, absolute ? vabs : v, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CHECK_CUSPARSE(cusparseCreateDnMat(&call->b, k, n, n, const_cast<float*>(B), CUDA_R_32F, CUSPARSE_ORDER_ROW));
    CHECK_CUSPARSE(cusparseCreateDnMat(&call->c, m, n, n, C, CUDA_R_32F, CUSPARSE_ORDER_ROW));
    const float one = 1, zero = 0;
    std::size_t bytes = 0;
    if (cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, call->a,
                                call->b, &zero, call->c, CUDA_R_32F, alg, &bytes) != CUSPARSE_STATUS_SUCCESS)
      return nullptr;
    if (bytes) CHECK_CUDA(cudaMalloc(&call->work, bytes));
    if (alg == CUSPARSE_SPMM_CSR_ALG3 &&
        cusparseSpMM_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, call->a,
                                call->b, &zero, call->c, CUDA_R_32F, alg, call->work) != CUSPARSE_STATUS_SUCCESS)
      return nullptr;
    return call;
  }
  void sync() const { CHECK_CUDA(cudaStreamSynchronize(stream)); }
};

// Entries within 2e-3 of |A||B| (plus fp32 rounding) of the reference; else a message.
std::string check(const std::vector<float>& got, const std::vector<float>& want, const std::vector<float>& bound) {
  Index bad = 0;
  std::string first;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double tol = 2e-3 * bound[i] + 1e-5 * std::abs(want[i]) + 1e-6;
    if (!(std::abs(double(got[i]) - want[i]) <= tol)) {
      if (!bad) first = "entry " + std::to_string(i) + ": got " + std::to_string(got[i]) + " want " + std::to_string(want[i]);
      ++bad;
    }
  }
  return bad ? std::to_string(bad) + " bad, " + first : "";
}

std::vector<float> device_to_host(const float* p, std::size_t count) {
  std::vector<float> out(count);
  CHECK_CUDA(cudaMemcpy(out.data(), p, sizeof(float) * count, cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--min-nnz") a.min_nnz = std::stoll(v);
    else if (k == "--n") { a.ns.clear(); for (auto& x : split(v)) a.ns.push_back(std::stoll(x)); }
    else if (k == "--graphs") a.graphs = split(v);
    else if (k == "--thresholds") { for (auto& x : split(v)) a.thresholds.push_back(std::stod(x)); }
    else if (k == "--reps") a.reps = std::stoi(v);
    else if (k == "--batches") a.batches = std::stoi(v);
    else if (k == "--reorder") a.reorder = std::stoi(v) != 0;
    else { std::fprintf(stderr, "unknown option %s\n", k.c_str()); return 2; }
  }
  if (cuda_device_count() == 0) { std::printf("SKIPPED: no CUDA device\n"); return 77; }
  if (a.graphs.empty()) {
    for (const auto& e : std::filesystem::directory_iterator(data_dir())) {
      const std::string name = e.path().filename().string();
      if (name.ends_with(".mtx.gz") && name.find(".features.") == std::string::npos) a.graphs.push_back(name);
    }
    std::sort(a.graphs.begin(), a.graphs.end());
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("# device: %s; reps %d x batches %d, median; rows %s\n", prop.name, a.reps, a.batches,
              a.reorder ? "reordered by window_row_order" : "as stored");
  std::printf("graph,rows,nnz,N,path,ms,gflops,check\n");
  const Device gpu = Device::cuda(0);
  bool failed = false;
  // per (graph, N): times by path
  std::map<std::string, std::vector<double>> ratio_cc, ratio_cusparse, ratio_auto_vs_best, all_ratio_cc;
  std::vector<double> tc_over_cc, tc_over_cus, auto_over_best, plan_over_spmm;
  std::map<double, std::vector<double>> sweep;  // threshold -> times relative to the default's
  struct Row {
    std::string graph;
    Index nnz, n;
    double share, gain, plan_ms, cus, cc, tc, all, au;
    std::string chosen;
  };
  std::vector<Row> table;

  for (const auto& name : a.graphs) {
    SparseMatrix<float> A;
    try {
      A = io::read_matrix_market<float>((data_dir() / name).string());
    } catch (const std::exception& e) {
      std::printf("# %s: not read (%s)\n", name.c_str(), e.what());
      continue;
    }
    if (A.nvals() < a.min_nnz) continue;
    if (a.reorder) {
      const std::vector<Index> perm = window_row_order(A);
      std::vector<Index> position(perm.size());
      for (std::size_t i = 0; i < perm.size(); ++i) position[static_cast<std::size_t>(perm[i])] = static_cast<Index>(i);
      auto t = A.extract_tuples();
      for (auto& x : t) x.row = position[static_cast<std::size_t>(x.row)];
      A = SparseMatrix<float>::from_tuples(A.nrows(), A.ncols(), t);
    }
    const SparseMatrix<float> dA = A.to(gpu);
    // plan build: fresh copies have empty caches
    std::vector<double> build;
    WindowPlanInfo info;
    for (int r = 0; r < 3; ++r) {
      const SparseMatrix<float> fresh = dA;
      info = window_plan_info(fresh);
      build.push_back(info.build_ms);
    }
    const double build_ms = median(build);
    const double share = double(info.tensor_core_nvals) / double(A.nvals());
    // The cost model's predicted gain (tc_window_forecast), recomputed here from A's
    // windows: sum over tensor-core windows of (entries - threshold x 8-rounded
    // distinct columns), over nvals.
    double gain = 0;
    Index tc_columns = 0;
    {
      const auto ro = A.row_offsets();
      const auto ci = A.col_indices();
      std::vector<ColIndex> cols;
      for (Index r0 = 0; r0 < A.nrows(); r0 += 16) {
        const Index b = ro[static_cast<std::size_t>(r0)], e = ro[static_cast<std::size_t>(std::min(r0 + 16, A.nrows()))];
        cols.assign(ci.begin() + b, ci.begin() + e);
        std::sort(cols.begin(), cols.end());
        const Index distinct = std::unique(cols.begin(), cols.end()) - cols.begin();
        const Index padded = (distinct + 7) / 8 * 8;
        if (e > b && double(e - b) >= info.threshold * double(padded)) {
          gain += double(e - b) - info.threshold * double(padded);
          tc_columns += padded;
        }
      }
      gain /= double(A.nvals());
    }
    std::printf("# %s: %lld windows, %lld tensor-core (%.1f%% of entries, %lld condensed columns), %lld cuda-core, "
                "%lld empty; distinct columns %lld; model gain %.3f; plan %.3f ms\n",
                name.c_str(), (long long)info.windows, (long long)info.tensor_core_windows, 100.0 * share,
                (long long)tc_columns, (long long)info.cuda_core_windows, (long long)info.empty_windows,
                (long long)info.distinct_columns, gain, build_ms);
    Cusparse cs(A);
    for (Index n : a.ns) {
      const DenseMatrix<float> B = DenseMatrix<float>::random(A.ncols(), n, gpu, 1234 + n);
      DenseMatrix<float> Bsigned = B;  // random() gives [0,1); make half of them negative
      {
        std::vector<float> h = B.to_row_major();
        for (std::size_t i = 0; i < h.size(); ++i) h[i] = (i % 3 == 0) ? -h[i] : h[i];
        Bsigned = DenseMatrix<float>::from_row_major(A.ncols(), n, h).to(gpu);
      }
      const std::vector<float> babs_h = [&] { auto h = Bsigned.to_row_major(); for (auto& x : h) x = std::abs(x); return h; }();
      const DenseMatrix<float> Babs = DenseMatrix<float>::from_row_major(A.ncols(), n, babs_h).to(gpu);
      DenseMatrix<float> Cref(A.nrows(), n, gpu), Cbound(A.nrows(), n, gpu), C(A.nrows(), n, gpu);
      // reference and bound from cuSPARSE's default algorithm
      {
        auto r = cs.prepare(Bsigned.data(), Cref.data(), n, CUSPARSE_SPMM_ALG_DEFAULT, false);
        auto b = cs.prepare(Babs.data(), Cbound.data(), n, CUSPARSE_SPMM_ALG_DEFAULT, true);
        if (!r || !b || !r->run() || !b->run()) { std::fprintf(stderr, "cuSPARSE reference failed\n"); return 2; }
        cs.sync();
      }
      const std::size_t count = static_cast<std::size_t>(A.nrows() * n);
      const std::vector<float> want = device_to_host(Cref.data(), count), bound = device_to_host(Cbound.data(), count);
      const double flops = 2.0 * double(A.nvals()) * double(n);
      auto report = [&](const std::string& path, double ms, const std::string& chk) {
        std::printf("%s,%lld,%lld,%lld,%s,%.4f,%.1f,%s\n", name.c_str(), (long long)A.nrows(), (long long)A.nvals(),
                    (long long)n, path.c_str(), ms, flops / ms * 1e-6, chk.empty() ? "ok" : ("FAIL " + chk).c_str());
        if (!chk.empty()) failed = true;
      };
      // cuSPARSE, every CSR algorithm; the best one counts
      double cus_best = 1e300;
      for (auto [alg, alg_name] : {std::pair{CUSPARSE_SPMM_ALG_DEFAULT, "cusparse_default"},
                                   std::pair{CUSPARSE_SPMM_CSR_ALG1, "cusparse_alg1"},
                                   std::pair{CUSPARSE_SPMM_CSR_ALG2, "cusparse_alg2"},
                                   std::pair{CUSPARSE_SPMM_CSR_ALG3, "cusparse_alg3"}}) {
        auto call = cs.prepare(Bsigned.data(), C.data(), n, alg, false);
        if (!call || !call->run()) { std::printf("# %s: refused\n", alg_name); continue; }
        const double ms = time_ms(a, [&] { call->run(); }, [&] { cs.sync(); });
        report(alg_name, ms, check(device_to_host(C.data(), count), want, bound));
        cus_best = std::min(cus_best, ms);
      }
      auto geblas_path = [&](const std::string& path, Options o, bool verify = true) -> double {
        try {
          mxm(C, dA, Bsigned, semiring::plus_times<float>{}, o);
        } catch (const NotImplemented& e) {
          std::printf("# %s: %s\n", path.c_str(), e.what());
          return -1;
        }
        const std::string chk = verify ? check(C.to_row_major(), want, bound) : std::string();
        const std::string chosen = last_dispatch().variant;
        const double ms = time_ms(a, [&] { mxm(C, dA, Bsigned, semiring::plus_times<float>{}, o); },
                                  [&] { synchronize(gpu); });
        report(path + (o.variant.empty() ? "(" + chosen + ")" : ""), ms, chk);
        return ms;
      };
      const double cc = geblas_path("geblas_fp32", {});
      const double tc = geblas_path("tc_window", {.variant = "tc_window", .allow_tf32 = true});
      const double all = geblas_path("tc_window_all", {.variant = "tc_window_all", .allow_tf32 = true});
      const double au = geblas_path("auto_tf32", {.allow_tf32 = true});
      table.push_back({name.substr(0, name.find(".mtx")), A.nvals(), n, share, gain, build_ms, cus_best, cc, tc, all, au,
                       last_dispatch().variant});
      if (cc > 0 && tc > 0) tc_over_cc.push_back(cc / tc);
      if (tc > 0) tc_over_cus.push_back(cus_best / tc);
      if (au > 0) {
        const double best_pure = std::min(all, cc > 0 ? cc : 1e300);
        auto_over_best.push_back(au / best_pure);
      }
      if (n == 128 && tc > 0) plan_over_spmm.push_back(build_ms / tc);
      for (double t : a.thresholds) {
        set_tc_window_threshold(t);
        const double ms =
            geblas_path("tc_window@" + std::to_string(t), {.variant = "tc_window", .allow_tf32 = true}, false);
        sweep[t].push_back(ms / tc);
      }
      if (!a.thresholds.empty()) set_tc_window_threshold(info.threshold);
    }
    std::fflush(stdout);  // a run cut off by a time limit keeps the graphs it finished
  }
  auto geomean = [](const std::vector<double>& v) {
    if (v.empty()) return 0.0;
    double s = 0;
    for (double x : v) s += std::log(x);
    return std::exp(s / double(v.size()));
  };
  std::printf("# summary over %zu (graph, N) cases\n", tc_over_cus.size());
  std::printf("# tc_window speedup over geblas fp32 CUDA-core path: geomean %.3fx\n", geomean(tc_over_cc));
  std::printf("# tc_window speedup over best cuSPARSE: geomean %.3fx\n", geomean(tc_over_cus));
  if (!auto_over_best.empty())
    std::printf("# auto_tf32 time / better pure path: geomean %.3f, worst %.3f\n", geomean(auto_over_best),
                *std::max_element(auto_over_best.begin(), auto_over_best.end()));
  if (!plan_over_spmm.empty())
    std::printf("# plan build / tc_window SpMM at N=128: geomean %.2f, worst %.2f calls\n", geomean(plan_over_spmm),
                *std::max_element(plan_over_spmm.begin(), plan_over_spmm.end()));
  for (auto& [t, v] : sweep) std::printf("# threshold %.2f: time / default's, geomean %.3f\n", t, geomean(v));
  std::printf("\n| graph | nnz | N | tc share | model gain | plan ms | best cuSPARSE ms | geblas fp32 ms | tc_window ms | "
              "tc_window_all ms | auto_tf32 ms (choice) | auto / better pure |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& r : table)
    std::printf("| %s | %lld | %lld | %.1f%% | %.2f | %.3f | %.4f | %.4f | %.4f | %.4f | %.4f (%s) | %.2f |\n",
                r.graph.c_str(), (long long)r.nnz, (long long)r.n, 100 * r.share, r.gain, r.plan_ms, r.cus, r.cc, r.tc,
                r.all, r.au, r.chosen.c_str(), r.au / std::min(r.all, r.cc));
  return failed ? 1 : 0;
}
