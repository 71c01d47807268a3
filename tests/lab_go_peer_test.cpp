// Tests of the lab's Go peers (lab/go_peer.hpp, lab_run.cpp) with a
// stand-in Go toolchain: a shell script `go` whose `go test -c` writes a
// stand-in test binary that prints known Go-format lines (values that
// change from round to round by a known step) and logs how it was called.
// Checked: the build is done once and cached by source hash; the rounds
// interleave (C++ A, C++ B, Go) with the Go flags the lab promises; the
// output is parsed (names without -N, units as printed, --- FAIL blocks);
// both verdicts and every column of the claims table are exact; --go=off
// and a missing go leave the Go column "not run" with the reason. And the
// catalog's own Go peers (GoPeerSpec is positional: a swapped name and
// benchtime would only fail in a full lab run with Go): each names a peer
// directory with tests, a benchtime Go accepts, and a -test.bench pattern
// whose first level matches one of the peer's benchmarks.
//
// Example:
//   ctest --preset release -R LabGoPeer
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <dirent.h>
#include "lab/experiments/catalog.hpp"
#include "lab/framework/baseline.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/go_peer.hpp"
#include "lab/framework/lab_run.hpp"

#include <regex>

#include "bench/options.hpp"
#include "format/go_regex.hpp"
#include "lab_cli_util.hpp"
#include "lab_test_experiment.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::lab {
namespace {

using lab_test_util::exists;
using lab_test_util::read_file;

void write_file(const std::string& path, const std::string& text, bool executable = false) {
  std::ofstream(path) << text;
  if (executable) ::chmod(path.c_str(), 0755);
}

// The stand-in toolchain under dir: dir/bin/go, dir/peers/{stand-in,broken}.
// Every call of a stand-in binary appends "go <args>" to dir/log.
struct StandInGo {
  std::string dir = lab_test_util::temp_dir("zerolab_go_peer_test");
  std::string go = dir + "/bin/go";
  std::string peers = dir + "/peers";
  std::string cache = dir + "/cache";
  std::string log = dir + "/log";

  StandInGo() {
    ::mkdir((dir + "/bin").c_str(), 0755);
    ::mkdir(peers.c_str(), 0755);
    ::mkdir((peers + "/stand-in").c_str(), 0755);
    ::mkdir((peers + "/broken").c_str(), 0755);
    write_file(peers + "/stand-in/peer_test.go", "package standin\n");
    write_file(peers + "/broken/peer_test.go", "package broken\n");
    // The binary: round r (1, 2, ...) counted in <peer>/../../round.<peer>.
    const std::string binary =
        "#!/bin/sh\n"
        "peer=$(basename \"$PWD\")\n"
        "echo \"go $*\" >>" +
        log +
        "\n"
        "n=" +
        dir +
        "/round.$peer\n"
        "r=$(( $(cat $n 2>/dev/null || echo 0) + 1 )); echo $r >$n\n"
        "echo 'goos: linux'; echo 'goarch: amd64'; echo \"pkg: zerolab/peers/$peer\"\n"
        "if [ \"$peer\" = broken ]; then\n"
        "  printf 'BenchmarkOK-2   \\t     100\\t      %d ns/op\\n' $((500 + r))\n"
        "  echo '--- FAIL: BenchmarkBroken-2'\n"
        "  echo '    peer_test.go:12: broken on purpose'\n"
        "  echo FAIL; exit 1\n"
        "fi\n"
        "printf 'BenchmarkSlow-2 \\t     100\\t      %d ns/op\\t      64 B/op\\t       1 "
        "allocs/op\\t 1.25 mallocs/op\\t 2 widgets/op\\n' "
        "$((2000 + 10 * r))\n"
        "printf 'BenchmarkFast-2 \\t     100\\t      %d ns/op\\t       0 B/op\\t       0 "
        "allocs/op\\t 1 widgets/op\\n' "
        "$((1000 + 5 * r))\n"
        "printf 'BenchmarkSame-2 \\t     100\\t      %d ns/op\\t       0 B/op\\t       0 "
        "allocs/op\\n' "
        "$((1000 + 5 * r))\n"
        "echo PASS\n";
    write_file(dir + "/binary.sh", binary);
    write_file(go,
               "#!/bin/sh\n"
               "case \"$1\" in\n"
               "version) echo 'go version go1.19.8 linux/amd64' ;;\n"
               "env) echo " +
                   dir +
                   "/gocache ;;\n"
                   "test) echo build >>" +
                   dir + "/builds; cp " + dir +
                   "/binary.sh \"$4\"; chmod +x \"$4\" ;;\n"
                   "*) exit 2 ;;\n"
                   "esac\n",
               true);
  }

