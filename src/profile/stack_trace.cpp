// Stack capture: glibc's backtrace() and a frame-pointer walk (stack_trace.hpp).
#include "profile/stack_trace.hpp"

#include <execinfo.h>
#include <pthread.h>

#include <algorithm>
#include <cstdint>

#include "alloc_hooks/alloc_stats.hpp"

namespace zerolab::internal::profile {
namespace {

// Frames above `first` that a capture may have to skip: this function,
// the profiler's callback or signal handler, the hooks' sampling path, the
// kernel's signal trampoline, and inlining leftovers.
constexpr int kSkipAllowance = 16;

// The calling thread's stack, [low, high); both 0 until looked up, high 1
// if the lookup failed.
struct StackBounds {
  std::uintptr_t low;
  std::uintptr_t high;
};
constinit thread_local StackBounds t_stack __attribute__((tls_model("initial-exec"))) = {0, 0};

const StackBounds& stack_bounds() noexcept {
  StackBounds& b = t_stack;
  if (b.high != 0) return b;
  b.high = 1;
  alloc_stats::ScopedPause pause;  // glibc reads /proc/self/maps for the main thread
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return b;
  void* address = nullptr;
  std::size_t size = 0;
  if (pthread_attr_getstack(&attr, &address, &size) == 0) {
    b.low = reinterpret_cast<std::uintptr_t>(address);
    b.high = b.low + size;
  }
  pthread_attr_destroy(&attr);
  return b;
}

}  // namespace

void warm_up_unwinder() noexcept {
  void* frames[4];
  (void)backtrace(frames, 4);
}

int capture_stack_from(const void* first, void** out, int max) noexcept {
  void* raw[kMaxStackDepth + kSkipAllowance];
  const int n = backtrace(raw, kMaxStackDepth + kSkipAllowance);
  for (int i = 0; i < n && i < kSkipAllowance; ++i) {
    if (raw[i] != first) continue;
    const int depth = std::min(n - i, max);
    std::copy(raw + i, raw + i + depth, out);
    return depth;
  }
  return 0;
}

int walk_frame_pointers(const void* first, void** out, int max) noexcept {
  const StackBounds& b = stack_bounds();
  // A frame is two words: the caller's frame pointer, then the return address.
  auto fp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  int depth = 0;
  bool found = false;
  for (int skipped = 0; depth < max;) {
    if (fp < b.low || fp + 2 * sizeof(void*) > b.high || fp % sizeof(void*) != 0) break;
    const auto* frame = reinterpret_cast<const std::uintptr_t*>(fp);
    void* const ret = reinterpret_cast<void*>(frame[1]);
    if (ret == nullptr) break;
    if (!found && ret == first) found = true;
    if (found) {
      out[depth++] = ret;
    } else if (++skipped > kSkipAllowance) {
      break;
    }
    const std::uintptr_t next = frame[0];
    if (next <= fp) break;  // stacks grow down: callers' frames are higher
    fp = next;
  }
  return depth;
}

}  // namespace zerolab::internal::profile
