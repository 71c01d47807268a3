// zerolab::Arena's slow path (zerolab/arena.hpp): new chunks, big blocks,
// reset and release, and the debug-build thread check.
#include "zerolab/arena.hpp"

#include <cstdio>
#include <cstdlib>

namespace zerolab {
namespace {

// Chunk bases and ends: multiples of Arena::kFastAlign (see allocate()).
constexpr std::size_t kChunkAlign = 64;

std::size_t round_up_chunk(std::size_t n) {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max() & ~(kChunkAlign - 1);
  return n > kMax ? kMax : (n + kChunkAlign - 1) & ~(kChunkAlign - 1);
}

char* new_block(std::size_t size, std::size_t align) {
  return static_cast<char*>(::operator new (size, std::align_val_t{align}));
}

void delete_block(char* p, std::size_t align) {
  ::operator delete (static_cast<void*>(p), std::align_val_t{align});
}

bool is_pow2(std::size_t x) {
  return x != 0 && (x & (x - 1)) == 0;
}

}  // namespace

Arena::Arena(ArenaOptions options) : options_(options) {
  static_assert(kChunkAlign == kFastAlign);
  if (options_.first_chunk < 256) options_.first_chunk = 256;
  // Chunk sizes stay multiples of kChunkAlign: the first and the cap are
  // rounded up, and growth multiplies by a whole number.
  options_.first_chunk = round_up_chunk(options_.first_chunk);
  options_.max_chunk = round_up_chunk(options_.max_chunk);
  if (options_.max_chunk < options_.first_chunk) options_.max_chunk = options_.first_chunk;
  if (options_.growth == 0) options_.growth = 1;
  next_chunk_ = options_.first_chunk;
}

Arena::~Arena() {
  run_destructors();
  free_big_blocks();
  for (const Block& c : chunks_) delete_block(c.base, kChunkAlign);
}

void Arena::check_thread_slow() {
  const std::thread::id me = std::this_thread::get_id();
  std::thread::id expected{};
  if (owner_.compare_exchange_strong(expected, me, std::memory_order_acq_rel)) return;
  if (expected == me) return;
  // A debug-build misuse trap, like assert: not an error the caller handles.
  std::fputs(
      "zerolab::Arena used from two threads (it is not thread-safe; "
      "call detach_thread() to hand it over)\n",
      stderr);
  std::abort();
}

void* Arena::allocate_slow(std::size_t size, std::size_t align) {
  if (!is_pow2(align)) throw std::bad_alloc();
  if (size == 0) size = 1;
  if (size > std::numeric_limits<std::size_t>::max() - align) throw std::bad_alloc();
  auto fits = [&](char* p, char* e) -> std::size_t {  // padding, or SIZE_MAX
    const auto cur = reinterpret_cast<std::uintptr_t>(p);
    const std::size_t pad = static_cast<std::size_t>(-cur) & (align - 1);
    const auto avail = static_cast<std::size_t>(e - p);
    return (size <= avail && pad <= avail - size) ? pad : std::numeric_limits<std::size_t>::max();
  };
  auto bump = [&](std::size_t pad) {
    char* r = ptr_ + pad;
    ptr_ = r + size;
    return static_cast<void*>(r);
  };
  // Leaving the current chunk: what it handed out moves to used_before_.
  auto retire_current = [&] {
    if (!chunks_.empty()) used_before_ += static_cast<std::size_t>(ptr_ - chunks_[current_].base);
  };
  if (std::size_t pad = fits(ptr_, end_); pad != std::numeric_limits<std::size_t>::max()) {
    return bump(pad);
  }
  const std::size_t worst = size + align - 1;
  if (worst > next_chunk_ / 4) {
    // A block of its own: a big object never strands the rest of a chunk.
    const std::size_t a = align < alignof(std::max_align_t) ? alignof(std::max_align_t) : align;
    big_.reserve(big_.size() + 1);
    char* p = new_block(size, a);
    big_.push_back({p, a});  // Block::size holds the alignment for big blocks
    used_before_ += size;
    big_bytes_ += size;
    return p;
  }
  // The next kept chunk (after reset) that fits, else a new one.
  while (!chunks_.empty() && current_ + 1 < chunks_.size()) {
    retire_current();
    ++current_;
    ptr_ = chunks_[current_].base;
    end_ = ptr_ + chunks_[current_].size;
    if (std::size_t pad = fits(ptr_, end_); pad != std::numeric_limits<std::size_t>::max()) {
      return bump(pad);
    }
  }
  chunks_.reserve(chunks_.size() + 1);
  const std::size_t chunk = next_chunk_;
  char* base = new_block(chunk, kChunkAlign);
  retire_current();
  chunks_.push_back({base, chunk});
  current_ = chunks_.size() - 1;
  ptr_ = base;
  end_ = base + chunk;
  if (next_chunk_ < options_.max_chunk) {
    const std::size_t grown = next_chunk_ * options_.growth;
    next_chunk_ = (grown / options_.growth != next_chunk_ || grown > options_.max_chunk)
                      ? options_.max_chunk
                      : grown;
  }
  return bump(fits(ptr_, end_));
}

void Arena::run_destructors() noexcept {
  DtorNode* n = dtors_;
  dtors_ = nullptr;
  while (n != nullptr) {
    DtorNode* next = n->next;
    n->destroy(n->obj, n->n);
    n = next;
  }
}

void Arena::free_big_blocks() noexcept {
  for (const Block& b : big_) delete_block(b.base, b.size);
  big_.clear();
  big_bytes_ = 0;
}

void Arena::reset() {
  check_thread();
  run_destructors();
  free_big_blocks();
  used_before_ = 0;
  current_ = 0;
  if (chunks_.empty()) {
    ptr_ = end_ = nullptr;
  } else {
    ptr_ = chunks_[0].base;
    end_ = ptr_ + chunks_[0].size;
  }
}

void Arena::release() {
  check_thread();
  run_destructors();
  free_big_blocks();
  for (const Block& c : chunks_) delete_block(c.base, kChunkAlign);
  chunks_.clear();
  chunks_.shrink_to_fit();
  current_ = 0;
  used_before_ = 0;
  ptr_ = end_ = nullptr;
  next_chunk_ = options_.first_chunk;
}

ArenaStats Arena::stats() const {
  ArenaStats s;
  s.bytes_used = used_before_;
  if (!chunks_.empty()) s.bytes_used += static_cast<std::size_t>(ptr_ - chunks_[current_].base);
  for (const Block& c : chunks_) s.bytes_reserved += c.size;
  s.bytes_reserved += big_bytes_;
  s.chunks = chunks_.size();
  s.big_blocks = big_.size();
  return s;
}

}  // namespace zerolab