  int builds() const {
    const std::string text = read_file(dir + "/builds");
    int n = 0;
    for (const char c : text) n += c == '\n' ? 1 : 0;
    return n;
  }
};

// C++ benchmarks with exact values: widgets/op 2 and 1; each run logs its
// name once to `log` (the stand-in Go binary logs into the same file).
std::string* cpp_log = nullptr;
void log_once(const char* name) {
  const std::string line = std::string("cpp ") + name + "\n";
  const std::string text = read_file(*cpp_log);
  if (text.size() >= line.size() &&
      text.compare(text.size() - line.size(), line.size(), line) == 0) {
    return;  // a calibration call of the same run
  }
  std::ofstream(*cpp_log, std::ios::app) << line;
}
void cpp_slow(B& b) {
  log_once("Slow");
  for (auto _ : b.loop()) {
  }
  b.report_metric(2, "widgets/op");
}
void cpp_fast(B& b) {
  log_once("Fast");
  for (auto _ : b.loop()) {
  }
  b.report_metric(1, "widgets/op");
}

Experiment stand_in_experiment() {
  Experiment e = lab_test_util::experiment("stand-in", "a stand-in Go peer");
  e.go_peer = "stand-in";
  e.benchmarks = {{"BenchmarkCppSlow", &cpp_slow}, {"BenchmarkCppFast", &cpp_fast}};
  e.claims = {
      Claim::about({"slow is about 2x fast", "Results", "2.0x"}, 2.0, "BenchmarkCppSlow",
                   "BenchmarkCppFast")
          .in("widgets/op")
          .go_names("BenchmarkSlow", "BenchmarkFast")
          .go_unit("ns/op"),
      Claim::no_change({"same is no change", "Results", "±1%"}, 0.05, "BenchmarkCppSlow",
                       "BenchmarkCppFast")
          .in("widgets/op")
          .go_names("BenchmarkSame", "BenchmarkFast")
          .go_unit("ns/op"),
      Claim::within({"slow allocates once", "Results", "1 allocs/op"}, "BenchmarkCppFast",
                    "widgets/op", 0.5, 1.5)
          .go_bench("BenchmarkSlow")
          .go_unit(kAllocsPerOp),
      Claim::fact_check({"the binary is there", "Results", ""},
                        [] {
                          return FactResult{false, "no binary on the C++ side"};
                        })
          .go_fact([](const GoPeerBinary& p) {
            return FactResult{exists(p.path), "binary " + p.path.substr(p.path.rfind('/') + 1, 8)};
          }),
      Claim::is_faster({"arenas are faster", "Arenas", "1.1x"}, "BenchmarkCppSlow",
                       "BenchmarkCppFast")
          .in("widgets/op")
          .go_not_comparable("Go 1.19 has no arenas"),
      Claim::is_faster({"the project's own", "", ""}, "BenchmarkCppSlow", "BenchmarkCppFast")
          .in("widgets/op")
          .go_names("BenchmarkSlow", "BenchmarkFast")
          .project(),
  };
  return e;
}

Experiment broken_experiment() {
  Experiment e = lab_test_util::experiment("broken", "a Go peer with a failing benchmark");
  e.go_peer = "broken";
  e.benchmarks = {{"BenchmarkCppFast", &cpp_fast}};
  e.claims = {Claim::is_faster({"broken is faster", "", ""}, "BenchmarkCppFast", "BenchmarkCppFast")
                  .in("widgets/op")
                  .go_names("BenchmarkBroken", "BenchmarkOK")};
  return e;
}

struct LabRun {
  int code = -1;
  std::string out;
  std::string err;
  std::string dir;
};

LabRun run(const StandInGo& g, std::vector<const Experiment*> experiments, bool go_on = true,
           const std::string& go_command = "",
           const std::function<void(LabSettings&)>& tweak = nullptr) {
  LabRun r;
  r.dir = lab_test_util::temp_dir("zerolab_go_peer_out");
  LabSettings s;
  s.experiments = std::move(experiments);
  s.count = 6;
  s.benchtime = std::chrono::milliseconds(1);
  s.benchtime_text = "1ms";
  s.out_dir = r.dir;
  s.command = "test";
  s.go = go_on;
  s.go_command = go_command.empty() ? g.go : go_command;
  s.go_peers_dir = g.peers;
  s.go_cache_dir = g.cache;
  if (tweak) tweak(s);
  r.dir = s.out_dir;
  std::FILE* out = std::fopen((r.dir + "/stdout").c_str(), "w");
  std::FILE* err = std::fopen((r.dir + "/stderr").c_str(), "w");
  r.code = run_lab(s, out, err);
  std::fclose(out);
  std::fclose(err);
  r.out = read_file(r.dir + "/stdout");
  r.err = read_file(r.dir + "/stderr");
  return r;
}

// The claims table's row that starts with `claim`.
std::string row_of(const std::string& text, const std::string& claim) {
  const auto at = text.find("\n  " + claim);
  if (at == std::string::npos) return "";
  return text.substr(at + 3, text.find('\n', at + 1) - at - 3);
}

// Splits a text-table row on runs of two or more spaces.
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < row.size()) {
    std::size_t end = row.find("  ", pos);
    if (end == std::string::npos) end = row.size();
    out.push_back(row.substr(pos, end - pos));
    pos = row.find_first_not_of(' ', end);
    if (pos == std::string::npos) break;
  }
  return out;
}

