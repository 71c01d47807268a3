// Tests of `zerolab waste`'s views: sites named past allocation wrappers
// (built in and --skip-frame), full stacks and the call tree in the JSON,
// the per-process table, `zerolab waste diff` against golden files, and
// --baseline on a run. The fixture (tests/waste/waste_views_fixture.c)
// runs at --sample-rate 1, where every count is exact.

#include <climits>
#include <cstdlib>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include <gtest/gtest.h>

#include "test_util.hpp"
#include "waste/call_tree.hpp"
#include "waste/diff.hpp"
#include "waste/frame_filter.hpp"

namespace {

using nlohmann::json;
using zerolab::test::read_file;

class WasteViewsTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = zerolab::test::temp_dir("zerolab_waste_views_test"); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  zerolab::test::CommandResult waste(const std::string& args) {
    return zerolab::test::run(std::string(ZEROLAB_CLI) + " waste " + args + " </dev/null", dir_);
  }

  json run_json(const std::string& flags, const std::string& mode) {
    const auto r = waste("--format json --sample-rate 1 --check-rate 1 -o " + dir_ +
                         "/report.json " + flags + " -- " + WASTE_VIEWS_FIXTURE + " " + mode);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(read_file(dir_ + "/report.json"));
  }

  std::string dir_;
};

int site_line(const std::string& name) {
  const std::string text = read_file(WASTE_VIEWS_FIXTURE_SOURCE);
  const std::string marker = "// SITE:" + name + "\n";
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no " << marker;
    return -1;
  }
  return static_cast<int>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
}

const json* finding(const json& report, const std::string& kind) {
  for (const json& f : report["findings"]) {
    if (f["kind"] == kind) return &f;
  }
  return nullptr;
}

const json* site_at(const json& f, int line) {
  for (const json& s : f["sites"]) {
    if (s["line"] == line) return &s;
  }
  return nullptr;
}

