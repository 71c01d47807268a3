// Tests of the Google Benchmark JSON reader (zerolab::stat::GbJsonReader):
// Google Benchmark's fields to benchfmt's units, lines from byte offsets,
// NaN/Infinity, the warnings on fields of the wrong kind and a byte-order mark, the limits on what
// the parser buffers, and streaming: the parser runs on a Fiber, reads only on the caller's thread,
// a chunk ahead at most, and stops when the reader is dropped. Labelled "concurrent": it runs under
// TSan too.
//
// Example:
//   ./stat_json_test --gtest_filter='GbJsonReader.*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "stat/json_stream.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {
namespace {

struct Read {
  std::vector<BenchRecord> results;
  std::vector<std::string> errors;
  std::string io_error;
};

Read read_all(RecordReader& r) {
  Read out;
  while (r.next()) {
    if (r.kind() == RecordKind::kResult) {
      out.results.push_back(r.result());
    } else {
      out.errors.push_back(r.syntax_error().to_string());
    }
  }
  out.io_error = r.error();
  return out;
}

Read read_json(const std::string& text) {
  StringSource src(text);
  GbJsonReader r(src, "in.json");
  return read_all(r);
}

TEST(GbJsonReader, MapsRunsToResults) {
  const Read r = read_json(R"({
    "context": {"host_name": "ci", "num_cpus": 8, "cpu_scaling_enabled": false, "caches": [{"level": 1}]},
    "benchmarks": [
      {"name": "BM_A/64", "run_type": "iteration", "iterations": 100, "real_time": 12.5, "cpu_time": 12.0,
       "time_unit": "us", "bytes_per_second": 1.5e9, "items_per_second": 2e6, "Custom": 3},
      {"name": "BM_A/64_mean", "run_type": "aggregate", "aggregate_name": "mean", "real_time": 1, "time_unit": "ns"},
      {"name": "BM_Err", "run_type": "iteration", "error_occurred": true, "error_message": "boom"},
      {"name": "BM_Mem", "iterations": 10, "real_time": 1, "time_unit": "ms", "allocs_per_iter": 2,
       "max_bytes_used": 64, "total_allocated_bytes": 128, "net_heap_growth": 0}
    ]})");
  ASSERT_EQ(r.results.size(), 2u);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "in.json:7: benchmark BM_Err failed: boom");
  const BenchRecord& a = r.results[0];
  EXPECT_EQ(a.result.name, "BenchmarkBM_A/64");
  EXPECT_EQ(a.result.iterations, 100);
  EXPECT_EQ(a.config_value("host_name"), "ci");
  EXPECT_EQ(a.config_value("num_cpus"), "8");
  EXPECT_EQ(a.config_value("cpu_scaling_enabled"), "false");
  EXPECT_EQ(a.config_value("caches"), "");
  ASSERT_EQ(a.result.metrics.size(), 5u);
  EXPECT_EQ(a.result.metrics[0].unit, "sec/op");
  EXPECT_DOUBLE_EQ(a.result.metrics[0].value, 12.5e-6);
  EXPECT_EQ(a.original[0].unit, "us/op");
  EXPECT_EQ(a.result.metrics[1].unit, "cpu-sec/op");
  EXPECT_EQ(a.result.metrics[2].unit, "B/s");
  EXPECT_EQ(a.result.metrics[3].unit, "items/s");
  EXPECT_EQ(a.result.metrics[4].unit, "Custom");
  const BenchRecord& m = r.results[1];
  std::vector<std::string> units;
  for (const auto& metric : m.result.metrics) units.push_back(metric.unit);
  EXPECT_EQ(units,
            (std::vector<std::string>{"sec/op", "B/op", "allocs/op", "max-B", "net-heap-B"}));
  EXPECT_DOUBLE_EQ(m.result.metrics[0].value, 1e-3);
  EXPECT_EQ(m.result.metrics[1].value,
            12.8);  // 128 bytes in a memory pass of min(16, 10) iterations
}

