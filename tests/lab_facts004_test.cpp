// Seed 004's lab facts decide from what they observe (facts004.hpp), and a
// Go peer's test decides a Go-side fact (go_test_fact.hpp): every fact is
// shown holding on the seed's observations and failing on a stand-in that
// makes its checked condition false.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lab/experiments/facts004.hpp"
#include "lab/experiments/merge_profile.hpp"
#include "lab/framework/go_test_fact.hpp"

namespace zerolab::lab {
namespace {

TEST(Facts004, StackFrameNeedsTheSameFrameAndItsOldBytes) {
  std::vector<unsigned char> aa(64, 0xAA);
  EXPECT_TRUE(facts004::stack_frame_shows_old_bytes(true, aa.data(), aa.size()).holds);
  EXPECT_FALSE(facts004::stack_frame_shows_old_bytes(false, aa.data(), aa.size()).holds);
  std::vector<unsigned char> zero(64, 0);
  const FactResult r = facts004::stack_frame_shows_old_bytes(true, zero.data(), zero.size());
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.observed, "same frame; the unwritten array holds 00 00 00 00 00 00 00 00 ...");
}

TEST(Facts004, FreedBlockNeedsItsOldBytes) {
  std::vector<unsigned char> bb(48, 0xBB);
  EXPECT_TRUE(facts004::freed_block_keeps_old_bytes(true, bb.data(), bb.size()).holds);
  EXPECT_FALSE(facts004::freed_block_keeps_old_bytes(false, bb.data(), bb.size()).holds);
  bb[47] = 0;
  EXPECT_FALSE(facts004::freed_block_keeps_old_bytes(true, bb.data(), bb.size()).holds);
}

TEST(Facts004, LargeBlockMustBeAllZero) {
  facts004::LargeBlock b;
  b.ok = true;
  b.mmapped = true;
  EXPECT_TRUE(facts004::large_block_is_zero(b, "malloc(10 MiB)").holds);
  EXPECT_EQ(facts004::large_block_is_zero(b, "malloc(10 MiB)").observed,
            "malloc(10 MiB): zero, from mmap");
  b.mmapped = false;
  b.nonzero = 3;
  b.first_nonzero = 4096;
  const FactResult r = facts004::large_block_is_zero(b, "again");
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.observed,
            "again: 3 non-zero bytes (first at offset 4096), from the heap (brk): the heap top "
            "had been used by this process's earlier small allocations");
  b.ok = false;
  EXPECT_FALSE(facts004::large_block_is_zero(b, "x").holds);
}

std::string heap_line(const std::string& label, const std::string& address, int mmapped,
                      int nonzero, const std::string& byte) {
  std::string l = label + " " + address + " " + std::to_string(mmapped) + " " +
                  std::to_string(nonzero) + " " + (nonzero > 0 ? "16" : "0");
  for (int i = 0; i < 48; ++i) l += " " + byte;
  return l + "\n";
}

TEST(Facts004, ParseHeapDirtyAndItsFacts) {
  const std::string seed_like = heap_line("small-first", "0x10", 0, 0, "00") +
                                heap_line("small-after-free", "0x10", 0, 48, "BB") +
                                heap_line("large-first", "0x7f00", 1, 0, "00") +
                                heap_line("large-after-free", "0x20", 0, 0, "00");
  facts004::HeapDirty h;
  std::string error;
  ASSERT_TRUE(facts004::parse_heap_dirty(seed_like, h, error)) << error;
  EXPECT_EQ(h.small_after_free.bytes_16_63, std::vector<unsigned char>(48, 0xBB));
  EXPECT_TRUE(h.large_first.block.mmapped);
  EXPECT_FALSE(h.large_after_free.block.mmapped);
  EXPECT_TRUE(facts004::large_block_is_zero(h.large_after_free.block, "x").holds);
  // Stand-in: the second large block came back dirty.
  const std::string dirty = heap_line("small-first", "0x10", 0, 0, "00") +
                            heap_line("small-after-free", "0x10", 0, 48, "BB") +
                            heap_line("large-first", "0x7f00", 1, 0, "00") +
                            heap_line("large-after-free", "0x20", 0, 1498, "CC");
  ASSERT_TRUE(facts004::parse_heap_dirty(dirty, h, error)) << error;
  EXPECT_FALSE(facts004::large_block_is_zero(h.large_after_free.block, "x").holds);

  EXPECT_FALSE(facts004::parse_heap_dirty(heap_line("small-first", "0x10", 0, 0, "00"), h, error));
  EXPECT_EQ(error, "heap_dirty printed 1 lines, want 4");
  EXPECT_FALSE(facts004::parse_heap_dirty("small-first 0x10 2 0 0\n", h, error));
  EXPECT_EQ(error,
            "heap_dirty line 1: want \"small-first ADDRESS 0|1 NONZERO FIRST BYTES...\", got "
            "\"small-first 0x10 2 0 0\"");
  EXPECT_FALSE(facts004::parse_heap_dirty(heap_line("small-first", "0x10", 0, 0, "G0"), h, error));
  EXPECT_EQ(error, "heap_dirty line 1: byte \"G0\" is not hex");
}

