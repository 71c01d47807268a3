// Tests of zerolab::stat's readers: the Go benchmark format exactly as
// benchfmt reads it (config lines, Unit lines, name lines, errors, the
// 64 KiB line limit) and command-line inputs. Google Benchmark JSON:
// stat_json_reader_test.cpp.
//
// Example:
//   ./stat_test --gtest_filter='GoReader.*'
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {
namespace {

struct Read {
  std::vector<BenchRecord> results;
  std::vector<std::string> errors;
  std::vector<UnitMetadata> units;
  std::string io_error;
};

Read read_all(RecordReader& r) {
  Read out;
  while (r.next()) {
    switch (r.kind()) {
      case RecordKind::kResult:
        out.results.push_back(r.result());
        break;
      case RecordKind::kSyntaxError:
        out.errors.push_back(r.syntax_error().to_string());
        break;
      case RecordKind::kUnitMetadata:
        out.units.push_back(r.unit_metadata());
        break;
    }
  }
  out.io_error = r.error();
  return out;
}

Read read_go(const std::string& text, UnitMetadataMap* units = nullptr) {
  StringSource src(text);
  GoReader r(src, "in.txt", {}, units);
  return read_all(r);
}

TEST(GoReader, ResultAndTidiedValues) {
  const Read r = read_go(
      "BenchmarkEncode/format=json-48  \t 690848\t 1726 ns/op\t 64 B/op\t 2 allocs/op\t 512.5 "
      "MB/s\n");
  ASSERT_EQ(r.results.size(), 1u);
  const BenchRecord& b = r.results[0];
  EXPECT_EQ(b.result.name, "BenchmarkEncode/format=json-48");
  EXPECT_EQ(b.full_name(), "Encode/format=json-48");
  EXPECT_EQ(b.result.iterations, 690848);
  ASSERT_EQ(b.result.metrics.size(), 4u);
  EXPECT_EQ(b.result.metrics[0].unit, "sec/op");
  EXPECT_DOUBLE_EQ(b.result.metrics[0].value, 1726e-9);
  EXPECT_EQ(b.original[0].unit, "ns/op");
  EXPECT_EQ(b.result.metrics[1].unit, "B/op");
  EXPECT_EQ(b.original[1].unit, "");
  EXPECT_EQ(b.result.metrics[3].unit, "B/s");
  EXPECT_DOUBLE_EQ(b.result.metrics[3].value, 512.5e6);
  EXPECT_EQ(b.line, 1);
  EXPECT_EQ(b.file, "in.txt");
}

TEST(GoReader, ZeroAndInfinityKeepTheirUnit) {
  // benchfmt keeps the written unit when tidying does not change the value.
  const Read r = read_go("BenchmarkA 1 0 ns/op\nBenchmarkA 1 +Inf ns/op\nBenchmarkA 1 5 ns/op\n");
  ASSERT_EQ(r.results.size(), 3u);
  EXPECT_EQ(r.results[0].result.metrics[0].unit, "ns/op");
  EXPECT_EQ(r.results[1].result.metrics[0].unit, "ns/op");
  EXPECT_EQ(r.results[2].result.metrics[0].unit, "sec/op");
}

TEST(GoReader, ConfigLines) {
  const Read r = read_go(
      "goos: linux\ngoarch: amd64\nBenchmarkA 1 1 x\n"
      "goos:\nkey:novalue\nKey: upper\nmy key: space\nnote: \tspaced value  \nBenchmarkB 1 1 x\n"
      "note:   \nBenchmarkC 1 1 x\n");
  ASSERT_EQ(r.results.size(), 3u);
  EXPECT_EQ(r.results[0].config_value("goos"), "linux");
  EXPECT_EQ(r.results[0].config_value("goarch"), "amd64");
  const auto& cfg = *r.results[1].config;
  // "goos:" deleted goos by swapping goarch into its place.
  ASSERT_EQ(cfg.size(), 2u);
  EXPECT_EQ(cfg[0].key, "goarch");
  EXPECT_EQ(cfg[1].key, "note");
  EXPECT_EQ(cfg[1].value, "spaced value  ");
  EXPECT_EQ(r.results[1].config_value("key"), "");
  EXPECT_EQ(r.results[2].config_value("note"), "");  // spaces only: deleted
  // Results share the configuration until it changes.
  const Read same = read_go("a: b\nBenchmarkA 1 1 x\nBenchmarkB 1 1 x\n");
  EXPECT_EQ(same.results[0].config.get(), same.results[1].config.get());
}

TEST(GoReader, InitialConfig) {
  StringSource src("BenchmarkA 1 1 x\n");
  GoReader reader(src, "f.txt", {{".file", "base", false}});
  ASSERT_TRUE(reader.next());
  ASSERT_EQ(reader.result().config->size(), 1u);
  EXPECT_EQ((*reader.result().config)[0].key, ".file");
  EXPECT_FALSE((*reader.result().config)[0].file);
}

TEST(GoReader, SyntaxErrors) {
  const Read r = read_go(
      "BenchmarkA 10 x ns/op\n"
      "BenchmarkA 10\n"
      "BenchmarkA 10 5\n"
      "BenchmarkA 1x 5 ns/op\n"
      "BenchmarkA 99999999999999999999 5 ns/op\n"
      "BenchmarkA 10 1e999 ns/op\n"
      "BenchmarkA \n"
      "BenchmarkA\n"
      "Unit\n"
      "Unit x a\n"
      "Unit x a=b a=c\n"
      "BenchmarkOK 1 2 ns/op\n");
  const std::vector<std::string> want = {
      "in.txt:1: parsing measurement: invalid syntax",
      "in.txt:2: missing measurements",
      "in.txt:3: missing units",
      "in.txt:4: parsing iteration count: invalid syntax",
      "in.txt:5: parsing iteration count: value out of range",
      "in.txt:6: parsing measurement: value out of range",
      "in.txt:7: missing iteration count",
      "in.txt:9: missing unit",
      "in.txt:10: expected key=value",
      "in.txt:11: metadata a of unit x already set to b",
  };
  EXPECT_EQ(r.errors, want);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].line, 12);
  ASSERT_EQ(r.units.size(), 1u);
  EXPECT_EQ(r.units[0].key, "a");
}