TEST(LabGoPeer, BuildsOnceRunsInterleavedAndJudgesBothSides) {
  StandInGo g;
  std::string log_path = g.log;
  cpp_log = &log_path;
  const Experiment e = stand_in_experiment();
  const LabRun r = run(g, {&e});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(g.builds(), 1);

  // Six rounds: C++ Slow, C++ Fast, then the Go peer with the lab's flags.
  std::string expected_log;
  for (int i = 0; i < 6; ++i) {
    expected_log +=
        "cpp Slow\ncpp Fast\n"
        "go -test.run=^$ -test.bench=. -test.benchtime=1ms -test.count=1 -test.benchmem\n";
  }
  EXPECT_EQ(read_file(g.log), expected_log);

  // The columns, exactly.
  EXPECT_EQ(cells(row_of(r.out, "claim")),
            (std::vector<std::string>{"claim", "seed", "Go here", "C++ here", "verdict (Go here)",
                                      "verdict (C++)"}));
  EXPECT_EQ(cells(row_of(r.out, "slow is about 2x fast")),
            (std::vector<std::string>{
                "slow is about 2x fast", "2.0x", "2.00x [1.97, 2.03] (2.04µs vs 1.02µs)",
                "2.00x [2.00, 2.00] (2.00 widgets/op vs 1.00 widgets/op)",
                "replicates; size as the seed's 2.00x (band [1.60, 2.50] n=6)",
                "replicates; size as the seed's 2.00x (band [1.60, 2.50] n=6)"}));
  EXPECT_EQ(
      cells(row_of(r.out, "same is no change")),
      (std::vector<std::string>{"same is no change", "±1%", "1.00x [0.99, 1.01] (1.02µs vs 1.02µs)",
                                "2.00x [2.00, 2.00] (2.00 widgets/op vs 1.00 widgets/op)",
                                "replicates (within ±5.00% at 90% n=6)",
                                "contradicts (within ±5.00% at 90% n=6)"}));
  EXPECT_EQ(cells(row_of(r.out, "slow allocates once")),
            (std::vector<std::string>{
                "slow allocates once", "1 allocs/op", "1.25 widgets/op [1.25, 1.25]",
                "1.00 widgets/op [1.00, 1.00]", "replicates (limit [0.500, 1.50] widgets/op n=6)",
                "replicates (limit [0.500, 1.50] widgets/op n=6)"}));
  const std::vector<std::string> fact = cells(row_of(r.out, "the binary is there"));
  ASSERT_EQ(fact.size(), 6u) << r.out;
  EXPECT_EQ(fact[1], "—");
  EXPECT_EQ(fact[2], "binary stand-in");
  EXPECT_EQ(fact[3], "no binary on the C++ side");
  EXPECT_EQ(fact[4], "holds");
  EXPECT_EQ(fact[5], "does not hold");
  EXPECT_EQ(
      cells(row_of(r.out, "arenas are faster")),
      (std::vector<std::string>{"arenas are faster", "1.1x", "—",
                                "2.00x [2.00, 2.00] (2.00 widgets/op vs 1.00 widgets/op)",
                                "not comparable (Go 1.19 has no arenas)",
                                "replicates; size larger than the seed's 1.10x (p=0.002 n=6)"}));
  EXPECT_EQ(cells(row_of(r.out, "[project's own] the project's own")),
            (std::vector<std::string>{"[project's own] the project's own", "—",
                                      "2.00x [2.00, 2.00] (2.00 widgets/op vs 1.00 widgets/op)",
                                      "2.00x [2.00, 2.00] (2.00 widgets/op vs 1.00 widgets/op)",
                                      "replicates (p=0.002 n=6)", "replicates (p=0.002 n=6)"}));
  // Both sides counted; the project's claim apart.
  EXPECT_NE(r.out.find("5 seed claims — Go here: 3 replicate, 0 contradict, 0 inconclusive; facts: "
                       "1 hold, 0 do not hold; 1 not comparable; size against the seed's figure: 0 "
                       "larger, 1 as the seed, 0 smaller, 0 unclear — C++: 3 replicate, 1 "
                       "contradict, 0 inconclusive; facts: 0 hold, 1 do not hold; size against the "
                       "seed's figure: 1 larger, 1 as the seed, 0 smaller, 0 unclear\n"
                       "1 project claims (counted apart) — Go here: 1 replicate, 0 contradict, "
                       "0 inconclusive; facts: 0 hold, 0 do not hold — C++: 1 replicate"),
            std::string::npos)
      << r.out;

  // report.md carries both columns; the Go results are kept, readable.
  const std::string md = read_file(r.dir + "/report.md");
  EXPECT_NE(md.find("| claim | seed | Go here | C++ here | verdict (Go here) | verdict (C++) |"),
            std::string::npos);
  EXPECT_NE(md.find("| slow is about 2x fast (§ Results) | 2.0x | 2.00x [1.97, 2.03] (2.04µs vs "
                    "1.02µs) |"),
            std::string::npos)
      << md;
  // The medians table pairs each C++ benchmark with its Go one (no ns/op
  // on the C++ side here: the stand-in's C++ benchmarks report 0 ns/op
  // only when hidden, so the cell is a ratio or empty — the column exists).
  EXPECT_NE(md.find(" C++ / Go here (ns/op) |"), std::string::npos) << md;
  EXPECT_NE(md.find("Go here (`peers/go/stand-in`), medians:"), std::string::npos) << md;
  EXPECT_NE(md.find("| BenchmarkSame | 1.02µs ± "), std::string::npos) << md;
  const std::string html = read_file(r.dir + "/report.html");
  EXPECT_NE(html.find("<th>verdict (Go here)</th><th>verdict (C++)</th>"), std::string::npos);
  EXPECT_NE(html.find("Go here: BenchmarkSlow"), std::string::npos);  // the strip plot's Go rows
  const std::string raw = read_file(r.dir + "/stand-in.go.txt");
  stat::StringSource src(raw);
  stat::GoReader reader(src, "stand-in.go.txt");
  std::vector<std::string> names;
  while (reader.next()) {
    ASSERT_EQ(reader.kind(), stat::RecordKind::kResult) << reader.syntax_error().to_string();
    names.emplace_back(reader.result().result.name);
  }
  ASSERT_EQ(names.size(), 18u);
  EXPECT_EQ(names[0], "BenchmarkSlow");
  EXPECT_EQ(names[2], "BenchmarkSame");

  // A second run finds the binary in the cache: no build.
  const LabRun again = run(g, {&e});
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(g.builds(), 1);
  // A changed source is a new binary.
  write_file(g.peers + "/stand-in/peer_test.go", "package standin // changed\n");
  EXPECT_EQ(run(g, {&e}).code, 0);
  EXPECT_EQ(g.builds(), 2);
  cpp_log = nullptr;
}

