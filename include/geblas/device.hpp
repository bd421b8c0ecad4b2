// Where an object's storage lives. Every operation runs on the device its operands
// share; operands on different devices are an error, never a silent copy.
#pragma once

#include <cstdint>
#include <string>

#include "geblas/config.hpp"

namespace geblas {

class Device {
 public:
  enum class Kind : std::uint8_t { cpu, cuda };

  constexpr Device() = default;
  static constexpr Device cpu() { return Device{}; }
  static constexpr Device cuda(int ordinal = 0) { return Device{Kind::cuda, ordinal}; }

  constexpr Kind kind() const { return kind_; }
  constexpr int ordinal() const { return ordinal_; }
  constexpr bool is_cpu() const { return kind_ == Kind::cpu; }
  constexpr bool is_cuda() const { return kind_ == Kind::cuda; }

  friend constexpr bool operator==(Device, Device) = default;

  // "cpu" or "cuda:0".
  std::string str() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(ordinal_); }

 private:
  constexpr Device(Kind kind, int ordinal) : kind_(kind), ordinal_(ordinal) {}
  Kind kind_ = Kind::cpu;
  int ordinal_ = 0;
};

// True when libgeblas.so was built with its CUDA backend.
GEBLAS_API bool cuda_compiled();
// Number of usable CUDA devices; 0 without the CUDA backend or without a driver/GPU.
GEBLAS_API int cuda_device_count();
// The CUDA device 0 when one is usable, else the CPU.
GEBLAS_API Device default_device();
// Waits until the work queued on this thread's current stream for `device` has finished
// (geblas's own stream, or a geblas::cuda::StreamGuard's; no-op on the CPU).
GEBLAS_API void synchronize(Device device);

// Bytes geblas copied between the host and CUDA devices since the process started (or
// the last reset), over all devices and threads: every copy the library makes, from
// moving a matrix with to() down to a single scalar read back by a reduction. Tests use
// it to check that an algorithm on the GPU moves only scalars; GEBLAS_TRACE prints the
// traffic of each operation that had any.
struct TransferCounts {
  std::uint64_t host_to_device_bytes = 0;
  std::uint64_t device_to_host_bytes = 0;
  std::uint64_t host_to_device_copies = 0;
  std::uint64_t device_to_host_copies = 0;
};
GEBLAS_API TransferCounts transfer_counts();
GEBLAS_API void reset_transfer_counts();

}  // namespace geblas
