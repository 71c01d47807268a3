// zerolab::alloc_hooks in ASan builds: what ASan's allocator hooks would
// count differently from the interposed build. AsanThread::Init calls
// pthread_getattr_np and pthread_attr_destroy on every new thread before
// its start routine runs; glibc's implementations allocate three blocks
// (realloc, calloc, realloc: 216 bytes) and free them through the user
// allocator, so ASan's hooks see them. The wrappers below pause the thread
// around both while it has not counted anything yet (in_thread_setup). The
// one visible difference: a thread whose very first allocating call is its
// own pthread_getattr_np goes uncounted for that call under ASan alone.
//
// Each wrapper is uninstrumented straight-line code: the runtime calls it
// on a thread whose sanitizer state does not exist yet, where any
// instrumented call would crash.
//
// Thread-safety: per thread (t_state); the real functions are looked up once.
//
// Example: std::thread t([] {}); t.join();  // counts nothing under ASan too
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#include <atomic>

#include "alloc_hooks/hooks_state.hpp"
#include "alloc_hooks/uninstrumented.hpp"

namespace zerolab::internal::alloc_hooks {
namespace {

using GetattrFn = int (*)(pthread_t, pthread_attr_t*);
using AttrDestroyFn = int (*)(pthread_attr_t*);
constinit std::atomic<GetattrFn> g_real_getattr{nullptr};
constinit std::atomic<AttrDestroyFn> g_real_attr_destroy{nullptr};

// The next definition of `name` after ours (libc's; ASan intercepts
// neither function), looked up once.
template <typename Fn>
ZEROLAB_HOOKS_UNINSTRUMENTED Fn next_definition(std::atomic<Fn>& cache, const char* name) noexcept {
  Fn fn = cache.load(std::memory_order_acquire);
  if (fn == nullptr) {
    fn = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
    cache.store(fn, std::memory_order_release);
  }
  return fn;
}

ZEROLAB_HOOKS_UNINSTRUMENTED GetattrFn real_getattr() noexcept {
  return next_definition(g_real_getattr, "pthread_getattr_np");
}

ZEROLAB_HOOKS_UNINSTRUMENTED AttrDestroyFn real_attr_destroy() noexcept {
  return next_definition(g_real_attr_destroy, "pthread_attr_destroy");
}

// True while a thread has not counted anything yet: on a new thread that is
// the runtime's set-up, before the start routine runs.
ZEROLAB_HOOKS_UNINSTRUMENTED bool in_thread_setup() noexcept {
  const ThreadState& t = t_state;
  return t.owned_ == nullptr && !t.detached_;
}

}  // namespace

void initialize_fixups() noexcept {
  real_getattr();
  real_attr_destroy();
}

}  // namespace zerolab::internal::alloc_hooks

namespace hooks = zerolab::internal::alloc_hooks;

extern "C" {

const char* zerolab_alloc_hooks_mode(void) {
  return "asan";
}

ZEROLAB_HOOKS_UNINSTRUMENTED int pthread_getattr_np(pthread_t thread,
                                                    pthread_attr_t* attr) noexcept {
  const hooks::GetattrFn real = hooks::real_getattr();
  if (real == nullptr) return ENOSYS;
  const bool setup = hooks::in_thread_setup();
  if (setup) ++hooks::t_state.pause_depth_;
  const int result = real(thread, attr);
  if (setup) --hooks::t_state.pause_depth_;
  return result;
}

ZEROLAB_HOOKS_UNINSTRUMENTED int pthread_attr_destroy(pthread_attr_t* attr) noexcept {
  const hooks::AttrDestroyFn real = hooks::real_attr_destroy();
  if (real == nullptr) return ENOSYS;
  const bool setup = hooks::in_thread_setup();
  if (setup) ++hooks::t_state.pause_depth_;
  const int result = real(attr);
  if (setup) --hooks::t_state.pause_depth_;
  return result;
}

}  // extern "C"
