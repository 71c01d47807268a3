// Tests of the lab's baselines and regression gate (lab/baseline.hpp,
// `zerolab lab --save / --baseline / --fail-on-regression`): names, the
// save/load round trip, the comparison section and tables, the gate's exit
// codes on a synthetic experiment whose custom metric (widgets/op) the test
// sets exactly, and bad baselines (missing, corrupt, another machine,
// experiments no longer in the catalog). No assertion depends on a timing.
//
// Example:
//   ctest --test-dir build/release -R LabBaseline
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/framework/baseline.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/lab_run.hpp"
#include "lab/framework/machine_info.hpp"
#include "lab/framework/staging_cleanup.hpp"
#include "lab_cli_util.hpp"
#include "lab_test_experiment.hpp"

namespace zerolab::lab {
namespace {

using lab_test_util::Command;
using lab_test_util::exists;
using lab_test_util::read_file;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::string temp_dir() {
  return lab_test_util::temp_dir("zerolab_baseline_test");
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

std::string replace_line(const std::string& text, const std::string& prefix,
                         const std::string& line) {
  const auto at = text.find("\n" + prefix);
  if (at == std::string::npos) throw std::runtime_error("no line " + prefix);
  const auto end = text.find('\n', at + 1);
  return text.substr(0, at + 1) + line + text.substr(end);
}

// ---- the synthetic experiment: widgets/op is whatever the test says ----------------

double g_widgets = 1;

void report_widgets(B& b) {
  for (auto _ : b.loop()) do_not_optimize(g_widgets);
  b.report_metric(g_widgets, "widgets/op");
}

Experiment widgets_experiment(const std::string& id) {
  Experiment e = lab_test_util::experiment(id, "a metric the test sets");
  e.benchmarks = {{"BenchmarkWidgets", &report_widgets, 100}};
  e.claims = {Claim::bound("one widget per op", "1", "BenchmarkWidgets", "widgets/op", 0, 1e9)};
  return e;
}

struct LabRun {
  int code = -1;
  std::string out;
  std::string err;
  std::string dir;  // the output directory
};

// One lab run of `experiments` (6 runs of 100 iterations each).
LabRun run(const std::vector<const Experiment*>& experiments, const Baseline* baseline = nullptr,
           double fail_percent = -1, const std::string& save_dir = "",
           const std::string& save_name = "") {
  LabSettings s;
  s.experiments = experiments;
  s.count = 6;
  s.iterations = 100;
  s.benchtime_text = "100x";
  s.out_dir = temp_dir();
  s.command = "test";
  s.baseline = baseline;
  s.fail_percent = fail_percent;
  s.save_dir = save_dir;
  s.save_name = save_name;
  const std::string out_path = s.out_dir + "/stdout";
  const std::string err_path = s.out_dir + "/stderr";
  std::FILE* out = std::fopen(out_path.c_str(), "w");
  std::FILE* err = std::fopen(err_path.c_str(), "w");
  if (out == nullptr || err == nullptr) throw std::runtime_error("cannot open output files");
  LabRun r;
  r.code = run_lab(s, out, err);
  std::fclose(out);
  std::fclose(err);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  r.dir = s.out_dir;
  return r;
}

// stderr without the machine's own warnings (busy, governor).
std::string baseline_lines(const std::string& err) {
  std::string out;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("the machine is busy") != std::string::npos ||
        line.find("governor") != std::string::npos) {
      continue;
    }
    out += line + "\n";
  }
  return out;
}

// ---- names -----------------------------------------------------------------------------

TEST(LabBaselineName, OnePathComponentOfSafeCharacters) {
  std::string error;
  for (const std::string& good : {std::string("main"), std::string("v1.2_rc-3"), std::string("a"),
                                  std::string("..x"), std::string(200, 'n')}) {
    EXPECT_TRUE(check_baseline_name(good, error)) << good;
  }
  const std::pair<std::string, std::string> bad[] = {
      {"", "invalid baseline name \"\": empty"},
      {".", "invalid baseline name \".\": not a name"},
      {"..", "invalid baseline name \"..\": not a name"},
      {"a/b",
       "invalid baseline name \"a/b\": use only letters, digits, '.', '_' and '-' (one path "
       "component)"},
      {"x+tmp.1",
       "invalid baseline name \"x+tmp.1\": use only letters, digits, '.', '_' and '-' "
       "(one path component)"},
      {"a\nb",
       "invalid baseline name \"a\\nb\": use only letters, digits, '.', '_' and '-' (one path "
       "component)"},
      {std::string(201, 'n'),
       "invalid baseline name \"" + std::string(201, 'n') + "\": longer than 200 bytes"},
      {"beef",
       "invalid baseline name \"beef\": looks like a run id (only hex digits and '-'); add a "
       "letter from g to z"},
  };
  for (const auto& [name, message] : bad) {
    error.clear();
    EXPECT_FALSE(check_baseline_name(name, error)) << name;
    EXPECT_EQ(error, message);
  }
}

// ---- save, load, compare ---------------------------------------------------------------

constexpr const char* kWidgetsSame =
    "        │    base    │           this-run            │\n"
    "        │ widgets/op │ widgets/op  vs base           │\n"
    "Widgets   1.000 ± 0%   1.000 ± 0%  ~ (p=1.000 n=6) ¹\n"
    "¹ all samples are equal\n";

constexpr const char* kWidgetsWorse =
    "        │    base    │               this-run                │\n"
    "        │ widgets/op │  widgets/op   vs base                 │\n"
    "Widgets   1.000 ± 0%   100.000 ± 0%  +9900.00% (p=0.002 n=6)\n";

// Saves a run of `experiments` with widgets/op == 1 as baseline "base" in
// a new directory, which it returns.
std::string save_base(const std::vector<const Experiment*>& experiments) {
  const std::string dir = temp_dir();
  g_widgets = 1;
  const LabRun saved = run(experiments, nullptr, -1, dir, "base");
  if (saved.code != 0) throw std::runtime_error("saving the baseline failed: " + saved.err);
  return dir;
}

TEST(LabBaseline, SaveThenCompareRoundTrip) {
  const Experiment e = widgets_experiment("widgets");
  const std::string dir = temp_dir();
  g_widgets = 1;
  const LabRun saved = run({&e}, nullptr, -1, dir, "base");
  ASSERT_EQ(saved.code, 0) << saved.err;
  EXPECT_TRUE(saved.out.ends_with("\nsaved as baseline base: " + dir + "/base\n")) << saved.out;
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"base"}));
  EXPECT_EQ(entries(dir + "/base"), (std::vector<std::string>{"manifest", "widgets.txt"}));
  EXPECT_EQ(read_file(dir + "/base/widgets.txt"), read_file(saved.dir + "/widgets.txt"));
  const std::string manifest = read_file(dir + "/base/manifest");
  EXPECT_EQ(replace_line(manifest, "date: ", "date: D"),
            "# A baseline of zerolab lab (zerolab lab --save); compare with --baseline base.\n"
            "format: 1\nname: base\ndate: D\ncommand: test\nruns: 6\nbenchtime: 100x\n"
            "experiment: widgets 6\n");

  Baseline b;
  std::string error;
  ASSERT_TRUE(load_baseline(dir, "base", {"widgets"}, b, error)) << error;
  EXPECT_EQ(b.name, "base");
  EXPECT_EQ(b.path, dir + "/base");
  EXPECT_EQ(b.record.command, "test");
  EXPECT_EQ(b.record.runs, 6);
  EXPECT_EQ(b.record.benchtime, "100x");
  ASSERT_EQ(b.files.size(), 1u);
  EXPECT_EQ(b.files[0].experiment_id, "widgets");
  EXPECT_EQ(b.files[0].path, dir + "/base/widgets.txt");
  EXPECT_EQ(b.files[0].results, 6u);
  EXPECT_TRUE(b.warnings.empty());
  auto config = describe_machine().config;
  config.emplace_back("pkg", "zerolab/lab/widgets");
  config.emplace_back("seed", "none.txt");
  EXPECT_EQ(b.config, config);

  const LabRun same = run({&e}, &b, 1000);
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(baseline_lines(same.err), "");
  const auto summary = same.out.find("1 seed claims — Go here: 0 replicate");
  const auto section =
      same.out.find("\nbaseline base (" + dir + "/base, recorded " + b.record.date +
                    ") vs this-run:\n\nwidgets:\npkg: zerolab/lab/widgets\n");
  ASSERT_NE(section, std::string::npos) << same.out;
  EXPECT_LT(summary, section);
  EXPECT_NE(same.out.find(kWidgetsSame, section), std::string::npos) << same.out;
  const std::string report = read_file(same.dir + "/report.md");
  EXPECT_NE(report.find("\n## Baseline base\n\nThis run (`this-run`) against baseline `base` (`" +
                        dir + "/base`), recorded " + b.record.date +
                        " by `test` (6 runs, benchtime 100x). The tables are `zerolab compare "
                        "base=<baseline> this-run=<this run>`'s, with the machine's "
                        "config lines ignored.\n\n### widgets\n\n- pkg: zerolab/lab/widgets\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("| widgets/op | base | this-run | vs base |\n|:--|--:|--:|--:|\n"
                        "| Widgets | 1.000 ± 0% | 1.000 ± 0% | ~ (p=1.000 n=6) ¹ |\n"),
            std::string::npos)
      << report;
  EXPECT_TRUE(
      report.ends_with("\n### Regressions\n\nNo statistically significant regression worse "
                       "than 1000%.\n"))
      << report;
}