const json* child_named(const json& node, const std::string& function) {
  for (const json& c : node["children"]) {
    if (c["function"] == function) return &c;
  }
  return nullptr;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

TEST_F(WasteViewsTest, SitesAreNamedPastAllocationWrappers) {
  const json r = run_json("", "wrappers");
  const json* temp = finding(r, "temporary-allocations");
  ASSERT_NE(temp, nullptr) << r.dump(1);
  EXPECT_EQ((*temp)["calls"], 15);
  EXPECT_EQ((*temp)["bytes"], 2000);
  // xmalloc is built in: the sites are its callers, never xmalloc itself.
  ASSERT_EQ((*temp)["sites"].size(), 2U) << temp->dump(1);
  for (const json& s : (*temp)["sites"]) EXPECT_NE(s["function"], "xmalloc");
  const json* a = site_at(*temp, site_line("parse_a"));
  ASSERT_NE(a, nullptr) << temp->dump(1);
  EXPECT_EQ((*a)["function"], "parse_a");
  EXPECT_EQ((*a)["calls"], 10);
  EXPECT_EQ((*a)["bytes"], 1000);
  const json* b = site_at(*temp, site_line("my_alloc"));
  ASSERT_NE(b, nullptr) << temp->dump(1);
  EXPECT_EQ((*b)["function"], "my_alloc");
  EXPECT_EQ((*b)["calls"], 5);

  // The whole stack: the wrapper inside the site's frame, the callers out
  // to main after it.
  ASSERT_EQ((*a)["stacks"].size(), 1U);
  const json& stack = (*a)["stacks"][0];
  EXPECT_EQ(stack["calls"], 10);
  EXPECT_EQ(stack["bytes"], 1000);
  EXPECT_EQ(stack["truncated"], false);
  const std::vector<std::string> frames = stack["frames"];
  const std::size_t at = stack["site_frame"];
  ASSERT_LT(at + 2, frames.size());
  EXPECT_TRUE(starts_with(frames[at], "parse_a (")) << frames[at];
  EXPECT_TRUE(starts_with(frames[at - 1], "xmalloc (")) << frames[at - 1];
  EXPECT_TRUE(starts_with(frames[at + 1], "outer (")) << frames[at + 1];
  EXPECT_TRUE(starts_with(frames[at + 2], "main (")) << frames[at + 2];
  EXPECT_EQ((*a)["stack"][0], frames[at]);

  // The call tree: main -> outer -> parse_a / parse_b -> my_alloc.
  const json& tree = (*temp)["call_tree"];
  EXPECT_EQ(tree["bytes"], 2000);
  EXPECT_EQ(tree["calls"], 15);
  ASSERT_EQ(tree["children"].size(), 1U) << tree.dump(1);
  const json* main_node = child_named(tree, "main");
  ASSERT_NE(main_node, nullptr) << tree.dump(1);
  EXPECT_EQ((*main_node)["bytes"], 2000);
  const json* outer = child_named(*main_node, "outer");
  ASSERT_NE(outer, nullptr) << tree.dump(1);
  const json* pa = child_named(*outer, "parse_a");
  const json* pb = child_named(*outer, "parse_b");
  ASSERT_NE(pa, nullptr);
  ASSERT_NE(pb, nullptr);
  EXPECT_EQ((*outer)["bytes"], 2000);
  EXPECT_EQ((*outer)["calls"], 15);
  EXPECT_EQ((*pa)["calls"], 10);
  EXPECT_EQ((*pa)["bytes"], 1000);
  EXPECT_FALSE(pa->contains("line"));
  EXPECT_TRUE((*pa)["children"].empty());
  EXPECT_EQ((*pb)["calls"], 5);
  EXPECT_EQ((*pb)["bytes"], 1000);
  const json* ma = child_named(*pb, "my_alloc");
  ASSERT_NE(ma, nullptr);
  EXPECT_EQ((*ma)["bytes"], 1000);
  EXPECT_GT(tree["estimated_seconds"].get<double>(), 0);
}

// A stripped program: xmalloc and my_alloc are still named (from the
// dynamic symbol table: the fixture exports them), so xmalloc is skipped as
// a wrapper; parse_a and parse_b (static: in no symbol table) are named by
// address, and the report says those frames could not be named.
TEST_F(WasteViewsTest, StrippedProgramSkipsExportedWrappersAndSaysWhatItCouldNotName) {
  const auto run = waste("--format json --sample-rate 1 -o " + dir_ + "/report.json -- " +
                         WASTE_VIEWS_FIXTURE_STRIPPED + " wrappers");
  ASSERT_EQ(run.code, 0) << run.err;
  const json r = json::parse(read_file(dir_ + "/report.json"));
  const json* temp = finding(r, "temporary-allocations");
  ASSERT_NE(temp, nullptr) << r.dump(1);
  EXPECT_EQ((*temp)["calls"], 15);
  ASSERT_EQ((*temp)["sites"].size(), 2U) << temp->dump(1);
  int by_address = 0;
  for (const json& s : (*temp)["sites"]) {
    EXPECT_NE(s["function"], "xmalloc") << temp->dump(1);
    const std::string function = s["function"];
    if (function == "my_alloc") {
      EXPECT_EQ(s["calls"], 5);
    } else {
      EXPECT_TRUE(starts_with(function, "waste_views_fixture_stripped+0x")) << function;
      EXPECT_EQ(s["calls"], 10);
      ++by_address;
    }
  }
  EXPECT_EQ(by_address, 1);
  bool said = false;
  for (const json& n : r["notes"]) {
    said = said || n.get<std::string>().find("named by an address") != std::string::npos;
  }
  EXPECT_TRUE(said) << r["notes"].dump(1);
}

TEST_F(WasteViewsTest, SkipFrameNamesTheFirstFrameTheUserOwns) {
  const json r = run_json("--skip-frame '^my_alloc$'", "wrappers");
  const json* temp = finding(r, "temporary-allocations");
  ASSERT_NE(temp, nullptr);
  ASSERT_EQ((*temp)["sites"].size(), 2U) << temp->dump(1);
  const json* b = site_at(*temp, site_line("parse_b"));
  ASSERT_NE(b, nullptr) << temp->dump(1);
  EXPECT_EQ((*b)["function"], "parse_b");
  EXPECT_EQ((*b)["calls"], 5);
  EXPECT_EQ((*b)["bytes"], 1000);
  EXPECT_EQ(site_at(*temp, site_line("my_alloc")), nullptr);
  // The tree stops at the site's frame.
  const json* pb =
      child_named(*child_named(*child_named((*temp)["call_tree"], "main"), "outer"), "parse_b");
  ASSERT_NE(pb, nullptr);
  EXPECT_TRUE((*pb)["children"].empty());
}

TEST_F(WasteViewsTest, BadSkipFrameIsOneLineExit2AndNothingRuns) {
  const auto r =
      waste("--skip-frame '(unclosed' -- " + std::string(WASTE_VIEWS_FIXTURE) + " children");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "zerolab waste: --skip-frame (unclosed: missing ): (unclosed\n");
  const auto empty = waste("--skip-frame= -- /bin/true");
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("empty pattern"), std::string::npos) << empty.err;
}