// One line of lab/probes/dirty_stack: label, address, 64 copies of `byte`.
std::string stack_line(const std::string& label, const std::string& byte) {
  std::string line = label + " 0x7ffc10";
  for (int i = 0; i < 64; ++i) line += " " + byte;
  return line + "\n";
}

TEST(Facts004, ParseDirtyStackAndItsFact) {
  facts004::DirtyStack d;
  std::string error;
  // The seed's run: zeros first, the fill's 0xAA after.
  ASSERT_TRUE(facts004::parse_dirty_stack(
      stack_line("first", "00") + stack_line("after-fill", "AA"), d, error))
      << error;
  EXPECT_EQ(d.first, std::vector<unsigned char>(64, 0));
  EXPECT_EQ(d.after, std::vector<unsigned char>(64, 0xAA));
  const FactResult zero = facts004::unwritten_stack_is_zero(d);
  EXPECT_TRUE(zero.holds);
  EXPECT_EQ(zero.observed,
            "the first call's unwritten 64-byte array: all zero; after the 0xAA call the same "
            "frame (same address) holds AA AA AA AA ...");
  // Stand-in: the first frame already held another call's bytes.
  std::string dirty = stack_line("first", "00");
  dirty.replace(dirty.size() - 3, 2, "5A");
  ASSERT_TRUE(facts004::parse_dirty_stack(dirty + stack_line("after-fill", "AA"), d, error))
      << error;
  const FactResult not_zero = facts004::unwritten_stack_is_zero(d);
  EXPECT_FALSE(not_zero.holds);
  EXPECT_NE(not_zero.observed.find("1 non-zero bytes"), std::string::npos) << not_zero.observed;

  EXPECT_FALSE(facts004::parse_dirty_stack(stack_line("first", "00"), d, error));
  EXPECT_EQ(error, "dirty_stack printed 1 lines, want 2");
  EXPECT_FALSE(facts004::parse_dirty_stack("first 0x1 00\nafter-fill 0x1 00\n", d, error));
  EXPECT_EQ(error, "dirty_stack line 1: 1 bytes, want 64");
  EXPECT_FALSE(facts004::parse_dirty_stack("leak 0x1 00\n", d, error));
  EXPECT_EQ(error,
            "dirty_stack line 1: want \"first 0x<address> <64 bytes>\", got \"leak 0x1 00\"");
  EXPECT_FALSE(facts004::parse_dirty_stack(stack_line("first", "G0"), d, error));
  EXPECT_EQ(error, "dirty_stack line 1: \"G0\" is not a byte");
}