TEST(LabBaseline, GateExitsThreeOnARegressionAndKeepsTheBaseline) {
  const Experiment e = widgets_experiment("widgets");
  const std::string dir = save_base({&e});
  const std::string manifest = read_file(dir + "/base/manifest");
  const std::string results = read_file(dir + "/base/widgets.txt");
  Baseline b;
  std::string error;
  ASSERT_TRUE(load_baseline(dir, "base", {"widgets"}, b, error)) << error;

  g_widgets = 100;  // 100x the baseline's widgets/op: +9900%
  const LabRun gated = run({&e}, &b, 1000, dir, "base");
  EXPECT_EQ(gated.code, 3) << gated.out << gated.err;
  EXPECT_EQ(baseline_lines(gated.err),
            "zerolab lab: regression: widgets: Widgets widgets/op +9900.00% (p=0.002 n=6) base -> "
            "this-run\n"
            "zerolab lab: baseline base not saved: this run regressed against baseline base\n");
  EXPECT_NE(gated.out.find(kWidgetsWorse), std::string::npos) << gated.out;
  EXPECT_EQ(read_file(dir + "/base/manifest"), manifest);
  EXPECT_EQ(read_file(dir + "/base/widgets.txt"), results);
  EXPECT_TRUE(
      read_file(gated.dir + "/report.md")
          .ends_with("\n### Regressions\n\nStatistically significant regressions worse than "
                     "1000% (--fail-on-regression: exit 3):\n\n- widgets: Widgets widgets/op "
                     "+9900.00% (p=0.002 n=6) base -&gt; this-run\n"));

  // Under the threshold: 0.
  const LabRun lenient = run({&e}, &b, 10000);
  EXPECT_EQ(lenient.code, 0) << lenient.err;
  EXPECT_EQ(baseline_lines(lenient.err), "");

  // No gate: the regression is reported, not fatal, and the save replaces
  // the baseline (atomically: nothing else is left in the directory).
  const LabRun ungated = run({&e}, &b, -1, dir, "base");
  EXPECT_EQ(ungated.code, 0) << ungated.err;
  EXPECT_EQ(baseline_lines(ungated.err), "");
  // Without a threshold a timing unit (sec/op of the 100-iteration loop)
  // may drift significantly between the runs too, so only the widgets line
  // is required, not that it is the only one.
  const std::string ungated_report = read_file(ungated.dir + "/report.md");
  EXPECT_NE(ungated_report.find("\n### Regressions\n\nStatistically significant regressions:\n\n"),
            std::string::npos)
      << ungated_report;
  EXPECT_NE(
      ungated_report.find("\n- widgets: Widgets widgets/op +9900.00% (p=0.002 n=6) base -&gt; "
                          "this-run\n"),
      std::string::npos)
      << ungated_report;
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"base"}));
  EXPECT_EQ(read_file(dir + "/base/widgets.txt"), read_file(ungated.dir + "/widgets.txt"));
  EXPECT_NE(read_file(dir + "/base/widgets.txt"), results);
}

