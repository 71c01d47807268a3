// zerolab::Interner (zerolab/intern.hpp): one string per key, stable views
// across growth, and concurrent interning of the same keys from many
// threads yielding exactly one string each. Labelled concurrent (TSan).
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "zerolab/intern.hpp"

namespace {

using zerolab::Interner;

TEST(Interner, SameKeySameString) {
  Interner<std::int64_t> in(8);
  int made = 0;
  auto make = [&](std::int64_t k) {
    ++made;
    return std::to_string(k);
  };
  std::string_view a = in.intern(42, make);
  std::string_view b = in.intern(42, make);
  EXPECT_EQ(a, "42");
  EXPECT_EQ(a.data(), b.data());
  EXPECT_EQ(made, 1);
  EXPECT_FALSE(in.find(7).second);
  EXPECT_EQ(in.find(42).first.data(), a.data());
}

TEST(Interner, ViewsStayValidAcrossGrowth) {
  Interner<std::int64_t> in(8);
  std::vector<std::string_view> views;
  for (std::int64_t k = 0; k < 10000; ++k) {
    views.push_back(in.intern(k * 7919, [](std::int64_t x) { return "oid-" + std::to_string(x); }));
  }
  EXPECT_EQ(in.size(), 10000u);
  for (std::int64_t k = 0; k < 10000; ++k) {
    ASSERT_EQ(views[static_cast<std::size_t>(k)], "oid-" + std::to_string(k * 7919));
    ASSERT_EQ(in.find(k * 7919).first.data(), views[static_cast<std::size_t>(k)].data());
  }
}

TEST(Interner, ConcurrentInterningYieldsOneStringPerKey) {
  Interner<std::int64_t> in(8);
  constexpr int kKeys = 3000;
  constexpr int kThreads = 8;
  std::atomic<int> made{0};
  std::vector<std::vector<const char*>> seen(kThreads, std::vector<const char*>(kKeys));
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < kKeys; ++i) {
        const int k = (i * 31 + t * 977) % kKeys;  // different orders per thread
        std::string_view v = in.intern(k, [&](std::int64_t x) {
          made.fetch_add(1);
          return std::to_string(x);
        });
        if (v != std::to_string(k)) ADD_FAILURE() << "key " << k << " got " << v;
        seen[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)] = v.data();
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(made.load(), kKeys);
  EXPECT_EQ(in.size(), static_cast<std::size_t>(kKeys));
  for (int t = 1; t < kThreads; ++t) {
    EXPECT_EQ(seen[static_cast<std::size_t>(t)], seen[0]) << "thread " << t;
  }
}

TEST(Interner, StringKeys) {
  Interner<std::string> in;
  auto up = [](const std::string& s) {
    std::string r = s;
    for (char& c : r) c = static_cast<char>(c - 32);
    return r;
  };
  EXPECT_EQ(in.intern("abc", up), "ABC");
  EXPECT_EQ(in.intern("abc", up).data(), in.intern(std::string("abc"), up).data());
}

}  // namespace
