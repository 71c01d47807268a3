// Tests of report.html on synthetic lab results (lab/framework/report_html.hpp,
// lab/plot_data.hpp): every plot type, an experiment without results and
// one with a single sample per benchmark; and of `zerolab compare -format
// html` on result files.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "lab/framework/baseline.hpp"
#include "lab/framework/plot_data.hpp"
#include "lab/framework/report_html.hpp"
#include "lab_cli_util.hpp"
#include "lab_report_fixture.hpp"
#include "test_util.hpp"

namespace zerolab::lab {
namespace {

using zerolab::test::count_occurrences;

// data-points of every <figure class="plot">, in page order.
std::vector<int> declared_points(const std::string& html) {
  std::vector<int> out;
  const std::regex figure("<figure class=\"plot\" data-points=\"([0-9]+)\">");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), figure);
       it != std::sregex_iterator(); ++it) {
    out.push_back(std::stoi((*it)[1]));
  }
  return out;
}

// The report of testing::ReportFixture's outcomes (a test may change f first).
class LabReportHtml : public ::testing::Test {
 protected:
  std::string page() const { return report_html(f.outcomes, f.machine, f.context); }

  testing::ReportFixture f;
};

TEST_F(LabReportHtml, EveryPlotTypeWithExactPointCounts) {
  const std::string html = page();
  EXPECT_EQ(declared_points(html), f.expected_points);
  int total = 0;
  for (const int n : f.expected_points) total += n;
  EXPECT_EQ(count_occurrences(html, "class=\"pt\""), total);
  EXPECT_EQ(count_occurrences(html, "class=\"plot-empty\""), f.expected_empty_plots);
}

TEST_F(LabReportHtml, HeaderHasTheMachineWarningsAndVerdictSummary) {
  const std::string html = page();
  EXPECT_NE(html.find("<tr><th>cpu</th><td>Test CPU &lt;model&gt;</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>thp</th><td>madvise</td></tr>"), std::string::npos);
  EXPECT_NE(
      html.find(
          "<p class=\"warning\">warning: CPU frequency scaling governor is &quot;powersave&quot;"),
      std::string::npos);
  EXPECT_NE(html.find("<p class=\"sub\">note: frequency boost is off</p>"), std::string::npos);
  EXPECT_NE(html.find("<b>4 seed claims.</b>"), std::string::npos);
  EXPECT_NE(html.find("<b>C++:</b> <span class=\"verdict v-replicates\">2 replicate</span>"
                      "<span class=\"verdict v-contradicts\">1 contradict</span>"),
            std::string::npos);
  EXPECT_NE(html.find("<b>Go here:</b> <span class=\"verdict v-replicates\">0 replicate</span>"),
            std::string::npos);
  EXPECT_NE(html.find("<span class=\"verdict v-not-run\">4 not run</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"verdict v-error\">1 error</span>"), std::string::npos);
  EXPECT_NE(html.find("<b>Provisional</b>"), std::string::npos);
  EXPECT_NE(
      html.find(
          "<a href=\"#sweep\">sweep</a> — of 1 measured claims, 0 replicate in Go here, 1 in C++"),
      std::string::npos);
  EXPECT_NE(
      html.find(
          "<a href=\"#empty\">empty</a> — of 1 measured claims, 0 replicate in Go here, 0 in C++, "
          "<b>1 failed</b>"),
      std::string::npos);
}

TEST_F(LabReportHtml, ClaimsTablesAndFailuresAreEscaped) {
  const std::string html = page();
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("method b is faster at 1 MiB &lt;script&gt;alert(1)&lt;/script&gt;"),
            std::string::npos);
  EXPECT_NE(html.find("<h2>sweep: throughput by size &lt;&amp;&gt; method</h2>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><th>claim</th><th>seed</th><th>Go here</th><th>C++ here</th>"
                      "<th>verdict (Go here)</th><th>verdict (C++)</th></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>2.0x</td><td>—</td><td>2.00x</td><td><span class=\"verdict "
                      "v-not-run\">not run</span>"
                      "<br><small>no Go peer</small></td><td><span class=\"verdict v-replicates\">"
                      "replicates (provisional)</span><br><small>n=3+3</small></td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>error: BenchmarkX: no ns/op results</td>"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"failure\">failed: BenchmarkX: could not open /dev/null</p>"),
            std::string::npos);
}