TEST(LabBaseline, MissingBaselineNamesThePath) {
  const std::string dir = temp_dir();
  Baseline b;
  std::string error;
  EXPECT_FALSE(load_baseline(dir, "nosuch", {"widgets"}, b, error));
  EXPECT_EQ(error, "baseline \"nosuch\" not found: " + dir + "/nosuch does not exist");
  ASSERT_EQ(::mkdir((dir + "/empty").c_str(), 0777), 0);
  EXPECT_FALSE(load_baseline(dir, "empty", {"widgets"}, b, error));
  EXPECT_EQ(error,
            dir + "/empty/manifest: no such file (not a baseline saved by zerolab lab --save)");
  write_file(dir + "/plain", "x");
  EXPECT_FALSE(load_baseline(dir, "plain", {"widgets"}, b, error));
  EXPECT_EQ(error, "baseline \"plain\": " + dir + "/plain is not a directory");
  EXPECT_FALSE(load_baseline(dir, "../etc", {"widgets"}, b, error));
  EXPECT_EQ(error.rfind("invalid baseline name \"../etc\": ", 0), 0u) << error;
}

TEST(LabBaseline, CorruptBaselineNamesFileAndLine) {
  const Experiment e = widgets_experiment("widgets");
  const std::string dir = save_base({&e});
  const std::string file = dir + "/base/widgets.txt";
  const std::string manifest_path = dir + "/base/manifest";
  const std::string results = read_file(file);
  const std::string manifest = read_file(manifest_path);
  Baseline b;
  std::string error;

  // A result line the reader refuses: named by file and line.
  const auto first = results.find("\nBenchmarkWidgets");
  ASSERT_NE(first, std::string::npos);
  int line = 2;
  for (std::size_t i = 0; i < first; ++i) line += results[i] == '\n';
  write_file(file, results.substr(0, first + 1) + "BenchmarkWidgets 100 lots ns/op" +
                       results.substr(results.find('\n', first + 1)));
  EXPECT_FALSE(load_baseline(dir, "base", {"widgets"}, b, error));
  EXPECT_EQ(error, file + ":" + std::to_string(line) + ": parsing measurement: invalid syntax");

  // Cut short: fewer results than the manifest says.
  write_file(file, results.substr(0, results.rfind('\n', results.size() - 2) + 1));
  EXPECT_FALSE(load_baseline(dir, "base", {"widgets"}, b, error));
  EXPECT_EQ(error,
            file + ": 5 results, but the manifest says 6 (the file was changed or cut short)");

  // Missing file.
  ASSERT_EQ(std::remove(file.c_str()), 0);
  EXPECT_FALSE(load_baseline(dir, "base", {"widgets"}, b, error));
  EXPECT_EQ(error, "cannot read " + file + ": No such file or directory");
  write_file(file, results);

  // Manifests.
  const std::pair<std::string, std::string> bad[] = {
      {"name: base\n", manifest_path + ":1: not a baseline manifest (no \"format: 1\" line)"},
      {"format: 2\n", manifest_path + ":1: unsupported format \"2\" (this zerolab reads format 1)"},
      {"format: 1\nruns: many\n",
       manifest_path + ":2: runs must be a whole number from 1 to 100000, not \"many\""},
      {"format: 1\nexperiment: widgets\n",
       manifest_path + ":2: expected \"experiment: <id> <number of results>\", not \"widgets\""},
      // Counts and runs are plain digits: no sign, no spaces.
      {"format: 1\nexperiment: widgets +6\n",
       manifest_path + ":2: expected \"experiment: <id> <number of results>\", not \"widgets +6\""},
      {"format: 1\nruns:  6\n",
       manifest_path + ":2: runs must be a whole number from 1 to 100000, not \" 6\""},
      {"format: 1\nexperiment: ../x 1\n", manifest_path + ":2: invalid experiment id \"../x\""},
      {"format: 1\n\nexperiment: widgets 6\nexperiment: widgets 6\n",
       manifest_path + ":4: experiment \"widgets\" listed twice"},
      {"format: 1\njunk\n", manifest_path + ":2: expected \"key: value\", not \"junk\""},
      // CRLF and NUL bytes are escaped, not printed raw or cut.
      {"format: 1\r\n",
       manifest_path + ":1: unsupported format \"1\\r\" (this zerolab reads format 1)"},
      {std::string("format: 1\nruns: 1\0x\n", 20),
       manifest_path + ":2: runs must be a whole number from 1 to 100000, not \"1\\x00x\""},
  };
  for (const auto& [text, message] : bad) {
    write_file(manifest_path, text);
    EXPECT_FALSE(load_baseline(dir, "base", {"widgets"}, b, error)) << text;
    EXPECT_EQ(error, message);
  }
  write_file(manifest_path, manifest);
  EXPECT_TRUE(load_baseline(dir, "base", {"widgets"}, b, error)) << error;
}