TEST(LabGoPeer, FailingGoBenchmarkIsAnErrorOnTheGoSideOnly) {
  StandInGo g;
  std::string log_path = g.dir + "/cpp.log";
  cpp_log = &log_path;
  const Experiment e = broken_experiment();
  const LabRun r = run(g, {&e});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("  FAILED (Go here) BenchmarkBroken: peer_test.go:12: broken on purpose\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  FAILED (Go here) go peer: exit status 1: "), std::string::npos) << r.out;
  const std::vector<std::string> row = cells(row_of(r.out, "broken is faster"));
  ASSERT_EQ(row.size(), 6u) << r.out;
  EXPECT_EQ(row[2], "error: BenchmarkBroken: peer_test.go:12: broken on purpose");
  EXPECT_EQ(row[4], "error");
  EXPECT_EQ(row[5], "inconclusive (p=1.000 n=6)");
  cpp_log = nullptr;
}

TEST(LabGoPeer, GoOffOrMissingLeavesTheGoColumnNotRunAndTheRunGoesOn) {
  StandInGo g;
  std::string log_path = g.dir + "/cpp.log";
  cpp_log = &log_path;
  const Experiment e = stand_in_experiment();
  const LabRun off = run(g, {&e}, false);
  EXPECT_EQ(off.code, 0) << off.err;
  EXPECT_EQ(g.builds(), 0);
  EXPECT_FALSE(exists(g.log));
  EXPECT_NE(off.out.find("  Go peer not run: --go=off\n"), std::string::npos) << off.out;
  EXPECT_EQ(cells(row_of(off.out, "slow is about 2x fast"))[4], "not run (--go=off)");

  const LabRun missing = run(g, {&e}, true, "no-such-go-command");
  EXPECT_EQ(missing.code, 0) << missing.err;
  EXPECT_NE(missing.err.find(
                "zerolab lab: warning: no no-such-go-command on PATH: the Go peers do not run"),
            std::string::npos)
      << missing.err;
  EXPECT_EQ(cells(row_of(missing.out, "slow is about 2x fast"))[4],
            "not run (no no-such-go-command on PATH)");
  EXPECT_EQ(cells(row_of(missing.out, "slow is about 2x fast"))[5],
            "replicates; size as the seed's 2.00x (band [1.60, 2.50] n=6)");
  cpp_log = nullptr;
}