TEST(GoReader, UnitMetadataIsTidiedAndShared) {
  UnitMetadataMap units;
  read_go("Unit ns/op assume=exact better=lower\nUnit MB/s better=higher\n", &units);
  EXPECT_EQ(units.assumption("sec/op"), Assumption::kExact);
  EXPECT_EQ(units.assumption("ns/op"), Assumption::kExact);
  EXPECT_EQ(units.better("B/s"), 1);
  EXPECT_EQ(units.better("sec/op"), -1);
  EXPECT_EQ(units.better("faults/op"), 0);
  EXPECT_EQ(units.better("B/op"), -1);
  const Read again = read_go("Unit ns/op assume=nothing\n", &units);
  ASSERT_EQ(again.errors.size(), 1u);
  EXPECT_EQ(again.errors[0], "in.txt:1: metadata assume of unit ns/op already set to exact");
}

TEST(GoReader, LineEndingsAndSpaces) {
  const Read r = read_go(
      "BenchmarkA\t1\t5\tns/op\r\nBenchmarkB\xc2\xa0"
      "1 6 x\nBenchmarkC 1 7 x");
  ASSERT_EQ(r.results.size(), 3u);
  EXPECT_EQ(r.results[0].result.metrics[0].unit, "sec/op");
  EXPECT_EQ(r.results[1].full_name(), "B");            // U+00A0 separates fields
  EXPECT_EQ(r.results[2].result.metrics[0].value, 7);  // no final newline
}

TEST(GoReader, LongLines) {
  std::string ok =
      "BenchmarkA 1 1 x\n" + std::string(GoReader::kMaxLine - 1, 'y') + "\nBenchmarkA 1 2 x\n";
  const Read r1 = read_go(ok);
  EXPECT_EQ(r1.results.size(), 2u);
  EXPECT_EQ(r1.io_error, "");
  // A 1 MB line stops reading, as Go's bufio.Scanner does.
  std::string bad = "BenchmarkA 1 1 x\n" + std::string(1 << 20, 'y') + "\nBenchmarkA 1 2 x\n";
  const Read r2 = read_go(bad);
  EXPECT_EQ(r2.results.size(), 1u);
  EXPECT_EQ(r2.io_error, "in.txt:1: bufio.Scanner: token too long");
  std::string exact = "BenchmarkA 1 1 x\n" + std::string(GoReader::kMaxLine, 'y');
  EXPECT_EQ(read_go(exact).io_error, "in.txt:1: bufio.Scanner: token too long");
}