std::string config_of(const std::string& key) {
  for (const auto& [k, v] : describe_machine().config) {
    if (k == key) return v;
  }
  return "";
}

TEST(LabBaseline, AnotherMachineWarnsAndComparesAnyway) {
  const Experiment e = widgets_experiment("widgets");
  const std::string dir = save_base({&e});
  const std::string file = dir + "/base/widgets.txt";
  write_file(file,
             replace_line(replace_line("\n" + read_file(file), "cpu: ", "cpu: Imaginary 9000"),
                          "kernel: ", "kernel: Linux 0.01")
                 .substr(1));
  Baseline b;
  std::string error;
  ASSERT_TRUE(load_baseline(dir, "base", {"widgets"}, b, error)) << error;
  g_widgets = 1;
  const LabRun r = run({&e}, &b, 1000);
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string warning =
      "baseline base was recorded on a different machine: cpu Imaginary 9000 vs " +
      config_of("cpu") + "; kernel Linux 0.01 vs " + config_of("kernel") + " (compared anyway)";
  EXPECT_EQ(baseline_lines(r.err), "zerolab lab: warning: " + warning + "\n");
  // Compared anyway, in one table: the machine's config lines do not split it.
  EXPECT_NE(r.out.find(kWidgetsSame), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Imaginary"), std::string::npos) << r.out;
  const std::string report = read_file(r.dir + "/report.md");
  EXPECT_NE(report.find("\n\n> warning: " + warning + "\n\n### widgets\n"), std::string::npos)
      << report;
}

TEST(LabBaseline, UnknownAndMissingExperimentsAreSaidAndSkipped) {
  const Experiment widgets = widgets_experiment("widgets");
  const Experiment gone = widgets_experiment("gone");
  const Experiment fresh = widgets_experiment("fresh");
  const std::string dir = save_base({&widgets, &gone});
  Baseline b;
  std::string error;
  ASSERT_TRUE(load_baseline(dir, "base", {"widgets", "fresh"}, b, error)) << error;
  const std::string unknown =
      "baseline base has results for experiment \"gone\", which is no longer in the catalog; "
      "skipped";
  EXPECT_EQ(b.warnings, std::vector<std::string>{unknown});
  ASSERT_EQ(b.files.size(), 1u);
  EXPECT_EQ(b.files[0].experiment_id, "widgets");

  g_widgets = 1;
  const LabRun r = run({&widgets, &fresh}, &b, 1000);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(baseline_lines(r.err),
            "zerolab lab: warning: " + unknown +
                "\nzerolab lab: warning: experiment \"fresh\" is not in baseline base; nothing to "
                "compare it with\n");
  EXPECT_NE(r.out.find("\nwidgets:\npkg: zerolab/lab/widgets\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\nfresh:\n"), std::string::npos) << r.out;
  EXPECT_NE(
      read_file(r.dir + "/report.md").find("\n> warning: experiment \"fresh\" is not in baseline"),
      std::string::npos);

  // Only an experiment the baseline lacks: nothing compared, said so; the
  // gate could not judge the run, so it fails.
  const LabRun only_fresh = run({&fresh}, &b, 0);
  EXPECT_EQ(only_fresh.code, 1) << only_fresh.err;
  EXPECT_NE(only_fresh.err.find(
                "zerolab lab: --fail-on-regression: nothing was compared with baseline base, "
                "so the run could not be judged\n"),
            std::string::npos)
      << only_fresh.err;
  EXPECT_TRUE(
      only_fresh.out.ends_with(") vs this-run:\nnot run this time: widgets\nno experiment to "
                               "compare\n"))
      << only_fresh.out;
  EXPECT_NE(read_file(only_fresh.dir + "/report.md").find("\nNot run this time: `widgets`.\n"),
            std::string::npos);
}

TEST(LabBaseline, LeftoversOfAnInterruptedSaveAreNeverABaseline) {
  const Experiment e = widgets_experiment("widgets");
  const std::string dir = save_base({&e});
  // A save that died before its rename leaves NAME+tmp.<pid>: not a valid
  // name, so never loaded, and a later save is unaffected.
  ASSERT_EQ(::mkdir((dir + "/base+tmp.1").c_str(), 0777), 0);
  write_file(dir + "/base+tmp.1/widgets.txt", "half");
  Baseline b;
  std::string error;
  EXPECT_FALSE(load_baseline(dir, "base+tmp.1", {"widgets"}, b, error));
  ASSERT_TRUE(load_baseline(dir, "base", {"widgets"}, b, error)) << error;
  EXPECT_EQ(b.files[0].results, 6u);
  // Saving fails cleanly when a result file is missing: the old baseline stays.
  const std::string before = read_file(dir + "/base/widgets.txt");
  const std::string empty_results = temp_dir();
  EXPECT_FALSE(save_baseline(empty_results, {"widgets"}, dir, "base", {}, error));
  EXPECT_EQ(error, "cannot read " + empty_results + "/widgets.txt: No such file or directory");
  EXPECT_EQ(read_file(dir + "/base/widgets.txt"), before);
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"base", "base+tmp.1"}));
}

