// zerolab/arena.hpp — a chunked bump allocator for objects that die together.
//
// Arena hands out memory by moving a pointer through a chunk; when the chunk
// is used up it takes a new one, each chunk twice the previous up to a cap
// (default: 4 KiB first, doubling to 8 MiB, as Go's runtime arena uses
// 8 MiB chunks). A request larger than a quarter of a chunk gets a block of
// its own, so a big object never wastes the rest of a chunk. Nothing is
// freed one object at a time: reset() forgets every object but keeps the
// chunks for reuse (no munmap, no malloc on the next round), release()
// returns all memory. make<T>() constructs an object in the arena and, when
// T has a non-trivial destructor, runs it at reset()/release()/~Arena, in
// reverse order of construction; trivially destructible objects cost no
// bookkeeping. ArenaResource adapts an Arena to std::pmr::memory_resource so
// pmr containers allocate from it (deallocate is a no-op).
//
// Bad input: an alignment that is not a power of two, or a size that
// overflows once rounded for alignment, throws std::bad_alloc; a pointer is
// never wrapped around.
//
// Thread-safety: NOT thread-safe. An Arena belongs to one thread at a time.
// Builds without NDEBUG catch a call from a second thread (the arena records
// the first thread that uses it; each allocation then costs one extra load
// and compare) and abort with a message, as assert does; to hand an arena
// to another thread, call detach_thread() on the owner first (and
// synchronize the hand-over).
//
// Example:
//   zerolab::Arena arena;
//   Node* n = arena.make<Node>(1, 2);              // ~Node runs at reset()
//   int* v = arena.make_array<int>(1000);           // uninitialized
//   double* z = arena.make_array_zeroed<double>(64);
//   zerolab::ArenaResource res(arena);
//   std::pmr::vector<int> xs(&res);
//   arena.reset();                                   // chunks kept for reuse
#ifndef ZEROLAB_ARENA_HPP_
#define ZEROLAB_ARENA_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory_resource>
#include <new>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "zerolab/zero.hpp"

namespace zerolab {

// Chunk sizes are rounded up to a multiple of 64 bytes (first_chunk to at
// least 256); options() returns the rounded values.
struct ArenaOptions {
  std::size_t first_chunk = std::size_t{4} << 10;  // bytes of the first chunk
  std::size_t max_chunk = std::size_t{8} << 20;    // chunks grow to this size
  unsigned growth = 2;                             // chunk size multiplier (>= 1)
};

struct ArenaStats {
  std::size_t bytes_used = 0;      // handed out since the last reset, padding included
  std::size_t bytes_reserved = 0;  // held from the system: chunks + big blocks
  std::size_t chunks = 0;          // chunks held (used or kept for reuse)
  std::size_t big_blocks = 0;      // requests that got a block of their own
};

class Arena {
 public:
  explicit Arena(ArenaOptions options = {});
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // Returns size bytes aligned to align, valid until reset()/release().
  // REQUIRES: align is a power of two (else std::bad_alloc).
  //
  // The fast path keeps two words of state, ptr_ and end_ (bytes used are
  // worked out from the chunk pointers by stats(), not counted here): round
  // ptr_ up, compare, store. It takes alignments up to kFastAlign; every
  // chunk starts and ends on a kFastAlign boundary, so the rounded pointer
  // never passes end_ and `end_ - start` cannot wrap. size 0 (size - 1
  // wraps), an empty arena (ptr_ == end_ == nullptr), a full chunk, a bigger
  // or invalid alignment all take the out-of-line slow path.
  void* allocate(std::size_t size, std::size_t align = alignof(std::max_align_t)) {
    check_thread();
    const auto cur = reinterpret_cast<std::uintptr_t>(ptr_);
    const std::uintptr_t start = (cur + align - 1) & ~(align - 1);
    if (align - 1 < kFastAlign && (align & (align - 1)) == 0 &&
        size - 1 < reinterpret_cast<std::uintptr_t>(end_) - start) [[likely]] {
      ptr_ = reinterpret_cast<char*>(start + size);
      return reinterpret_cast<void*>(start);
    }
    return allocate_slow(size, align);
  }