TEST_F(WasteViewsTest, FrameFilterBuiltInList) {
  const zerolab::waste::FrameFilter f;
  for (const char* name : {"xmalloc",
                           "xcalloc",
                           "xrealloc",
                           "sqlite3Malloc",
                           "sqlite3DbMallocRawNN",
                           "_PyObject_Malloc",
                           "PyMem_Malloc",
                           "g_malloc0",
                           "operator new(unsigned long)",
                           "operator new[](unsigned long)",
                           "std::allocator<char>::allocate(unsigned long)",
                           "__gnu_cxx::new_allocator<int>::allocate(unsigned long, void const*)",
                           "xmalloc.cold",
                           "sqlite3DbMalloc",
                           "sqlite3DbReallocOrFree.isra.0",
                           "_PyMem_RawMalloc",
                           "PyMem_Calloc(unsigned long)",
                           "g_malloc0_n",
                           "xmalloc_gently",
                           "zerolab::zero_fill(void*, unsigned long)",
                           "std::",
                           "operator new[]"}) {
    EXPECT_TRUE(f.skipped(name)) << name;
  }
  for (const char* name :
       {"main", "xmalloc_user", "my_xmalloc", "parse", "g_mallocator", "Foo::std::bar",
        "operator newline()", "PyMem_", "PyMem_Raw2", "sqlite3DbMalloc_x", "_PyObject_Mallocx",
        "operator new[]x", "", "std:", "zerolab::zero_fill_all", ".xmalloc", "Xmalloc"}) {
    EXPECT_FALSE(f.skipped(name)) << name;
  }
  zerolab::waste::FrameFilter user;
  std::string error;
  ASSERT_TRUE(zerolab::waste::FrameFilter::parse({"Arena::grow", "^pool_get$"}, user, error));
  EXPECT_TRUE(user.skipped("Arena::grow(unsigned long)"));
  EXPECT_TRUE(user.skipped("pool_get"));
  EXPECT_FALSE(user.skipped("pool_get2"));
  EXPECT_TRUE(user.skipped("xmalloc"));
  EXPECT_FALSE(zerolab::waste::FrameFilter::parse({"a", "[z-a]"}, user, error));
  EXPECT_EQ(error, "--skip-frame [z-a]: invalid character class range: z-a");
  EXPECT_FALSE(zerolab::waste::FrameFilter::parse({"a b("}, user, error));
  EXPECT_EQ(error, "--skip-frame \"a b(\": missing ): a b(");
}