TEST(GoReader, BinaryJunkNeverCrashes) {
  std::string junk;
  unsigned x = 12345;
  for (int i = 0; i < 100000; ++i) {
    x = x * 1103515245 + 12345;
    junk.push_back(static_cast<char>(x >> 16));
  }
  const Read r = read_go(junk);
  EXPECT_TRUE(r.results.size() < 100000u);
}

TEST(InputFiles, LabelsAndRepeatedPaths) {
  const std::vector<std::string> args = {"a.txt", "base=b.txt", "a.txt", "-"};
  const auto in = parse_inputs(args);
  ASSERT_EQ(in.size(), 4u);
  EXPECT_EQ(in[0].label, "a.txt#0");
  EXPECT_EQ(in[1].label, "base");
  EXPECT_EQ(in[1].path, "b.txt");
  EXPECT_EQ(in[2].label, "a.txt#1");
  EXPECT_TRUE(in[3].is_stdin);
  EXPECT_EQ(parse_inputs(std::vector<std::string>{}).size(), 1u);  // stdin
  EXPECT_EQ(parse_inputs(std::vector<std::string>{"x=y"}, false)[0].path, "x=y");
}

TEST(InputFiles, ReadsFilesAndReportsErrorsInGoWords) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("zerolab_stat_files_" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub");
  {
    std::ofstream(dir / "a.txt") << "goos: linux\nBenchmarkA 1 5 ns/op\n";
    std::ofstream(dir / "b.json")
        << R"({"benchmarks": [{"name": "BM_B", "real_time": 3, "time_unit": "ns"}]})";
  }
  {
    InputFiles files(parse_inputs(
        std::vector<std::string>{(dir / "a.txt").string(), "j=" + (dir / "b.json").string()}));
    std::vector<std::string> labels;
    while (files.next()) {
      ASSERT_EQ(files.kind(), RecordKind::kResult);
      labels.emplace_back(files.result().config_value(".file"));
      EXPECT_EQ(files.input_is_json(), files.input_index() == 1);
    }
    EXPECT_EQ(files.error(), "");
    EXPECT_EQ(labels, (std::vector<std::string>{(dir / "a.txt").string(), "j"}));
  }
  {
    const std::string missing = (dir / "missing.txt").string();
    InputFiles files(parse_inputs(std::vector<std::string>{missing}));
    EXPECT_FALSE(files.next());
    EXPECT_EQ(files.error(), "open " + missing + ": no such file or directory");
  }
  {
    const std::string sub = (dir / "sub").string();
    InputFiles files(parse_inputs(std::vector<std::string>{sub}));
    EXPECT_FALSE(files.next());
    EXPECT_EQ(files.error(), sub + ":0: read " + sub + ": is a directory");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace zerolab::stat

namespace zerolab::benchfmt {
namespace {

// The Go-format writer shared with the harness: unchanged output for what
// Go's testing package prints, and no undefined behaviour for the values a
// parsed file can hold (found by fuzzing).
TEST(BenchfmtWriter, FormatsResultLines) {
  const Result r{"BenchmarkMerge-2", 58723, {{20018, "ns/op"}, {81920, "B/op"}}};
  EXPECT_EQ(format_result_line(r, 20),
            "BenchmarkMerge-2    \t   58723\t     20018 ns/op\t   81920 B/op");
  const Result odd{"BenchmarkOdd", 1, {{1e300, "B/op"}, {-1e19, "allocs/op"}}};
  const std::string line = format_result_line(odd, 0);
  EXPECT_NE(line.find("B/op"), std::string::npos);
  EXPECT_NE(line.find("allocs/op"), std::string::npos);
}

}  // namespace
}  // namespace zerolab::benchfmt
