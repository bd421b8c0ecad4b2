// The host side of geblas::cuda::StreamGuard: the per-thread, per-device table of named
// streams (nesting restores the previous entry, threads do not see each other's), and the
// guard's refusal of devices it cannot use. Runs without a GPU.
#include <cstdint>
#include <thread>

#include "geblas/detail/stream_state.hpp"
#include "geblas/device.hpp"
#include "geblas/error.hpp"
#include "geblas/stream.hpp"
#include "support/catch.hpp"

using namespace geblas;
using detail::StreamOverride;

namespace {
void* handle(std::uintptr_t v) { return reinterpret_cast<void*>(v); }
}  // namespace

TEST_CASE("stream state: none until set, per device", "[stream]") {
  CHECK_FALSE(detail::stream_override(0).set);
  CHECK_FALSE(detail::stream_override(5).set);  // never grown to 5
  CHECK_FALSE(detail::stream_override(-1).set);
  const StreamOverride before = detail::exchange_stream_override(3, {true, handle(0x30)});
  CHECK_FALSE(before.set);
  CHECK(detail::stream_override(3).set);
  CHECK(detail::stream_override(3).stream == handle(0x30));
  CHECK_FALSE(detail::stream_override(2).set);  // the other devices keep none
  CHECK_FALSE(detail::stream_override(0).set);
  detail::exchange_stream_override(3, before);
  CHECK_FALSE(detail::stream_override(3).set);
}

TEST_CASE("stream state: nesting restores each level, and 0 is a stream", "[stream]") {
  const StreamOverride l0 = detail::exchange_stream_override(0, {true, handle(0x100)});
  const StreamOverride l1 = detail::exchange_stream_override(0, {true, nullptr});  // the legacy stream
  CHECK(detail::stream_override(0).set);
  CHECK(detail::stream_override(0).stream == nullptr);
  const StreamOverride l2 = detail::exchange_stream_override(0, {true, handle(0x200)});
  CHECK(detail::stream_override(0).stream == handle(0x200));
  CHECK(l2.set);
  CHECK(l2.stream == nullptr);
  detail::exchange_stream_override(0, l2);
  CHECK(detail::stream_override(0).set);
  CHECK(detail::stream_override(0).stream == nullptr);
  CHECK(l1.set);
  CHECK(l1.stream == handle(0x100));
  detail::exchange_stream_override(0, l1);
  CHECK(detail::stream_override(0).stream == handle(0x100));
  detail::exchange_stream_override(0, l0);
  CHECK_FALSE(detail::stream_override(0).set);
}

TEST_CASE("stream state: threads keep their own tables", "[stream]") {
  const StreamOverride mine = detail::exchange_stream_override(1, {true, handle(0x11)});
  StreamOverride seen_there{true, handle(0xdead)}, theirs_at_end{};
  std::thread([&] {
    seen_there = detail::stream_override(1);
    detail::exchange_stream_override(1, {true, handle(0x22)});
    theirs_at_end = detail::stream_override(1);
  }).join();
  CHECK_FALSE(seen_there.set);
  CHECK(theirs_at_end.stream == handle(0x22));
  CHECK(detail::stream_override(1).stream == handle(0x11));  // untouched by the other thread
  detail::exchange_stream_override(1, mine);
}

TEST_CASE("stream state: a negative ordinal is refused", "[stream]") {
  REQUIRE_THROWS_AS(detail::exchange_stream_override(-1, {true, nullptr}), InvalidValue);
}

TEST_CASE("stream guard: devices it cannot use are refused with the reason", "[stream]") {
  REQUIRE_THROWS_AS(cuda::StreamGuard(Device::cpu(), nullptr), InvalidValue);
  REQUIRE_THROWS_WITH(cuda::StreamGuard(Device::cpu(), nullptr), test::contains("is not a CUDA device"));
  REQUIRE_THROWS_AS(cuda::current_stream(Device::cpu()), InvalidValue);
  // One past the last device: absent in every build (without CUDA there is none).
  const Device missing = Device::cuda(cuda_device_count());
  REQUIRE_THROWS_AS(cuda::StreamGuard(missing, nullptr), InvalidValue);
  REQUIRE_THROWS_AS(cuda::current_stream(missing), InvalidValue);
  REQUIRE_THROWS_AS(cuda::default_stream(missing), InvalidValue);
  CHECK_FALSE(detail::stream_override(missing.ordinal()).set);  // a refused guard leaves no entry
}
