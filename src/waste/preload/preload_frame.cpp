// zerolab::waste's second definition of a temporary allocation: a block
// freed while the function that allocated it is still running, i.e.
// within that call site's frame, and short-lived: its thread made at most
// 16 other allocations and frees while it lived, and the thread frees such
// blocks in its size class at least twice (the first is held back until
// the second comes, as in preload_alloc.cpp, whose definition is "freed
// before the thread's next allocation"). Without those two conditions every
// long-lived block of main (a hash map's nodes and buckets, freed at the
// end of main) counted: they live through the nodes' allocations and frees,
// or are alone in their class.
//
// Which frame is "the call site" is the CLI's call (the first frame outside
// the runtime libraries and outside inlined /usr/include code, as for every
// site), so the preload records, per freed block, which frames of its
// allocation stack were still live at the free. Each sampled allocation
// (preload_alloc.cpp's --sample-rate countdown) goes into a table of live
// sampled blocks with, for every frame of its stack, the frame's CFA and
// the return address stored just below it. At free, on the same thread and
// its own stack, frame i is still live if the stack pointer is below its
// CFA and the same return address is still there; the block's site (kind
// kTemporaryInFrame) is its allocation stack with Site::src = the innermost
// live frame, weighted like any sampled allocation (exact at --sample-rate
// 1). The CLI counts the block if its site frame is at or past that index.
// A later call of the same function from the same place at the same depth
// looks alike: a block handed from one such call to the next counts too.
// Blocks freed by another thread or on another stack (sigaltstack,
// coroutines) are not judged.
//
// Only young blocks are kept: each thread's latest kYoungBlocks sampled
// allocations (preload_state.hpp). An older block has lived through more
// than kShortLifetimeEvents events of its thread, so it cannot count
// whenever it is freed, and its entry is dropped when the thread's next
// sampled allocation takes its place in the thread's ring (and at the
// thread's exit). So the count is exact however many blocks are live: the
// table holds kYoungBlocks per thread that allocates, and only past
// kMaxTrackedThreads such threads at once do sampled blocks find no room
// (counted in Totals::frame_untracked, and the report says so).
//
// Cost: nothing per call beyond address_table.hpp's filter read at free;
// per sample, a table insert and a removal.
//
// Example: under zerolab waste --sample-rate 1,
//   void f() { for (int i = 0; i < 10; ++i) { char* p = malloc(60); free(p); } }
// counts 10 temporary allocations in f's frame, 600 bytes.
#include <pthread.h>

#include <cstring>

#include "waste/preload/address_table.hpp"
#include "waste/preload/preload_math.hpp"
#include "waste/preload/preload_state.hpp"