TEST_F(WasteViewsTest, CallTreeMergesFramesAndSorts) {
  using zerolab::waste::CallFrame;
  zerolab::waste::CallNode root;
  const CallFrame main_frame{"main", "m.c", 1};
  zerolab::waste::add_stack(root, {main_frame, {"load", "m.c", 5}}, {100, 1, 1e-6});
  zerolab::waste::add_stack(root, {main_frame, {"parse", "m.c", 9}}, {400, 2, 3e-6});
  zerolab::waste::add_stack(root, {main_frame, {"parse", "m.c", 9}}, {100, 1, 1e-6});
  zerolab::waste::add_stack(root, {main_frame, {"parse", "m.c", 10}}, {1, 1, 0});
  zerolab::waste::add_stack(root, {main_frame, {"parse", "other.c", 3}}, {7, 1, 0});
  zerolab::waste::sort_by_bytes(root);
  EXPECT_EQ(root.amount.bytes, 608);
  EXPECT_EQ(root.amount.calls, 6);
  ASSERT_EQ(root.children.size(), 1U);
  const auto& m = root.children[0];
  EXPECT_EQ(m.amount.bytes, 608);
  ASSERT_EQ(m.children.size(), 3U);
  EXPECT_EQ(m.children[0].frame.function, "parse");  // lines 9 and 10: one node
  EXPECT_EQ(m.children[0].frame.file, "m.c");
  EXPECT_EQ(m.children[0].amount.bytes, 501);
  EXPECT_EQ(m.children[0].amount.calls, 4);
  EXPECT_DOUBLE_EQ(m.children[0].amount.seconds, 4e-6);
  EXPECT_EQ(m.children[1].frame.function, "load");
  EXPECT_EQ(m.children[2].frame.file, "other.c");
}

TEST_F(WasteViewsTest, FindingsPerProcess) {
  const json r = run_json("", "children");
  EXPECT_EQ(r["processes"], 3);  // the parent, the fork child, the image it execs
  const json* temp = finding(r, "temporary-allocations");
  ASSERT_NE(temp, nullptr);
  EXPECT_EQ((*temp)["calls"], 10);
  const json& rows = r["per_process"];
  ASSERT_EQ(rows.size(), 3U) << rows.dump(1);
  const std::string fixture = WASTE_VIEWS_FIXTURE;
  char resolved[PATH_MAX];
  ASSERT_NE(realpath(fixture.c_str(), resolved), nullptr);
  const std::string canonical = resolved;
  int parents = 0;
  int leaves = 0;
  int quiet = 0;
  long parent_pid = 0;
  for (const json& row : rows) {
    EXPECT_EQ(row["exe"], canonical);
    if (row["command"] == json::array({fixture, "children"}) &&
        row["findings"].contains("temporary-allocations")) {
      ++parents;
      parent_pid = row["pid"];
      EXPECT_EQ(row["findings"]["temporary-allocations"]["calls"], 3);
      EXPECT_EQ(row["findings"]["temporary-allocations"]["bytes"], 192);
    } else if (row["command"] == json::array({fixture, "leaf", "7"})) {
      ++leaves;
      EXPECT_EQ(row["findings"]["temporary-allocations"]["calls"], 7);
      EXPECT_EQ(row["findings"]["temporary-allocations"]["bytes"], 448);
    } else {
      ++quiet;  // the fork child before its exec: no waste
      EXPECT_TRUE(row["findings"].empty()) << row.dump(1);
      EXPECT_EQ(row["command"], json::array({fixture, "children"}));
    }
  }
  EXPECT_EQ(parents, 1);
  EXPECT_EQ(leaves, 1);
  EXPECT_EQ(quiet, 1);
  for (const json& row : rows) {
    if (row["pid"] != parent_pid) {
      EXPECT_EQ(row["ppid"], parent_pid);
    }
  }
  // The text report lists them too.
  // The text report lists them too.
  const auto text = waste("--sample-rate 1 -o " + dir_ + "/report.txt -- " + fixture + " children");
  EXPECT_EQ(text.code, 0);
  const std::string report = read_file(dir_ + "/report.txt");
  EXPECT_NE(report.find("Per process (3 images"), std::string::npos) << report;
  EXPECT_NE(report.find(fixture + " leaf 7"), std::string::npos) << report;
}

