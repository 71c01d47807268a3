// One element of Google Benchmark's "benchmarks" array, read whole by the
// JSON reader's SAX handler (gb_json_handler.cpp), turned into a result:
// times in seconds per op, counters under their own units, a
// benchmark::MemoryManager's figures per op where the memory pass's length
// is known, and a warning naming the field for each value of the wrong kind.
//
// Example:
//   zerolab::stat::JsonFields f = {{"name", JsonScalar::string("BM_A")},
//                                  {"real_time", JsonScalar::number_of("5", 5)},
//                                  {"time_unit", JsonScalar::string("us")}};
//   zerolab::stat::BenchRecord rec;
//   std::vector<std::string> warnings;
//   zerolab::stat::benchmark_to_record(f, rec, warnings);
//   // true: rec.result.name == "BenchmarkBM_A", metrics {5e-6, "sec/op"}
#ifndef ZEROLAB_SRC_STAT_GB_JSON_BENCHMARK_HPP_
#define ZEROLAB_SRC_STAT_GB_JSON_BENCHMARK_HPP_

#include <string>
#include <utility>
#include <vector>

#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {

// A JSON value inside a benchmark object: strings unescaped, numbers as
// written (integers in decimal, NaN/±Infinity by name) and as a double;
// objects and arrays only as kComposite.
struct JsonScalar {
  enum class Type { kString, kNumber, kBool, kNull, kComposite } type = Type::kNull;
  std::string text;
  double number = 0;

  static JsonScalar string(std::string s) { return {Type::kString, std::move(s), 0}; }
  static JsonScalar number_of(std::string written, double v) {
    return {Type::kNumber, std::move(written), v};
  }

  // How a message quotes the value: "\"many\"", 1e30, null.
  std::string describe() const;
};

using JsonFields = std::vector<std::pair<std::string, JsonScalar>>;

// Fills rec.result and rec.original from one benchmark object's fields and
// returns true; false when the object gives no result (an aggregate, a
// skipped or failed run, no name, no measurement). Either way, `warnings`
// gets the messages to print for it, in order, without file and line
// ("benchmark BM_X failed: boom").
bool benchmark_to_record(const JsonFields& fields, BenchRecord& rec,
                         std::vector<std::string>& warnings);

}  // namespace zerolab::stat

#endif  // ZEROLAB_SRC_STAT_GB_JSON_BENCHMARK_HPP_