TEST(Facts004, AnonymousMmapSeen) {
  // The seed's strace of heap_dirty: the 10 MiB block's mmap.
  const std::string seed =
      "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f009b000000\n"
      "mmap(NULL, 10489856, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = "
      "0x7f009a3ff000\n";
  const FactResult seen = facts004::anonymous_mmap_seen(seed, 10u << 20);
  EXPECT_TRUE(seen.holds);
  EXPECT_EQ(seen.observed,
            "2 anonymous private read-write mmaps; mmap(NULL, 10489856, PROT_READ|PROT_WRITE, "
            "MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f009a3ff000");
  // Stand-ins: only small ones; a large one that is file-backed; one that failed.
  EXPECT_FALSE(facts004::anonymous_mmap_seen(seed.substr(0, seed.find('\n') + 1), 10u << 20).holds);
  EXPECT_FALSE(
      facts004::anonymous_mmap_seen(
          "mmap(NULL, 10489856, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f009a3ff000\n", 10u << 20)
          .holds);
  const FactResult failed = facts004::anonymous_mmap_seen(
      "mmap(NULL, 10489856, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = -1 "
      "ENOMEM\n",
      10u << 20);
  EXPECT_FALSE(failed.holds);
  EXPECT_EQ(failed.observed,
            "0 anonymous private read-write mmaps, none of at least 10485760 bytes");
}

// Seed 000's profile fact (merge_profile.hpp) reads the Go peer's log line.
TEST(MergeProfile, ParseAndJudge) {
  const std::string seed_like =
      "=== RUN   TestProfileShowsMemclr\n    profile_test.go:98: memclr-share zero=44.62 "
      "nozero=0.00 zero-samples=1.30s nozero-samples=1.01s nozero-callers=none\n--- PASS\n";
  MemclrProfile p;
  std::string error;
  ASSERT_TRUE(parse_memclr_profile(seed_like, p, error)) << error;
  const FactResult holds = judge_memclr_profile(p);
  EXPECT_TRUE(holds.holds);
  EXPECT_EQ(holds.observed,
            "memclrNoHeapPointers: 44.62% of plain make's samples (1.30s), 0.00% of the "
            "modified make's (1.01s)");
  // Stand-ins: the function in the no-zero graph (as Go 1.19's heap bitmap puts it), and
  // plain make's share not significant.
  p.nozero_percent = 1.98;
  p.nozero_callers = "runtime.heapBits.initSpan";
  const FactResult in_graph = judge_memclr_profile(p);
  EXPECT_FALSE(in_graph.holds);
  EXPECT_EQ(in_graph.observed,
            "memclrNoHeapPointers: 44.62% of plain make's samples (1.30s), 1.98% of the "
            "modified make's (1.01s), called there by runtime.heapBits.initSpan");
  p.nozero_percent = 0;
  p.zero_percent = 9.99;
  EXPECT_FALSE(judge_memclr_profile(p).holds);

  EXPECT_FALSE(parse_memclr_profile("--- PASS: TestProfileShowsMemclr\n", p, error));
  EXPECT_EQ(error, "TestProfileShowsMemclr logged no memclr-share line");
  EXPECT_FALSE(parse_memclr_profile("memclr-share zero=abc nozero=1\n", p, error));
  EXPECT_EQ(error, "memclr-share: zero=abc is not a percentage");
  EXPECT_FALSE(parse_memclr_profile("memclr-share zero=1 nozero=1\n", p, error));
  EXPECT_EQ(error,
            "memclr-share: want zero, nozero, zero-samples, nozero-samples and nozero-callers");
}

// The seed's own programs: bin_empty 1575671, bin_zeroed 1575792 (+121),
// bin_static 5770096; MemSiz 0x40272e0 vs FileSiz 0x3b20.
facts004::BssProbes seed_probes() {
  facts004::BssProbes p;
  p.empty = 1575671;
  p.zeroed = 1575792;
  p.with_static = 5770096;
  p.zeroed_rw_filesz = 0x3b20;
  p.zeroed_rw_memsz = 0x40272e0;
  return p;
}

TEST(Facts004, ZerosCostNoFile) {
  EXPECT_TRUE(facts004::zeros_cost_no_file(seed_probes()).holds);
  EXPECT_EQ(facts004::zeros_cost_no_file(seed_probes()).observed,
            "a 64 MiB zeroed static: 121 bytes more file than the empty program; its RW segment "
            "asks for 64 MiB more in memory than in the file");
  facts004::BssProbes in_file = seed_probes();  // the zeros stored in the file
  in_file.zeroed = in_file.empty + (64 << 20);
  EXPECT_FALSE(facts004::zeros_cost_no_file(in_file).holds);
  facts004::BssProbes not_promised = seed_probes();  // no 64 MiB tail in memory
  not_promised.zeroed_rw_memsz = not_promised.zeroed_rw_filesz + 4096;
  EXPECT_FALSE(facts004::zeros_cost_no_file(not_promised).holds);
}

