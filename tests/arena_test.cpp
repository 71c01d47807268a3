// zerolab::Arena and ArenaResource (zerolab/arena.hpp): alignment, the
// destructor list, reset reuse, big blocks, pmr containers, bad input, and
// the debug-build two-thread trap. No timings.
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory_resource>
#include <new>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "zerolab/arena.hpp"

namespace {

using zerolab::Arena;
using zerolab::ArenaOptions;

bool aligned(const void* p, std::size_t a) {
  return (reinterpret_cast<std::uintptr_t>(p) & (a - 1)) == 0;
}

TEST(Arena, EveryAllocationAlignedForEveryPowerOfTwo) {
  Arena arena;
  for (std::size_t a = 1; a <= 4096; a *= 2) {
    for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{17},
                             std::size_t{64}, std::size_t{1000}, std::size_t{5000}}) {
      for (int rep = 0; rep < 4; ++rep) {
        void* p = arena.allocate(size, a);
        ASSERT_NE(p, nullptr);
        ASSERT_TRUE(aligned(p, a)) << "align " << a << " size " << size;
        if (size > 0) std::memset(p, 0xab, size);  // ASan: the bytes are ours
      }
    }
  }
}

TEST(Arena, AllocationsDoNotOverlap) {
  Arena arena(ArenaOptions{256, 4096, 2});
  std::vector<std::pair<unsigned char*, std::size_t>> got;
  for (std::size_t i = 0; i < 2000; ++i) {
    const std::size_t size = 1 + (i * 37) % 300;
    auto* p = static_cast<unsigned char*>(arena.allocate(size, std::size_t{1} << (i % 7)));
    std::memset(p, static_cast<int>(i & 0xff), size);
    got.push_back({p, size});
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    for (std::size_t j = 0; j < got[i].second; ++j) {
      ASSERT_EQ(got[i].first[j], static_cast<unsigned char>(i & 0xff));
    }
  }
}

struct Tracked {
  static std::vector<int>* log;
  int id;
  explicit Tracked(int i) : id(i) {}
  Tracked() : id(-1) {}
  ~Tracked() { log->push_back(id); }
};
std::vector<int>* Tracked::log = nullptr;

TEST(Arena, DestructorsRunOnceInReverseOrder) {
  std::vector<int> log;
  Tracked::log = &log;
  {
    Arena arena;
    for (int i = 0; i < 100; ++i) arena.make<Tracked>(i);
    arena.reset();
    ASSERT_EQ(log.size(), 100u);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(log[static_cast<std::size_t>(i)], 99 - i);
    log.clear();
    arena.reset();  // nothing left to destroy
    EXPECT_TRUE(log.empty());
    arena.make<Tracked>(7);
    Tracked* arr = arena.make_array<Tracked>(3);
    arr[0].id = 10;
    arr[1].id = 11;
    arr[2].id = 12;
    arena.make<Tracked>(8);
  }  // ~Arena
  EXPECT_EQ(log, (std::vector<int>{8, 12, 11, 10, 7}));
  log.clear();
  {
    Arena arena;
    arena.make<Tracked>(1);
    arena.release();
    EXPECT_EQ(log, (std::vector<int>{1}));
  }
  EXPECT_EQ(log, (std::vector<int>{1}));
}

TEST(Arena, StringsAndVectorsInsideAreDestroyed) {
  Arena arena;  // ASan/LSan flag a leak if ~string does not run
  for (int i = 0; i < 100; ++i) {
    arena.make<std::string>(200, 'x');
    arena.make<std::vector<int>>(100, i);
  }
}

TEST(Arena, TrivialObjectsRecordNothing) {
  Arena arena;
  arena.make<int>(1);
  const std::size_t used = arena.stats().bytes_used;
  arena.make<int>(2);
  EXPECT_LE(arena.stats().bytes_used - used, sizeof(int) + alignof(int));
}

TEST(Arena, ResetReusesChunks) {
  Arena arena(ArenaOptions{1024, 16384, 2});
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 2000; ++i) arena.allocate(24, 8);
    const zerolab::ArenaStats s = arena.stats();
    EXPECT_GE(s.bytes_used, 2000u * 24);
    static zerolab::ArenaStats first;
    if (round == 0) {
      first = s;
    } else {
      EXPECT_EQ(s.chunks, first.chunks) << "round " << round;
      EXPECT_EQ(s.bytes_reserved, first.bytes_reserved);
    }
    arena.reset();
    EXPECT_EQ(arena.stats().bytes_used, 0u);
    EXPECT_EQ(arena.stats().chunks, first.chunks);
  }
  arena.release();
  EXPECT_EQ(arena.stats().chunks, 0u);
  EXPECT_EQ(arena.stats().bytes_reserved, 0u);
  EXPECT_NE(arena.allocate(10, 8), nullptr);
}

