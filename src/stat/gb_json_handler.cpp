// GbJsonHandler (stat/gb_json_handler.hpp): a stack of frames says where in
// the document the parser is; scalars of "context" become configuration,
// the fields of a "benchmarks" object are kept until it closes.
//
// Example:
//   {"context": {"host_name": "h"}, "benchmarks": [{"name": "BM_A", "real_time": 5}]}
//   -> a record "BenchmarkBM_A 0 5e-9 sec/op" under host_name: h, at line 1
#include "gb_json_handler.hpp"

#include <limits>
#include <string_view>
#include <utility>

namespace zerolab::stat {

void GbJsonHandler::set_config(const std::string& key, const std::string& value, bool file) {
  snapshot_.reset();
  for (ConfigEntry& c : config_) {
    if (c.key == key) {
      c.value = value;
      c.file = file;
      return;
    }
  }
  config_.push_back(ConfigEntry{key, value, file});
}

void GbJsonHandler::finish() {
  if (!stopped_ && !cancelled_ && !saw_benchmarks_) {
    emit(SyntaxError{file_name_, 1, "not Google Benchmark JSON: no \"benchmarks\" array"});
  }
}

bool GbJsonHandler::number_float(double v, const std::string& written) {
  std::string_view digits(written);
  const bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.remove_prefix(1);
  if (digits == kNaNSpelling) {
    return scalar(
        JsonScalar::number_of(negative ? "-NaN" : "NaN", std::numeric_limits<double>::quiet_NaN()));
  }
  if (digits == kInfinitySpelling) {
    const double inf = std::numeric_limits<double>::infinity();
    return scalar(
        JsonScalar::number_of(negative ? "-Infinity" : "Infinity", negative ? -inf : inf));
  }
  return scalar(JsonScalar::number_of(written, v));
}

bool GbJsonHandler::parse_error(std::size_t position, const std::string& /*last_token*/,
                                const nlohmann::detail::exception& e) {
  if (!saw_anything_) return stop("not Google Benchmark JSON: the input is not a JSON object");
  if (!stream_.limit_error().empty()) return stop(stream_.limit_error());
  // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
  std::string what = e.what();
  const std::size_t colon = what.find(": ");
  if (colon != std::string::npos) what.erase(0, colon + 2);
  stopped_ = true;
  emit(SyntaxError{file_name_, line_of(position > 0 ? position - 1 : 0), "invalid JSON: " + what});
  return false;
}

void GbJsonHandler::emit(JsonEvent event) {
  if (!cancelled_ && !sink_.push(std::move(event))) cancelled_ = true;
}

bool GbJsonHandler::stop(std::string message) {
  stopped_ = true;
  warn(current_line(), std::move(message));
  return false;
}

bool GbJsonHandler::open(bool object) {
  if (frames_.size() >= static_cast<std::size_t>(GbJsonReader::kMaxDepth)) {
    return stop("invalid JSON: nesting deeper than " + std::to_string(GbJsonReader::kMaxDepth));
  }
  const bool first = !saw_anything_;
  saw_anything_ = true;
  if (frames_.empty()) {
    if (!object || !first) return stop("not Google Benchmark JSON: the input is not a JSON object");
    frames_.push_back(Frame::kTop);
    return true;
  }
  Frame next = Frame::kSkip;
  switch (frames_.back()) {
    case Frame::kTop:
      if (key_ == "context" && object) next = Frame::kContext;
      if (key_ == "benchmarks" && !object) {
        next = Frame::kBenchmarks;
        saw_benchmarks_ = true;
      }
      break;
    case Frame::kBenchmarks:
      if (object) {
        next = Frame::kBenchmark;
        fields_.clear();
        benchmark_line_ = current_line();
      } else {
        warn(current_line(), "benchmarks element is not an object");
      }
      break;
    case Frame::kBenchmark:
      fields_.emplace_back(key_, JsonScalar{JsonScalar::Type::kComposite, "", 0});
      break;
    case Frame::kContext:
    case Frame::kSkip:
      break;
  }
  frames_.push_back(next);
  return !cancelled_;
}

bool GbJsonHandler::close() {
  const Frame done = frames_.back();
  frames_.pop_back();
  if (done == Frame::kBenchmark) finish_benchmark();
  return !cancelled_;
}

bool GbJsonHandler::scalar(JsonScalar value) {
  if (frames_.empty()) {
    saw_anything_ = true;
    return stop("not Google Benchmark JSON: the input is not a JSON object");
  }
  switch (frames_.back()) {
    case Frame::kContext:
      add_context(value);
      break;
    case Frame::kBenchmarks:
      warn(current_line(), "benchmarks element is not an object");
      break;
    case Frame::kBenchmark:
      fields_.emplace_back(key_, std::move(value));
      break;
    case Frame::kTop:
    case Frame::kSkip:
      break;
  }
  return !cancelled_;
}

void GbJsonHandler::add_context(const JsonScalar& value) {
  if (key_.empty() || value.type == JsonScalar::Type::kNull || value.text.empty()) return;
  std::string v = value.text;
  for (char& c : v) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::string k = key_;
  for (char& c : k) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':') c = '_';
  }
  // A run's date and executable differ between the runs one compares:
  // keep them as internal keys (usable in -filter, -col...) so they do
  // not split tables as file configuration would.
  set_config(k, v, k != "date" && k != "executable");
}

// One benchmark object read whole: its warnings (with the line of its '{'),
// then its result, if it has one.
void GbJsonHandler::finish_benchmark() {
  BenchRecord rec;
  warnings_.clear();
  const bool have = benchmark_to_record(fields_, rec, warnings_);
  fields_.clear();
  for (std::string& w : warnings_) warn(benchmark_line_, std::move(w));
  if (!have) return;
  if (!snapshot_) snapshot_ = std::make_shared<const ConfigList>(config_);
  rec.config = snapshot_;
  rec.file = file_name_;
  rec.line = benchmark_line_;
  emit(std::move(rec));
}

}  // namespace zerolab::stat
