// Tests of HandOffThread (src/stat/handoff_thread.hpp), the thread the JSON
// reader's parser runs on: the body and its owner take turns, exceptions
// come back to the owner, and dropping the owner mid-body cancels it.
// Labelled "concurrent": it runs under TSan too.
//
// Example:
//   ./stat_json_test --gtest_filter='HandOffThread.*'
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "stat/handoff_thread.hpp"

namespace zerolab::stat {
namespace {

TEST(HandOffThread, RunsTheBodyUntilEachYield) {
  int v = 0;
  HandOffThread t([&v](HandOffThread& self) {
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

// Both sides write the same plain int: only their taking turns keeps this
// free of a data race (TSan checks it).
TEST(HandOffThread, TheTwoSidesNeverRunAtOnce) {
  long shared = 0;
  HandOffThread t([&shared](HandOffThread& self) {
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

TEST(HandOffThread, PassesTheBodysExceptionToTheOwnerOnce) {
  HandOffThread t([](HandOffThread& self) {
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

TEST(HandOffThread, DroppingTheOwnerCancelsTheBody) {
  int yields_refused = 0;
  bool returned = false;
  {
    HandOffThread t([&](HandOffThread& self) {
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
  { HandOffThread never_resumed([&ran](HandOffThread& /*self*/) { ran = true; }); }
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace zerolab::stat