// A benchmark::MemoryManager's figures (Google Benchmark measures them in a
// separate pass of min(16, iterations per thread) iterations): B/op is the
// pass's total_allocated_bytes over that count; the peak and the net growth
// stay figures for the pass; the raw values are kept in `original`.
TEST(GbJsonReader, MemoryFiguresBecomePerOpUnits) {
  const Read r = read_json(R"({"benchmarks": [
    {"name": "BM_T", "iterations": 20, "threads": 2, "real_time": 1, "time_unit": "ns", "Custom": 7,
     "allocs_per_iter": 3, "max_bytes_used": 1064, "total_allocated_bytes": 10640, "net_heap_growth": -8},
    {"name": "BM_Long", "iterations": 1000000, "real_time": 1, "time_unit": "ns",
     "total_allocated_bytes": 1600, "allocs_per_iter": 0.0625},
    {"name": "BM_Declared", "iterations": 1000, "memory_iterations": 4, "real_time": 1, "time_unit": "ns",
     "total_allocated_bytes": 100},
    {"name": "BM_NoIterations", "real_time": 1, "time_unit": "ns", "total_allocated_bytes": 77},
    {"name": "BM_FewPerThread", "iterations": 5, "threads": 8, "real_time": 1, "time_unit": "ns",
     "total_allocated_bytes": 40}
  ]})");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0];
  ASSERT_EQ(r.results.size(), 5u);
  auto metrics = [&r](std::size_t i) {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& m : r.results[i].result.metrics) out.emplace_back(m.unit, m.value);
    return out;
  };
  using M = std::vector<std::pair<std::string, double>>;
  // 10 iterations per thread: a pass of 10, so 10640 bytes are 1064 B/op.
  EXPECT_EQ(metrics(0), (M{{"sec/op", 1e-9},
                           {"Custom", 7},
                           {"B/op", 1064},
                           {"allocs/op", 3},
                           {"max-B", 1064},
                           {"net-heap-B", -8}}));
  EXPECT_EQ(r.results[0].original[2].value, 10640);
  EXPECT_EQ(metrics(1),
            (M{{"sec/op", 1e-9}, {"B/op", 100}, {"allocs/op", 0.0625}}));  // a pass of 16
  EXPECT_EQ(metrics(2), (M{{"sec/op", 1e-9}, {"B/op", 25}}));              // the file says 4
  // The pass's length unknown: the total, under a unit that says so.
  EXPECT_EQ(metrics(3), (M{{"sec/op", 1e-9}, {"alloc-B", 77}}));
  EXPECT_EQ(metrics(4), (M{{"sec/op", 1e-9}, {"alloc-B", 40}}));
}

TEST(GbJsonReader, RejectsOtherJson) {
  EXPECT_EQ(
      read_json(R"({"foo": [1, 2]})").errors,
      std::vector<std::string>{"in.json:1: not Google Benchmark JSON: no \"benchmarks\" array"});
  EXPECT_EQ(read_json("[1]").errors,
            std::vector<std::string>{
                "in.json:1: not Google Benchmark JSON: the input is not a JSON object"});
  const Read t = read_json("{\"benchmarks\": [{\"name\": \"BM_A\", \"real_time\": 1}, {\"name\": ");
  EXPECT_EQ(t.results.size(), 1u);
  ASSERT_EQ(t.errors.size(), 1u);
  EXPECT_EQ(t.errors[0].rfind("in.json:1: invalid JSON:", 0), 0u) << t.errors[0];
  const Read deep = read_json("{\"x\": " + std::string(10000, '[') + "}");
  ASSERT_EQ(deep.errors.size(), 1u);
  EXPECT_NE(deep.errors[0].find("nesting deeper than"), std::string::npos);
}

TEST(GbJsonReader, EscapesAndSpecialNumbers) {
  const Read r = read_json(
      R"({"context": {"a": "\u00e9\ud83d\ude00"}, "benchmarks": [{"name": "BM_\"q\"", "iterations": 1,)"
      R"( "real_time": NaN, "time_unit": "ns", "x": -Infinity}]})");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].config_value("a"), "é😀");
  EXPECT_EQ(r.results[0].full_name(), "BM_\"q\"");
  EXPECT_TRUE(std::isnan(r.results[0].result.metrics[0].value));
  EXPECT_EQ(r.results[0].result.metrics[1].value, -std::numeric_limits<double>::infinity());
}

