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
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "cuda/jit/sources.hpp"
#include "cuda/spmm/variants.hpp"
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

namespace sp = cuda::spmm;

// The kernel header NVRTC compiles for a family (GEBLAS_SPMM_FAMILIES), "" for none; the
// fold of cut rows, for the families that cut rows, is piece_fold_kernel.cuh.
const char* header_of(sp::Family f) {
  switch (f) {
#define GEBLAS_SPMM_FAMILY_HEADER(family, header, vectors) \
  case sp::Family::family: return header;
    GEBLAS_SPMM_FAMILIES(GEBLAS_SPMM_FAMILY_HEADER)
#undef GEBLAS_SPMM_FAMILY_HEADER
  }
  return "";
}
// Whether the family's kernels take 16-byte vectors of B and C (crc and cwm read one
// column per lane, so one scalar kernel set serves every width).
bool takes_vectors(sp::Family f) {
  switch (f) {
#define GEBLAS_SPMM_FAMILY_VECTORS(family, header, vectors) \
  case sp::Family::family: return vectors;
    GEBLAS_SPMM_FAMILIES(GEBLAS_SPMM_FAMILY_VECTORS)
#undef GEBLAS_SPMM_FAMILY_VECTORS
  }
  return false;
}
bool folds_pieces(sp::Family f) { return f == sp::Family::row_pieces || f == sp::Family::nnz_split; }

// The variants run-time semirings are compiled for: every exact variant of the table
// (src/cuda/spmm/variants.hpp), whose families all have a kernel header. The tf32
// tensor-core variants are left out: they compute plus_times only (not_compiled_reason).
const sp::SpmmVariant* find_jit_variant(const std::string& name) {
  for (const sp::SpmmVariant* v : sp::variants())
    if (name == v->name) return v;
  return nullptr;
}

const sp::SpmmVariant& jit_variant(const std::string& name) {
  if (const sp::SpmmVariant* v = find_jit_variant(name)) return *v;
  throw InvalidValue("geblas::jit: " + not_compiled_reason(name));
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
  const sp::SpmmVariant& v = jit_variant(set.variant);
  std::string tu = std::string("#include \"") + header_of(v.family) + "\"\n";
  if (folds_pieces(v.family)) tu += "#include \"cuda/spmm/piece_fold_kernel.cuh\"\n";
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
  // -std=c++20 as the library's own CUDA code. The floating-point defaults (fmad=true,
  // ftz=false, prec-div=true, prec-sqrt=true) are nvcc's, and the nvcc build adds nothing
  // that reaches device code (-O3 is the host compiler's), so built-in operator names compile
  // to the built-in kernels' instructions: nvcc on this very translation unit gives the
  // built-in's machine code byte for byte. NVRTC addresses __shared__ arrays with 64-bit
  // pointers where nvcc uses 32-bit ones, and no NVRTC option changes that (CUDA 13.0):
  // row_pieces and the fold access theirs through 32-bit addresses in PTX
  // (spmm/shared_access.cuh) and come out as nvcc's; nnz_split does not (written so, its
  // built-in ran 5% slower), so its NVRTC code still differs
  // (docs/notes/spmm-tuning.md, "What limits speed now": NVRTC code parity).
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

std::string not_compiled_reason(const std::string& variant) {
  std::string names;
  for (const sp::SpmmVariant* v : sp::variants()) names += (names.empty() ? "" : ", ") + std::string(v->name);
  const sp::SpmmVariant* builtin = sp::find_variant(variant);
  if (builtin && !builtin->exact())
    return "variant '" + variant + "' computes plus_times on tensor cores only, so it cannot run a run-time " +
           "semiring (the built-in geblas::semiring::plus_times reaches it; run-time semirings run: " + names + ")";
  if (!builtin) return "there is no SpMM variant '" + variant + "' (run-time semirings run: " + names + ")";
  return "variant '" + variant + "' is not compiled for run-time semirings (they run: " + names + ")";
}

bool is_jit_variant(const std::string& variant) { return find_jit_variant(variant) != nullptr; }

KernelSet kernel_set(const std::string& variant, int vector, bool row_major) {
  return {variant, takes_vectors(jit_variant(variant).family) ? vector : 1, row_major};
}

std::vector<std::string> kernel_names(const KernelSet& set) {
  const std::string v = std::to_string(set.vector), rm = set.row_major ? "true" : "false";
  const std::string args = std::string("<") + kOpsName + ", " + v + ", " + rm + ">";
  const std::string ns = kNs;
  // In the order the family's launcher numbers its kernels (src/cuda/spmm/*.cuh).
  const sp::SpmmVariant& variant = jit_variant(set.variant);
  const std::string fold = "&" + ns + "fold_pieces<" + kOpsName + ", " + rm + ", " + ns;
  switch (variant.family) {
    case sp::Family::row_split: return {"&" + ns + "row_split_kernel" + args};
    case sp::Family::row_group: return {"&" + ns + "row_group_kernel" + args};
    case sp::Family::row_pieces: return {"&" + ns + "row_pieces_kernel" + args, fold + "CutRow>"};
    case sp::Family::nnz_split: {
      const std::string row_wise = variant.shape.row_wise ? "true" : "false";
      return {"&" + ns + "nnz::nnz_split_kernel<" + kOpsName + ", " + v + ", " + rm + ", " + row_wise + ">",
              fold + "nnz::CutRow>"};
    }
    case sp::Family::merge_path:
      return {"&" + ns + "merge_path_kernel" + args, "&" + ns + "merge_fixup_kernel<" + kOpsName + ", " + rm + ">"};
    case sp::Family::ge_spmm: {
      const std::string cf = std::to_string(variant.shape.coarsening);
      return {"&" + ns + "ge::ge_spmm_kernel<" + kOpsName + ", " + cf + ", " + rm + ">"};
    }
    case sp::Family::tc_window: break;  // not exact: jit_variant refused it
  }
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
  jit_variant(set.variant);  // throws the error naming the variant
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
  std::vector<std::string> out;
  for (const auto* v : detail::cuda::spmm::variants()) out.emplace_back(v->name);
  return out;
}

CompileInfo compile(const Semiring& s, const std::string& variant, int cc, int vector_width, bool row_major) {
  CompileInfo info;
  detail::jit::compiled_module(s.impl(), detail::jit::kernel_set(variant, vector_width, row_major), cc, &info);
  return info;
}

}  // namespace geblas::jit