// A Go peer whose faithful regime exceeds the default budget: the default
// run leaves it out and says so (the row, the summary), never running it at
// a shorter benchtime; --full and the experiment named alone run it at its
// own benchtime.
TEST(LabGoPeer, TheBudgetLeavesAFaithfulPeerOutAndFullRunsIt) {
  StandInGo g;
  std::string log_path = g.dir + "/cpp.log";
  cpp_log = &log_path;
  Experiment e = stand_in_experiment();
  e.go_benchtime = "1s";
  e.go_full_seconds = 240;
  const LabRun by_default = run(g, {&e});
  EXPECT_EQ(by_default.code, 0) << by_default.err;
  EXPECT_FALSE(exists(g.log));  // the peer never ran
  EXPECT_EQ(g.builds(), 0);
  const std::string why =
      "not run within the budget: needs about 240 s; run `zerolab lab --full` or name the "
      "experiment (`zerolab lab stand-in`)";
  EXPECT_NE(by_default.out.find("  Go peer not run: " + why + "\n"), std::string::npos)
      << by_default.out;
  EXPECT_EQ(cells(row_of(by_default.out, "slow is about 2x fast"))[4], "not run (" + why + ")");
  EXPECT_NE(by_default.out.find("\nskipped within the default budget: stand-in (Go peer, about "
                                "240 s); `zerolab lab --full` runs them\nresults: "),
            std::string::npos)
      << by_default.out;

  const std::string faithful =
      "go -test.run=^$ -test.bench=. -test.benchtime=1s -test.count=1 -test.benchmem\n";
  const LabRun full = run(g, {&e}, true, "", [](LabSettings& s) { s.full = true; });
  EXPECT_EQ(full.code, 0) << full.err;
  std::string log = read_file(g.log);
  std::string six;
  for (int i = 0; i < 6; ++i) six += faithful;
  EXPECT_EQ(log, six);
  EXPECT_EQ(full.out.find("skipped within the default budget"), std::string::npos) << full.out;
  EXPECT_EQ(cells(row_of(full.out, "slow is about 2x fast"))[4],
            "replicates; size as the seed's 2.00x (band [1.60, 2.50] n=6)");

  ::unlink(g.log.c_str());
  const LabRun named = run(g, {&e}, true, "", [](LabSettings& s) { s.named = true; });
  EXPECT_EQ(named.code, 0) << named.err;
  EXPECT_EQ(read_file(g.log), six);
  // --quick's cap does not shorten it either.
  ::unlink(g.log.c_str());
  const LabRun quick = run(g, {&e}, true, "", [](LabSettings& s) {
    s.full = true;
    s.count = 1;
    s.benchtime = std::chrono::milliseconds(20);
    s.benchtime_text = "20ms";
  });
  EXPECT_EQ(quick.code, 0) << quick.err;
  EXPECT_EQ(read_file(g.log), faithful);
  cpp_log = nullptr;
}

