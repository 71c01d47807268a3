// Fiber (stat/fiber.hpp): a switch of contexts between the owner's stack
// and the body's, with the address and thread sanitizers' fiber calls around
// each switch (without them ASan reads the other stack's frames as overflows
// and TSan mixes the two sides' histories).
//
// Example:
//   zerolab::stat::Fiber f([](zerolab::stat::Fiber& self) { self.yield(); });
//   f.resume();  // true: the body yielded
//   f.resume();  // false: the body returned
#include "fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#define ZEROLAB_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZEROLAB_FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define ZEROLAB_FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ZEROLAB_FIBER_TSAN 1
#endif
#endif
#ifdef ZEROLAB_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef ZEROLAB_FIBER_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace zerolab::stat {
namespace {

std::size_t page_size() {
  return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// swapcontext(from, to), made of getcontext and setcontext: ASan intercepts
// swapcontext and prints a warning on stderr at its first use, into the
// output of every program that reads JSON. A later setcontext(from) returns
// from getcontext a second time, with `resumed` set (volatile: in memory,
// not in a register getcontext saved).
__attribute__((noinline)) void swap_context(ucontext_t* from, const ucontext_t* to) {
  volatile bool resumed = false;
  ::getcontext(from);
  if (resumed) return;
  resumed = true;
  ::setcontext(to);
}

// getcontext for makecontext's template, in a frame of its own: it returns
// only once (the context is never resumed as saved), and the caller's locals
// are not held across a call GCC knows may return twice.
__attribute__((noinline)) int context_template(ucontext_t* out) {
  return ::getcontext(out);
}

}  // namespace

Fiber::~Fiber() {
  if (mapping_ == nullptr) return;
  if (!finished_) {
    cancelled_ = true;
    switch_to_body();  // its yield() returns false; it returns
  }
#ifdef ZEROLAB_FIBER_TSAN
  __tsan_destroy_fiber(tsan_body_);
#endif
#ifdef ZEROLAB_FIBER_ASAN
  // Its frames' redzones would stay poisoned for the next mapping there.
  __asan_unpoison_memory_region(body_context_.uc_stack.ss_sp, kStackBytes);
#endif
  ::munmap(mapping_, kStackBytes + page_size());
}

bool Fiber::resume() {
  if (finished_) return false;
  if (mapping_ == nullptr) {
    const std::size_t guard = page_size();
    void* m = ::mmap(nullptr, kStackBytes + guard, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED)
      throw std::system_error(errno, std::generic_category(), "mmap of a fiber stack");
    if (::mprotect(m, guard, PROT_NONE) != 0 || context_template(&body_context_) != 0) {
      const int e = errno;
      ::munmap(m, kStackBytes + guard);
      throw std::system_error(e, std::generic_category(), "fiber stack");
    }
    mapping_ = m;
    body_context_.uc_stack.ss_sp = static_cast<char*>(m) + guard;
    body_context_.uc_stack.ss_size = kStackBytes;
    body_context_.uc_link = nullptr;  // run() never returns
    const auto self = reinterpret_cast<std::uintptr_t>(this);
    ::makecontext(&body_context_, reinterpret_cast<void (*)()>(&Fiber::entry), 2,
                  static_cast<unsigned>(self >> 32), static_cast<unsigned>(self & 0xffffffffu));
#ifdef ZEROLAB_FIBER_TSAN
    tsan_body_ = __tsan_create_fiber(0);
#endif
  }
  switch_to_body();
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  return !finished_;
}

bool Fiber::yield() {
  if (cancelled_) return false;
  switch_to_owner();
  return !cancelled_;
}

void Fiber::entry(unsigned high, unsigned low) {
  reinterpret_cast<Fiber*>((static_cast<std::uintptr_t>(high) << 32) | low)->run();
}

void Fiber::run() {
#ifdef ZEROLAB_FIBER_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &owner_stack_bottom_, &owner_stack_size_);
#endif
  if (!cancelled_) {
    try {
      body_(*this);
    } catch (...) {
      failure_ = std::current_exception();
    }
  }
  finished_ = true;
  switch_to_owner();  // for good: the body's context is never resumed
}

void Fiber::switch_to_body() {
#ifdef ZEROLAB_FIBER_TSAN
  tsan_owner_ = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(tsan_body_, 0);
#endif
#ifdef ZEROLAB_FIBER_ASAN
  __sanitizer_start_switch_fiber(&owner_fake_stack_, body_context_.uc_stack.ss_sp,
                                 body_context_.uc_stack.ss_size);
#endif
  swap_context(&owner_, &body_context_);
#ifdef ZEROLAB_FIBER_ASAN
  __sanitizer_finish_switch_fiber(owner_fake_stack_, nullptr, nullptr);
#endif
}

void Fiber::switch_to_owner() {
#ifdef ZEROLAB_FIBER_TSAN
  __tsan_switch_to_fiber(tsan_owner_, 0);
#endif
#ifdef ZEROLAB_FIBER_ASAN
  // A finished body's fake stack is freed (nullptr): it never runs again.
  __sanitizer_start_switch_fiber(finished_ ? nullptr : &body_fake_stack_, owner_stack_bottom_,
                                 owner_stack_size_);
#endif
  swap_context(&body_context_, &owner_);
#ifdef ZEROLAB_FIBER_ASAN
  __sanitizer_finish_switch_fiber(body_fake_stack_, &owner_stack_bottom_, &owner_stack_size_);
#endif
}

}  // namespace zerolab::stat
