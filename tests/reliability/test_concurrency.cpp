// Several host threads calling geblas at once: each on its own objects, and all reading
// one shared matrix (whose lazily built transpose must be built once, under its lock).
// Every thread checks every result against a reference computed beforehand, and its own
// dispatch record (thread-local). Built for the host and, as a gpu test, for cuda:0,
// where all threads share the device's stream. docs/RELIABILITY.md states the rules.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/device.hpp"
#include "support/catch.hpp"
#include "support/compare.hpp"
#include "support/random.hpp"

using namespace geblas;
using test::device;

namespace {

constexpr int threads = 8;
constexpr int rounds = 6;

struct Job {
  std::string semiring;
  test::RandomSparse<double> A;
  ref::Dense<double> B;
  ref::Dense<double> want;
};

Job make_job(int t, int r) {
  static const char* names[] = {"plus_times", "min_plus", "max_times", "plus_second"};
  const std::uint64_t seed = 10000 + 100 * t + r;
  Job j;
  j.semiring = names[(t + r) % 4];
  const Index m = 40 + 7 * t, k = 30 + 5 * r, n = 1 + (t * 13 + r) % 40;
  j.A = test::random_sparse<double>(m, k, 0.1, r % 2 ? test::Shape::heavy_row : test::Shape::empty_rows, seed);
  j.B = test::random_dense<double>(k, n, seed + 1);
  j.want = ref::spmm<double>(j.A.eigen(), j.B, ref::semiring<double>(j.semiring));
  return j;
}

// Runs body(t) on `threads` threads at once; returns the failures they report.
template <class Body>
std::vector<std::string> run_threads(Body&& body) {
  std::vector<std::string> failures(threads);
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ++ready;
      while (ready.load() < threads) std::this_thread::yield();  // start together
      try {
        failures[t] = body(t);
      } catch (const std::exception& e) {
        failures[t] = std::string("threw: ") + e.what();
      }
    });
  for (auto& th : pool) th.join();
  return failures;
}

}  // namespace

TEST_CASE("threads running mxm on their own objects get correct results", "[reliability][threads]") {
  const Device dev = device();
  std::vector<std::vector<Job>> jobs(threads);
  for (int t = 0; t < threads; ++t)
    for (int r = 0; r < rounds; ++r) jobs[t].push_back(make_job(t, r));
  const auto failures = run_threads([&](int t) -> std::string {
    for (int r = 0; r < rounds; ++r) {
      const Job& j = jobs[t][r];
      const auto A = j.A.geblas().to(dev);
      const auto B = test::to_geblas(j.B, Layout::row_major, dev);
      DenseMatrix<double> C = DenseMatrix<double>::constant(A.nrows(), B.ncols(), test::poison<double>(), dev);
      visit_semiring<double>(semiring_from_string(j.semiring.c_str()), [&]<class S>() { mxm(C, A, B, S{}); });
      if (last_dispatch().operation != "mxm(sparse x dense)")
        return "thread " + std::to_string(t) + " sees another thread's dispatch record: " + last_dispatch().operation;
      const std::string diff = test::compare_dense(C.to(Device::cpu()), j.want);
      if (!diff.empty()) return "thread " + std::to_string(t) + " round " + std::to_string(r) + " " + j.semiring + ":" + diff;
    }
    return "";
  });
  for (int t = 0; t < threads; ++t) {
    INFO("thread " << t);
    CHECK(failures[t] == "");
  }
}

TEST_CASE("threads sharing one read-only matrix, transposed, get correct results", "[reliability][threads]") {
  const Device dev = device();
  const auto As = test::random_sparse<double>(300, 200, 0.05, test::Shape::heavy_row, 4242);
  const auto A = As.geblas().to(dev);  // shared, read-only; its transpose is built lazily
  const ref::Sparse<double> At = As.eigen().transpose();
  std::vector<ref::Dense<double>> Bs, wants;
  for (int t = 0; t < threads; ++t) {
    Bs.push_back(test::random_dense<double>(300, 3 + t, 5000 + t));
    wants.push_back(ref::spmm<double>(At, Bs.back(), ref::semiring<double>("plus_times")));
  }
  const auto failures = run_threads([&](int t) -> std::string {
    const auto B = test::to_geblas(Bs[t], Layout::row_major, dev);
    for (int r = 0; r < rounds; ++r) {
      DenseMatrix<double> C = DenseMatrix<double>::constant(200, 3 + t, test::poison<double>(), dev);
      mxm(C, A, B, semiring::plus_times<double>{}, {.transpose_a = true});
      const std::string diff = test::compare_dense(C.to(Device::cpu()), wants[t]);
      if (!diff.empty()) return "thread " + std::to_string(t) + " round " + std::to_string(r) + ":" + diff;
    }
    return "";
  });
  for (int t = 0; t < threads; ++t) {
    INFO("thread " << t);
    CHECK(failures[t] == "");
  }
}

TEST_CASE("threads building, copying and destroying matrices at once", "[reliability][threads]") {
  const Device dev = device();
  const auto failures = run_threads([&](int t) -> std::string {
    for (int r = 0; r < 4 * rounds; ++r) {
      const auto As = test::random_sparse<float>(50 + t, 40 + r, 0.1, test::Shape::uniform, 777 + 31 * t + r);
      const SparseMatrix<float> A = As.geblas().to(dev);
      const SparseMatrix<float> copy = A;  // same-device copy
      const auto back = copy.to(Device::cpu()).extract_tuples();
      const auto want = As.geblas().extract_tuples();
      if (back != want) return "thread " + std::to_string(t) + " round " + std::to_string(r) + ": tuples differ";
    }
    return "";
  });
  for (int t = 0; t < threads; ++t) {
    INFO("thread " << t);
    CHECK(failures[t] == "");
  }
}
