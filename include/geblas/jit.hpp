// <geblas/jit.hpp>: semirings defined at run time, as text. On a GPU the library compiles
// them with NVRTC into the same tuned SpMM kernel templates the built-in semirings use
// (cached in memory and on disk); on the CPU it runs them through an interpreter of the
// same expressions. The idea follows SuiteSparse:GraphBLAS's JIT (user operators compiled
// at run time); no nvcc is needed in the caller's build.
//
//   auto s = geblas::jit::semiring<float>("max", "a + b");                     // names or text
//   auto t = geblas::jit::semiring<int>({"a < b ? a : b", "2147483647"}, "a + b");
//   geblas::mxm(C, A, B, s);                                                    // sparse x dense
//
// Value types: bool, int32, int64, float and double. half and bfloat16 are not: a
// jit::semiring over one is NotImplemented, and 16-bit operands with a run-time semiring
// a DomainMismatch, each saying what to do instead (convert to float, or use a built-in
// semiring, which computes 16-bit values directly).
//
// Each half is either a built-in name or an expression over `a` and `b` (the operands,
// of the semiring's value type). Names of the add monoid: plus, times, min, max, lor,
// land, lxor (their identity and terminal are the built-in ones). Names of the multiply:
// first, second, pair, plus, minus, rminus, times, div, rdiv, min, max, lor, land, lxor,
// eq, ne, gt, lt, ge, le (as geblas::binop). An expression add must be associative and
// commutative (the GPU kernels fold a row's products in an order of their choosing: an add
// that is not gives results that differ from the CPU's and from call to call with the
// variant), needs its identity (a constant expression) and may give a terminal value (an annihilator: the CPU stops a
// row's sum there; the GPU kernels ignore it, as for the built-ins).
//
// The expression grammar, a subset of C with C's types and precedence:
//   expr    := or ( '?' expr ':' expr )?
//   or      := and ( '||' and )*          and := eq ( '&&' eq )*
//   eq      := rel ( ('==' | '!=') rel )*  rel := sum ( ('<' | '<=' | '>' | '>=') sum )*
//   sum     := prod ( ('+' | '-') prod )*  prod := unary ( ('*' | '/' | '%') unary )*
//   unary   := ('-' | '+' | '!') unary | primary
//   primary := number | a | b | INFINITY | NAN | true | false | '(' expr ')'
//            | (min | max | fmin | fmax) '(' expr ',' expr ')' | (abs | fabs) '(' expr ')'
// Numbers: 12 (int; long long beyond int's range), 1.5 / 1e-3 (double), 1.5f (float).
// Types follow C's usual arithmetic conversions (bool and int32 compute as int; float
// stays float unless mixed with double); the result converts to the value type.
// Defined where C leaves it undefined, identically on the CPU and the GPU: integer
// + - * and unary - wrap (two's complement); integer x / 0 is 0 for x == 0, else the
// type's max or min (binop::div's rule); x / -1 wraps; x % 0 and x % -1 are 0; % needs
// integers; a floating value converts to an integer saturating, NaN to 0. min/max and
// fmin/fmax ignore a NaN operand (C's fmin). Each floating operation of an expression is
// rounded on its own (the GPU never fuses a * b + c), so CPU and GPU agree exactly.
//
// jit::cuda_expr gives the multiply as raw CUDA C++ instead (any device code NVRTC
// compiles, over `a` and `b` of type T); such a semiring runs on the GPU only, and a
// compile error is an InvalidValue carrying NVRTC's log.
//
// Disk cache: $GEBLAS_JIT_CACHE, else $XDG_CACHE_HOME/geblas, else ~/.cache/geblas (one
// file per kernel set, written atomically, checked by size and checksum on reading).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "geblas/dense_matrix.hpp"
#include "geblas/options.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas {
namespace detail::jit {
struct SemiringImpl;
}

namespace jit {

// The add monoid: a built-in name (identity and terminal then come with it), or an
// expression with its identity and optional terminal (constant expressions).
struct monoid {
  std::string op;
  std::string identity{};
  std::string terminal{};
  monoid(const char* name) : op(name) {}  // NOLINT: a name converts implicitly
  monoid(std::string name) : op(std::move(name)) {}  // NOLINT
  monoid(std::string op_, std::string identity_, std::string terminal_ = {})
      : op(std::move(op_)), identity(std::move(identity_)), terminal(std::move(terminal_)) {}
};

// A multiply written in CUDA C++ (GPU only; see the file comment).
struct cuda_expr {
  std::string text;
};

// A run-time semiring over the value type `type()`. Construction checks both halves and
// throws InvalidValue naming the half, the column and the text.
class GEBLAS_API Semiring {
 public:
  Semiring(TypeId type, const monoid& add, const std::string& mul);
  Semiring(TypeId type, const monoid& add, const cuda_expr& mul);

  TypeId type() const;
  // A readable description, e.g. "jit(max, a + b) over float32".
  const std::string& name() const;
  // The CUDA source of the operator struct the GPU kernels are compiled with.
  std::string cuda_source() const;
  const detail::jit::SemiringImpl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const detail::jit::SemiringImpl> impl_;
};

template <Scalar T>
class semiring : public Semiring {
 public:
  using value_type = T;
  semiring(const monoid& add, const std::string& mul) : Semiring(type_id<T>, add, mul) {}
  semiring(const monoid& add, const char* mul) : Semiring(type_id<T>, add, std::string(mul)) {}
  semiring(const monoid& add, const cuda_expr& mul) : Semiring(type_id<T>, add, mul) {}
};

// Where a compiled kernel set came from, and how long getting it took (the bench and the
// cache tests read this).
struct CompileInfo {
  enum class Source { compiled, disk, memory } source = Source::compiled;
  double seconds = 0;
  std::string cache_file;  // empty when the disk cache was not used
};

// Compiles (or finds in the caches) the kernels that SpMM variant `variant` runs for `s`
// on GPUs of compute capability `cc` (e.g. 90), for row-major B and C with 16-byte
// vectors (`vector_width` values, or 1) or column-major ones. Needs NVRTC, not a GPU.
// Throws NotImplemented in a build without CUDA.
GEBLAS_API CompileInfo compile(const Semiring& s, const std::string& variant, int cc, int vector_width,
                               bool row_major = true);
// The variants run-time semirings are compiled for: every exact variant of the built-in
// registry (not the tensor-core tc_window ones, which compute plus_times only). The
// dispatcher picks among them; Options::variant forces any one, including merge_path,
// crc and cwm, which it never picks.
GEBLAS_API std::vector<std::string> variants();
// Forgets the in-memory cache (compiled modules stay loaded; the disk cache is kept):
// lets tests and benches measure disk hits.
GEBLAS_API void clear_memory_cache();
// The disk cache directory in use (from the environment, read on every call).
GEBLAS_API std::string cache_directory();

}  // namespace jit

namespace detail {
GEBLAS_API void jit_mxm(DenseStorage& C, const SparseStorage& A, const DenseStorage& B, const ::geblas::jit::Semiring& s,
                        const Options& o);
}

// C<M> = accum(C, A (+).(x) B) with a run-time semiring: sparse x dense, on the CPU or a
// CUDA device (the semiring's value type must be T).
template <Scalar T>
void mxm(DenseMatrix<T>& C, const SparseMatrix<T>& A, const DenseMatrix<T>& B, const jit::semiring<T>& semiring,
         const Options& options = {}) {
  detail::jit_mxm(C.storage(), A.storage(), B.storage(), semiring, options);
}

}  // namespace geblas