const json* thread_named(const json& process, const std::string& name) {
  for (const json& t : process["threads"]) {
    if (t["name"] == name) return &t;
  }
  return nullptr;
}

TEST_F(WasteViewsTest, FindingsPerThread) {
  const json r = run_json("", "threads");
  ASSERT_EQ(r["per_process"].size(), 1U);
  const json& process = r["per_process"][0];
  // "parser" named itself before its work; main named "zeroer".
  const json* parser = thread_named(process, "parser");
  const json* zeroer = thread_named(process, "zeroer");
  ASSERT_NE(parser, nullptr) << process.dump(1);
  ASSERT_NE(zeroer, nullptr) << process.dump(1);
  EXPECT_NE((*parser)["tid"], process["pid"]);
  EXPECT_NE((*zeroer)["tid"], process["pid"]);
  EXPECT_NE((*parser)["tid"], (*zeroer)["tid"]);
  EXPECT_EQ((*parser)["threads"], 1);
  EXPECT_EQ((*parser)["findings"].size(), 2U) << parser->dump(1);
  EXPECT_EQ((*parser)["findings"]["temporary-allocations-in-frame"]["calls"], 20);
  EXPECT_EQ((*parser)["findings"]["temporary-allocations"]["calls"], 20);
  EXPECT_EQ((*parser)["findings"]["temporary-allocations"]["bytes"], 20 * 64);
  EXPECT_EQ((*zeroer)["findings"]["temporary-allocations"]["calls"], 5);
  EXPECT_EQ((*zeroer)["findings"]["temporary-allocations"]["bytes"], 5 * 128);
  EXPECT_EQ((*zeroer)["findings"]["zeroed-fresh-pages"]["bytes"], 256 << 10);
  EXPECT_EQ((*zeroer)["findings"]["zeroed-fresh-pages"]["calls"], 1);
  // The exact kinds of the thread rows sum to their process's.
  for (const char* kind : {"temporary-allocations", "zeroed-fresh-pages"}) {
    long long sum = 0;
    for (const json& t : process["threads"]) {
      if (t["findings"].contains(kind)) sum += t["findings"][kind]["bytes"].get<long long>();
    }
    EXPECT_EQ(sum, process["findings"][kind]["bytes"]) << kind;
  }

  // The text report lists the threads by name, the HTML table too.
  auto r2 =
      waste("--sample-rate 1 -o " + dir_ + "/report.txt -- " + WASTE_VIEWS_FIXTURE + " threads");
  ASSERT_EQ(r2.code, 0) << r2.err;
  const std::string text = read_file(dir_ + "/report.txt");
  EXPECT_NE(text.find("Per thread ("), std::string::npos) << text;
  EXPECT_NE(text.find("  parser\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  zeroer\n"), std::string::npos) << text;
  r2 = waste("--format html --sample-rate 1 -o " + dir_ + "/page.html -- " + WASTE_VIEWS_FIXTURE +
             " threads");
  ASSERT_EQ(r2.code, 0) << r2.err;
  const std::string page = read_file(dir_ + "/page.html");
  EXPECT_EQ(
      zerolab::test::count_occurrences(page, "<tr class=\"thread\"><td class=\"num\">thread "), 2)
      << page;
  EXPECT_NE(page.find("<td>zeroer</td>"), std::string::npos) << page;
}

