// bench_spmm_hybrid: the tensor-core row-window SpMM (tc_window forced, tc_window_all
// forced, and the dispatcher's choice) against geblas's CUDA-core paths and the best
// cuSPARSE algorithm, on the shared graphs, per value type: float32 (TF32 tensor cores,
// allow_tf32) and float16 / bfloat16 (m16n8k16, fp32 accumulation); plus the window
// plan's build time and the ratios that calibrate the cost model's thresholds.
//
// Per (graph, N) and type it times:
//   cusparse_fp32      best of cuSPARSE's CSR algorithms in fp32 (once per graph and N)
//   geblas_fp32        geblas's fp32 CUDA-core path (the dispatcher without allow_tf32;
//                      the issue's baseline, once per graph and N)
//   cusparse_<type>    (16-bit) best cuSPARSE algorithm on 16-bit A, B, C, fp32 compute
//   geblas_cc_<type>   (16-bit) geblas's 16-bit CUDA-core path: the dispatcher with tensor
//                      cores ruled out (threshold override 1e30)
//   tc_window, tc_window_all, auto   in the type (auto = the dispatcher; float32 with allow_tf32)
// Every output is checked against cuSPARSE's fp32 product of the same (for 16-bit: the
// rounded, and for graphs with weights above 1 scaled by a power of two) inputs: within 2e-3 of |A||B| for TF32, within
// u |ref| + 1e-5 |A||B| for the 16-bit types (u = 2^-11 half, 2^-8 bfloat16: the one rounding of C); a failed check of
// a geblas path or of fp32 cuSPARSE marks the row FAIL and the program exits 1 (16-bit cuSPARSE outside the bound gets
// a comment line: its accuracy, not geblas's).
//
// Calibration ("calib" lines): per graph, N and value class, tc_window_all's time per
// condensed column (every window, padded to the mma K) over the CUDA-core time per entry
// of the same type: the cost model's threshold for that graph and N
// (src/cuda/spmm/policy/tc_cost_model.cpp). Only graphs with dense windows say much about it.
//
// Timing: a batch of `reps` calls followed by a device synchronisation, repeated
// `batches` times after `warmup` calls; the median batch divided by reps (wall clock,
// the same for every path, launch overheads included alike).
//
//   bench_spmm_hybrid [--type all|float32|float16|bfloat16] [--min-nnz 100000]
//                     [--n 64,128,256,512] [--graphs a.mtx.gz,...] [--budget-s 0 (none)]
//                     [--thresholds 1,1.5,2,3,4] [--reps 20] [--batches 7] [--reorder 0|1]
// --budget-s stops before a graph once that many seconds have passed (the graphs left
// out are listed); the total time is printed at the end.
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
#include "results.hpp"

using namespace geblas;

namespace {

geblas::bench::Results* g_results = nullptr;  // --results FILE (bench/common/results.hpp)

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
  std::vector<std::string> types = {"float32", "float16", "bfloat16"};
  std::vector<double> thresholds;
  double budget_s = 0;
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

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / double(v.size()));
}

double worst(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); }

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

template <class T>
void* device_copy(const std::vector<T>& h) {
  void* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, sizeof(T) * std::max<std::size_t>(1, h.size())));
  if (!h.empty()) CHECK_CUDA(cudaMemcpy(p, h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice));
  return p;
}

// cuSPARSE SpMM on an int32 CSR copy of A's pattern; values, B and C are passed per call
// (row-major B and C), in fp32, fp16 or bf16 with fp32 compute.
struct Cusparse {
  cusparseHandle_t h = nullptr;
  cudaStream_t stream = nullptr;
  int *ro = nullptr, *ci = nullptr;
  Index m = 0, k = 0, nnz = 0;

