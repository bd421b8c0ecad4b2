// Writes a known set of results through the benches' writer (bench/common/results.hpp) for
// test_results_roundtrip.py, which reads them back as tools/render_performance.py does.
// Its arguments are a bench's: --results FILE among others, which the writer must take
// out of argv and leave the rest.
#include <cstdio>
#include <string>

#include "results.hpp"

int main(int argc, char** argv) {
  geblas::bench::Results results("results_writer_probe", argc, argv);
  // What is left of argv is what a bench's own parser sees: the probe prints it.
  for (int a = 1; a < argc; ++a) std::printf("arg %s\n", argv[a]);
  results.add({{"graph", "wiki-Vote"}, {"N", "32"}}, "ms", 0.0123456789, "ms");
  results.add({{"graph", "wiki-Vote"}, {"N", "32"}}, "speed-up", 1.61, "x");
  results.add({{"graph", "a;b%c"}, {"N", "64"}}, {{"nnz", 30492154.0}, {"ratio", 2.5}});
  results.add_text({{"graph", "wiki-Vote"}, {"N", "32"}}, "check", "ok, \"quoted\"");
  results.add_printed({{"graph", "wiki-Vote"}, {"N", "32"}}, "printed", "2.38x");
  results.add_printed({{"graph", "wiki-Vote"}, {"N", "32"}}, "printed text", "0.9x (cit-HepPh)");
  return 0;
}