// ---- zerolab lab on the command line ------------------------------------------------------

Command run_cli(const std::string& args, const std::string& dir, const std::string& env = "") {
  return lab_test_util::run_cli(ZEROLAB_CLI, args, dir, env);
}

void broken_benchmark(B& b) {
  b.fatal("broken on purpose");
}

// A7: a run with a failed benchmark is never saved as a baseline.
TEST(LabBaseline, ARunWithFailedBenchmarksIsNotSaved) {
  Experiment e = widgets_experiment("widgets");
  e.benchmarks = {{"BenchmarkBroken", &broken_benchmark, 100}};
  const std::string dir = temp_dir();
  const LabRun r = run({&e}, nullptr, -1, dir, "base");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(
      r.err.find("zerolab lab: baseline base not saved: this run had failed benchmarks, errored "
                 "claims or failed writes\n"),
      std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("saved as baseline"), std::string::npos) << r.out;
  EXPECT_EQ(entries(dir), std::vector<std::string>{});
}

// A staged run (-o DIR: written into DIR+tmp.<pid>, then put in place)
// names this run's files in its baseline warnings where they are after the
// run, never in the staging directory that is gone by then.
TEST(LabBaseline, AStagedRunsWarningsNameTheFilesWhereTheyEndUp) {
  const Experiment saved = widgets_experiment("widgets");
  const std::string dir = save_base({&saved});
  Baseline b;
  std::string error;
  ASSERT_TRUE(load_baseline(dir, "base", {"widgets"}, b, error)) << error;
  Experiment broken = widgets_experiment("widgets");
  broken.benchmarks = {{"BenchmarkBroken", &broken_benchmark, 100}};
  LabSettings s;
  s.experiments = {&broken};
  s.count = 6;
  s.iterations = 100;
  s.benchtime_text = "100x";
  s.out_dir = dir + "/run+tmp.1";
  s.final_dir = dir + "/run";
  s.command = "test";
  s.baseline = &b;
  ASSERT_EQ(::mkdir(s.out_dir.c_str(), 0777), 0);
  std::FILE* out = std::fopen((dir + "/stdout").c_str(), "w");
  std::FILE* err = std::fopen((dir + "/stderr").c_str(), "w");
  ASSERT_TRUE(out != nullptr && err != nullptr);
  const int code = run_lab(s, out, err);
  std::fclose(out);
  std::fclose(err);
  EXPECT_EQ(code, 1);
  const std::string stderr_text = read_file(dir + "/stderr");
  EXPECT_NE(
      stderr_text.find("zerolab lab: warning: " + dir +
                       "/run/widgets.txt: this run has no results to compare with baseline base\n"),
      std::string::npos)
      << stderr_text;
  EXPECT_EQ(stderr_text.find("+tmp."), std::string::npos) << stderr_text;
  const std::string report = read_file(dir + "/run/report.md");
  EXPECT_NE(report.find(dir + "/run/widgets.txt: this run has no results"), std::string::npos)
      << report;
  EXPECT_EQ(report.find("+tmp."), std::string::npos) << report;
  EXPECT_FALSE(exists(s.out_dir));
}