// The write-ups are named by title, author and where they were published,
// as report.md names them; the file name is only the key.
TEST_F(LabReportHtml, SourcesAreNamedByTitleAndAuthor) {
  const std::string html = page();
  EXPECT_NE(html.find("<h3>Sources</h3>\n<table>\n<tr><th>key</th><th>title</th><th>author</th>"
                      "<th>where</th></tr>\n"),
            std::string::npos);
  EXPECT_NE(
      html.find("<tr><td><code>003_8cb2aa8b072200dd.txt</code></td><td>perf: improve "
                "copyZeroAlloc for os.File and net.TCPConn #1893</td><td>ksw2000</td><td>a "
                "pull request to github.com/valyala/fasthttp, merged on Nov 8, 2024</td></tr>"),
      std::string::npos);
  EXPECT_NE(html.find("<tr><td><code>000_46e1f39ca2df3ed5.txt</code></td><td>MergeSlice "
                      "benchmarks</td><td>not named in the text</td>"),
            std::string::npos);
}

TEST_F(LabReportHtml, SweepMarksTheDataCachesAndDropsIgnoredKeysFromSeries) {
  const std::string html = page();
  EXPECT_NE(html.find(">L1d 48 KiB</text>"), std::string::npos);
  EXPECT_NE(html.find(">L2 1 MiB</text>"), std::string::npos);
  EXPECT_NE(html.find(">L3 32 MiB</text>"), std::string::npos);
  EXPECT_EQ(html.find("L1i"), html.find("L1i 32KiB"));  // only in the machine table, never a mark
  // MB/s are plotted as bytes per second: method b at 1 MiB, median of 8000..8002 MB/s.
  EXPECT_NE(html.find("<title>b: 1 MiB → 8 GB/s</title>"), std::string::npos);
  // The simulated 100000-connection point joins its strategy's line.
  EXPECT_NE(html.find("<title>Fixed: 100k → 95.4 MiB</title>"), std::string::npos);
  EXPECT_EQ(html.find("Fixed/simulated"), std::string::npos);
}

TEST_F(LabReportHtml, NoExperimentsStillMakesAPage) {
  const std::string html = report_html({}, f.machine, f.context);
  EXPECT_NE(html.find("<p>No experiments were run.</p>"), std::string::npos);
  EXPECT_NE(html.find("</html>\n"), std::string::npos);
  EXPECT_EQ(count_occurrences(html, "<figure"), 0);
}

TEST_F(LabReportHtml, BaselineSectionHasWarningsRegressionsAndTheComparisonsPlots) {
  BaselineComparison c;
  c.name = "main";
  c.path = "zerolab-results/baselines/main";
  c.record.date = "2026-12-02T10:00:00Z";
  c.warnings = {"baseline main was recorded on a different machine: cpu A vs B (compared anyway)"};
  c.not_run = {"merge"};
  c.gate = true;
  c.gate_percent = 5;
  BaselineComparison::Part part;
  part.experiment_id = "sweep";
  part.html =
      "<figure class=\"plot\" data-points=\"1\"><svg><circle class=\"pt\"/></svg></figure>\n";
  stat::Regression r;
  r.unit = "sec/op";
  r.row = "Zero/method=a/size=1MiB";
  r.column = kThisRunLabel;
  r.baseline_column = "main";
  r.percent = 50;
  r.comparison.p = 0.002;
  r.comparison.n1 = 6;
  r.comparison.n2 = 6;
  part.regressions.push_back(r);
  c.parts.push_back(part);
  f.context.baseline = &c;
  const std::string html = page();
  EXPECT_NE(
      html.find(
          "<a href=\"#baseline\">Comparison with baseline main</a>: 1 significant regressions."),
      std::string::npos);
  EXPECT_NE(html.find("<section id=\"baseline\">\n<h2>Baseline main</h2>"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"warning\">warning: baseline main was recorded on a different "
                      "machine: cpu A vs B"),
            std::string::npos);
  EXPECT_NE(html.find("<p>Not run this time: merge.</p>"), std::string::npos);
  EXPECT_NE(html.find("<b>Statistically significant regressions worse than 5% "
                      "(--fail-on-regression: exit 3):</b>"),
            std::string::npos);
  EXPECT_NE(html.find("<li>sweep: Zero/method=a/size=1MiB sec/op +50.00% (p=0.002 n=6) main -&gt; "
                      "this-run</li>"),
            std::string::npos);
  EXPECT_NE(html.find("<h3>sweep: main vs this-run</h3>\n" + part.html), std::string::npos);
  // The section comes after every experiment.
  EXPECT_GT(html.find("<section id=\"baseline\">"), html.find("<section id=\"single\">"));
}

