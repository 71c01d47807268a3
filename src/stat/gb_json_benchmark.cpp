// benchmark_to_record (stat/gb_json_benchmark.hpp): Google Benchmark's
// fields to benchfmt's units.
//
// Example:
//   {"name": "BM_A", "iterations": 10, "real_time": 5, "cpu_time": 4, "time_unit": "us", "Custom":
//   3}
//   -> BenchmarkBM_A 10 5e-6 sec/op 4e-6 cpu-sec/op 3 Custom
#include "gb_json_benchmark.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace zerolab::stat {
namespace {

bool is_known_non_metric(std::string_view key) {
  static constexpr std::string_view kKeys[] = {"name",
                                               "run_name",
                                               "run_type",
                                               "family_index",
                                               "per_family_instance_index",
                                               "repetitions",
                                               "repetition_index",
                                               "threads",
                                               "iterations",
                                               "real_time",
                                               "cpu_time",
                                               "time_unit",
                                               "label",
                                               "error_occurred",
                                               "error_message",
                                               "aggregate_name",
                                               "aggregate_unit",
                                               "big_o",
                                               "rms",
                                               "complexity_n",
                                               "memory_iterations",
                                               "skipped",
                                               "skip_message"};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

std::string unit_for_counter(std::string_view key) {
  if (key == "bytes_per_second") return "B/s";
  if (key == "items_per_second") return "items/s";
  // A benchmark::MemoryManager's figures. Google Benchmark measures them in
  // a separate pass of its own iteration count (see memory_pass_iterations):
  // allocs_per_iter is already per iteration; total_allocated_bytes becomes
  // B/op when that count is known, else it stays the pass's total; the peak
  // and the net growth are figures for the whole pass.
  if (key == "allocs_per_iter") return "allocs/op";
  if (key == "max_bytes_used") return "max-B";
  if (key == "total_allocated_bytes") return "alloc-B";
  if (key == "net_heap_growth") return "net-heap-B";
  std::string u(key);
  for (char& c : u) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') c = '_';
  }
  return u;
}

// A whole non-negative count written as a number ("100", "1e3"), or false.
bool to_count(const JsonScalar& s, std::int64_t& out) {
  if (s.type != JsonScalar::Type::kNumber) return false;
  const char* end = s.text.data() + s.text.size();
  if (auto [p, ec] = std::from_chars(s.text.data(), end, out); ec == std::errc() && p == end)
    return out >= 0;
  if (!(s.number >= 0 && s.number < 9.2e18) || std::floor(s.number) != s.number) return false;
  out = static_cast<std::int64_t>(s.number);
  return true;
}

// The iteration count of Google Benchmark's memory pass: the "memory_iterations"
// field if present, else min(16, iterations per thread), as every Google
// Benchmark from 1.5 to 1.9 chooses it (benchmark_runner.cc; the JSON's
// "iterations" is the sum over threads, the memory pass runs on one).
// 0 when unknown.
double memory_pass_iterations(const JsonScalar* memory_iterations, const JsonScalar* iterations,
                              const JsonScalar* threads) {
  if (memory_iterations != nullptr && memory_iterations->type == JsonScalar::Type::kNumber) {
    const double v = memory_iterations->number;
    return v >= 1 && v <= 1e18 ? std::floor(v) : 0;
  }
  if (iterations == nullptr || iterations->type != JsonScalar::Type::kNumber) return 0;
  const double v = iterations->number;
  if (!(v >= 1 && v <= 1e18)) return 0;
  double t = 1;
  if (threads != nullptr && threads->type == JsonScalar::Type::kNumber) {
    t = threads->number;
    if (!(t >= 1 && t <= 1e18)) return 0;
  }
  const double per_thread = std::floor(v / std::floor(t));
  return per_thread >= 1 ? std::min(16.0, per_thread) : 0;
}

const JsonScalar* find(const JsonFields& fields, std::string_view k) {
  for (const auto& f : fields) {
    if (f.first == k) return &f.second;
  }
  return nullptr;
}

}  // namespace

std::string JsonScalar::describe() const {
  switch (type) {
    case Type::kString:
      return "\"" + text + "\"";
    case Type::kNull:
      return "null";
    case Type::kComposite:
      return "an object or array";
    default:
      return text;
  }
}