// --save and --baseline on the results store: tests/store_baseline_test.cpp.

// A staging directory ("out+tmp.<pid>") armed for removal is gone when a
// fatal signal ends the process (SIGTERM sent, SIGXFSZ from a write past
// ulimit -f), and the process still ends by that signal; once disarmed
// (the directory put in place) a signal leaves it.
TEST(LabStagingCleanup, AFatalSignalRemovesTheStagingDirectory) {
  const std::string dir = temp_dir();
  struct Case {
    int signal;
    bool disarm;
  };
  for (const Case c : {Case{SIGTERM, false}, Case{SIGXFSZ, false}, Case{SIGINT, true}}) {
    SCOPED_TRACE(c.signal);
    const std::string staging = dir + "/out+tmp." + std::to_string(c.signal);
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const rlimit no_core{0, 0};
      ::setrlimit(RLIMIT_CORE, &no_core);
      ::mkdir(staging.c_str(), 0777);
      ::mkdir((staging + "/deep").c_str(), 0777);
      ::mkdir((staging + "/deep/er").c_str(), 0777);
      for (int i = 0; i < 300; ++i) {
        write_file(staging + "/deep/er/f" + std::to_string(i), "x");
        write_file(staging + "/f" + std::to_string(i), "x");
      }
      ::symlink("/", (staging + "/root-link").c_str());
      remove_on_fatal_signal(staging);
      if (c.disarm) keep_on_fatal_signal(staging);
      if (c.signal == SIGXFSZ) {
        const rlimit small{4096, 4096};
        ::setrlimit(RLIMIT_FSIZE, &small);
        write_file(staging + "/big", std::string(1 << 20, 'b'));
      } else {
        ::kill(::getpid(), c.signal);
      }
      ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == c.signal) << status;
    EXPECT_EQ(exists(staging), c.disarm);
  }
  EXPECT_TRUE(exists("/etc"));
}

