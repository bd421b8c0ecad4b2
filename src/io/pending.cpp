// Entry points of include/geblas/io.hpp that are declared but not written yet: they
// throw NotImplemented instead of leaving an undefined symbol.
#include "geblas/io.hpp"

namespace geblas::io::detail {
void write_matrix_market(const std::string&, const geblas::detail::SparseStorage&) {
  throw NotImplemented("io::write_matrix_market is not implemented yet");
}
void write_matrix_market(const std::string&, const geblas::detail::DenseStorage&) {
  throw NotImplemented("io::write_matrix_market is not implemented yet");
}
geblas::detail::SparseStorage read_binary(const std::string&, TypeId) {
  throw NotImplemented("io::read_binary is not implemented yet");
}
void write_binary(const std::string&, const geblas::detail::SparseStorage&) {
  throw NotImplemented("io::write_binary is not implemented yet");
}
}  // namespace geblas::io::detail
