// zerolab::waste's tables of watched blocks, keyed by address: the live
// large blocks (preload_alloc.cpp, oversized buffers) and the live sampled
// blocks (preload_frame.cpp, temporaries in the allocating frame). Open
// addressing with linear probing, at most half full, backward-shift
// deletion; no allocation, so it is usable inside malloc. Callers hold
// their own lock around every call.
//
// Every entry of every table is also counted in g_watch_filter (by address
// hash), so free() learns with one load that a block is in no table: the
// only cost the tables add to a free of an unwatched block.
//
// Example:
//   AddressTable<LiveBlock, 16> table;          // LiveBlock has `std::uintptr_t address`
//   if (LiveBlock* e = table.claim(a)) e->bytes = n;   // nullptr: table full
//   LiveBlock gone;
//   if (maybe_watched(p) && table.remove(a, gone)) { ... }
#ifndef ZEROLAB_SRC_WASTE_ADDRESS_TABLE_HPP_
#define ZEROLAB_SRC_WASTE_ADDRESS_TABLE_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace zerolab::waste {

inline constexpr std::size_t kWatchFilter = 1 << 14;
extern std::atomic<std::uint16_t> g_watch_filter[kWatchFilter];
extern std::atomic<std::size_t> g_watched;  // entries in all tables
// The address's 16-byte granule modulo the filter's size (no multiply: a
// shared index only sends a free to the exact table lookup).
inline std::size_t watch_index(std::uintptr_t a) {
  return (a >> 4) & (kWatchFilter - 1);
}
// False if `p` is surely in no table (every free: one load while the
// tables are empty, two otherwise).
inline bool maybe_watched(const void* p) {
  if (g_watched.load(std::memory_order_relaxed) == 0) return false;
  const std::size_t i = watch_index(reinterpret_cast<std::uintptr_t>(p));
  return g_watch_filter[i].load(std::memory_order_relaxed) != 0;
}

template <typename Entry, int kBits>
class AddressTable {
 public:
  static constexpr std::size_t kCapacity = std::size_t{1} << kBits;

  // The entry for address `a` (a != 0): the existing one, or a new one with
  // only `address` set. nullptr when the table is half full.
  Entry* claim(std::uintptr_t a) {
    std::size_t i = home(a);
    while (slots_[i].address != 0 && slots_[i].address != a) i = next(i);
    if (slots_[i].address == 0) {
      if (count_ + 1 >= kCapacity / 2) return nullptr;
      ++count_;
      slots_[i].address = a;
      g_watch_filter[watch_index(a)].fetch_add(1, std::memory_order_relaxed);
      g_watched.fetch_add(1, std::memory_order_relaxed);
    }
    return &slots_[i];
  }

  // The entry of `a`, or nullptr.
  Entry* find(std::uintptr_t a) {
    std::size_t i = home(a);
    while (slots_[i].address != 0 && slots_[i].address != a) i = next(i);
    return slots_[i].address == 0 ? nullptr : &slots_[i];
  }

  // Moves the entry of `a` to `out`; false if there is none.
  bool remove(std::uintptr_t a, Entry& out) {
    std::size_t i = home(a);
    while (slots_[i].address != 0 && slots_[i].address != a) i = next(i);
    if (slots_[i].address == 0) return false;
    out = slots_[i];
    // Backward shift: entries after the hole whose probe chain crosses it move up.
    std::size_t hole = i;
    for (std::size_t j = next(i); slots_[j].address != 0; j = next(j)) {
      const std::size_t h = home(slots_[j].address);
      const bool movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
      if (movable) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].address = 0;
    --count_;
    g_watch_filter[watch_index(a)].fetch_sub(1, std::memory_order_relaxed);
    g_watched.fetch_sub(1, std::memory_order_relaxed);
    return true;
  }

 private:
  static std::size_t home(std::uintptr_t a) {
    return (a >> 4) * 0x9e3779b97f4a7c15ULL >> (64 - kBits);
  }
  static std::size_t next(std::size_t i) { return (i + 1) & (kCapacity - 1); }

  Entry slots_[kCapacity]{};
  std::size_t count_ = 0;
};

}  // namespace zerolab::waste

#endif  // ZEROLAB_SRC_WASTE_ADDRESS_TABLE_HPP_