TEST(Facts004, NonZeroStaticCostsItsSizeInTheFile) {
  EXPECT_TRUE(facts004::nonzero_static_costs_file(seed_probes()).holds);
  facts004::BssProbes small = seed_probes();  // a static that did not reach the file
  small.with_static = small.empty + 1000;
  const FactResult r = facts004::nonzero_static_costs_file(small);
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.observed, "a 4 MiB static {1, 2, 3}: 0.00 MiB more file than the empty program");
}

TEST(Facts004, ClassifyZeroing) {
  EXPECT_EQ(facts004::classify_zeroing("  movups %xmm0,(%rsp)\n  movups %xmm0,0x10(%rsp)\n"),
            "2 vector stores");
  EXPECT_EQ(facts004::classify_zeroing("  movdqu 0x10(%rdi),%xmm0\n"), "no zeroing seen")
      << "a vector load is not a store";
  EXPECT_EQ(facts004::classify_zeroing("  rep stos %rax,%es:(%rdi)\n"), "rep stos");
  EXPECT_EQ(facts004::classify_zeroing("  call   1040 <memset@plt>\n"), "memset call");
  EXPECT_EQ(facts004::classify_zeroing("  movq   $0x0,0x8(%rsp)\n"), "1 movq $0 stores");
  EXPECT_EQ(facts004::classify_zeroing("  ret\n"), "no zeroing seen");
}

TEST(Facts004, FrameZeroingPattern) {
  EXPECT_TRUE(facts004::frame_zeroing_pattern("4 vector stores", "rep stos", "rep stos").holds);
  EXPECT_TRUE(
      facts004::frame_zeroing_pattern("4 vector stores", "64 vector stores", "memset call").holds);
  // Stand-ins: the small frame by a call, the large one by stores.
  EXPECT_FALSE(facts004::frame_zeroing_pattern("memset call", "rep stos", "rep stos").holds);
  EXPECT_FALSE(
      facts004::frame_zeroing_pattern("4 vector stores", "rep stos", "512 vector stores").holds);
  EXPECT_EQ(facts004::frame_zeroing_pattern("a", "b", "c").observed,
            "g++: 64 B a, 1 KiB b, 8 KiB c");
}

TEST(Facts004, FreshAllocationsMustBe28TimesCheaperThanSteady) {
  const std::vector<double> seed = {0.8e6, 1.6e6, 217.4e6, 47.7e6, 46.1e6, 45.6e6, 47.0e6};
  const FactResult r = facts004::fresh_allocations_are_free(seed, 1280, 512);
  EXPECT_TRUE(r.holds);
  EXPECT_EQ(r.observed,
            "ms per step: 0.800 1.6 217.4 47.7 46.1 45.6 47.0; zeroed 1280 MiB, skipped 512 MiB");
  std::vector<double> slow_fresh = seed;  // the second allocation paid for zeroing
  slow_fresh[1] = 45e6;
  EXPECT_FALSE(facts004::fresh_allocations_are_free(slow_fresh, 0, 0).holds);
  EXPECT_FALSE(facts004::fresh_allocations_are_free({1, 2, 3}, 0, 0).holds);
}

TEST(GoTestFact, PassFailSkipAndMissing) {
  const std::string pass =
      "=== RUN   TestBSS\n    bss_test.go:78: file sizes: empty 1, zeroed 2\n--- PASS: TestBSS "
      "(2.04s)\nPASS\n";
  FactResult r = go_test_result(0, pass, "TestBSS");
  EXPECT_TRUE(r.holds);
  EXPECT_EQ(r.observed, "file sizes: empty 1, zeroed 2");
  const std::string fail =
      "=== RUN   TestBSS\n    bss_test.go:80: 64 MiB of zeros cost 9 bytes\n--- FAIL: TestBSS "
      "(2.04s)\nFAIL\n";
  r = go_test_result(1, fail, "TestBSS");
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.observed, "TestBSS failed: 64 MiB of zeros cost 9 bytes");
  r = go_test_result(
      0, "=== RUN   TestBSS\n    x_test.go:1: no go\n--- SKIP: TestBSS (0.00s)\nPASS\n", "TestBSS");
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.observed, "TestBSS was skipped: no go");
  r = go_test_result(0, "testing: warning: no tests to run\nPASS\n", "TestBSS");
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.observed, "no TestBSS ran (exit status 0)");
  r = go_test_result(0, "--- PASS: TestBSSX (0.00s)\n", "TestBSS");
  EXPECT_FALSE(r.holds) << "another test's PASS line";
}

