// lab/mimalloc_peer.hpp: mimalloc is dlopen'ed with RTLD_LOCAL, so after it
// is loaded malloc, operator new and the allocation hooks' counts are still
// glibc's and the hooks' (Debian's libmimalloc.so exports malloc and
// __libc_malloc: linked, it would replace them process-wide).
#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "alloc_hooks/alloc_stats.hpp"
#include "lab/experiments/mimalloc_peer.hpp"

namespace {

namespace alloc_stats = zerolab::internal::alloc_stats;

TEST(MimallocPeer, LoadsAndAllocates) {
  const auto* mi = zerolab::lab::mimalloc();
  ASSERT_NE(mi, nullptr) << "built with mimalloc, but " ZEROLAB_MIMALLOC_LIBRARY " did not load";
  EXPECT_GE(mi->version, 100);
  void* p = mi->malloc(48);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(mi->check_owned(p));
  mi->free(p);
  mi_heap_t* heap = mi->heap_new();
  for (int i = 0; i < 1000; ++i) ASSERT_NE(mi->heap_malloc(heap, 16), nullptr);
  mi->heap_destroy(heap);
}

TEST(MimallocPeer, DoesNotTakeOverMallocOrNew) {
  const auto* mi = zerolab::lab::mimalloc();
  ASSERT_NE(mi, nullptr);
  // Not in the global scope: nothing can bind to its malloc.
  EXPECT_EQ(::dlsym(RTLD_DEFAULT, "mi_malloc"), nullptr);
  void* m = std::malloc(32);
  auto n = std::make_unique<char[]>(32);
  std::vector<void*> many;
  for (int i = 0; i < 100; ++i) many.push_back(std::malloc(24));
  EXPECT_FALSE(mi->check_owned(m));
  EXPECT_FALSE(mi->check_owned(n.get()));
  for (void* q : many) EXPECT_FALSE(mi->check_owned(q));
  for (void* q : many) std::free(q);
  std::free(m);
}

TEST(MimallocPeer, HooksStillCount) {
  ASSERT_NE(zerolab::lab::mimalloc(), nullptr);
  ASSERT_TRUE(alloc_stats::available());
  const auto before = alloc_stats::totals();
  auto* s = new std::string(100, 'x');
  const auto after = alloc_stats::totals();
  delete s;
  // The std::string object and its 101-byte buffer.
  EXPECT_EQ(after.allocs - before.allocs, 2u);
  // mi_* calls are not counted (the rows of the lab say so).
  const auto* mi = zerolab::lab::mimalloc();
  const auto b2 = alloc_stats::totals();
  void* p = mi->malloc(64);
  const auto a2 = alloc_stats::totals();
  mi->free(p);
  EXPECT_EQ(a2.allocs, b2.allocs);
}

TEST(MimallocPeer, PmrResource) {
  const auto* mi = zerolab::lab::mimalloc();
  ASSERT_NE(mi, nullptr);
  zerolab::lab::MimallocResource res(*mi);
  std::pmr::vector<std::pmr::string> v(&res);
  for (int i = 0; i < 1000; ++i) v.emplace_back(40, 'q');
  EXPECT_TRUE(mi->check_owned(v.data()));
  mi_heap_t* heap = mi->heap_new();
  {
    zerolab::lab::MimallocResource hres(*mi, heap);
    std::pmr::vector<std::pmr::string> w(&hres);
    for (int i = 0; i < 1000; ++i) w.emplace_back(40, 'q');
    EXPECT_EQ(w[999].size(), 40u);
    void* big = hres.allocate(100, 256);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big) % 256, 0u);
  }
  mi->heap_destroy(heap);
}

}  // namespace
