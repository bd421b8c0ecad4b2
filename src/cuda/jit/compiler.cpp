// NVRTC compilation of run-time semirings into the SpMM kernel templates (compiler.hpp).
// The generated translation unit includes the variant's kernel header (embedded at build
// time, sources.hpp), defines the semiring's operator struct, and asks NVRTC for the
// template instances by name expression, so the kernels are the built-ins' own code.
//
// Disk cache file: "GBJIT001", payload bytes (u64), FNV-1a of the payload (u64), then the
// payload: the key text, '\0', the lowered names joined by '\n', '\0', the cubin. A file
// whose size, checksum or key does not match is ignored and rewritten; files are written
// to a unique temporary name and renamed into place, so concurrent writers (threads or
// processes) never expose a partial file.
#include "cuda/jit/compiler.hpp"

#include <nvrtc.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "cuda/jit/sources.hpp"
#include "geblas/error.hpp"
#include "geblas/version.hpp"

namespace geblas::detail::jit {
namespace {

namespace fs = std::filesystem;
constexpr char kMagic[8] = {'G', 'B', 'J', 'I', 'T', '0', '0', '1'};
constexpr const char* kOpsName = "GeblasJitOps";
constexpr const char* kNs = "geblas::detail::cuda::spmm::";

void check_nvrtc(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS)
    throw CudaError(std::string("geblas::jit: ") + what + ": " + nvrtcGetErrorString(r), static_cast<int>(r));
}

// The nnz_split family: one kernel template, the shape is the launch's (nnz_split_plan.hpp).
bool is_nnz_split(const std::string& variant) {
  for (const char* v : {"nnz_split", "nnz_split_fused", "nnz_split_long", "nnz_split_line", "nnz_split_rows_long",
                        "nnz_split_long_waves", "nnz_split_line_long"})
    if (variant == v) return true;
  return false;
}

const char* header_of(const std::string& variant) {
  if (variant == "row_split") return "cuda/spmm/row_split_kernel.cuh";
  if (variant == "row_group") return "cuda/spmm/row_group_kernel.cuh";
  if (variant == "row_pieces" || variant == "row_pieces_long") return "cuda/spmm/row_pieces_kernel.cuh";
  if (is_nnz_split(variant)) return "cuda/spmm/nnz_split_kernel.cuh";
  throw InvalidValue("geblas::jit: variant '" + variant + "' is not compiled for run-time semirings");
}

// Headers beyond the variant's main one (row_pieces folds its cut rows with piece_fold).
const char* extra_header_of(const std::string& variant) {
  if (variant == "row_pieces" || variant == "row_pieces_long" || is_nnz_split(variant))
    return "cuda/spmm/piece_fold_kernel.cuh";
  return nullptr;
}

// A hash of every embedded header, part of each key: a library whose kernels changed
// never loads an image compiled from the old ones.
const std::string& sources_hash() {
  static const std::string h = [] {
    std::uint64_t x = 0xcbf29ce484222325ull;
    for (int i = 0; i < embedded_source_count; ++i) {
      x = fnv1a(embedded_sources[i].name, std::strlen(embedded_sources[i].name), x);
      x = fnv1a(embedded_sources[i].text, std::strlen(embedded_sources[i].text), x);
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
    return std::string(buf);
  }();
  return h;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  check_nvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string module_key(const SemiringImpl& s, const KernelSet& set, int cc) {
  static const std::string nvrtc = nvrtc_version();
  return s.key + "|variant:" + set.variant + "|V:" + std::to_string(set.vector) + "|row_major:" +
         (set.row_major ? "1" : "0") + "|sm_" + std::to_string(cc) + "|nvrtc " + nvrtc + "|sources " + sources_hash();
}

std::string translation_unit(const SemiringImpl& s, const KernelSet& set) {
  std::string tu = std::string("#include \"") + header_of(set.variant) + "\"\n";
  if (const char* extra = extra_header_of(set.variant)) tu += std::string("#include \"") + extra + "\"\n";
  return tu + cuda_prelude() + s.ops_struct(kOpsName);
}

// NVRTC's log, or "" when it has none.
std::string program_log(nvrtcProgram prog) {
  std::size_t n = 0;
  if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1) return {};
  std::string log(n, '\0');
  if (nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(n - 1);
  return log;
}

CompiledModule compile_with_nvrtc(const SemiringImpl& s, const KernelSet& set, int cc, const std::string& key) {
  const std::string src = translation_unit(s, set);
  std::vector<const char*> names, texts;
  for (int i = 0; i < embedded_source_count; ++i) {
    names.push_back(embedded_sources[i].name);
    texts.push_back(embedded_sources[i].text);
  }
  nvrtcProgram prog = nullptr;
  check_nvrtc(nvrtcCreateProgram(&prog, src.c_str(), "geblas_jit.cu", static_cast<int>(names.size()), texts.data(),
                                 names.data()),
              "nvrtcCreateProgram");
  struct Destroy {
    nvrtcProgram* p;
    ~Destroy() { nvrtcDestroyProgram(p); }
  } destroy{&prog};
  const std::vector<std::string> exprs = kernel_names(set);
  for (const std::string& e : exprs) check_nvrtc(nvrtcAddNameExpression(prog, e.c_str()), "nvrtcAddNameExpression");
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(cc);
  // -std=c++20 as the library's own CUDA code; the default --fmad=true as nvcc's, so
  // built-in operator names compile to the built-in kernels' instructions.
  const char* options[] = {arch.c_str(), "-std=c++20", "-default-device", "-DGEBLAS_JIT=1"};
  const nvrtcResult r = nvrtcCompileProgram(prog, 4, options);
  if (r != NVRTC_SUCCESS)
    throw InvalidValue("geblas::jit: NVRTC could not compile " + s.name + " (variant " + set.variant + ", sm_" +
                       std::to_string(cc) + "): " + nvrtcGetErrorString(r) + "\nNVRTC log:\n" + program_log(prog) +
                       "\noperator struct:\n" + s.ops_struct(kOpsName));
  CompiledModule m;
  m.key = key;
  for (const std::string& e : exprs) {
    const char* lowered = nullptr;
    check_nvrtc(nvrtcGetLoweredName(prog, e.c_str(), &lowered), "nvrtcGetLoweredName");
    m.lowered.emplace_back(lowered);
  }
  std::size_t bytes = 0;
  check_nvrtc(nvrtcGetCUBINSize(prog, &bytes), "nvrtcGetCUBINSize");
  m.image.resize(bytes);
  check_nvrtc(nvrtcGetCUBIN(prog, m.image.data()), "nvrtcGetCUBIN");
  return m;
}

std::string payload_of(const CompiledModule& m) {
  std::string names;
  for (const std::string& n : m.lowered) names += (names.empty() ? "" : "\n") + n;
  std::string p = m.key;
  p.push_back('\0');
  p += names;
  p.push_back('\0');
  p += m.image;
  return p;
}

// The module stored in `file` under `key`, or false (absent, truncated, corrupted, or
// another key: a hash collision or a stale format).
bool read_cached(const fs::path& file, const std::string& key, CompiledModule& m) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr std::size_t header = sizeof kMagic + 16;
  if (data.size() < header || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0) return false;
  std::uint64_t bytes = 0, sum = 0;
  std::memcpy(&bytes, data.data() + 8, 8);
  std::memcpy(&sum, data.data() + 16, 8);
  if (bytes != data.size() - header) return false;
  const std::string_view payload(data.data() + header, bytes);
  if (fnv1a(payload.data(), payload.size()) != sum) return false;
  const std::size_t k_end = payload.find('\0');
  if (k_end == std::string_view::npos || payload.substr(0, k_end) != key) return false;
  const std::size_t n_end = payload.find('\0', k_end + 1);
  if (n_end == std::string_view::npos) return false;
  m.key = key;
  m.lowered.clear();
  std::string_view names = payload.substr(k_end + 1, n_end - k_end - 1);
  while (!names.empty()) {
    const std::size_t nl = names.find('\n');
    m.lowered.emplace_back(names.substr(0, nl));
    if (nl == std::string_view::npos) break;
    names.remove_prefix(nl + 1);
  }
  m.image.assign(payload.substr(n_end + 1));
  return !m.image.empty();
}

// Writes the module to `file` through a temporary file and a rename; false if the
// directory is not writable (the cache is then skipped, the kernels still run).
bool write_cached(const fs::path& file, const CompiledModule& m) {
  static std::atomic<unsigned long long> counter{0};
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  const std::string payload = payload_of(m);
  const std::uint64_t bytes = payload.size(), sum = fnv1a(payload.data(), payload.size());
  const fs::path tmp = file.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(kMagic, sizeof kMagic);
    out.write(reinterpret_cast<const char*>(&bytes), 8);
    out.write(reinterpret_cast<const char*>(&sum), 8);
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

struct MemoryCache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const CompiledModule>> modules;
};
MemoryCache& memory_cache() {
  static MemoryCache c;
  return c;
}

}  // namespace

std::vector<std::string> kernel_names(const KernelSet& set) {
  const std::string v = std::to_string(set.vector), rm = set.row_major ? "true" : "false";
  const std::string args = std::string("<") + kOpsName + ", " + v + ", " + rm + ">";
  if (set.variant == "row_split") return {std::string("&") + kNs + "row_split_kernel" + args};
  if (set.variant == "row_group") return {std::string("&") + kNs + "row_group_kernel" + args};
  if (set.variant == "row_pieces" || set.variant == "row_pieces_long")
    return {std::string("&") + kNs + "row_pieces_kernel" + args,
            std::string("&") + kNs + "fold_pieces<" + kOpsName + ", " + rm + ", " + kNs + "CutRow>"};
  if (is_nnz_split(set.variant)) {
    const std::string row_wise = set.variant == "nnz_split_rows_long" ? "true" : "false";
    return {std::string("&") + kNs + "nnz::nnz_split_kernel<" + kOpsName + ", " + v + ", " + rm + ", " + row_wise + ">",
            std::string("&") + kNs + "fold_pieces<" + kOpsName + ", " + rm + ", " + kNs + "nnz::CutRow>"};
  }
  header_of(set.variant);  // throws the error naming the variant
  return {};
}

std::shared_ptr<const CompiledModule> compiled_module(const SemiringImpl& s, const KernelSet& set, int cc,
                                                      ::geblas::jit::CompileInfo* info) {
  using Source = ::geblas::jit::CompileInfo::Source;
  const auto t0 = std::chrono::steady_clock::now();
  auto done = [&](Source src, const std::string& file) {
    if (info) {
      info->source = src;
      info->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      info->cache_file = file;
    }
  };
  header_of(set.variant);
  const std::string key = module_key(s, set, cc);
  MemoryCache& mc = memory_cache();
  {
    std::lock_guard<std::mutex> lock(mc.mutex);
    if (auto it = mc.modules.find(key); it != mc.modules.end()) {
      done(Source::memory, {});
      return it->second;
    }
  }
  const std::string dir = ::geblas::jit::cache_directory();
  char name[40];
  std::snprintf(name, sizeof name, "%016llx.cubin", static_cast<unsigned long long>(fnv1a(key.data(), key.size())));
  const fs::path file = dir.empty() ? fs::path() : fs::path(dir) / name;
  auto m = std::make_shared<CompiledModule>();
  Source src = Source::disk;
  bool on_disk = !file.empty();
  if (!on_disk || !read_cached(file, key, *m)) {
    *m = compile_with_nvrtc(s, set, cc, key);
    src = Source::compiled;
    on_disk = on_disk && write_cached(file, *m);
  }
  {
    std::lock_guard<std::mutex> lock(mc.mutex);
    mc.modules.emplace(key, m);
  }
  done(src, on_disk ? file.string() : std::string());
  return m;
}

}  // namespace geblas::detail::jit

namespace geblas::jit {

void clear_memory_cache() {
  detail::jit::clear_loaded_functions();
  auto& mc = detail::jit::memory_cache();
  std::lock_guard<std::mutex> lock(mc.mutex);
  mc.modules.clear();
}

std::vector<std::string> variants() {
  return {"row_split",      "row_group",           "row_pieces",           "row_pieces_long",
          "nnz_split",      "nnz_split_fused",     "nnz_split_long",       "nnz_split_line",
          "nnz_split_rows_long", "nnz_split_long_waves", "nnz_split_line_long"};
}

CompileInfo compile(const Semiring& s, const std::string& variant, int cc, int vector_width, bool row_major) {
  CompileInfo info;
  detail::jit::compiled_module(s.impl(), {variant, vector_width, row_major}, cc, &info);
  return info;
}

}  // namespace geblas::jit
