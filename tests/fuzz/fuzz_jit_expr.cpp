// Fuzz target: the run-time semiring text of geblas::jit (src/core/jit_expr.cpp). The
// fuzzer's text becomes the add (a built-in name, or an expression with its identity and
// terminal) and the multiply of a jit::semiring over one of the five value types.
// Construction must succeed or throw InvalidValue. A semiring that constructs is run on
// the CPU over operands that include the values where C is undefined or IEEE is special
// (zero divisors, the integer extremes, NaN, infinities, huge values): UBSan reports any
// undefined operation the interpreter does, and the product must be deterministic
// (bit-identical twice) and unchanged by putting the multiply's text in parentheses.
//
// Layout: byte 0 picks the value type and whether the add and the multiply are built-in
// names (then byte 1 picks the name); the rest is split at '\n' into the add, its
// identity, its terminal and the multiply (the fields that the choices use).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "fuzz_input.hpp"
#include "geblas/jit.hpp"

using namespace geblas;

namespace {

const char* const kMonoidNames[] = {"plus", "times", "min", "max", "lor", "land", "lxor"};
const char* const kMulNames[] = {"first", "second", "pair", "plus", "minus", "rminus", "times", "div", "rdiv", "min",
                                 "max",   "lor",    "land", "lxor", "eq",    "ne",     "gt",    "lt",  "ge",   "le"};

template <class T>
std::vector<T> special_values() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return {false, true, true, false, true, false};
  } else if constexpr (std::is_integral_v<T>) {
    return {0, 1, -1, L::max(), L::min(), 7};
  } else {
    return {T(0), T(-0.0), L::quiet_NaN(), L::infinity(), -L::infinity(), L::max(), L::denorm_min(), T(-3.5)};
  }
}

// C = A (+).(x) B with A 2 x k holding every special value, B k x 3 the same values in
// another order (so that each pair meets), as C's bytes.
template <class T>
std::vector<unsigned char> product(const jit::semiring<T>& s) {
  const std::vector<T> v = special_values<T>();
  const Index k = static_cast<Index>(v.size());
  std::vector<Index> offsets = {0, k, 2 * k};
  std::vector<ColIndex> cols;
  std::vector<T> avals;
  for (int r = 0; r < 2; ++r)
    for (Index j = 0; j < k; ++j) {
      cols.push_back(static_cast<ColIndex>(j));
      avals.push_back(v[static_cast<std::size_t>((j + r) % k)]);
    }
  const auto A = SparseMatrix<T>::from_csr(2, k, offsets, cols, avals);
  std::vector<T> bvals;
  for (Index j = 0; j < k * 3; ++j) bvals.push_back(v[static_cast<std::size_t>((j * 5 + 1) % k)]);
  const auto B = DenseMatrix<T>::from_row_major(k, 3, bvals);
  DenseMatrix<T> C(2, 3);
  mxm(C, A, B, s);
  const auto& data = C.storage().data;
  const auto* p = static_cast<const unsigned char*>(data.data());
  return std::vector<unsigned char>(p, p + data.bytes());
}

template <class T>
void run(const jit::monoid& add, const std::string& mul, bool mul_is_text) {
  std::optional<jit::semiring<T>> s;
  try {
    s.emplace(add, mul);
  } catch (const Error& e) {
    GEBLAS_FUZZ_CHECK(e.info() == Info::invalid_value, "a bad semiring text is not an InvalidValue: %s", e.what());
    return;
  }
  GEBLAS_FUZZ_CHECK(!s->cuda_source().empty(), "no CUDA source for %s", s->name().c_str());
  const std::vector<unsigned char> first = product(*s);
  GEBLAS_FUZZ_CHECK(product(*s) == first, "%s gives another product the second time", s->name().c_str());
  // A built-in name given as text is that operator, not an expression to parenthesize.
  bool is_name = false;
  for (const char* n : kMulNames) is_name = is_name || mul == n;
  if (mul_is_text && !is_name) {
    std::optional<jit::semiring<T>> wrapped;
    try {
      wrapped.emplace(add, "(" + mul + ")");
    } catch (const Error& e) {
      // The parentheses add a level: a multiply at the nesting limit may go beyond it.
      if (std::string(e.what()).find("nested deeper than") != std::string::npos) return;
      GEBLAS_FUZZ_CHECK(false, "the multiply parses bare but not in parentheses: %s", e.what());
    }
    GEBLAS_FUZZ_CHECK(product(*wrapped) == first, "%s changes its product in parentheses", s->name().c_str());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const std::uint8_t choice = in.byte();
  const std::uint8_t name = in.byte();
  const std::string text = in.rest();
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (int f = 0; f < 3; ++f) {
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) break;
    fields.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  fields.push_back(text.substr(start));
  while (fields.size() < 4) fields.insert(fields.begin(), std::string());
  // With fewer than four fields the last one is the multiply; the add takes the first ones.
  const bool builtin_add = (choice >> 3) & 1, builtin_mul = (choice >> 4) & 1;
  const jit::monoid add = builtin_add ? jit::monoid(kMonoidNames[name % 7])
                                      : jit::monoid(fields[0], fields[1], fields[2]);
  const std::string mul = builtin_mul ? std::string(kMulNames[(name >> 3) % 20]) : fields[3];
  switch (choice % 5) {
    case 0: run<bool>(add, mul, !builtin_mul); break;
    case 1: run<std::int32_t>(add, mul, !builtin_mul); break;
    case 2: run<std::int64_t>(add, mul, !builtin_mul); break;
    case 3: run<float>(add, mul, !builtin_mul); break;
    default: run<double>(add, mul, !builtin_mul); break;
  }
  return 0;
}
