// zerolab::run_benchmark's report carries failures, skips and log lines as
// fields, filled by B; and the one reader/writer of "--- FAIL: name" blocks
// (benchfmt::read_message_blocks / format_message_block) round-trip.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "zerolab/bench.hpp"
#include "zerolab/bench_run.hpp"
#include "zerolab/benchfmt.hpp"

namespace zerolab {
namespace {

using benchfmt::BlockKind;
using benchfmt::MessageBlock;
using Lines = std::vector<std::string>;

RunReport run_once(const std::function<void(B&)>& body) {
  RunSettings settings;
  settings.iterations = 1;
  return run_benchmark("BenchmarkX", body, settings);
}

TEST(RunReport, FatalIsAFailureWithItsMessages) {
  const RunReport r = run_once([](B& b) {
    b.log("before");
    b.fatal("deliberate");
  });
  EXPECT_TRUE(r.failed);
  EXPECT_FALSE(r.skipped);
  EXPECT_TRUE(r.results.empty());
  EXPECT_EQ(r.failure_messages, (Lines{"before", "deliberate"}));
  EXPECT_TRUE(r.log_lines.empty());
  ASSERT_EQ(r.blocks.size(), 1u);
  EXPECT_EQ(r.blocks[0].kind, BlockKind::kFail);
  EXPECT_EQ(r.blocks[0].name, "BenchmarkX");
}

TEST(RunReport, AnExceptionIsAFailure) {
  const RunReport r = run_once([](B&) { throw std::runtime_error("boom"); });
  EXPECT_TRUE(r.failed);
  EXPECT_EQ(r.failure_messages, (Lines{"benchmark threw an exception: boom"}));
}

TEST(RunReport, SkipIsNotAFailure) {
  const RunReport r = run_once([](B& b) { b.skip("not here"); });
  EXPECT_FALSE(r.failed);
  EXPECT_TRUE(r.skipped);
  EXPECT_TRUE(r.failure_messages.empty());
  EXPECT_EQ(r.log_lines, (Lines{"not here"}));
  ASSERT_EQ(r.blocks.size(), 1u);
  EXPECT_EQ(r.blocks[0].kind, BlockKind::kSkip);
}

TEST(RunReport, LogLinesOfABenchmarkThatRan) {
  const RunReport r = run_once([](B& b) {
    b.log("a note");
    for (auto _ : b.loop()) {
    }
  });
  EXPECT_FALSE(r.failed);
  EXPECT_FALSE(r.skipped);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.log_lines, (Lines{"a note"}));
  ASSERT_EQ(r.blocks.size(), 1u);
  EXPECT_EQ(r.blocks[0].kind, BlockKind::kBench);
}

TEST(RunReport, AFailedSubBenchmarkFailsTheRun) {
  const RunReport r = run_once([](B& b) {
    b.run("ok", [](B& sub) {
      for (auto _ : sub.loop()) {
      }
    });
    b.run("bad", [](B& sub) { sub.fatal("sub failed"); });
  });
  EXPECT_TRUE(r.failed);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].name, "BenchmarkX/ok");
  EXPECT_EQ(r.failure_messages, (Lines{"sub failed"}));
  ASSERT_EQ(r.blocks.size(), 2u);
  EXPECT_EQ(r.blocks[0].name, "BenchmarkX/bad");
  EXPECT_EQ(r.blocks[1].name, "BenchmarkX");
}

TEST(MessageBlocks, WriterAndReaderRoundTrip) {
  const std::vector<MessageBlock> blocks = {
      {BlockKind::kFail, "BenchmarkA-2", {"a_test.go:3: x", "y"}},
      {BlockKind::kSkip, "BenchmarkB", {}},
      {BlockKind::kBench, "BenchmarkC/n=1", {"  indented"}}};
  std::string text = "goos: linux\n";
  for (const auto& b : blocks) text += benchfmt::format_message_block(b);
  text += "FAIL\n";
  EXPECT_EQ(benchfmt::format_message_block(blocks[0]),
            "--- FAIL: BenchmarkA-2\n    a_test.go:3: x\n    y\n");
  const auto read = benchfmt::read_message_blocks(text);
  ASSERT_EQ(read.size(), 3u);
  for (std::size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(read[i].kind, blocks[i].kind) << i;
    EXPECT_EQ(read[i].name, blocks[i].name) << i;
    EXPECT_EQ(read[i].lines, blocks[i].lines) << i;
  }
}

TEST(MessageBlocks, GoTestLinesAndWhatIsNotABlock) {
  const auto read = benchfmt::read_message_blocks(
      "=== RUN   TestA\n"
      "    a_test.go:1: before the block, not in it\n"
      "--- PASS: TestA (0.01s)\n"
      "    --- SKIP: TestA/sub (0.00s)\n"
      "        why\n"
      "--- FAILED: TestB\n"
      "    not a block's\n"
      "BenchmarkC-2 \t--- FAIL: BenchmarkC-2\n"
      "    c_test.go:9: failed while measured\n"
      "--- SKIP: TestD");
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read[0].kind, BlockKind::kPass);
  EXPECT_EQ(read[0].name, "TestA");
  EXPECT_EQ(read[0].lines, (Lines{"--- SKIP: TestA/sub (0.00s)", "    why"}));
  EXPECT_EQ(read[1].kind, BlockKind::kFail);
  EXPECT_EQ(read[1].name, "BenchmarkC-2");
  EXPECT_EQ(read[1].lines, (Lines{"c_test.go:9: failed while measured"}));
  EXPECT_EQ(read[2].kind, BlockKind::kSkip);
  EXPECT_EQ(read[2].name, "TestD");
  EXPECT_TRUE(read[2].lines.empty());
}

}  // namespace
}  // namespace zerolab