TEST_F(WasteViewsTest, DiffOfTwoSyntheticRunsIsExact) {
  const std::string data = WASTE_DIFF_DATA;
  for (const auto& [format, golden] : {std::pair<std::string, std::string>{"text", "diff.txt"},
                                       {"json", "diff.json"},
                                       {"markdown", "diff.md"}}) {
    const auto r = zerolab::test::run("cd " + data + " && " + std::string(ZEROLAB_CLI) +
                                          " waste diff --format " + format + " old.json new.json",
                                      dir_);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out, read_file(data + "/" + golden)) << format;
  }
}

TEST_F(WasteViewsTest, DiffFailOnGrowth) {
  const std::string data = WASTE_DIFF_DATA;
  const std::string diff = "cd " + data + " && " + std::string(ZEROLAB_CLI) +
                           " waste diff old.json new.json -o " + dir_ + "/d.txt --fail-on ";
  // temporary-allocations grew by 1500 bytes (diff.txt); zeroed-zeros shrank.
  auto r = zerolab::test::run(diff + "temporary-allocations=1500", dir_);
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err,
            "zerolab waste: -fail-on temporary-allocations=1500 reached (grew by 1500 bytes)\n");
  EXPECT_EQ(read_file(dir_ + "/d.txt"), read_file(data + "/diff.txt"));
  r = zerolab::test::run(diff + "temporary-allocations=1501", dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  r = zerolab::test::run(diff + "zeroed-zeros=1", dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  // any: every kind's change with its sign (+1500 +4096 -4096 +1048576 -500).
  r = zerolab::test::run(diff + "any=1049576", dir_);
  EXPECT_EQ(r.code, 3);
  r = zerolab::test::run(diff + "any=1049577", dir_);
  EXPECT_EQ(r.code, 0);
}

TEST_F(WasteViewsTest, DiffBadInputIsOneLineExit2) {
  const std::string data = WASTE_DIFF_DATA;
  auto diff = [&](const std::string& old_text) {
    zerolab::test::write_file(dir_ + "/bad.json", old_text);
    return zerolab::test::run(
        std::string(ZEROLAB_CLI) + " waste diff " + dir_ + "/bad.json " + data + "/new.json", dir_);
  };
  const std::string bad = dir_ + "/bad.json";
  auto r = diff(
      "{\"findings\": [{\"kind\": \"zeroed-zeros\", \"bytes\": 1, \"calls\": 1, "
      "\"estimated_seconds\": 0, \"sites\": [{\"function\": \"f\", \"file\": \"\", "
      "\"line\": 1, \"bytes\": -4, \"calls\": 1}]}]}");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "zerolab waste: " + bad +
                       ": findings[0].sites[0].bytes: want a non-negative integer\n");
  r = diff("{\"findings\": [{\"kind\": \"zeroed-everything\"}]}");
  EXPECT_EQ(r.err,
            "zerolab waste: " + bad + ": findings[0].kind: unknown kind \"zeroed-everything\"\n");
  r = diff("{\"findings\": {}}");
  EXPECT_EQ(r.err, "zerolab waste: " + bad + ": findings: want an array\n");
  r = diff("{\"findings\": [{\"kind\": \"zeroed-zeros\", \"bytes\": 1e999}]}");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(starts_with(r.err, "zerolab waste: " + bad + ": not JSON: number overflow")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  r = diff("[1, 2");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(starts_with(r.err, "zerolab waste: " + bad + ": not JSON: parse error at line 1"))
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  r = zerolab::test::run(
      std::string(ZEROLAB_CLI) + " waste diff " + dir_ + "/none.json " + data + "/new.json", dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "zerolab waste: " + dir_ + "/none.json: No such file or directory\n");
  r = zerolab::test::run(std::string(ZEROLAB_CLI) + " waste diff " + data + "/new.json", dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("diff wants two reports, got 1"), std::string::npos) << r.err;
  r = zerolab::test::run(std::string(ZEROLAB_CLI) + " waste diff --format html a b", dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("want text, json or markdown"), std::string::npos) << r.err;
}

TEST_F(WasteViewsTest, BaselineOnARun) {
  const std::string fixture = WASTE_VIEWS_FIXTURE;
  auto r = waste("--format json --sample-rate 1 -o " + dir_ + "/children.json -- " + fixture +
                 " children");
  ASSERT_EQ(r.code, 0) << r.err;
  // wrappers against children: temporaries grew from 640 to 2000 bytes.
  r = waste("--format json --sample-rate 1 -o " + dir_ + "/wrappers.json --baseline " + dir_ +
            "/children.json -- " + fixture + " wrappers");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(read_file(dir_ + "/wrappers.json"));
  const json& base = j["baseline"];
  EXPECT_EQ(base["old"], "-baseline " + dir_ + "/children.json");
  EXPECT_EQ(base["new"], "this run");
  const json* temp = nullptr;
  for (const json& k : base["kinds"]) {
    if (k["kind"] == "temporary-allocations") temp = &k;
  }
  ASSERT_NE(temp, nullptr) << base.dump(1);
  EXPECT_EQ((*temp)["status"], "grew");
  EXPECT_EQ((*temp)["old_bytes"], 640);
  EXPECT_EQ((*temp)["new_bytes"], 2000);
  int appeared = 0;
  int vanished = 0;
  for (const json& s : (*temp)["sites"]) {
    appeared += s["status"] == "appeared";
    vanished += s["status"] == "vanished";
  }
  EXPECT_EQ(appeared, 2);  // parse_a, my_alloc
  EXPECT_EQ(vanished, 1);  // temporaries()
  // --fail-on applies to the growth: 1360 bytes.
  r = waste("--sample-rate 1 -o " + dir_ + "/grew.txt --baseline " + dir_ +
            "/children.json --fail-on temporary-allocations=1360 -- " + fixture + " wrappers");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(r.err,
            "zerolab waste: -fail-on temporary-allocations=1360 reached (grew by 1360 bytes)\n");
  const std::string grew = read_file(dir_ + "/grew.txt");
  EXPECT_NE(grew.find("temporary-allocations: grew, 640 -> 2000 bytes (+1360)"), std::string::npos)
      << grew;
  r = waste("--sample-rate 1 --baseline " + dir_ +
            "/children.json --fail-on "
            "temporary-allocations=1361 -- " +
            fixture + " wrappers");
  EXPECT_EQ(r.code, 0) << r.err;
  // A bad baseline stops before the program runs.
  zerolab::test::write_file(dir_ + "/bad.json", "{}");
  r = waste("--baseline " + dir_ + "/bad.json -- " + fixture + " children");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "zerolab waste: -baseline " + dir_ + "/bad.json: findings: missing\n");
  r = waste("--format html --baseline " + dir_ + "/children.json -- " + fixture + " children");
  EXPECT_EQ(r.code, 2);
}

TEST_F(WasteViewsTest, HtmlPageHasAnIcicleGraphPerKindAndTheProcesses) {
  const auto r = waste("--format html --sample-rate 1 --check-rate 1 -o " + dir_ +
                       "/page.html -- " + WASTE_VIEWS_FIXTURE + " all");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string page = read_file(dir_ + "/page.html");
  EXPECT_TRUE(starts_with(page, "<!DOCTYPE html>"));
  EXPECT_EQ(page.find("<script"), std::string::npos);
  // zeroed-fresh-pages, temporary-allocations, temporary-allocations-in-frame:
  // one graph by bytes, one by estimated time each.
  EXPECT_EQ(zerolab::test::count_occurrences(page, "<figure class=\"plot\""), 6) << page;
  EXPECT_NE(page.find("<h2 id=\"processes\">Per process and thread</h2>"), std::string::npos);
  EXPECT_NE(page.find("leaf 7</code>"), std::string::npos);
  EXPECT_NE(page.find("zerolab::Pool / zerolab::Arena"), std::string::npos);  // a fix
  EXPECT_NE(page.find(">parse_a</text>"), std::string::npos);
}

}  // namespace
