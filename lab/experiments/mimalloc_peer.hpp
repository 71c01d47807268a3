// lab/mimalloc_peer.hpp — mimalloc as an optional peer of zerolab::Arena,
// for the `arena` lab experiment and bench/rigs/mem_bench.
//
// Built with ZEROLAB_HAVE_MIMALLOC (cmake/MimallocPeer.cmake: mimalloc.h and
// the library were found), mimalloc() dlopen()s ZEROLAB_MIMALLOC_LIBRARY with
// RTLD_LOCAL on first use and returns its mi_* entry points; otherwise, or
// when loading fails (the runtime package was removed since the build), it
// returns nullptr and the callers leave their mimalloc rows out.
//
// Why dlopen and not a link: Debian's libmimalloc.so is the override build.
// It exports malloc, free, operator new/delete and __libc_malloc & co., so
// linking it would replace glibc's allocator in the whole process (the
// malloc/new baselines would silently become mimalloc, and the lab's
// allocation hooks forward to __libc_malloc). With RTLD_LOCAL its symbols
// never enter the global scope: malloc stays glibc's (through the hooks),
// and only calls made through these pointers run on mimalloc. The cost is an
// indirect call per mi_* call, as a PLT call would be.
//
// The allocation counters (allocs/op, B/op) see only malloc/new: mi_* calls
// are not counted, so mimalloc rows show 0 allocs/op.
//
// Thread-safety: mimalloc() may be called from any thread (a function-local
// static); the mi_* functions are mimalloc's own (thread-safe; a heap
// belongs to the thread that made it).
//
// Example:
//   if (const auto* mi = zerolab::lab::mimalloc()) {
//     void* p = mi->malloc(32);
//     mi->free(p);
//   }
#ifndef ZEROLAB_LAB_MIMALLOC_PEER_HPP_
#define ZEROLAB_LAB_MIMALLOC_PEER_HPP_

#include <cstddef>
#include <memory_resource>
#include <new>

#if defined(ZEROLAB_HAVE_MIMALLOC)
#include <dlfcn.h>
#include <mimalloc.h>
#endif

namespace zerolab::lab {

#if defined(ZEROLAB_HAVE_MIMALLOC)
struct MimallocApi {
  decltype(&::mi_malloc) malloc;
  decltype(&::mi_malloc_aligned) malloc_aligned;
  decltype(&::mi_free) free;
  decltype(&::mi_heap_new) heap_new;
  decltype(&::mi_heap_malloc) heap_malloc;
  decltype(&::mi_heap_malloc_aligned) heap_malloc_aligned;
  decltype(&::mi_heap_destroy) heap_destroy;
  // Whether p is in the calling thread's default heap (walks it: tests).
  decltype(&::mi_check_owned) check_owned;
  int version;  // mi_version(): 209 for 2.0.9
};

namespace detail {
inline const MimallocApi* load_mimalloc() {
  void* h = ::dlopen(ZEROLAB_MIMALLOC_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) return nullptr;
  auto sym = [h](const char* name) { return ::dlsym(h, name); };
  static MimallocApi api{};
  api.malloc = reinterpret_cast<decltype(api.malloc)>(sym("mi_malloc"));
  api.malloc_aligned = reinterpret_cast<decltype(api.malloc_aligned)>(sym("mi_malloc_aligned"));
  api.free = reinterpret_cast<decltype(api.free)>(sym("mi_free"));
  api.heap_new = reinterpret_cast<decltype(api.heap_new)>(sym("mi_heap_new"));
  api.heap_malloc = reinterpret_cast<decltype(api.heap_malloc)>(sym("mi_heap_malloc"));
  api.heap_malloc_aligned =
      reinterpret_cast<decltype(api.heap_malloc_aligned)>(sym("mi_heap_malloc_aligned"));
  api.heap_destroy = reinterpret_cast<decltype(api.heap_destroy)>(sym("mi_heap_destroy"));
  api.check_owned = reinterpret_cast<decltype(api.check_owned)>(sym("mi_check_owned"));
  auto version = reinterpret_cast<decltype(&::mi_version)>(sym("mi_version"));
  if (api.malloc == nullptr || api.malloc_aligned == nullptr || api.free == nullptr ||
      api.heap_new == nullptr || api.heap_malloc == nullptr || api.heap_malloc_aligned == nullptr ||
      api.heap_destroy == nullptr || api.check_owned == nullptr || version == nullptr) {
    return nullptr;  // the handle stays open: harmless, and nothing was run
  }
  api.version = version();
  return &api;
}
}  // namespace detail

// mimalloc's entry points, or nullptr when it could not be loaded.
inline const MimallocApi* mimalloc() {
  static const MimallocApi* api = detail::load_mimalloc();
  return api;
}

// std::pmr::memory_resource over mi_malloc/mi_free (one object at a time),
// or over one mi_heap when given one: then deallocate does nothing and the
// owner's mi_heap_destroy frees everything at once (the arena's model).
class MimallocResource final : public std::pmr::memory_resource {
 public:
  explicit MimallocResource(const MimallocApi& api, mi_heap_t* heap = nullptr)
      : api_(&api), heap_(heap) {}

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    void* p;
    if (heap_ != nullptr) {
      p = align <= alignof(std::max_align_t) ? api_->heap_malloc(heap_, bytes)
                                             : api_->heap_malloc_aligned(heap_, bytes, align);
    } else {
      p = align <= alignof(std::max_align_t) ? api_->malloc(bytes)
                                             : api_->malloc_aligned(bytes, align);
    }
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  void do_deallocate(void* p, std::size_t, std::size_t) override {
    if (heap_ == nullptr) api_->free(p);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  const MimallocApi* api_;
  mi_heap_t* heap_;
};
#else
struct MimallocApi;
inline const MimallocApi* mimalloc() {
  return nullptr;
}
#endif

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_MIMALLOC_PEER_HPP_