// A stand-in Go peer: a script printing Go test output, run as the binary.
TEST(GoTestFact, RunsThePeerBinaryWithItsTestSelected) {
  char dir[] = "/tmp/zerolab-gotestfact-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string script = std::string(dir) + "/peer.test";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\n"
           "if [ \"$1\" = '-test.run=^TestZeroingInstructions$' ] && [ \"$2\" = -test.v ]; then\n"
           "  echo '=== RUN   TestZeroingInstructions'\n"
           "  echo '    stackzero_test.go:88: buf64: four MOVUPS X15 stores'\n"
           "  echo '--- PASS: TestZeroingInstructions (0.10s)'\n"
           "  exit 0\n"
           "fi\n"
           "echo \"--- FAIL: $1\"; exit 1\n";
  }
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  GoPeerBinary peer{script, "/usr/lib/go-1.19/bin/go"};
  FactResult r = go_test_fact(peer, "TestZeroingInstructions");
  EXPECT_TRUE(r.holds);
  EXPECT_EQ(r.observed, "buf64: four MOVUPS X15 stores");
  r = go_test_fact(peer, "TestOther");
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.observed, "no TestOther ran (exit status 1)");
  EXPECT_THROW(go_test_fact(GoPeerBinary{std::string(dir) + "/missing", "go"}, "TestX"),
               std::runtime_error);
  std::remove(script.c_str());
  rmdir(dir);
}

// The seed's objdump count: "2 <calloc@plt>" (the PLT entry and the call).
TEST(Facts004, CallocFoldAndItsBarrier) {
  const std::string folded =
      "0000000000001030 <calloc@plt>:\n"
      "    1030:\tjmp    *0x2fca(%rip)\n"
      "0000000000001060 <main>:\n"
      "    1064:\tcall   1030 <calloc@plt>\n";
  const facts004::PltCalls f = facts004::count_plt_calls(folded);
  EXPECT_EQ(f.describe(), "0 malloc, 2 calloc, 0 memset");
  EXPECT_TRUE(facts004::malloc_memset_became_calloc(f).holds);
  EXPECT_FALSE(facts004::barrier_keeps_malloc_memset(f).holds);

  const std::string kept =
      "0000000000001030 <malloc@plt>:\n"
      "0000000000001040 <memset@plt>:\n"
      "    1064:\tcall   1030 <malloc@plt>\n"
      "    1070:\tcall   1040 <memset@plt>\n";
  const facts004::PltCalls k = facts004::count_plt_calls(kept);
  EXPECT_EQ(k.describe(), "2 malloc, 0 calloc, 2 memset");
  EXPECT_FALSE(facts004::malloc_memset_became_calloc(k).holds);
  EXPECT_TRUE(facts004::barrier_keeps_malloc_memset(k).holds);
  const FactResult r = facts004::malloc_memset_became_calloc(k);
  EXPECT_EQ(r.observed,
            "gcc -O2 of malloc + memset(0): 2 malloc, 0 calloc, 2 memset through the PLT");

  // calloc beside a surviving memset is no fold; nothing at all is neither.
  facts004::PltCalls both = f;
  both.memset = 2;
  EXPECT_FALSE(facts004::malloc_memset_became_calloc(both).holds);
  EXPECT_FALSE(facts004::malloc_memset_became_calloc(facts004::PltCalls{}).holds);
  EXPECT_FALSE(facts004::barrier_keeps_malloc_memset(facts004::PltCalls{}).holds);
}

}  // namespace
}  // namespace zerolab::lab
