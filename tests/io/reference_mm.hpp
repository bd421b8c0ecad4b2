// A deliberately simple Matrix Market reader for the tests: zlib's gzread to inflate,
// std::istringstream per line, Eigen triplets. It shares nothing with src/io/, so that
// comparing the two checks the library's fast parser against an independent one.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/SparseCore>

namespace geblas::test {

struct RefMatrix {
  std::int64_t nrows = 0, ncols = 0, stored = 0;
  std::string field, symmetry;
  std::vector<Eigen::Triplet<double, std::int64_t>> triplets;  // expanded (mirrored), 0-based
};

inline std::string gunzip_all(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // also reads plain files transparently
  if (!f) throw std::runtime_error("reference: cannot open " + path);
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

inline RefMatrix reference_read(const std::string& path) {
  std::istringstream in(gunzip_all(path));
  RefMatrix m;
  std::string line, banner, object, format;
  std::getline(in, line);
  std::istringstream(line) >> banner >> object >> format >> m.field >> m.symmetry;
  if (format != "coordinate") throw std::runtime_error("reference: only coordinate files");
  while (std::getline(in, line) && (line.empty() || line[0] == '%')) {}
  std::istringstream(line) >> m.nrows >> m.ncols >> m.stored;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '%') continue;
    std::istringstream ls(line);
    std::int64_t i, j;
    double v = 1;
    ls >> i >> j;
    if (m.field != "pattern") ls >> v;
    m.triplets.emplace_back(i - 1, j - 1, v);
    if (m.symmetry == "symmetric" && i != j) m.triplets.emplace_back(j - 1, i - 1, v);
    if (m.symmetry == "skew-symmetric" && i != j) m.triplets.emplace_back(j - 1, i - 1, -v);
  }
  return m;
}

}  // namespace geblas::test