  Cusparse(Index m_, Index k_, const std::vector<Index>& r64, const std::vector<ColIndex>& c) : m(m_), k(k_) {
    nnz = static_cast<Index>(c.size());
    CHECK_CUSPARSE(cusparseCreate(&h));
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_CUSPARSE(cusparseSetStream(h, stream));
    ro = static_cast<int*>(device_copy(std::vector<int>(r64.begin(), r64.end())));
    ci = static_cast<int*>(device_copy(c));
  }
  ~Cusparse() {
    cudaFree(ro);
    cudaFree(ci);
    cusparseDestroy(h);
    cudaStreamDestroy(stream);
  }

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
  // C = A B with A's values `vals`, all of type dt; null when cuSPARSE refuses.
  std::unique_ptr<Call> prepare(const void* vals, const void* B, void* C, Index n, cudaDataType dt,
                                cusparseSpMMAlg_t alg) {
    auto call = std::make_unique<Call>();
    call->alg = alg;
    call->h = h;
    if (cusparseCreateCsr(&call->a, m, k, nnz, ro, ci, const_cast<void*>(vals), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, dt) != CUSPARSE_STATUS_SUCCESS ||
        cusparseCreateDnMat(&call->b, k, n, n, const_cast<void*>(B), dt, CUSPARSE_ORDER_ROW) != CUSPARSE_STATUS_SUCCESS ||
        cusparseCreateDnMat(&call->c, m, n, n, C, dt, CUSPARSE_ORDER_ROW) != CUSPARSE_STATUS_SUCCESS)
      return nullptr;
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

const std::pair<cusparseSpMMAlg_t, const char*> cusparse_algs[] = {{CUSPARSE_SPMM_ALG_DEFAULT, "default"},
                                                                   {CUSPARSE_SPMM_CSR_ALG1, "alg1"},
                                                                   {CUSPARSE_SPMM_CSR_ALG2, "alg2"},
                                                                   {CUSPARSE_SPMM_CSR_ALG3, "alg3"}};

// Entries within rel |ref| + abs_bound |A||B| (+ a floor) of the reference; else a message.
std::string check(const std::vector<float>& got, const std::vector<float>& want, const std::vector<float>& bound,
                  double rel, double abs_bound) {
  Index bad = 0;
  std::string first;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double tol = rel * std::abs(want[i]) + abs_bound * bound[i] + 1e-6;
    if (!(std::abs(double(got[i]) - want[i]) <= tol)) {
      if (!bad) first = "entry " + std::to_string(i) + ": got " + std::to_string(got[i]) + " want " + std::to_string(want[i]);
      ++bad;
    }
  }
  return bad ? std::to_string(bad) + " bad, " + first : "";
}

std::vector<float> device_to_host(const void* p, std::size_t count) {
  std::vector<float> out(count);
  CHECK_CUDA(cudaMemcpy(out.data(), p, sizeof(float) * count, cudaMemcpyDeviceToHost));
  return out;
}

template <class T>
std::vector<float> widen(const std::vector<T>& v) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<float>(v[i]);
  return out;
}

template <class T>
std::vector<T> narrow(const std::vector<float>& v) {
  std::vector<T> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = T(v[i]);
  return out;
}

// Distinct columns of every 16-row window, padded to k: what tc_window_all computes.
Index padded_columns(const std::vector<Index>& ro, const std::vector<ColIndex>& ci, Index nrows, Index k) {
  Index total = 0;
  std::vector<ColIndex> cols;
  for (Index r0 = 0; r0 < nrows; r0 += 16) {
    const Index b = ro[static_cast<std::size_t>(r0)], e = ro[static_cast<std::size_t>(std::min(r0 + 16, nrows))];
    cols.assign(ci.begin() + b, ci.begin() + e);
    std::sort(cols.begin(), cols.end());
    const Index distinct = std::unique(cols.begin(), cols.end()) - cols.begin();
    total += (distinct + k - 1) / k * k;
  }
  return total;
}

// One (graph, N, type) row of the final table.
struct Row {
  std::string graph, type;
  Index nnz = 0, n = 0;
  double share = 0, gain = 0, plan_ms = 0;
  double cus32 = -1, cc32 = -1, cus_t = -1, cc_t = -1, tc = -1, all = -1, au = -1;
  std::string chosen;
};

