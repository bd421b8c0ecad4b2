// Where the real graphs are: $GEBLAS_DATA_DIR, else the shared data folder beside the
// checkout (../shared/data). Tests on real graphs skip with a message when it is absent.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace geblas::test {

inline std::filesystem::path data_dir() {
  if (const char* env = std::getenv("GEBLAS_DATA_DIR"); env && *env) return env;
  return GEBLAS_DEFAULT_DATA_DIR;
}

// The path of a graph file, or empty when the file is not there.
inline std::string data_file(const std::string& name) {
  const auto p = data_dir() / name;
  return std::filesystem::exists(p) ? p.string() : std::string();
}

// Every .mtx.gz graph in the data folder (not the GNN feature matrices), by name.
inline std::vector<std::string> data_graphs() {
  std::vector<std::string> out;
  if (!std::filesystem::is_directory(data_dir())) return out;
  for (const auto& e : std::filesystem::directory_iterator(data_dir())) {
    const std::string name = e.path().filename().string();
    if (name.size() > 7 && name.ends_with(".mtx.gz") && name.find(".features.") == std::string::npos)
      out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The largest real graph, in stored entries, that a case sized for `full` reads. A sanitizer
// build checks every access and runs 10-30x slower; the sanitizers look for memory errors,
// which the smaller graphs find along the same code paths, so there the limit is a quarter.
inline std::uint64_t data_entry_limit(std::uint64_t full) {
#if defined(GEBLAS_TEST_UNDER_SANITIZER)
  return full / 4;
#else
  return full;
#endif
}

}  // namespace geblas::test