// A source that hands out one byte per read: every token (NaN, Infinity,
// numbers, the '{' a line is taken from) straddles a read boundary.
class OneByteSource final : public zerolab::stat::ByteSource {
 public:
  explicit OneByteSource(std::string_view data) : data_(data) {}
  std::ptrdiff_t read(char* buf, std::size_t n, std::string& /*error*/) override {
    if (n == 0 || pos_ >= data_.size()) return 0;
    buf[0] = data_[pos_++];
    return 1;
  }

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

TEST(GbJsonReader, LinesAndSpecialNumbersAcrossReadBoundaries) {
  const std::string text =
      "{\"context\": {\"s\": \"NaN Infinity\"},\n"
      "\"benchmarks\": [\n"
      "{\"name\": \"BM_A\", \"real_time\": -Infinity, \"time_unit\": \"ns\", \"x\": NaN},\n\n"
      "  {\"name\": \"BM_B\",\n \"real_time\": 2, \"time_unit\": \"ns\"}\n"
      "]}\n";
  OneByteSource src(text);
  GbJsonReader r(src, "in.json");
  const Read got = read_all(r);
  ASSERT_TRUE(got.errors.empty()) << got.errors[0];
  ASSERT_EQ(got.results.size(), 2u);
  EXPECT_EQ(got.results[0].config_value("s"), "NaN Infinity");  // inside a string: as written
  EXPECT_EQ(got.results[0].line, 3);
  EXPECT_EQ(got.results[0].result.metrics[0].value, -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(got.results[0].result.metrics[1].value));
  EXPECT_EQ(got.results[1].line, 5);
  // A syntax error's line comes from its byte offset.
  const Read bad =
      read_json("{\"benchmarks\": [\n{\"name\": \"BM_A\", \"real_time\": 1},\n{\"name\" 1}]}");
  EXPECT_EQ(bad.results.size(), 1u);
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_EQ(bad.errors[0].rfind("in.json:3: invalid JSON: ", 0), 0u) << bad.errors[0];
}

// A field of the wrong kind is a warning naming the line and
// the field, not a silent N of 0 or a missing sec/op.
TEST(GbJsonReader, WarnsAboutFieldsOfTheWrongKind) {
  const Read r = read_json(R"({"benchmarks": [
    {"name": "BM_Many", "iterations": "many", "real_time": 5, "time_unit": "ns"},
    {"name": "BM_Huge", "iterations": 1e30, "real_time": 5, "time_unit": "ns"},
    {"name": "BM_Fast", "iterations": 10, "real_time": "fast", "cpu_time": 4, "time_unit": "ns"},
    {"name": "BM_Null", "iterations": 1e3, "real_time": null, "cpu_time": 4, "time_unit": "ns"}]})");
  EXPECT_EQ(r.errors,
            (std::vector<std::string>{
                "in.json:2: benchmark BM_Many: \"iterations\" is \"many\", not an iteration count "
                "(taken as 0)",
                "in.json:3: benchmark BM_Huge: \"iterations\" is 1e30, not an iteration count "
                "(taken as 0)",
                "in.json:4: benchmark BM_Fast: \"real_time\" is \"fast\", not a time (no sec/op)",
                "in.json:5: benchmark BM_Null: \"real_time\" is null, not a time (no sec/op)"}));
  ASSERT_EQ(r.results.size(), 4u);
  EXPECT_EQ(r.results[0].result.iterations, 0);
  EXPECT_EQ(r.results[3].result.iterations, 1000);
  EXPECT_EQ(r.results[2].result.metrics[0].unit, "cpu-sec/op");
}

// A UTF-8 byte-order mark before the JSON.
TEST(GbJsonReader, AcceptsAByteOrderMark) {
  const Read r =
      read_json("\xEF\xBB\xBF{\"benchmarks\": [{\"name\": \"BM_A\", \"real_time\": 1}]}");
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.results.size(), 1u);
}

// An endless Google Benchmark file: the header, then "BM_0", "BM_1", ...
// one per line, forever. Counts what it hands out and on which thread.
class EndlessSource final : public ByteSource {
 public:
  static constexpr std::string_view kHeader = "{\"benchmarks\": [\n";