// The summary lines for one type over its rows.
void summary(const std::string& type, const std::vector<Row>& rows) {
  std::vector<double> au_cc32, au_cus32, au_cus_t, tc_cc32, tc_cus32, au_best, calls, cc_t_cc32;
  for (const Row& r : rows) {
    if (r.type != type) continue;
    if (r.au > 0 && r.cc32 > 0) au_cc32.push_back(r.cc32 / r.au);
    if (r.au > 0 && r.cus32 > 0) au_cus32.push_back(r.cus32 / r.au);
    if (r.au > 0 && r.cus_t > 0) au_cus_t.push_back(r.cus_t / r.au);
    if (r.tc > 0 && r.cc32 > 0) tc_cc32.push_back(r.cc32 / r.tc);
    if (r.tc > 0 && r.cus32 > 0) tc_cus32.push_back(r.cus32 / r.tc);
    if (r.cc_t > 0 && r.cc32 > 0) cc_t_cc32.push_back(r.cc32 / r.cc_t);
    const double cc = type == "float32" ? r.cc32 : r.cc_t;
    if (r.au > 0 && r.all > 0 && cc > 0) au_best.push_back(r.au / std::min(r.all, cc));
    if (r.n == 128 && r.tc > 0) calls.push_back(r.plan_ms / r.tc);
  }
  std::printf("# summary %s over %zu (graph, N) cases\n", type.c_str(), au_cc32.size());
  std::printf("#   auto speedup over geblas fp32 CUDA-core path: geomean %.3fx (target >= 1.3)\n", geomean(au_cc32));
  std::printf("#   auto speedup over best cuSPARSE fp32: geomean %.3fx (target >= 1.6)\n", geomean(au_cus32));
  if (!au_cus_t.empty())
    std::printf("#   auto speedup over best cuSPARSE %s: geomean %.3fx\n", type.c_str(), geomean(au_cus_t));
  if (!cc_t_cc32.empty())
    std::printf("#   geblas %s CUDA-core speedup over geblas fp32: geomean %.3fx\n", type.c_str(), geomean(cc_t_cc32));
  std::printf("#   tc_window speedup over geblas fp32 CUDA-core path: geomean %.3fx; over best cuSPARSE fp32: %.3fx\n",
              geomean(tc_cc32), geomean(tc_cus32));
  std::printf("#   auto time / better pure path (CUDA-core %s, tc_window_all): geomean %.3f, worst %.3f (target <= 1.05)\n",
              type.c_str(), geomean(au_best), worst(au_best));
  std::printf("#   plan build / tc_window SpMM at N=128: geomean %.2f, worst %.2f calls (target < 5)\n", geomean(calls),
              worst(calls));
  const geblas::bench::CaseKey key{{"type", type}};
  g_results->add(key, {{"auto over geblas fp32 CUDA-core", geomean(au_cc32)}, {"auto over best cuSPARSE fp32", geomean(au_cus32)},
                       {"tc_window over geblas fp32 CUDA-core", geomean(tc_cc32)},
                       {"tc_window over best cuSPARSE fp32", geomean(tc_cus32)}}, "x");
  if (!au_cus_t.empty()) g_results->add(key, "auto over best cuSPARSE in the type", geomean(au_cus_t), "x");
  if (!cc_t_cc32.empty()) g_results->add(key, "CUDA-core over geblas fp32", geomean(cc_t_cc32), "x");
  g_results->add(key, {{"auto / better pure path: geomean", geomean(au_best)}, {"auto / better pure path: worst", worst(au_best)},
                       {"plan build / tc_window at N=128: geomean", geomean(calls)},
                       {"plan build / tc_window at N=128: worst", worst(calls)}});
}

}  // namespace