// A C++ benchmark whose faithful run exceeds the default budget: the
// default run leaves it out (it never runs; its claim and the summary say
// so), --full and the experiment named alone run it.
TEST(LabGoPeer, TheBudgetLeavesALongCppBenchmarkOutAndFullRunsIt) {
  StandInGo g;
  std::string log_path = g.dir + "/cpp.log";
  cpp_log = &log_path;
  Experiment e = stand_in_experiment();
  e.benchmarks[0].full_seconds = 90;  // BenchmarkCppSlow
  const LabRun by_default = run(g, {&e}, false);
  EXPECT_EQ(by_default.code, 0) << by_default.err;
  EXPECT_EQ(read_file(log_path).find("cpp Slow"), std::string::npos);  // never ran
  EXPECT_NE(read_file(log_path).find("cpp Fast"), std::string::npos);
  const std::string why =
      "not run within the budget: needs about 90 s; run `zerolab lab --full` or name the "
      "experiment (`zerolab lab stand-in`)";
  EXPECT_EQ(cells(row_of(by_default.out, "slow is about 2x fast"))[5], "not run (" + why + ")");
  EXPECT_NE(by_default.out.find("\nskipped within the default budget: stand-in (1 C++ "
                                "benchmarks, about 90 s); `zerolab lab --full` runs them\n"),
            std::string::npos)
      << by_default.out;
  for (const auto& tweak :
       {std::function<void(LabSettings&)>([](LabSettings& s) { s.full = true; }),
        std::function<void(LabSettings&)>([](LabSettings& s) { s.named = true; })}) {
    ::unlink(log_path.c_str());
    const LabRun r = run(g, {&e}, false, "", tweak);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(read_file(log_path).find("cpp Slow"), std::string::npos);
    EXPECT_EQ(cells(row_of(r.out, "slow is about 2x fast"))[5],
              "replicates; size as the seed's 2.00x (band [1.60, 2.50] n=6)");
    EXPECT_EQ(r.out.find("skipped within the default budget"), std::string::npos) << r.out;
  }
  cpp_log = nullptr;
}

TEST(GoPeer, ReadsGoOutputWithoutProcsSuffixInPrintedUnits) {
  GoPeerRun run;
  read_go_output(
      "goos: linux\n"
      "BenchmarkFormatOID/Naive-2   \t 1000\t  699.4 ns/op\t 102 B/op\t 6 allocs/op\t 3.5 "
      "mallocs/op\n"
      "BenchmarkX/size=1MiB-16 \t 10\t 1.5e+06 ns/op\t 700.00 MB/s\n"
      "--- FAIL: BenchmarkY-2\n"
      "    y_test.go:3: first\n"
      "    y_test.go:4: second\n"
      "FAIL\n",
      run);
  ASSERT_EQ(run.results.size(), 2u);
  EXPECT_EQ(run.results[0].name, "BenchmarkFormatOID/Naive");
  EXPECT_EQ(run.results[0].iterations, 1000);
  ASSERT_EQ(run.results[0].metrics.size(), 4u);
  EXPECT_EQ(run.results[0].metrics[0].unit, "ns/op");
  EXPECT_DOUBLE_EQ(run.results[0].metrics[0].value, 699.4);
  EXPECT_EQ(run.results[0].metrics[3].unit, "mallocs/op");
  EXPECT_DOUBLE_EQ(run.results[0].metrics[3].value, 3.5);
  EXPECT_EQ(run.results[1].name, "BenchmarkX/size=1MiB");
  EXPECT_EQ(run.results[1].metrics[1].unit, "MB/s");
  EXPECT_DOUBLE_EQ(run.results[1].metrics[1].value, 700);
  EXPECT_EQ(
      run.failures,
      (std::vector<BenchmarkFailure>{{"BenchmarkY", "y_test.go:3: first; y_test.go:4: second"}}));
}