  // Constructs a T in the arena; ~T runs at reset()/release()/~Arena.
  template <typename T, typename... Args>
  T* make(Args&&... args) {
    if constexpr (std::is_trivially_destructible_v<T>) {
      return ::new (allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
    } else {
      auto* node = static_cast<DtorNode*>(allocate(sizeof(DtorNode), alignof(DtorNode)));
      T* obj = ::new (allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
      *node = DtorNode{dtors_, &destroy_n<T>, obj, 1};
      dtors_ = node;
      return obj;
    }
  }

  // n objects of T: uninitialized when T is trivial, value-initialized
  // (destroyed at reset) otherwise. n * sizeof(T) overflowing: bad_alloc.
  template <typename T>
  T* make_array(std::size_t n) {
    void* p = allocate(array_bytes<T>(n), alignof(T));
    if constexpr (std::is_trivially_default_constructible_v<T> &&
                  std::is_trivially_destructible_v<T>) {
      return static_cast<T*>(p);
    } else {
      // The node only when a destructor must run, taken before any T is
      // built so that running out of memory cannot strand built objects.
      DtorNode* node = nullptr;
      if constexpr (!std::is_trivially_destructible_v<T>) {
        node = static_cast<DtorNode*>(allocate(sizeof(DtorNode), alignof(DtorNode)));
      }
      T* first = static_cast<T*>(p);
      std::size_t built = 0;
      try {
        for (; built < n; ++built) ::new (static_cast<void*>(first + built)) T();
      } catch (...) {
        destroy_n<T>(first, built);
        throw;
      }
      if constexpr (!std::is_trivially_destructible_v<T>) {
        *node = DtorNode{dtors_, &destroy_n<T>, first, n};
        dtors_ = node;
      }
      return first;
    }
  }

  // n objects of trivial T, all bytes zero (zero_fill).
  template <typename T>
  T* make_array_zeroed(std::size_t n) {
    static_assert(std::is_trivial_v<T>, "make_array_zeroed needs a trivial type");
    const std::size_t bytes = array_bytes<T>(n);
    void* p = allocate(bytes, alignof(T));
    zero_fill(p, bytes);
    return static_cast<T*>(p);
  }

  // Runs the recorded destructors, frees big blocks, keeps the chunks.
  void reset();
  // Runs the recorded destructors and returns all memory.
  void release();
  ArenaStats stats() const;
  const ArenaOptions& options() const { return options_; }

  // Forgets the owning thread (debug check), so another thread may use the
  // arena next. Call from the owner before handing the arena over.
  void detach_thread() { owner_.store(std::thread::id(), std::memory_order_release); }

 private:
  struct DtorNode {
    DtorNode* next;
    void (*destroy)(void*, std::size_t);
    void* obj;
    std::size_t n;
  };
  struct Block {
    char* base;
    std::size_t size;
  };

  template <typename T>
  static void destroy_n(void* p, std::size_t n) {
    T* first = static_cast<T*>(p);
    for (std::size_t i = n; i > 0; --i) first[i - 1].~T();
  }
  template <typename T>
  static std::size_t array_bytes(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_alloc();
    return n * sizeof(T);
  }

  // Debug builds: a plain load and compare per allocation (the owner was
  // stored by this very thread); the first use and misuse go out of line.
  void check_thread() {
#ifndef NDEBUG
    if (owner_.load(std::memory_order_relaxed) != std::this_thread::get_id()) [[unlikely]] {
      check_thread_slow();
    }
#endif
  }
  void check_thread_slow();
  [[gnu::noinline]] void* allocate_slow(std::size_t size, std::size_t align);
  void run_destructors() noexcept;
  void free_big_blocks() noexcept;

  // Chunks are aligned to and sized in multiples of this (the options are
  // rounded up to it), so the fast path may round ptr_ up to any alignment
  // up to it without passing end_.
  static constexpr std::size_t kFastAlign = 64;

  // The fast path reads and writes only these two.
  char* ptr_ = nullptr;  // next free byte of the current chunk
  char* end_ = nullptr;  // end of the current chunk
  // Bytes handed out since reset() from chunks before current_ and from big
  // blocks; stats() adds ptr_ - chunks_[current_].base for the current one.
  std::size_t used_before_ = 0;
  DtorNode* dtors_ = nullptr;  // newest first
  std::vector<Block> chunks_;  // in allocation order; [0, current_] in use
  std::size_t current_ = 0;
  std::vector<Block> big_;  // Block::size is the block's alignment here
  std::size_t big_bytes_ = 0;
  std::size_t next_chunk_ = 0;
  ArenaOptions options_;
  std::atomic<std::thread::id> owner_{};
};

// std::pmr::memory_resource over an Arena: allocate() bumps, deallocate()
// does nothing (memory comes back at the arena's reset). Not thread-safe.
class ArenaResource final : public std::pmr::memory_resource {
 public:
  explicit ArenaResource(Arena& arena) : arena_(&arena) {}
  Arena& arena() const { return *arena_; }

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    return arena_->allocate(bytes, align);
  }
  void do_deallocate(void*, std::size_t, std::size_t) override {}
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  Arena* arena_;
};

}  // namespace zerolab

#endif  // ZEROLAB_ARENA_HPP_