TEST(PlotData, RatioClaimPlotHasBothBenchmarksSlowerFirst) {
  testing::ReportFixture f;
  const ExperimentOutcome& o = f.outcomes[0];
  const report::StripPlot p = ratio_claim_plot(o.claims[0], o);
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.rows[0].label, "C++: BenchmarkZero/method=a/size=1MiB");
  EXPECT_EQ(p.rows[1].label, "C++: BenchmarkZero/method=b/size=1MiB");
  EXPECT_EQ(p.rows[0].samples, (std::vector<double>{4000e6, 4001e6, 4002e6}));
  EXPECT_EQ(p.rows[0].center, 4001e6);
  EXPECT_NE(p.caption.find("seed: 2.0x; Go here: —, not run (no Go peer); C++: 2.00x, replicates "
                           "(provisional) (n=3+3)"),
            std::string::npos);
}

#ifdef ZEROLAB_CLI
using lab_test_util::Command;

Command run_cli(const std::string& args) {
  return lab_test_util::run_cli(ZEROLAB_CLI, args, lab_test_util::temp_dir("zerolab_report_test"));
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(CompareHtml, PlotsEveryCellsSamplesAndASweepOverSizes) {
  std::string old_text = "goos: linux\n";
  std::string new_text = "goos: linux\n";
  for (int run = 0; run < 6; ++run) {
    for (const char* size : {"1KiB", "4KiB", "16KiB"}) {
      old_text += std::string("BenchmarkZero/size=") + size + " 100 " + std::to_string(100 + run) +
                  " ns/op\n";
      new_text += std::string("BenchmarkZero/size=") + size + " 100 " + std::to_string(80 + run) +
                  " ns/op\n";
    }
  }
  const std::string a = write_temp("cmp_old.txt", old_text);
  const std::string b = write_temp("cmp_new.txt", new_text);
  const Command c = run_cli("compare -format html old=" + a + " new=" + b);
  ASSERT_EQ(c.code, 0) << c.err;
  const std::string& html = c.out;
  // One sweep (3 sizes x 2 columns) and one strip plot per row (2 x 6 samples).
  EXPECT_EQ(declared_points(html), (std::vector<int>{6, 12, 12, 12}));
  EXPECT_NE(html.find("sec/op against size"), std::string::npos);
  EXPECT_NE(html.find(">old</text>"), std::string::npos);
  EXPECT_NE(html.find("vs the first column: new: -19.51% (p=0.002 n=6)"), std::string::npos);
  EXPECT_NE(html.find("<summary>The tables as benchstat prints them (1)</summary>"),
            std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);

  // -o writes the same page to a file, and nothing to stdout.
  const std::string page = ::testing::TempDir() + "cmp.html";
  const Command to_file = run_cli("compare -format html -o " + page + " old=" + a + " new=" + b);
  ASSERT_EQ(to_file.code, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(lab_test_util::read_file(page), html);
}

TEST(CompareHtml, AnUnwritableOutputIsAnErrorAndLeavesNothing) {
  const std::string a = write_temp("cmp_one.txt", "BenchmarkA 1 5 ns/op\n");
  EXPECT_EQ(run_cli("compare -format html -o /nonexistent-dir/x.html " + a).code, 2);
  EXPECT_EQ(::access("/nonexistent-dir/x.html", F_OK), -1);
}
#endif

}  // namespace
}  // namespace zerolab::lab
