// Call stacks for the profilers: the return addresses of the calling
// thread, cut at a known frame so the profiler's and the allocator's own
// frames never show up. Two unwinders, one per profiler:
//
//   capture_stack_from      glibc's backtrace(): libgcc's DWARF unwinder over
//                           .eh_frame. Exact through code built without frame
//                           pointers and through the kernel's signal frame,
//                           but about 2-4 µs per stack. The CPU profiler uses
//                           it (100 stacks a second cost nothing).
//   walk_frame_pointers     follows the %rbp chain: about 20-50 ns per stack,
//                           but a frame built without frame pointers hides
//                           its caller (or ends the walk). The memory
//                           profiler uses it: at Go's 512 KiB rate a
//                           benchmark that allocates 80 KB per op samples
//                           every few ops, and backtrace() there cost 30% of
//                           ns/op. zerolab::bench_main compiles benchmark
//                           code with -fno-omit-frame-pointer for it.
//
// backtrace() loads libgcc_s and allocates on its first call, so
// warm_up_unwinder() must run before a profiler starts; afterwards it neither
// allocates nor locks (libgcc 12 finds unwind tables with glibc's lock-free
// _dl_find_object), so it may run in a SIGPROF handler. The frame-pointer
// walk reads only within the thread's stack bounds (looked up once per
// thread, with the thread paused so the lookup is not counted).
//
// Thread-safety: every function may be called from any thread.
//
// Example:
//   zerolab::internal::profile::warm_up_unwinder();
//   void* frames[zerolab::internal::profile::kMaxStackDepth];
//   int depth = capture_stack_from(__builtin_return_address(0), frames,
//                                  zerolab::internal::profile::kMaxStackDepth);
//   // frames[0] is the return address into this function's caller
#ifndef ZEROLAB_SRC_PROFILE_STACK_TRACE_HPP_
#define ZEROLAB_SRC_PROFILE_STACK_TRACE_HPP_

namespace zerolab::internal::profile {

// The deepest stack a profile records (Go's pprof records 32 for memory,
// 64 for CPU; deeper frames are dropped at the outer end).
inline constexpr int kMaxStackDepth = 64;

// Makes the first real capture allocation-free (loads the unwinder).
void warm_up_unwinder() noexcept;

// Stores up to `max` addresses of the calling thread's stack into `out`,
// starting with the frame whose address is `first` (a return address, or
// the interrupted pc of a signal frame) and going outwards. Returns how many
// were stored; 0 if `first` is not on the stack.
// REQUIRES: 0 < max <= kMaxStackDepth.
int capture_stack_from(const void* first, void** out, int max) noexcept;

// As capture_stack_from, by walking frame pointers from the caller's frame.
// `first` must be the return address of a frame-pointer frame on the walk.
int walk_frame_pointers(const void* first, void** out, int max) noexcept;

}  // namespace zerolab::internal::profile

#endif  // ZEROLAB_SRC_PROFILE_STACK_TRACE_HPP_