bool benchmark_to_record(const JsonFields& fields, BenchRecord& rec,
                         std::vector<std::string>& warnings) {
  const JsonScalar* name = find(fields, "name");
  if (name == nullptr || name->type != JsonScalar::Type::kString || name->text.empty()) {
    warnings.emplace_back("benchmark without a \"name\"");
    return false;
  }
  if (const JsonScalar* rt = find(fields, "run_type"); rt != nullptr && rt->text == "aggregate")
    return false;
  if (find(fields, "aggregate_name") != nullptr) return false;
  if (const JsonScalar* e = find(fields, "error_occurred"); e != nullptr && e->text == "true") {
    const JsonScalar* msg = find(fields, "error_message");
    warnings.push_back("benchmark " + name->text +
                       " failed: " + (msg != nullptr ? msg->text : std::string("error")));
    return false;
  }
  if (const JsonScalar* s = find(fields, "skipped"); s != nullptr && s->text == "true")
    return false;
  const std::string who = "benchmark " + name->text;

  if (const JsonScalar* it = find(fields, "iterations"); it != nullptr) {
    std::int64_t n = 0;
    if (to_count(*it, n)) {
      rec.result.iterations = n;
    } else {
      warnings.push_back(who + ": \"iterations\" is " + it->describe() +
                         ", not an iteration count (taken as 0)");
    }
  }
  double time_scale = 1e-9;
  std::string time_unit = "ns";
  if (const JsonScalar* tu = find(fields, "time_unit"); tu != nullptr) {
    time_unit = tu->text;
    if (time_unit == "ns") {
      time_scale = 1e-9;
    } else if (time_unit == "us") {
      time_scale = 1e-6;
    } else if (time_unit == "ms") {
      time_scale = 1e-3;
    } else if (time_unit == "s") {
      time_scale = 1;
    } else {
      warnings.push_back(who + ": unknown time_unit \"" + time_unit + "\"");
      return false;
    }
  }
  auto add_time = [&](std::string_view key, std::string_view unit) {
    const JsonScalar* t = find(fields, key);
    if (t == nullptr) return;
    if (t->type != JsonScalar::Type::kNumber) {
      warnings.push_back(who + ": \"" + std::string(key) + "\" is " + t->describe() +
                         ", not a time (no " + std::string(unit) + ")");
      return;
    }
    rec.result.metrics.push_back(benchfmt::Metric{t->number * time_scale, std::string(unit)});
    rec.original.push_back(
        benchfmt::Metric{t->number, (unit == "sec/op" ? "" : "cpu-") + time_unit + "/op"});
  };
  add_time("real_time", "sec/op");
  add_time("cpu_time", "cpu-sec/op");
  // The memory manager's figures go last, in the Go order (B/op before
  // allocs/op), whatever order the file has them in.
  static constexpr std::string_view kMemoryKeys[] = {"total_allocated_bytes", "allocs_per_iter",
                                                     "max_bytes_used", "net_heap_growth"};
  const double memory_pass = memory_pass_iterations(
      find(fields, "memory_iterations"), find(fields, "iterations"), find(fields, "threads"));
  for (const auto& [key, value] : fields) {
    if (value.type != JsonScalar::Type::kNumber || is_known_non_metric(key) || key.empty())
      continue;
    if (std::find(std::begin(kMemoryKeys), std::end(kMemoryKeys), key) != std::end(kMemoryKeys))
      continue;
    rec.result.metrics.push_back(benchfmt::Metric{value.number, unit_for_counter(key)});
    rec.original.push_back(benchfmt::Metric{value.number, std::string()});
  }
  for (std::string_view key : kMemoryKeys) {
    const JsonScalar* value = find(fields, key);
    if (value == nullptr || value->type != JsonScalar::Type::kNumber) continue;
    if (key == "total_allocated_bytes" && memory_pass > 0) {
      rec.result.metrics.push_back(benchfmt::Metric{value->number / memory_pass, "B/op"});
    } else {
      rec.result.metrics.push_back(benchfmt::Metric{value->number, unit_for_counter(key)});
    }
    rec.original.push_back(benchfmt::Metric{value->number, std::string()});
  }
  if (rec.result.metrics.empty()) {
    warnings.push_back(who + " has no measurements");
    return false;
  }
  rec.result.name = "Benchmark" + name->text;
  return true;
}

}  // namespace zerolab::stat
