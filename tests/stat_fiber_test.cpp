// Tests of Fiber (src/stat/fiber.hpp), the stack the JSON reader's parser
// runs on: the body and its owner take turns on the owner's thread,
// exceptions come back to the owner, and dropping the owner mid-body cancels
// it. Labelled "concurrent": it runs under TSan too, which checks the
// switches of stacks are announced.
//
// Example:
//   ./stat_json_test --gtest_filter='Fiber.*'
#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "stat/fiber.hpp"

namespace zerolab::stat {
namespace {

TEST(Fiber, RunsTheBodyUntilEachYield) {
  int v = 0;
  Fiber t([&v](Fiber& self) {
    for (v = 1; v <= 3; ++v) {
      if (!self.yield()) return;
    }
  });
  std::vector<int> seen;
  while (t.resume()) seen.push_back(v);
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(v, 4);
  EXPECT_FALSE(t.resume());
}

// Both sides write the same plain int, in turn, on one thread: the body
// runs only inside resume().
TEST(Fiber, TheTwoSidesNeverRunAtOnce) {
  long shared = 0;
  Fiber t([&shared](Fiber& self) {
    for (int i = 0; i < 2000; ++i) {
      shared += 2;
      if (!self.yield()) return;
    }
  });
  int turns = 0;
  while (t.resume()) {
    shared -= 1;
    ++turns;
  }
  EXPECT_EQ(turns, 2000);
  EXPECT_EQ(shared, 2000);
}

// The body runs on the owner's thread, on a stack of its own that holds
// what a parser needs (here 256 KiB of frames, deep calls).
TEST(Fiber, TheBodyRunsOnTheOwnersThreadOnItsOwnStack) {
  std::thread::id body_thread;
  const char* body_frame = nullptr;
  int depth = 0;
  Fiber t([&](Fiber& self) {
    body_thread = std::this_thread::get_id();
    char here = 0;
    body_frame = &here;
    const std::function<int(int)> deep = [&](int n) {
      volatile char frame[1024] = {};
      return n == 0 ? frame[0] : deep(n - 1) + 1 + frame[n % 1024];
    };
    depth = deep(256);
    self.yield();
  });
  ASSERT_TRUE(t.resume());
  EXPECT_EQ(body_thread, std::this_thread::get_id());
  char owner = 0;
  const auto distance = body_frame > &owner ? body_frame - &owner : &owner - body_frame;
  EXPECT_GT(distance,
            static_cast<std::ptrdiff_t>(Fiber::kStackBytes) / 2);  // not the owner's stack
  EXPECT_EQ(depth, 256);
  EXPECT_FALSE(t.resume());
}

TEST(Fiber, PassesTheBodysExceptionToTheOwnerOnce) {
  Fiber t([](Fiber& self) {
    self.yield();
    throw std::runtime_error("boom");
  });
  EXPECT_TRUE(t.resume());
  EXPECT_THROW(
      {
        try {
          t.resume();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "boom");
          throw;
        }
      },
      std::runtime_error);
  EXPECT_FALSE(t.resume());
}

TEST(Fiber, DroppingTheOwnerCancelsTheBody) {
  int yields_refused = 0;
  bool returned = false;
  {
    Fiber t([&](Fiber& self) {
      while (self.yield()) {
      }
      ++yields_refused;
      if (!self.yield()) ++yields_refused;  // stays refused
      returned = true;
    });
    EXPECT_TRUE(t.resume());
    EXPECT_TRUE(t.resume());
  }
  EXPECT_EQ(yields_refused, 2);
  EXPECT_TRUE(returned);

  bool ran = false;
  {
    Fiber never_resumed([&ran](Fiber& /*self*/) { ran = true; });
  }
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace zerolab::stat