TEST(GoPeer, SourceHashFollowsNamesAndContents) {
  const std::string dir = lab_test_util::temp_dir("zerolab_go_hash");
  write_file(dir + "/a.go", "package a\n");
  const std::string h1 = source_hash(dir, "go1.19");
  EXPECT_EQ(h1.size(), 16u);
  EXPECT_EQ(source_hash(dir, "go1.19"), h1);
  EXPECT_NE(source_hash(dir, "go1.20"), h1);
  write_file(dir + "/a.go", "package b\n");
  EXPECT_NE(source_hash(dir, "go1.19"), h1);
  EXPECT_EQ(source_hash(dir + "/missing", "go1.19"), "");
}

TEST(GoPeer, BuildErrorsSayWhat) {
  StandInGo g;
  const GoToolchain go = find_go(g.go);
  EXPECT_EQ(go.version, "go version go1.19.8 linux/amd64");
  const GoPeerBuild missing = build_go_peer(go, g.peers, "nope", g.cache);
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(missing.error, "no Go peer directory " + g.peers + "/nope");
  EXPECT_EQ(find_go(g.dir + "/bin/absent").error, g.dir + "/bin/absent is not an executable file");
  write_file(
      g.go,
      "#!/bin/sh\n[ \"$1\" = version ] && { echo 'go version go1.19.8 linux/amd64'; exit 0; }\n"
      "echo './x_test.go:3:2: undefined: y' >&2; exit 1\n",
      true);
  const GoPeerBuild bad = build_go_peer(find_go(g.go), g.peers, "stand-in", g.cache);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.error, "go test -c in " + g.peers +
                           "/stand-in failed: exit status 1: ./x_test.go:3:2: undefined: y");
}

// --save keeps the Go peer's results beside the C++ ones and --baseline
// compares both: the stand-in's Go values step on from round to round, so a
// second run is ~3% slower in Go here; the gate finds the Go-here
// regressions (the C++ side's ns/op is not asserted: it is a timing). A run whose peer does not run
// leaves no stale <id>.go.txt behind and says the baseline has Go-here results it lacks.
TEST(LabGoPeer, BaselinesSaveAndCompareTheGoHereResults) {
  StandInGo g;
  std::string log_path = g.log;
  cpp_log = &log_path;
  const Experiment e = stand_in_experiment();
  const std::string baselines = lab_test_util::temp_dir("zerolab_go_baselines");
  const LabRun first = run(g, {&e}, true, "", [&](LabSettings& s) {
    s.save_dir = baselines;
    s.save_name = "before";
  });
  ASSERT_EQ(first.code, 0) << first.out << first.err;
  const std::string manifest = read_file(baselines + "/before/manifest");
  EXPECT_NE(manifest.find("\nexperiment: stand-in 12\n"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("\ngo: stand-in 18\n"), std::string::npos) << manifest;
  EXPECT_EQ(read_file(baselines + "/before/stand-in.go.txt"),
            read_file(first.dir + "/stand-in.go.txt"));

  Baseline b;
  std::string error;
  ASSERT_TRUE(load_baseline(baselines, "before", {"stand-in"}, b, error)) << error;
  ASSERT_EQ(b.files.size(), 1u);
  ASSERT_EQ(b.go_files.size(), 1u);
  EXPECT_EQ(b.go_files[0].path, baselines + "/before/stand-in.go.txt");
  EXPECT_EQ(b.go_files[0].results, 18u);

  // Rounds 7..12: every Go benchmark ~3% slower; C++ exactly the same.
  const LabRun second = run(g, {&e}, true, "", [&](LabSettings& s) {
    s.baseline = &b;
    s.fail_percent = 1;
  });
  EXPECT_EQ(second.code, 3) << second.out << second.err;
  EXPECT_NE(second.out.find("\nstand-in:\n"), std::string::npos) << second.out;
  EXPECT_NE(second.out.find("\nstand-in (Go here):\n"), std::string::npos) << second.out;
  for (const char* name : {"Slow", "Fast", "Same"}) {
    EXPECT_NE(second.err.find(std::string("zerolab lab: regression: stand-in (Go here): ") + name +
                              " sec/op +"),
              std::string::npos)
        << second.err;
  }
  const std::string report = read_file(second.dir + "/report.md");
  EXPECT_NE(report.find("### stand-in (Go here)"), std::string::npos) << report;

  // The same output directory, the peer off: its old .go.txt goes, and the
  // comparison says what it lacks.
  ASSERT_TRUE(exists(second.dir + "/stand-in.go.txt"));
  const LabRun off = run(g, {&e}, false, "", [&](LabSettings& s) {
    s.out_dir = second.dir;
    s.baseline = &b;
  });
  EXPECT_EQ(off.code, 0) << off.out << off.err;
  EXPECT_FALSE(exists(second.dir + "/stand-in.go.txt"));
  EXPECT_NE(off.err.find("zerolab lab: warning: experiment \"stand-in\": baseline before has "
                         "Go-here results, this run has none"),
            std::string::npos)
      << off.err;
}

// Item 2 of the lab's issue: the differences that remain are stated, one
// line each, for the C++ port and for the Go peer (or why there is none).
TEST(LabCatalog, EveryExperimentStatesItsDifferencesOneLineEach) {
  for (const Experiment& e : catalog()) {
    EXPECT_FALSE(e.differences.empty()) << e.id;
    EXPECT_FALSE(e.go_differences.empty()) << e.id;
    for (const auto* list : {&e.differences, &e.go_differences}) {
      for (const std::string& d : *list) {
        EXPECT_EQ(d.find('\n'), std::string::npos) << e.id << ": " << d;
        EXPECT_FALSE(d.empty()) << e.id;
        EXPECT_EQ(d.back(), '.') << e.id << ": a sentence, ending with a full stop: " << d;
      }
    }
  }
}

// The Benchmark (`kind` "B") or Test ("T") functions of the *_test.go files
// in `dir`.
std::vector<std::string> go_test_functions(const std::string& dir, const std::string& kind) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  const std::string prefix = kind == "B" ? "Benchmark" : "Test";
  const std::regex func("\nfunc (" + prefix + "\\w*)\\(\\w+ \\*testing\\." + kind + "\\)");
  while (const dirent* e = ::readdir(d)) {
    const std::string file = e->d_name;
    if (!file.ends_with("_test.go")) continue;
    const std::string text = "\n" + read_file(dir + "/" + file);
    for (std::sregex_iterator m(text.begin(), text.end(), func), end; m != end; ++m) {
      names.push_back((*m)[1]);
    }
  }
  ::closedir(d);
  return names;
}