TEST(Arena, ChunksGrowToTheCap) {
  Arena arena(ArenaOptions{1024, 8192, 2});
  for (int i = 0; i < 5000; ++i) arena.allocate(64, 8);
  // 1024 + 2048 + 4096 + 8192 * k
  const zerolab::ArenaStats s = arena.stats();
  EXPECT_EQ((s.bytes_reserved - (1024 + 2048 + 4096)) % 8192, 0u);
  EXPECT_GE(s.bytes_reserved, 5000u * 64);
}

TEST(Arena, StatsAreExact) {
  // 256-byte chunks that do not grow: 16 allocations of 16 fill one.
  Arena arena(ArenaOptions{256, 256, 1});
  EXPECT_EQ(arena.stats().bytes_used, 0u);
  for (int i = 0; i < 40; ++i) arena.allocate(16, 16);
  zerolab::ArenaStats s = arena.stats();
  EXPECT_EQ(s.bytes_used, 40u * 16);
  EXPECT_EQ(s.chunks, 3u);
  EXPECT_EQ(s.bytes_reserved, 3u * 256);
  // Padding counts: 1 byte, then 7 of padding and 8 (the chunk has 128
  // bytes left, so both stay in it).
  arena.allocate(1, 1);
  arena.allocate(8, 8);
  EXPECT_EQ(arena.stats().bytes_used, 40u * 16 + 16);
  // The cursor is at offset 144 of the third chunk (chunks are 64-aligned):
  // 64 bytes aligned to 64 pad 48 and end the chunk exactly.
  const std::size_t before = arena.stats().bytes_used;
  arena.allocate(64, 64);
  EXPECT_EQ(arena.stats().bytes_used, before + 48 + 64);
  EXPECT_EQ(arena.stats().chunks, 3u);
  arena.allocate(8, 8);  // the chunk is full: a fourth one
  EXPECT_EQ(arena.stats().bytes_used, before + 48 + 64 + 8);
  EXPECT_EQ(arena.stats().chunks, 4u);
  // 248 left in the fourth chunk: four of 56 fit, the fifth takes a fifth
  // chunk, and the 24 bytes left behind are not counted.
  for (int i = 0; i < 5; ++i) arena.allocate(56, 8);
  EXPECT_EQ(arena.stats().bytes_used, before + 48 + 64 + 8 + 5 * 56);
  EXPECT_EQ(arena.stats().chunks, 5u);
  // A big block counts its size, no padding.
  arena.allocate(1000, 8);
  s = arena.stats();
  EXPECT_EQ(s.bytes_used, before + 48 + 64 + 8 + 5 * 56 + 1000);
  EXPECT_EQ(s.big_blocks, 1u);
  EXPECT_EQ(s.bytes_reserved, 5u * 256 + 1000);
  arena.reset();
  s = arena.stats();
  EXPECT_EQ(s.bytes_used, 0u);
  EXPECT_EQ(s.chunks, 5u);
  EXPECT_EQ(s.bytes_reserved, 5u * 256);
  // Reused chunks count the same way.
  for (int i = 0; i < 40; ++i) arena.allocate(16, 16);
  EXPECT_EQ(arena.stats().bytes_used, 40u * 16);
  EXPECT_EQ(arena.stats().chunks, 5u);
  arena.release();
  s = arena.stats();
  EXPECT_EQ(s.bytes_used, 0u);
  EXPECT_EQ(s.chunks, 0u);
  EXPECT_EQ(s.bytes_reserved, 0u);
}

TEST(Arena, ChunkSizesRoundUpToSixtyFourBytes) {
  Arena arena(ArenaOptions{1000, 3000, 2});
  EXPECT_EQ(arena.options().first_chunk, 1024u);
  EXPECT_EQ(arena.options().max_chunk, 3008u);
  for (int i = 0; i < 200; ++i) arena.allocate(32, 8);  // 6400 bytes
  EXPECT_EQ(arena.stats().bytes_reserved, 1024u + 2048 + 3008 + 3008);
  Arena tiny(ArenaOptions{10, 10, 1});
  EXPECT_EQ(tiny.options().first_chunk, 256u);
  EXPECT_EQ(tiny.options().max_chunk, 256u);
}

