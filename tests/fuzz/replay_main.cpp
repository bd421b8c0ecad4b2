// main() for the replay programs: runs a fuzz target's LLVMFuzzerTestOneInput once per
// file given (files, or folders of files), the way libFuzzer does with a corpus. It lets
// every build (gcc, the sanitizer build, CI without clang) run the seed corpus and the
// inputs of fixed crashes as ordinary regression tests.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
int run_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
    return 1;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  int files = 0, failures = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(arg))
        if (e.is_regular_file()) failures += run_file(e.path()), ++files;
    } else if (std::filesystem::exists(arg)) {
      failures += run_file(arg), ++files;
    }
  }
  if (files == 0) {
    std::printf("SKIPPED: no input files given or found\n");
    return 77;
  }
  std::printf("replayed %d inputs without a crash\n", files);
  return failures ? 1 : 0;
}