TEST(LabCatalog, EveryGoPeerNamesItsDirectoryABenchtimeAndBenchmarksThatExist) {
  std::set<std::string> named;
  for (const Experiment& e : catalog()) {
    SCOPED_TRACE(e.id);
    if (e.go_peer.empty()) {
      EXPECT_FALSE(e.go_differences.empty()) << "an experiment without a Go peer says why";
      continue;
    }
    named.insert(e.go_peer);
    const std::string dir = default_go_peers_dir() + "/" + e.go_peer;
    if (e.go_benchmarks == "^$") {  // no benchmarks: the peer's Go tests are facts
      EXPECT_FALSE(go_test_functions(dir, "T").empty()) << dir << " has no Go tests";
      continue;
    }
    const std::vector<std::string> functions = go_test_functions(dir, "B");
    ASSERT_FALSE(functions.empty()) << dir << " has no Go benchmarks";
    if (!e.go_benchtime.empty()) {
      internal::BenchTime bt;
      std::string why;
      EXPECT_TRUE(internal::parse_benchtime(e.go_benchtime, bt, why))
          << e.go_benchtime << ": " << why;
    }
    // go test splits -bench at '/' into one pattern per level; the first
    // matches the functions' names.
    const std::string first = e.go_benchmarks.substr(0, e.go_benchmarks.find('/'));
    std::string error;
    const auto re = internal::GoRegex::compile(first.empty() ? "." : first, &error);
    ASSERT_NE(re, nullptr) << e.go_benchmarks << ": " << error;
    EXPECT_TRUE(std::any_of(functions.begin(), functions.end(),
                            [&](const std::string& f) { return re->search(f); }))
        << e.go_benchmarks << " matches none of the peer's benchmarks";
  }
  // Every directory of peers/go is some experiment's peer, and no more.
  std::set<std::string> directories;
  for (const auto& entry : std::filesystem::directory_iterator(default_go_peers_dir())) {
    if (entry.is_directory()) directories.insert(entry.path().filename().string());
  }
  EXPECT_EQ(named, directories);
}

}  // namespace
}  // namespace zerolab::lab