TEST(LabBaselineCli, BadUsageAndBadBaselinesExit2AndRunNothing) {
  const std::string dir = temp_dir();
  const std::string results = dir + "/results";
  const std::pair<std::string, std::string> cases[] = {
      {"lab --fail-on-regression=5 -o " + results,
       "zerolab lab: flag -fail-on-regression needs --baseline NAME (a baseline to compare "
       "with)\n"},
      {"lab --baseline x --fail-on-regression=abc -o " + results,
       "zerolab lab: invalid value \"abc\" for flag -fail-on-regression: must be a percentage >= 0 "
       "(5 or 5%)\n"},
      {"lab --baseline x --fail-on-regression=-1 -o " + results,
       "zerolab lab: invalid value \"-1\" for flag -fail-on-regression: must be a percentage >= 0 "
       "(5 or 5%)\n"},
      {"lab --save ../x -o " + results,
       "zerolab lab: invalid value \"../x\" for flag -save: use only letters, digits, '.', '_' "
       "and '-' (one path component)\n"},
      {"lab --baseline", "zerolab lab: flag needs an argument: -baseline\n"},
      {"lab --baseline-dir= --save x",
       "zerolab lab: invalid value \"\" for flag -baseline-dir: empty "
       "directory name\n"},
      {"lab merge --baseline nosuch --baseline-dir " + dir + " -o " + results,
       "zerolab lab: baseline \"nosuch\" not found: " + dir + "/nosuch does not exist\n"},
  };
  for (const auto& [args, message] : cases) {
    const Command c = run_cli(args, dir);
    EXPECT_EQ(c.code, 2) << args;
    EXPECT_EQ(c.err, message) << args;
    EXPECT_EQ(c.out, "") << args;
    EXPECT_FALSE(exists(results)) << args;
  }
  // A corrupt file of a catalog experiment: named with its line, nothing run.
  ASSERT_EQ(::mkdir((dir + "/bad").c_str(), 0777), 0);
  write_file(dir + "/bad/manifest", "format: 1\nexperiment: merge 1\n");
  write_file(dir + "/bad/merge.txt", "goos: linux\nBenchmarkMerge 10 fast ns/op\n");
  const Command c =
      run_cli("lab merge --baseline bad --baseline-dir " + dir + " -o " + results, dir);
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(c.err,
            "zerolab lab: " + dir + "/bad/merge.txt:2: parsing measurement: invalid syntax\n");
  EXPECT_EQ(c.out, "");
  EXPECT_FALSE(exists(results));

  const Command help = run_cli("lab --help", dir);
  EXPECT_EQ(help.code, 0);
  for (const char* flag : {"--save NAME", "--baseline NAME", "--baseline-dir DIR",
                           "--fail-on-regression[=PCT]", "$ZEROLAB_BASELINE_DIR", "Exit codes:"}) {
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace zerolab::lab