  std::ptrdiff_t read(char* buf, std::size_t n, std::string& /*error*/) override {
    if (std::this_thread::get_id() != owner_) foreign_reads_++;
    std::size_t given = 0;
    while (given < n) {
      if (pending_.empty()) pending_ = record(next_++);
      const std::size_t k = std::min(n - given, pending_.size());
      pending_.copy(buf + given, k);
      pending_.erase(0, k);
      given += k;
    }
    handed_out_ += given;
    return static_cast<std::ptrdiff_t>(given);
  }

  // The bytes of the file up to and including record i.
  static std::size_t bytes_through(int i) {
    std::size_t total = kHeader.size();
    for (int j = 0; j <= i; ++j) total += record(j).size();
    return total;
  }

  std::size_t handed_out() const { return handed_out_; }
  int foreign_reads() const { return foreign_reads_; }

 private:
  static std::string record(int i) {
    return "{\"name\": \"BM_" + std::to_string(i) +
           "\", \"iterations\": 10, \"real_time\": 1.5},\n";
  }

  std::thread::id owner_ = std::this_thread::get_id();
  std::string pending_ = std::string(kHeader);
  int next_ = 0;
  std::size_t handed_out_ = 0;
  int foreign_reads_ = 0;
};

// The reader hands records out as it parses: it never reads more than a
// chunk and a queue ahead of what next() has returned, reads only on the
// caller's thread, and a reader dropped in the middle of an endless input
// stops at once.
TEST(GbJsonReader, StreamsARecordAtATime) {
  EndlessSource src;
  {
    GbJsonReader r(src, "endless.json");
    const std::size_t ahead = JsonByteStream::kChunk + 1024 * EndlessSource::bytes_through(0);
    for (int i = 0; i < 5000; ++i) {
      ASSERT_TRUE(r.next());
      ASSERT_EQ(r.kind(), RecordKind::kResult);
      ASSERT_EQ(r.result().result.name, "BenchmarkBM_" + std::to_string(i));
      ASSERT_EQ(r.result().line, i + 2);
      if (i % 500 == 0) {
        ASSERT_LE(src.handed_out(), EndlessSource::bytes_through(i) + ahead) << i;
      }
    }
  }
  EXPECT_EQ(src.foreign_reads(), 0);
  EXPECT_LT(src.handed_out(),
            EndlessSource::bytes_through(5000) + JsonByteStream::kChunk + 1024 * 60);
}

// What the parser would buffer is bounded: a string over 1 MiB or a number
// over 400 bytes ends the reading with a message naming the line.
TEST(GbJsonReader, BoundsStringsAndNumbers) {
  const std::string mib(JsonByteStream::kMaxString, 'x');
  const Read ok = read_json("{\"context\": {\"k\": \"" + mib +
                            "\"},\n\"benchmarks\": [{\"name\": \"BM_A\", \"real_time\": 1}]}");
  ASSERT_TRUE(ok.errors.empty()) << ok.errors[0];
  ASSERT_EQ(ok.results.size(), 1u);
  EXPECT_EQ(ok.results[0].config_value("k").size(), mib.size());

  const Read long_string = read_json(
      "{\"benchmarks\": [{\"name\": \"BM_A\", \"real_time\": 1},\n{\"name\": \"" + mib + "y\"}]}");
  EXPECT_EQ(long_string.results.size(), 1u);
  EXPECT_EQ(long_string.errors,
            std::vector<std::string>{"in.json:2: invalid JSON: string longer than 1 MiB"});

  const std::string digits400 = "0." + std::string(397, '0') + "1";
  const Read ok_number =
      read_json("{\"benchmarks\": [{\"name\": \"BM_A\", \"real_time\": " + digits400 + "}]}");
  ASSERT_TRUE(ok_number.errors.empty()) << ok_number.errors[0];
  ASSERT_EQ(ok_number.results.size(), 1u);
  const Read long_number =
      read_json("{\"benchmarks\": [\n\n{\"name\": \"BM_A\", \"real_time\": " + digits400 + "1}]}");
  EXPECT_TRUE(long_number.results.empty());
  EXPECT_EQ(long_number.errors,
            std::vector<std::string>{"in.json:3: invalid JSON: number too long"});
}

}  // namespace
}  // namespace zerolab::stat
