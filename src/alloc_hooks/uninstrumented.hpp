// ZEROLAB_HOOKS_UNINSTRUMENTED: for the sanitizer fix-up wrappers
// (asan_fixups.cpp, tsan_fixups.cpp), which the runtimes may call on a
// thread they have not finished setting up: no sanitizer instrumentation at
// all (clang's no_sanitize keeps TSan's function entry/exit calls;
// disable_sanitizer_instrumentation does not).
//
// Example: ZEROLAB_HOOKS_UNINSTRUMENTED void* valloc(size_t n) noexcept { ... }
#ifndef ZEROLAB_SRC_ALLOC_HOOKS_UNINSTRUMENTED_HPP_
#define ZEROLAB_SRC_ALLOC_HOOKS_UNINSTRUMENTED_HPP_

#if defined(__has_attribute)
#if __has_attribute(disable_sanitizer_instrumentation)
#define ZEROLAB_HOOKS_UNINSTRUMENTED __attribute__((disable_sanitizer_instrumentation))
#endif
#endif
#if !defined(ZEROLAB_HOOKS_UNINSTRUMENTED)
#define ZEROLAB_HOOKS_UNINSTRUMENTED __attribute__((no_sanitize("address", "thread")))
#endif

#endif  // ZEROLAB_SRC_ALLOC_HOOKS_UNINSTRUMENTED_HPP_
