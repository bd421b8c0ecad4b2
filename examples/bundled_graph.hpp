// The graph the examples read when given none: the co-authorship graph bundled with
// geblas, from its installed copy (<prefix>/share/geblas/data) or, before an install,
// from the source tree the example was built in. CMake passes both folders
// (geblas_data_paths in the top CMakeLists.txt).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

inline std::string bundled_graph() {
  const char* const name = "astro-ph-weighted.mtx.gz";
  for (const char* dir : {GEBLAS_INSTALLED_DATA_DIR, GEBLAS_SOURCE_DATA_DIR}) {
    const std::filesystem::path path = std::filesystem::path(dir) / name;
    if (std::filesystem::exists(path)) return path.string();
  }
  std::fprintf(stderr, "no graph given, and the bundled %s is neither in %s nor in %s: pass a graph file\n", name,
               GEBLAS_INSTALLED_DATA_DIR, GEBLAS_SOURCE_DATA_DIR);
  std::exit(2);
}
