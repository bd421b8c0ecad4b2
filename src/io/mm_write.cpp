// Writing Matrix Market files: sparse matrices as general coordinate files, dense ones
// as general array files, values printed with std::to_chars in the shortest form that
// reads back to the same value (half / bfloat16 print their exact float value). A path
// ending in ".gz" is gzip-compressed.
#include <charconv>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "geblas/io.hpp"
#include "geblas/operations/convert.hpp"
#include "io/byte_source.hpp"

namespace geblas::io::detail {
namespace {

using geblas::detail::DenseStorage;
using geblas::detail::SparseStorage;

// Formats into a 1 MiB buffer and hands it to the sink when nearly full.
class TextOut {
 public:
  explicit TextOut(ByteSink& sink) : sink_(sink) {}
  ~TextOut() = default;
  void put(std::string_view s) {
    if (s.size() > kSize / 2) {  // a huge string goes straight through
      flush();
      sink_.write(s.data(), s.size());
      return;
    }
    room(s.size());
    std::memcpy(buf_ + n_, s.data(), s.size());
    n_ += s.size();
  }
  void put(char c) {
    room(1);
    buf_[n_++] = c;
  }
  template <class T>
  void number(T v) {
    room(kMaxNumber);
    if constexpr (std::is_same_v<T, bool>) {
      buf_[n_++] = v ? '1' : '0';
    } else {
      // Shortest round-trip form for floating point (to_chars without a precision).
      const auto r = std::to_chars(buf_ + n_, buf_ + kSize, v);
      n_ = static_cast<std::size_t>(r.ptr - buf_);
    }
  }
  void flush() {
    sink_.write(buf_, n_);
    n_ = 0;
  }

 private:
  static constexpr std::size_t kSize = std::size_t{1} << 20;
  static constexpr std::size_t kMaxNumber = 64;  // longest to_chars output of any type is 24 chars
  void room(std::size_t k) {
    if (n_ + k + kMaxNumber > kSize) flush();
  }
  ByteSink& sink_;
  char buf_[kSize];
  std::size_t n_ = 0;
};

template <class T>
const char* field_of(bool all_true) {
  if constexpr (std::is_same_v<T, bool>) return all_true ? "pattern" : "integer";
  else if constexpr (std::is_integral_v<T>) return "integer";
  else return "real";
}

// The banner, the comment naming the value type, and the size line's dimensions (the
// caller ends the line: a coordinate file adds its entry count).
void write_header(TextOut& out, const char* format, const char* field, std::string_view type_name, Index m, Index n) {
  out.put("%%MatrixMarket matrix ");
  out.put(format);
  out.put(' ');
  out.put(field);
  out.put(" general\n% written by geblas (");
  out.put(type_name);
  out.put(")\n");
  out.number(m);
  out.put(' ');
  out.number(n);
}

template <class T>
void write_sparse(const std::string& path, const SparseStorage& A, std::string_view type_name) {
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  const T* v = A.values.as<T>();
  bool all_true = true;
  if constexpr (std::is_same_v<T, bool>)
    for (Index k = 0; k < A.nvals; ++k) all_true = all_true && v[k];
  const bool pattern = std::is_same_v<T, bool> && all_true;
  ByteSink sink(path);
  auto out = std::make_unique<TextOut>(sink);
  write_header(*out, "coordinate", field_of<T>(all_true), type_name, A.nrows, A.ncols);
  out->put(' ');
  out->number(A.nvals);
  out->put('\n');
  for (Index i = 0; i < A.nrows; ++i)
    for (Index k = ro[i]; k < ro[i + 1]; ++k) {
      out->number(i + 1);
      out->put(' ');
      out->number(static_cast<Index>(ci[k]) + 1);
      if (!pattern) {
        out->put(' ');
        out->number(v[k]);
      }
      out->put('\n');
    }
  out->flush();
  sink.close();
}

template <class T>
void write_dense(const std::string& path, const DenseStorage& A, std::string_view type_name) {
  const T* a = A.data.as<T>();
  ByteSink sink(path);
  auto out = std::make_unique<TextOut>(sink);
  write_header(*out, "array", field_of<T>(false), type_name, A.nrows, A.ncols);
  out->put('\n');
  const bool row_major = A.layout == Layout::row_major;
  for (Index j = 0; j < A.ncols; ++j)
    for (Index i = 0; i < A.nrows; ++i) {
      out->number(row_major ? a[i * A.ld + j] : a[j * A.ld + i]);
      out->put('\n');
    }
  out->flush();
  sink.close();
}

}  // namespace

void write_matrix_market(const std::string& path, const SparseStorage& A) {
  const SparseStorage host = A.device.is_cpu() ? SparseStorage{} : geblas::detail::to_device(A, Device::cpu());
  const SparseStorage& s = A.device.is_cpu() ? A : host;
  if (is_16bit_float(s.type)) {
    // Widened to float (exact), whose shortest form reads back to the same 16-bit value.
    write_sparse<float>(path, geblas::detail::convert(s, TypeId::float32), to_string(s.type));
    return;
  }
  visit_type(s.type, [&]<class T>() { write_sparse<T>(path, s, to_string(s.type)); });
}

void write_matrix_market(const std::string& path, const DenseStorage& A) {
  const DenseStorage host = A.device.is_cpu() ? DenseStorage{} : geblas::detail::to_device(A, Device::cpu());
  const DenseStorage& s = A.device.is_cpu() ? A : host;
  if (is_16bit_float(s.type)) {
    write_dense<float>(path, geblas::detail::convert(s, TypeId::float32), to_string(s.type));
    return;
  }
  visit_type(s.type, [&]<class T>() { write_dense<T>(path, s, to_string(s.type)); });
}

}  // namespace geblas::io::detail
