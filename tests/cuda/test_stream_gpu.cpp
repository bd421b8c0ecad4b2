// geblas::cuda::StreamGuard on a GPU: products queued on a caller's non-blocking stream
// after the caller's own work on it, two host threads on one GPU with a stream each, and
// the guard's nesting and errors. Every output element is checked against plain loops
// over the tuples (integer-valued floats, so every sum is exact in any order).
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) FAIL(std::string(what) + ": " + cudaGetErrorString(e));
}

// A caller's stream, destroyed after the work on it is done.
struct UserStream {
  cudaStream_t s = nullptr;
  UserStream() { cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
  ~UserStream() {
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  }
  UserStream(const UserStream&) = delete;
  UserStream& operator=(const UserStream&) = delete;
};

struct Problem {
  Index m, k, n;
  std::vector<Index> rows, cols;
  std::vector<float> vals;
  std::vector<float> B;  // k x n, row-major
};

// Values in {1, 2, 3} and B in {-4..4}: products and sums are small integers.
Problem random_problem(Index m, Index k, Index n, double density, std::uint64_t seed) {
  Problem p{m, k, n, {}, {}, {}, {}};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> val(1, 3), bval(-4, 4);
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < k; ++j)
      if (u(rng) < density || (i == 0 && j == k - 1)) {  // row 0 is never empty
        p.rows.push_back(i);
        p.cols.push_back(j);
        p.vals.push_back(static_cast<float>(val(rng)));
      }
  p.B.resize(static_cast<std::size_t>(k * n));
  for (float& b : p.B) b = static_cast<float>(bval(rng));
  return p;
}

SparseMatrix<float> matrix_of(const Problem& p, Device d) {
  return SparseMatrix<float>::from_tuples(p.m, p.k, p.rows, p.cols, p.vals, Duplicates::error(), d);
}

// C = A (+).(x) B by loops over the tuples: plus_times, or max_times when `max`; a row
// without entries holds the monoid's identity (geblas's dense-output rule).
std::vector<float> reference(const Problem& p, const std::vector<float>& B, bool max) {
  const float identity = max ? -INFINITY : 0.0f;
  std::vector<float> C(static_cast<std::size_t>(p.m * p.n), identity);
  for (std::size_t e = 0; e < p.rows.size(); ++e)
    for (Index j = 0; j < p.n; ++j) {
      float& c = C[static_cast<std::size_t>(p.rows[e] * p.n + j)];
      const float t = p.vals[e] * B[static_cast<std::size_t>(p.cols[e] * p.n + j)];
      c = max ? std::max(c, t) : c + t;
    }
  return C;
}

void check_all(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && !(std::isinf(got[i]) && std::isinf(want[i]) && got[i] == want[i])) {
      if (bad++ == 0) first = i;
    }
  INFO(what << ": " << bad << " of " << got.size() << " elements differ; first at " << first);
  REQUIRE(bad == 0);
}

// Holds `s` for `ms` milliseconds: a host function queued on the stream, so that the
// work queued after it on `s` starts late. A product that did not wait for the stream
// would read its operand before the caller's copy below wrote it.
void CUDART_CB sleep_on_stream(void* ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<int*>(ms)));
}

}  // namespace

TEST_CASE("stream guard: products are queued after the caller's work on its stream", "[stream]") {
  const Device gpu = Device::cuda(0);
  const Problem p = random_problem(3000, 2000, 64, 0.004, 11);
  const SparseMatrix<float> A = matrix_of(p, gpu);
  // B starts as zeros on the device; the caller's copy fills it on its stream after a
  // delay. Computed from zeros, C would be 0 (sum) or 0 / -inf (max) everywhere.
  DenseMatrix<float> B = DenseMatrix<float>::constant(p.k, p.n, 0.0f, gpu);
  REQUIRE(B.storage().layout == Layout::row_major);
  REQUIRE(B.storage().ld == p.n);
  UserStream user;
  float* pinned = nullptr;
  cuda_ok(cudaMallocHost(&pinned, p.B.size() * sizeof(float)), "cudaMallocHost");
  std::copy(p.B.begin(), p.B.end(), pinned);

  for (bool max : {false, true}) {
    for (const std::string variant : {"", "row_split", "nnz_split_fused", "merge_path"}) {
      DYNAMIC_SECTION((max ? "max_times" : "plus_times") << " variant '" << variant << "'") {
        static int delay_ms = 200;
        cuda_ok(cudaLaunchHostFunc(user.s, sleep_on_stream, &delay_ms), "cudaLaunchHostFunc");
        cuda_ok(cudaMemcpyAsync(B.storage().data.data(), pinned, p.B.size() * sizeof(float), cudaMemcpyHostToDevice,
                                user.s),
                "cudaMemcpyAsync");
        std::vector<float> got;
        {
          cuda::StreamGuard on(gpu, user.s);
          REQUIRE(cuda::current_stream(gpu) == static_cast<void*>(user.s));
          DenseMatrix<float> C(p.m, p.n, gpu);
          Options o;
          o.variant = variant;
          if (max) mxm(C, A, B, semiring::max_times<float>{}, o);
          else mxm(C, A, B, semiring::plus_times<float>{}, o);
          got = C.to_row_major();  // a copy to the host on the user's stream
        }
        check_all(got, reference(p, p.B, max), std::string(max ? "max_times" : "plus_times") + " " + variant);
        // Zero B again (on the user's stream) for the next section.
        cuda_ok(cudaMemsetAsync(B.storage().data.data(), 0, p.B.size() * sizeof(float), user.s), "cudaMemsetAsync");
        cuda_ok(cudaStreamSynchronize(user.s), "cudaStreamSynchronize");
      }
    }
  }
  cudaFreeHost(pinned);
}