TEST(Arena, OddChunkSizesKeepEveryAllocationInside) {
  // Every size and alignment the fast path takes, against chunk ends that
  // the options did not put on a 64-byte boundary (ASan: no byte outside).
  Arena arena(ArenaOptions{300, 700, 3});
  for (int round = 0; round < 3; ++round) {
    for (std::size_t a = 1; a <= 128; a *= 2) {
      for (std::size_t size = 1; size <= 70; ++size) {
        auto* p = static_cast<unsigned char*>(arena.allocate(size, a));
        ASSERT_TRUE(aligned(p, a)) << "align " << a << " size " << size;
        std::memset(p, 0xcd, size);
      }
    }
    arena.reset();
  }
}

TEST(Arena, BigRequestsGetTheirOwnBlock) {
  Arena arena(ArenaOptions{4096, 4096, 2});
  void* small = arena.allocate(16, 8);
  void* big = arena.allocate(100000, 64);
  EXPECT_TRUE(aligned(big, 64));
  std::memset(big, 1, 100000);
  EXPECT_EQ(arena.stats().big_blocks, 1u);
  EXPECT_EQ(arena.stats().chunks, 1u);
  void* small2 = arena.allocate(16, 8);
  // The small allocations share the one chunk.
  EXPECT_EQ(static_cast<char*>(small2) - static_cast<char*>(small), 16);
  arena.reset();
  EXPECT_EQ(arena.stats().big_blocks, 0u);
}

TEST(Arena, MakeArrayZeroed) {
  Arena arena;
  arena.allocate(100, 1);
  auto* d = arena.make_array_zeroed<std::uint64_t>(1000);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(d[i], 0u);
  auto* c = arena.make_array<char>(10);
  std::memset(c, 'a', 10);
}

TEST(Arena, BadInputThrowsBadAlloc) {
  Arena arena;
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  EXPECT_THROW(arena.allocate(16, 3), std::bad_alloc);
  EXPECT_THROW(arena.allocate(16, 0), std::bad_alloc);
  EXPECT_THROW(arena.allocate(16, 48), std::bad_alloc);
  EXPECT_THROW(arena.allocate(max, 8), std::bad_alloc);
  EXPECT_THROW(arena.allocate(max - 4, 16), std::bad_alloc);
  EXPECT_THROW(arena.make_array<std::uint64_t>(max / 4), std::bad_alloc);
  EXPECT_THROW(arena.make_array_zeroed<std::uint64_t>(max / 8 + 1), std::bad_alloc);
  // Still usable afterwards.
  EXPECT_NE(arena.allocate(16, 16), nullptr);
}

TEST(ArenaResource, PmrContainers) {
  Arena arena;
  zerolab::ArenaResource res(arena);
  {
    std::pmr::vector<int> v(&res);
    for (int i = 0; i < 10000; ++i) v.push_back(i);
    std::pmr::map<int, std::pmr::string> m(&res);
    for (int i = 0; i < 500; ++i) m.emplace(i, std::pmr::string(40, 'q'));
    EXPECT_EQ(v[9999], 9999);
    EXPECT_EQ(std::string_view(m.at(499)), std::string(40, 'q'));
    EXPECT_GT(arena.stats().bytes_used, 10000 * sizeof(int));
  }
  EXPECT_TRUE(res.is_equal(res));
  zerolab::ArenaResource other(arena);
  EXPECT_FALSE(res.is_equal(other));
  arena.reset();
}

TEST(Arena, HandOverWithDetach) {
  Arena arena;
  arena.allocate(8, 8);
  arena.detach_thread();
  std::thread t([&] {
    arena.allocate(8, 8);
    arena.detach_thread();
  });
  t.join();
  arena.allocate(8, 8);
}

#ifndef NDEBUG
TEST(ArenaDeathTest, TwoThreadsCaughtInDebugBuilds) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        Arena arena;
        arena.allocate(8, 8);
        std::thread t([&] { arena.allocate(8, 8); });
        t.join();
      },
      "used from two threads");
}
#endif

}  // namespace