namespace zerolab::waste {
namespace {

constexpr int kCapacityBits = 13;  // at most half used: 4095 blocks
static_assert(kMaxTrackedThreads == ((1 << kCapacityBits) / 2 - 1) / kYoungBlocks);

struct FrameBlock {
  std::uintptr_t address;  // 0: empty
  std::uint64_t owner;     // ThreadState::serial of the allocating thread
  std::uint64_t events;    // ThreadState::events at the allocation
  std::uint64_t size;
  double weight;
  int depth;
  std::uint64_t pcs[kMaxFrames];
  std::uint64_t cfas[kMaxFrames];  // each frame's CFA (0: unknown)...
  std::uint64_t ras[kMaxFrames];   // ...and the return address at cfa - 8
};

constinit AddressTable<FrameBlock, kCapacityBits> g_table;
SpinLock g_lock;
std::atomic<std::uint64_t> g_next_serial{1};

// The thread's stack bounds, looked up once (pthread_getattr_np, or for
// the initial thread the same computation on the maps read that refreshes
// the record's snapshot).
bool thread_stack(ThreadState& t) {
  if (t.stack_hi == 0 && initial_thread_stack(t.stack_lo, t.stack_hi)) return true;
  if (t.stack_hi == 0) {
    pthread_attr_t attr;
    void* lo = nullptr;
    std::size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return false;
    pthread_attr_getstack(&attr, &lo, &size);
    pthread_attr_destroy(&attr);
    t.stack_lo = reinterpret_cast<std::uintptr_t>(lo);
    t.stack_hi = t.stack_lo + size;
  }
  return t.stack_hi != 0;
}

// Drops the block in ring slot `i` of the calling thread from the table if
// it is still the one that thread allocated there (it may have been freed,
// and its address handed out again). REQUIRES: g_lock held.
void forget_young(ThreadState& t, int i) {
  const std::uintptr_t a = t.young_address[i];
  if (a == 0) return;
  t.young_address[i] = 0;
  const FrameBlock* b = g_table.find(a);
  if (b == nullptr || b->owner != t.serial || b->events != t.young_events[i]) return;
  FrameBlock gone;
  g_table.remove(a, gone);
}

}  // namespace

void frame_thread_exit(ThreadState& t) {
  if (t.serial == 0) return;
  g_lock.lock();
  for (int i = 0; i < kYoungBlocks; ++i) forget_young(t, i);
  g_lock.unlock();
}

void frame_note_sampled(ThreadState& t, void* p, std::size_t n, double weight,
                        const std::uint64_t* pcs, const std::uint64_t* cfas, int depth) {
  if (depth <= 0 || !thread_stack(t)) return;
  if (t.serial == 0) t.serial = g_next_serial.fetch_add(1, std::memory_order_relaxed);
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const int ring = t.young_next;
  t.young_next = ring + 1 < kYoungBlocks ? ring + 1 : 0;
  g_lock.lock();
  forget_young(t, ring);
  FrameBlock* claimed = g_table.claim(a);
  if (claimed == nullptr) {
    g_lock.unlock();
    thread_totals(t).frame_untracked.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  t.young_address[ring] = a;
  t.young_events[ring] = t.events;
  FrameBlock& b = *claimed;
  b.owner = t.serial;
  b.events = t.events;
  b.size = n;
  b.weight = weight;
  b.depth = depth;
  for (int f = 0; f < depth; ++f) {
    b.pcs[f] = pcs[f];
    // The unwinder's CFA beside frame f's IP is its callee's CFA (frame f's
    // stack pointer at the call): frame f's own is the one beside f + 1.
    const std::uint64_t cfa = f + 1 < depth ? cfas[f + 1] : 0;
    // Only CFAs on this thread's stack, above this frame, are read.
    const bool on_stack =
        cfa > reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) && cfa <= t.stack_hi;
    b.cfas[f] = on_stack ? cfa : 0;
    b.ras[f] = on_stack ? *reinterpret_cast<const std::uint64_t*>(cfa - 8) : 0;
  }
  g_lock.unlock();
}

void frame_note_free(ThreadState& t, void* p, bool resized) {
  InHook guard(t);
  FrameBlock b;
  g_lock.lock();
  const bool found = g_table.remove(reinterpret_cast<std::uintptr_t>(p), b);
  g_lock.unlock();
  if (!found || resized || b.owner != t.serial) return;
  // t.events counts this free too.
  if (t.events - b.events > kShortLifetimeEvents + 1) return;  // long-lived
  const auto sp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  if (sp < t.stack_lo || sp >= t.stack_hi) return;  // on another stack
  // The innermost frame still live: below its CFA, with its return address
  // unchanged (the word at cfa - 8 lies between sp and the stack's top).
  int live = b.depth;
  for (int f = 0; f < b.depth; ++f) {
    if (b.cfas[f] > sp && b.cfas[f] <= t.stack_hi &&
        *reinterpret_cast<const std::uint64_t*>(b.cfas[f] - 8) == b.ras[f]) {
      live = f;
      break;
    }
  }
  if (live >= b.depth) return;  // freed after the whole stack returned
  const auto calls = static_cast<std::uint64_t>(round_half_away(b.weight));
  const auto bytes =
      static_cast<std::uint64_t>(round_half_away(b.weight * static_cast<double>(b.size)));
  const auto live_from = static_cast<FdType>(live < 255 ? live : 255);
  Site* s = find_or_add_site(Kind::kTemporaryInFrame, b.pcs, b.depth, live_from, FdType::kFile,
                             thread_slot_index(t));
  const int c = size_class(b.size);
  if (t.frame_seen[c] == 0) {  // the first of its class: held back
    t.frame_seen[c] = 1;
    t.frame_pending_site[c] = s;
    t.frame_pending_calls[c] = calls;
    t.frame_pending_bytes[c] = bytes;
    return;
  }
  if (t.frame_seen[c] == 1) {
    t.frame_seen[c] = 2;
    if (Site* first = t.frame_pending_site[c]) {
      first->calls.fetch_add(t.frame_pending_calls[c], std::memory_order_relaxed);
      first->bytes.fetch_add(t.frame_pending_bytes[c], std::memory_order_relaxed);
      first->extra.fetch_add(1, std::memory_order_relaxed);
    }
  }
  if (s != nullptr) {
    s->calls.fetch_add(calls, std::memory_order_relaxed);
    s->bytes.fetch_add(bytes, std::memory_order_relaxed);
    s->extra.fetch_add(1, std::memory_order_relaxed);  // samples behind the weighted counts
  }
}

void frame_fork_prepare() {
  g_lock.lock();
}
void frame_fork_parent() {
  g_lock.unlock();
}
void frame_fork_child() {
  g_lock.reset();
}

}  // namespace zerolab::waste