int main(int argc, char** argv) {
  geblas::bench::Results results("bench_spmm_hybrid", argc, argv);
  g_results = &results;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i], v;
    if (const auto eq = k.find('='); eq != std::string::npos) {
      v = k.substr(eq + 1);
      k = k.substr(0, eq);
    } else if (i + 1 < argc) {
      v = argv[++i];
    } else {
      std::fprintf(stderr, "option %s needs a value\n", k.c_str());
      return 2;
    }
    if (k == "--min-nnz") a.min_nnz = std::stoll(v);
    else if (k == "--n") { a.ns.clear(); for (auto& x : split(v)) a.ns.push_back(std::stoll(x)); }
    else if (k == "--graphs") a.graphs = split(v);
    else if (k == "--type") a.types = v == "all" ? a.types : split(v);
    else if (k == "--thresholds") { for (auto& x : split(v)) a.thresholds.push_back(std::stod(x)); }
    else if (k == "--budget-s") a.budget_s = std::stod(v);
    else if (k == "--reps") a.reps = std::stoi(v);
    else if (k == "--batches") a.batches = std::stoi(v);
    else if (k == "--reorder") a.reorder = std::stoi(v) != 0;
    else { std::fprintf(stderr, "unknown option %s\n", k.c_str()); return 2; }
  }
  for (const auto& t : a.types)
    if (t != "float32" && t != "float16" && t != "bfloat16") {
      std::fprintf(stderr, "--type: float32, float16, bfloat16 or all, not %s\n", t.c_str());
      return 2;
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
  std::string types;
  for (const auto& t : a.types) types += (types.empty() ? "" : ",") + t;
  results.set_device(prop.name);
  std::printf("# device: %s; reps %d x batches %d, median; rows %s; types %s; budget %s\n", prop.name, a.reps,
              a.batches, a.reorder ? "reordered by window_row_order" : "as stored", types.c_str(),
              a.budget_s > 0 ? (std::to_string(a.budget_s) + " s").c_str() : "none");
  std::printf("graph,rows,nnz,N,type,path,ms,gflops,check\n");
  const Device gpu = Device::cuda(0);
  bool failed = false;
  std::map<double, std::vector<double>> sweep;  // threshold -> tc_window time relative to the model's
  std::vector<Row> table;
  std::vector<std::string> left_out;
  // (class, N) -> "graph ratio (entries per padded column)" of the graphs whose windows
  // hold at least 2 entries per padded column (below that no threshold of the model
  // sends a window to tensor cores, so their ratio does not calibrate it).
  std::map<std::pair<std::string, Index>, std::string> calib_dense;
  auto calib = [&](const std::string& gname, Index n, const std::string& cls, double ratio, double per_column) {
    std::printf("calib,%s,%lld,%s,%.3f\n", gname.c_str(), (long long)n, cls.c_str(), ratio);
    if (per_column >= 2) {
      char buf[128];
      std::snprintf(buf, sizeof buf, " %s %.2f (%.1f)", gname.c_str(), ratio, per_column);
      calib_dense[{cls, n}] += buf;
    }
  };

  for (const auto& name : a.graphs) {
    if (a.budget_s > 0 && elapsed_s() > a.budget_s) {
      left_out.push_back(name);
      continue;
    }
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
    const std::string gname = name.substr(0, name.find(".mtx"));
    const auto ro = A.row_offsets();
    const auto ci = A.col_indices();
    const std::vector<float> vals = A.values();
    const Index m = A.nrows(), kdim = A.ncols(), nnz = A.nvals();
    const Index cols8 = padded_columns(ro, ci, m, 8), cols16 = padded_columns(ro, ci, m, 16);
    std::printf("# %s: %lld rows, %lld entries; padded condensed columns of all windows: %lld (K = 8), %lld (K = 16)\n",
                gname.c_str(), (long long)m, (long long)nnz, (long long)cols8, (long long)cols16);
    Cusparse cs(m, kdim, ro, ci);
    void* v32 = device_copy(vals);
    void* vabs = device_copy([&] { auto v = vals; for (auto& x : v) x = std::abs(x); return v; }());

    for (Index n : a.ns) {
      // B with values in (-1, 1): geblas's random values in [0, 1), a third of them negated.
      std::vector<float> bh = DenseMatrix<float>::random(kdim, n, Device::cpu(), 1234 + n).to_row_major();
      for (std::size_t i = 0; i < bh.size(); ++i) if (i % 3 == 0) bh[i] = -bh[i];
      const std::size_t count = static_cast<std::size_t>(m * n);
      const double flops = 2.0 * double(nnz) * double(n);
      auto report = [&](const std::string& type, const std::string& path, double ms, const std::string& chk) {
        std::printf("%s,%lld,%lld,%lld,%s,%s,%.4f,%.1f,%s\n", gname.c_str(), (long long)m, (long long)nnz, (long long)n,
                    type.c_str(), path.c_str(), ms, flops / ms * 1e-6, chk.empty() ? "ok" : ("FAIL " + chk).c_str());
        const geblas::bench::CaseKey key{{"graph", gname}, {"N", std::to_string(n)}, {"type", type}, {"path", path}};
        g_results->add(key, "ms", ms, "ms");
        g_results->add_text(key, "check", chk.empty() ? "ok" : "FAIL " + chk);
        if (!chk.empty()) failed = true;
      };
      // The fp32 reference and |A||B| bound of (vals, bvals) from cuSPARSE's default algorithm.
      auto reference = [&](const void* va, const void* vb, const std::vector<float>& b_host, std::vector<float>& want,
                           std::vector<float>& bound) {
        void* d_b = device_copy(b_host);
        std::vector<float> babs = b_host;
        for (auto& x : babs) x = std::abs(x);
        void* d_babs = device_copy(babs);
        void *d_c = nullptr, *d_bound = nullptr;
        CHECK_CUDA(cudaMalloc(&d_c, sizeof(float) * std::max<std::size_t>(1, count)));
        CHECK_CUDA(cudaMalloc(&d_bound, sizeof(float) * std::max<std::size_t>(1, count)));
        {
          auto r = cs.prepare(va, d_b, d_c, n, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT);
          auto b = cs.prepare(vb, d_babs, d_bound, n, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT);
          if (!r || !b || !r->run() || !b->run()) { std::fprintf(stderr, "cuSPARSE reference failed\n"); std::exit(2); }
          cs.sync();
        }
        want = device_to_host(d_c, count);
        bound = device_to_host(d_bound, count);
        cudaFree(d_b), cudaFree(d_babs), cudaFree(d_c), cudaFree(d_bound);
      };
      // The best cuSPARSE algorithm for values/B/C of type dt (device buffers), checked.
      auto cusparse_best = [&](const std::string& type, const void* va, const void* db, void* dc, cudaDataType dt,
                               const std::function<std::string()>& verify) {
        double best = -1;
        for (auto [alg, alg_name] : cusparse_algs) {
          auto call = cs.prepare(va, db, dc, n, dt, alg);
          if (!call || !call->run()) { std::printf("# cusparse %s %s: refused\n", type.c_str(), alg_name); continue; }
          cs.sync();
          std::string chk = verify();
          const double ms = time_ms(a, [&] { call->run(); }, [&] { cs.sync(); });
          if (!chk.empty() && dt != CUDA_R_32F) {
            // cuSPARSE's own 16-bit accuracy (run 4: ALG_DEFAULT/1/2 missed the one-rounding
            // bound on most outputs, ALG3 met it): reported, not a failure of geblas.
            std::printf("# cusparse %s %s: outside the one-rounding bound: %s\n", type.c_str(), alg_name, chk.c_str());
            chk.clear();
          }
          report(type, std::string("cusparse_") + alg_name, ms, chk);
          if (best < 0 || ms < best) best = ms;
        }
        return best;
      };

      // fp32: cuSPARSE and geblas's CUDA-core path, the baselines of every type.
      std::vector<float> want32, bound32;
      reference(v32, vabs, bh, want32, bound32);
      const DenseMatrix<float> B32 = DenseMatrix<float>::from_row_major(kdim, n, bh).to(gpu);
      const SparseMatrix<float> dA = A.to(gpu);
      DenseMatrix<float> C32(m, n, gpu);
      const double cus32 = cusparse_best("float32", v32, B32.data(), C32.data(), CUDA_R_32F, [&] {
        return check(device_to_host(C32.data(), count), want32, bound32, 1e-5, 1e-5);
      });
      // A geblas path on (A, B) into C: checked once, then timed; -1 when refused.
      auto geblas_path = [&]<class T>(const std::string& type, const std::string& path, const SparseMatrix<T>& gA,
                                      const DenseMatrix<T>& gB, DenseMatrix<T>& gC, Options o,
                                      const std::function<std::string(const DenseMatrix<T>&)>& verify,
                                      std::string* chosen = nullptr) -> double {
        try {
          mxm(gC, gA, gB, semiring::plus_times<T>{}, o);
        } catch (const Error& e) {
          std::printf("# %s %s: %s\n", type.c_str(), path.c_str(), e.what());
          return -1;
        }
        const std::string chk = verify ? verify(gC) : std::string();
        const std::string choice = last_dispatch().variant;
        if (chosen) *chosen = choice;
        const double ms = time_ms(a, [&] { mxm(gC, gA, gB, semiring::plus_times<T>{}, o); }, [&] { synchronize(gpu); });
        report(type, path + (o.variant.empty() ? "(" + choice + ")" : ""), ms, chk);
        return ms;
      };
      const auto verify32 = [&](const DenseMatrix<float>& C) {
        return check(C.to_row_major(), want32, bound32, 1e-5, 1e-5);
      };
      const auto verify_tf32 = [&](const DenseMatrix<float>& C) {
        return check(C.to_row_major(), want32, bound32, 1e-5, 2e-3);
      };
      const double cc32 = geblas_path.template operator()<float>("float32", "geblas_fp32", dA, B32, C32, {}, verify32);

      for (const std::string& type : a.types) {
        Row row;
        row.graph = gname;
        row.type = type;
        row.nnz = nnz;
        row.n = n;
        row.cus32 = cus32;
        row.cc32 = cc32;
        // Plan and routing for this type and N on fresh copies (empty caches), median of 3.
        auto plan_facts = [&]<class T>(const SparseMatrix<T>& gA) {
          std::vector<double> build;
          WindowPlanInfo info;
          for (int r = 0; r < 3; ++r) {
            const SparseMatrix<T> fresh = gA;
            info = window_plan_info(fresh, n);
            build.push_back(info.build_ms);
          }
          row.plan_ms = median(build);
          row.share = double(info.tensor_core_nvals) / double(std::max<Index>(1, nnz));
          row.gain = info.predicted_gain;
          std::printf("# %s N=%lld %s: threshold %.2f (K=%d): %lld windows, %lld tensor-core (%.1f%% of entries, "
                      "%lld padded columns), %lld cuda-core, %lld empty; model gain %.3f; plan %.3f ms\n",
                      gname.c_str(), (long long)n, type.c_str(), info.threshold, info.k_step, (long long)info.windows,
                      (long long)info.tensor_core_windows, 100.0 * row.share, (long long)info.tensor_core_columns,
                      (long long)info.cuda_core_windows, (long long)info.empty_windows, info.predicted_gain,
                      row.plan_ms);
        };
        auto threshold_sweep = [&]<class T>(const SparseMatrix<T>& gA, const DenseMatrix<T>& gB, DenseMatrix<T>& gC,
                                           Options o) {
          for (double t : a.thresholds) {
            set_tc_window_threshold(t);
            const double ms =
                geblas_path.template operator()<T>(type, "tc_window@" + std::to_string(t), gA, gB, gC, o, {});
            if (ms > 0 && row.tc > 0) sweep[t].push_back(ms / row.tc);
          }
          reset_tc_window_threshold();
        };
        if (type == "float32") {
          plan_facts(dA);
          const Options tf32{.allow_tf32 = true};
          row.tc = geblas_path.template operator()<float>(type, "tc_window", dA, B32, C32,
                                                          {.variant = "tc_window", .allow_tf32 = true}, verify_tf32);
          row.all = geblas_path.template operator()<float>(type, "tc_window_all", dA, B32, C32,
                                                           {.variant = "tc_window_all", .allow_tf32 = true}, verify_tf32);
          row.au = geblas_path.template operator()<float>(type, "auto_tf32", dA, B32, C32, tf32, verify_tf32,
                                                          &row.chosen);
          if (row.all > 0 && cc32 > 0)
            calib(gname, n, "tf32", (row.all / double(cols8)) / (cc32 / double(nnz)), double(nnz) / double(cols8));
          threshold_sweep(dA, B32, C32, {.variant = "tc_window", .allow_tf32 = true});
        } else {
          auto run16 = [&]<class T>(cudaDataType dt, double u) {
            // The rounded inputs, their fp32 reference, cuSPARSE in the type, geblas.
            // A's values scaled by a power of two (exact) so that |a| <= 1: a graph whose
            // weights pass half's range (bcsstk16's reach 1e9) would otherwise become
            // infinities and the whole product NaN, which times nothing meaningful.
            float amax = 0;
            for (float x : vals) amax = std::max(amax, std::abs(x));
            const int shift = amax > 1 ? std::ilogb(amax) + 1 : 0;
            if (shift > 0)
              std::printf("# %s %s: A's values scaled by 2^-%d (max |a| = %g) to stay inside the type's range\n",
                          gname.c_str(), type.c_str(), shift, amax);
            std::vector<float> scaled = vals;
            for (auto& x : scaled) x = std::ldexp(x, -shift);
            const std::vector<T> v16 = narrow<T>(scaled), b16 = narrow<T>(bh);
            const std::vector<float> vr = widen(v16), br = widen(b16);
            std::vector<float> vr_abs = vr;
            for (auto& x : vr_abs) x = std::abs(x);
            void* d_vr = device_copy(vr);
            void* d_vr_abs = device_copy(vr_abs);
            std::vector<float> want, bound;
            reference(d_vr, d_vr_abs, br, want, bound);
            cudaFree(d_vr), cudaFree(d_vr_abs);
            const auto verify = [&](const DenseMatrix<T>& C) {
              return check(widen(C.to_row_major()), want, bound, u, 1e-5);
            };
            void* d_v16 = device_copy(v16);
            const SparseMatrix<T> gA = SparseMatrix<T>::from_csr(m, kdim, ro, ci, v16).to(gpu);
            const DenseMatrix<T> gB = DenseMatrix<T>::from_row_major(kdim, n, b16).to(gpu);
            DenseMatrix<T> gC(m, n, gpu);
            row.cus_t = cusparse_best(type, d_v16, gB.data(), gC.data(), dt, [&] { return verify(gC); });
            cudaFree(d_v16);
            plan_facts(gA);
            // The CUDA-core path in the type: the dispatcher with tensor cores ruled out.
            set_tc_window_threshold(1e30);
            row.cc_t = geblas_path.template operator()<T>(type, "geblas_cc", gA, gB, gC, {}, verify);
            reset_tc_window_threshold();
            row.tc = geblas_path.template operator()<T>(type, "tc_window", gA, gB, gC, {.variant = "tc_window"}, verify);
            row.all = geblas_path.template operator()<T>(type, "tc_window_all", gA, gB, gC,
                                                         {.variant = "tc_window_all"}, verify);
            row.au = geblas_path.template operator()<T>(type, "auto", gA, gB, gC, {}, verify, &row.chosen);
            if (row.all > 0 && row.cc_t > 0)
              calib(gname, n, type, (row.all / double(cols16)) / (row.cc_t / double(nnz)), double(nnz) / double(cols16));
            threshold_sweep(gA, gB, gC, {.variant = "tc_window"});
          };
          if (type == "float16") run16.template operator()<geblas::half>(CUDA_R_16F, 0x1p-11);
          else run16.template operator()<geblas::bfloat16>(CUDA_R_16BF, 0x1p-8);
        }
        table.push_back(row);
      }
    }
    cudaFree(v32);
    cudaFree(vabs);
    std::fflush(stdout);  // a run cut off by a time limit keeps the graphs it finished
  }
  if (!left_out.empty()) {
    std::printf("# budget of %.0f s reached; graphs left out:", a.budget_s);
    for (const auto& g : left_out) std::printf(" %s", g.c_str());
    std::printf("\n");
  }
  for (const auto& t : a.types) summary(t, table);
  for (auto& [t, v] : sweep) std::printf("# threshold %.2f: tc_window time / the model's, geomean %.3f\n", t, geomean(v));
  for (const auto& [key, graphs] : calib_dense)
    std::printf("# calib %s N=%lld (graph, ratio, entries per padded column; the model uses %.2f):%s\n",
                key.first.c_str(), (long long)key.second,
                tc_window_threshold(key.first == "tf32" ? TypeId::float32 : TypeId::float16, key.second), graphs.c_str());
  std::printf("\n| graph | type | nnz | N | tc share | model gain | plan ms | cuSPARSE fp32 ms | geblas fp32 ms | "
              "cuSPARSE type ms | geblas cc type ms | tc_window ms | tc_window_all ms | auto ms (choice) | "
              "auto / better pure |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& r : table) {
    const double cc = r.type == "float32" ? r.cc32 : r.cc_t;
    std::printf("| %s | %s | %lld | %lld | %.1f%% | %.2f | %.3f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f (%s) | "
                "%.2f |\n",
                r.graph.c_str(), r.type.c_str(), (long long)r.nnz, (long long)r.n, 100 * r.share, r.gain, r.plan_ms,
                r.cus32, r.cc32, r.cus_t, r.cc_t, r.tc, r.all, r.au, r.chosen.c_str(),
                r.au > 0 && r.all > 0 && cc > 0 ? r.au / std::min(r.all, cc) : 0.0);
  }
  std::printf("# total %.1f s\n", elapsed_s());
  return failed ? 1 : 0;
}