TEST_CASE("stream guard: objects made under a guard outlive it", "[stream][sanitize]") {
  // Made and used on the user's stream, destroyed after the guard: the free waits for
  // the user's stream (the memory is not handed out while its kernel may still run).
  const Device gpu = Device::cuda(0);
  const Problem p = random_problem(500, 400, 33, 0.02, 5);
  UserStream user;
  std::vector<float> first, second;
  {
    DenseMatrix<float> C;
    {
      cuda::StreamGuard on(gpu, user.s);
      const SparseMatrix<float> A = matrix_of(p, gpu);
      const DenseMatrix<float> B = DenseMatrix<float>::from_row_major(p.k, p.n, p.B, gpu);
      C = DenseMatrix<float>(p.m, p.n, gpu);
      mxm(C, A, B, semiring::plus_times<float>{});
    }
    first = C.to_row_major();  // on geblas's own stream, after the product on the user's
  }
  check_all(first, reference(p, p.B, false), "made under a guard, read after it");
}

TEST_CASE("stream guard: two host threads, one stream each, on one GPU", "[stream]") {
  const Device gpu = Device::cuda(0);
  // One matrix shared by both threads (its caches are built by whichever comes first),
  // and one of each thread's own.
  const Problem shared = random_problem(4000, 4000, 40, 0.003, 21);
  const SparseMatrix<float> A_shared = matrix_of(shared, gpu);
  const std::vector<float> want_shared = reference(shared, shared.B, false);
  const std::vector<float> want_shared_max = reference(shared, shared.B, true);
  constexpr int threads = 2, rounds = 40;
  std::vector<std::string> failures(threads);

  auto work = [&](int t) {
    try {
      UserStream user;
      cuda::StreamGuard on(gpu, user.s);
      const Problem own = random_problem(1500 + 300 * t, 1200, 17 + 16 * t, 0.01, 100 + static_cast<std::uint64_t>(t));
      const SparseMatrix<float> A_own = matrix_of(own, gpu);
      const std::vector<float> want_own = reference(own, own.B, false);
      const DenseMatrix<float> B_shared = DenseMatrix<float>::from_row_major(shared.k, shared.n, shared.B, gpu);
      const DenseMatrix<float> B_own = DenseMatrix<float>::from_row_major(own.k, own.n, own.B, gpu);
      // mxv: w = A u with u = the first column of B.
      std::vector<float> u(static_cast<std::size_t>(shared.k));
      for (Index j = 0; j < shared.k; ++j)
        u[static_cast<std::size_t>(j)] = shared.B[static_cast<std::size_t>(j * shared.n)];
      const Vector<float> u_dev = Vector<float>::from_dense(u).to(gpu);
      const std::vector<std::string> variants = {"", "nnz_split_fused", "nnz_split", "row_pieces", "merge_path"};
      for (int r = 0; r < rounds; ++r) {
        const std::string v = variants[static_cast<std::size_t>(r) % variants.size()];
        Options o;
        o.variant = v;
        DenseMatrix<float> C1(shared.m, shared.n, gpu), C2(own.m, own.n, gpu), C3(shared.m, shared.n, gpu);
        mxm(C1, A_shared, B_shared, semiring::plus_times<float>{}, o);
        mxm(C2, A_own, B_own, semiring::plus_times<float>{}, o);
        mxm(C3, A_shared, B_shared, semiring::max_times<float>{}, o);
        Vector<float> w = Vector<float>::dense(shared.m, 0.0f, gpu);
        mxv(w, A_shared, u_dev, semiring::plus_times<float>{});
        const auto g1 = C1.to_row_major(), g2 = C2.to_row_major(), g3 = C3.to_row_major();
        const auto gw = w.to_std_vector();
        auto differs = [](const std::vector<float>& a, const std::vector<float>& b) { return a != b; };
        std::string bad;
        if (differs(g1, want_shared)) bad += " shared plus_times";
        if (differs(g2, want_own)) bad += " own plus_times";
        if (differs(g3, want_shared_max)) bad += " shared max_times";
        for (Index i = 0; i < shared.m && bad.find("mxv") == std::string::npos; ++i)
          if (gw[static_cast<std::size_t>(i)] != want_shared[static_cast<std::size_t>(i * shared.n)]) bad += " mxv";
        if (!bad.empty()) {
          failures[static_cast<std::size_t>(t)] =
              "thread " + std::to_string(t) + " round " + std::to_string(r) + " variant '" + v + "':" + bad;
          return;
        }
      }
    } catch (const std::exception& e) {
      failures[static_cast<std::size_t>(t)] = "thread " + std::to_string(t) + ": " + e.what();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (auto& th : pool) th.join();
  for (const std::string& f : failures) {
    INFO(f);
    CHECK(f.empty());
  }
}

TEST_CASE("stream guard: nesting, restoring and bad devices", "[stream][sanitize]") {
  const Device gpu = Device::cuda(0);
  void* own = cuda::default_stream(gpu);
  REQUIRE(own != nullptr);
  CHECK(cuda::current_stream(gpu) == own);
  UserStream a, b;
  {
    cuda::StreamGuard outer(gpu, a.s);
    CHECK(cuda::current_stream(gpu) == static_cast<void*>(a.s));
    {
      cuda::StreamGuard inner(gpu, b.s);
      CHECK(cuda::current_stream(gpu) == static_cast<void*>(b.s));
      // Another thread is not affected by this thread's guards.
      void* seen = nullptr;
      std::thread([&] { seen = cuda::current_stream(gpu); }).join();
      CHECK(seen == own);
    }
    CHECK(cuda::current_stream(gpu) == static_cast<void*>(a.s));
    {
      cuda::StreamGuard legacy(gpu, nullptr);  // the legacy default stream is a stream too
      CHECK(cuda::current_stream(gpu) == nullptr);
      const Problem p = random_problem(50, 40, 5, 0.1, 3);
      DenseMatrix<float> C(p.m, p.n, gpu);
      mxm(C, matrix_of(p, gpu), DenseMatrix<float>::from_row_major(p.k, p.n, p.B, gpu), semiring::plus_times<float>{});
      check_all(C.to_row_major(), reference(p, p.B, false), "on the legacy default stream");
    }
    CHECK(cuda::current_stream(gpu) == static_cast<void*>(a.s));
  }
  CHECK(cuda::current_stream(gpu) == own);

  // A device that does not exist, and a device that is not CUDA.
  const int count = cuda_device_count();
  REQUIRE_THROWS_AS(cuda::StreamGuard(Device::cuda(count), a.s), InvalidValue);
  REQUIRE_THROWS_WITH(cuda::StreamGuard(Device::cuda(count), a.s), test::contains("does not exist"));
  REQUIRE_THROWS_AS(cuda::StreamGuard(Device::cpu(), a.s), InvalidValue);
  CHECK(cuda::current_stream(gpu) == own);  // a failed guard changes nothing

  if (count >= 2) {
    // A stream of cuda:1 named for cuda:0.
    int previous = 0;
    cuda_ok(cudaGetDevice(&previous), "cudaGetDevice");
    cuda_ok(cudaSetDevice(1), "cudaSetDevice");
    UserStream other;
    cuda_ok(cudaSetDevice(previous), "cudaSetDevice");
    REQUIRE_THROWS_AS(cuda::StreamGuard(gpu, other.s), InvalidValue);
    REQUIRE_THROWS_WITH(cuda::StreamGuard(gpu, other.s), test::contains("belongs to cuda:1, not to cuda:0"));
    CHECK(cuda::current_stream(gpu) == own);
  } else {
    WARN("one CUDA device: the wrong-device stream case needs two (skipped)");
  }
}
