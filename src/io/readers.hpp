// The readers of src/io/ over an already open ByteSource, so that read_graph opens its
// input once, detects the format on a prefix and hands the same source to the reader.
// Each public path-taking reader is the one below over ByteSource(path).
#pragma once

#include "geblas/io.hpp"
#include "io/byte_source.hpp"

namespace geblas::io::detail {

geblas::detail::SparseStorage read_matrix_market_from(ByteSource& src, TypeId type, const ReadOptions& options);
geblas::detail::SparseStorage read_edge_list_from(ByteSource& src, TypeId type, const ReadOptions& options,
                                                  char delimiter);
geblas::detail::SparseStorage read_binary_from(ByteSource& src, TypeId type);
// The format by the source's first bytes (peeked, not consumed), then by `name`.
Format detect_format_from(ByteSource& src, const std::string& name);

}  // namespace geblas::io::detail
