// Google Benchmark JSON reader (include/zerolab/stat_reader.hpp) on
// nlohmann-json's SAX parser: the input streams through a std::streambuf
// that counts what it hands out (so a byte offset becomes a line for every
// message), each element of "benchmarks" becomes a BenchRecord when its
// object closes, and the records and messages wait in a queue for next().
//
// Google Benchmark writes NaN and ±Infinity unquoted, which JSON does not
// allow: the stream spells them as numbers no one writes
// (kNaNSpelling, kInfinitySpelling) and the reader turns them back.
//
// Example:
//   zerolab::stat::StringSource src(R"({"context":{"host_name":"h"},"benchmarks":[
//       {"name":"BM_A","run_type":"iteration","iterations":10,"real_time":5,"time_unit":"us"}]})");
//   zerolab::stat::GbJsonReader r(src, "a.json");
//   r.next();  // r.result().result.metrics[0] == {5e-6, "sec/op"}
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <deque>
#include <istream>
#include <limits>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {
namespace {

constexpr std::string_view kNaNSpelling = "0E+000000000000000000";
constexpr std::string_view kInfinitySpelling = "1E+000000000000000000";
constexpr std::size_t kMaxString = 1 << 20;

// A ByteSource as the parser's stream: NaN and Infinity outside strings
// respelled, and a count of the bytes and newlines handed out.
class SourceStreamBuf final : public std::streambuf {
 public:
  explicit SourceStreamBuf(ByteSource& src) : src_(src), raw_(64 * 1024) {}

  bool io_failed() const { return io_failed_; }
  const std::string& io_error() const { return io_error_; }

  // Bytes handed to the parser so far.
  std::uint64_t consumed() const { return base_ + static_cast<std::uint64_t>(gptr() - eback()); }

  // The 1-based line of the byte at `offset` (asked in increasing order,
  // within what was handed out).
  int line_at(std::uint64_t offset) {
    count_newlines_to(offset);
    return 1 + newlines_;
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    count_newlines_to(base_ + out_.size());
    base_ += out_.size();
    out_.clear();
    while (out_.empty() && !done_) refill();
    char* begin = out_.data();
    setg(begin, begin, begin + out_.size());
    return out_.empty() ? traits_type::eof() : traits_type::to_int_type(out_[0]);
  }

 private:
  void refill() {
    const std::ptrdiff_t n = src_.read(raw_.data(), raw_.size(), io_error_);
    if (n <= 0) {
      io_failed_ = n < 0;
      done_ = true;
      flush_word();
      return;
    }
    respell(raw_.data(), raw_.data() + n);
  }

  // Copies [p, end) to out_, string contents in runs, NaN and Infinity
  // outside strings respelled.
  void respell(const char* p, const char* end) {
    out_.reserve(out_.size() + static_cast<std::size_t>(end - p));
    while (p < end) {
      if (in_string_) {
        const char* run = p;
        while (p < end && (escape_ || (*p != '"' && *p != '\\'))) {
          escape_ = false;
          ++p;
        }
        out_.append(run, p);
        if (p == end) return;
        out_.push_back(*p);
        if (*p == '\\') {
          escape_ = true;
        } else {
          in_string_ = false;
        }
        ++p;
        continue;
      }
      const char c = *p++;
      const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
      if (letter && word_.size() < 8) {
        word_.push_back(c);
        continue;
      }
      if (!word_.empty()) flush_word();
      out_.push_back(c);
      in_string_ = c == '"';
    }
  }

  void flush_word() {
    if (word_ == "NaN") {
      out_ += kNaNSpelling;
    } else if (word_ == "Infinity") {
      out_ += kInfinitySpelling;
    } else {
      out_ += word_;
    }
    word_.clear();
  }

  void count_newlines_to(std::uint64_t offset) {
    const std::uint64_t end = std::min<std::uint64_t>(offset, base_ + out_.size());
    if (end <= counted_) return;
    const auto from = static_cast<std::ptrdiff_t>(counted_ - base_);
    const auto to = static_cast<std::ptrdiff_t>(end - base_);
    newlines_ += static_cast<int>(std::count(out_.begin() + from, out_.begin() + to, '\n'));
    counted_ = end;
  }

  ByteSource& src_;
  std::vector<char> raw_;
  std::string out_;        // the respelled bytes being handed out
  std::uint64_t base_ = 0;  // offset of out_[0]
  std::uint64_t counted_ = 0;
  int newlines_ = 0;  // before counted_
  std::string word_;
  bool in_string_ = false;
  bool escape_ = false;
  bool done_ = false;
  bool io_failed_ = false;
  std::string io_error_;
};

// A scalar JSON value: strings unescaped, numbers as written (integers in
// decimal) and as a double.
struct Scalar {
  enum class Type { kString, kNumber, kBool, kNull, kComposite } type = Type::kNull;
  std::string text;
  double number = 0;

  // How a message quotes the value.
  std::string describe() const {
    switch (type) {
      case Type::kString: return "\"" + text + "\"";
      case Type::kNull: return "null";
      case Type::kComposite: return "an object or array";
      default: return text;
    }
  }
};

bool is_known_non_metric(std::string_view key) {
  static constexpr std::string_view kKeys[] = {
      "name",         "run_name",    "run_type",        "family_index",   "per_family_instance_index",
      "repetitions",  "repetition_index", "threads",    "iterations",     "real_time",
      "cpu_time",     "time_unit",   "label",           "error_occurred", "error_message",
      "aggregate_name", "aggregate_unit", "big_o",      "rms",            "complexity_n",
      "memory_iterations", "skipped", "skip_message"};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

std::string unit_for_counter(std::string_view key) {
  if (key == "bytes_per_second") return "B/s";
  if (key == "items_per_second") return "items/s";
  // A benchmark::MemoryManager's figures. Google Benchmark measures them in
  // a separate pass of its own iteration count (see memory_pass_iterations):
  // allocs_per_iter is already per iteration; total_allocated_bytes becomes
  // B/op when that count is known (finish_benchmark), else it stays the
  // pass's total; the peak and the net growth are figures for the whole pass.
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
bool to_count(const Scalar& s, std::int64_t& out) {
  if (s.type != Scalar::Type::kNumber) return false;
  const char* end = s.text.data() + s.text.size();
  if (auto [p, ec] = std::from_chars(s.text.data(), end, out); ec == std::errc() && p == end) return out >= 0;
  if (!(s.number >= 0 && s.number < 9.2e18) || std::floor(s.number) != s.number) return false;
  out = static_cast<std::int64_t>(s.number);
  return true;
}

// The iteration count of Google Benchmark's memory pass: the "memory_iterations"
// field if present, else min(16, iterations per thread), as every Google
// Benchmark from 1.5 to 1.9 chooses it (benchmark_runner.cc; the JSON's
// "iterations" is the sum over threads, the memory pass runs on one).
// 0 when unknown.
double memory_pass_iterations(const Scalar* memory_iterations, const Scalar* iterations,
                              const Scalar* threads) {
  if (memory_iterations != nullptr && memory_iterations->type == Scalar::Type::kNumber) {
    const double v = memory_iterations->number;
    return v >= 1 && v <= 1e18 ? std::floor(v) : 0;
  }
  if (iterations == nullptr || iterations->type != Scalar::Type::kNumber) return 0;
  const double v = iterations->number;
  if (!(v >= 1 && v <= 1e18)) return 0;
  double t = 1;
  if (threads != nullptr && threads->type == Scalar::Type::kNumber) {
    t = threads->number;
    if (!(t >= 1 && t <= 1e18)) return 0;
  }
  const double per_thread = std::floor(v / std::floor(t));
  return per_thread >= 1 ? std::min(16.0, per_thread) : 0;
}

using Event = std::variant<BenchRecord, SyntaxError>;

// The SAX handler: follows the document's shape and queues what it reads.
class GbJsonHandler {
 public:
  GbJsonHandler(SourceStreamBuf& stream, std::string file_name, std::deque<Event>& events)
      : stream_(stream), file_name_(std::move(file_name)), events_(events) {}

  void set_config(const std::string& key, const std::string& value, bool file) {
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

  bool saw_anything() const { return saw_anything_; }
  bool saw_benchmarks() const { return saw_benchmarks_; }
  bool stopped() const { return stopped_; }

  // nlohmann::json_sax's interface.
  bool null() { return scalar(Scalar{}); }
  bool boolean(bool v) { return scalar(Scalar{Scalar::Type::kBool, v ? "true" : "false", 0}); }
  bool number_integer(std::int64_t v) {
    return scalar(Scalar{Scalar::Type::kNumber, std::to_string(v), static_cast<double>(v)});
  }
  bool number_unsigned(std::uint64_t v) {
    return scalar(Scalar{Scalar::Type::kNumber, std::to_string(v), static_cast<double>(v)});
  }
  bool number_float(double v, const std::string& written) {
    std::string_view digits(written);
    const bool negative = !digits.empty() && digits[0] == '-';
    if (negative) digits.remove_prefix(1);
    if (digits == kNaNSpelling) {
      return scalar(Scalar{Scalar::Type::kNumber, negative ? "-NaN" : "NaN", std::numeric_limits<double>::quiet_NaN()});
    }
    if (digits == kInfinitySpelling) {
      const double inf = std::numeric_limits<double>::infinity();
      return scalar(Scalar{Scalar::Type::kNumber, negative ? "-Infinity" : "Infinity", negative ? -inf : inf});
    }
    return scalar(Scalar{Scalar::Type::kNumber, written, v});
  }
  bool string(std::string& v) {
    if (v.size() > kMaxString) return stop("invalid JSON: string longer than 1 MiB");
    return scalar(Scalar{Scalar::Type::kString, std::move(v), 0});
  }
  bool binary(nlohmann::json::binary_t& /*unused*/) { return true; }  // never in JSON text
  bool key(std::string& k) {
    if (k.size() > kMaxString) return stop("invalid JSON: string longer than 1 MiB");
    key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t /*unused*/) { return open(true); }
  bool start_array(std::size_t /*unused*/) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t position, const std::string& /*last_token*/, const nlohmann::detail::exception& e) {
    if (!saw_anything_) return stop("not Google Benchmark JSON: the input is not a JSON object");
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
    std::string what = e.what();
    const std::size_t colon = what.find(": ");
    if (colon != std::string::npos) what.erase(0, colon + 2);
    events_.emplace_back(SyntaxError{file_name_, line_of(position > 0 ? position - 1 : 0), "invalid JSON: " + what});
    stopped_ = true;
    return false;
  }

 private:
  enum class Frame { kTop, kContext, kBenchmarks, kBenchmark, kSkip };

  int line_of(std::uint64_t offset) { return stream_.line_at(offset); }
  // The line of the token just read (a '{', '[' or the last byte of a scalar).
  int current_line() { return line_of(stream_.consumed() > 0 ? stream_.consumed() - 1 : 0); }

  bool stop(const std::string& message) {
    events_.emplace_back(SyntaxError{file_name_, current_line(), message});
    stopped_ = true;
    return false;
  }

  void warn(int line, const std::string& message) { events_.emplace_back(SyntaxError{file_name_, line, message}); }

  bool open(bool object) {
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
        fields_.emplace_back(key_, Scalar{Scalar::Type::kComposite, "", 0});
        break;
      case Frame::kContext:
      case Frame::kSkip:
        break;
    }
    frames_.push_back(next);
    return true;
  }

  bool close() {
    const Frame done = frames_.back();
    frames_.pop_back();
    if (done == Frame::kBenchmark) finish_benchmark();
    return true;
  }

  bool scalar(Scalar value) {
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
    return true;
  }

  void add_context(const Scalar& value) {
    if (key_.empty() || value.type == Scalar::Type::kNull || value.text.empty()) return;
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

  const Scalar* find(std::string_view k) const {
    for (const auto& f : fields_) {
      if (f.first == k) return &f.second;
    }
    return nullptr;
  }

  // One benchmark object read whole: a result, an error, or nothing (an
  // aggregate or a skipped run). Fields of the wrong kind are warned about
  // with their line (issue 15, B6) and left out.
  void finish_benchmark() {
    const int line = benchmark_line_;
    const Scalar* name = find("name");
    if (name == nullptr || name->type != Scalar::Type::kString || name->text.empty()) {
      warn(line, "benchmark without a \"name\"");
      return;
    }
    if (const Scalar* rt = find("run_type"); rt != nullptr && rt->text == "aggregate") return;
    if (find("aggregate_name") != nullptr) return;
    if (const Scalar* e = find("error_occurred"); e != nullptr && e->text == "true") {
      const Scalar* msg = find("error_message");
      warn(line, "benchmark " + name->text + " failed: " + (msg != nullptr ? msg->text : std::string("error")));
      return;
    }
    if (const Scalar* s = find("skipped"); s != nullptr && s->text == "true") return;
    const std::string who = "benchmark " + name->text;

    BenchRecord rec;
    if (const Scalar* it = find("iterations"); it != nullptr) {
      std::int64_t n = 0;
      if (to_count(*it, n)) {
        rec.result.iterations = n;
      } else {
        warn(line, who + ": \"iterations\" is " + it->describe() + ", not an iteration count (taken as 0)");
      }
    }
    double time_scale = 1e-9;
    std::string time_unit = "ns";
    if (const Scalar* tu = find("time_unit"); tu != nullptr) {
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
        warn(line, who + ": unknown time_unit \"" + time_unit + "\"");
        return;
      }
    }
    auto add_time = [&](std::string_view key, std::string_view unit) {
      const Scalar* t = find(key);
      if (t == nullptr) return;
      if (t->type != Scalar::Type::kNumber) {
        warn(line, who + ": \"" + std::string(key) + "\" is " + t->describe() + ", not a time (no " +
                       std::string(unit) + ")");
        return;
      }
      rec.result.metrics.push_back(benchfmt::Metric{t->number * time_scale, std::string(unit)});
      rec.original.push_back(benchfmt::Metric{t->number, (unit == "sec/op" ? "" : "cpu-") + time_unit + "/op"});
    };
    add_time("real_time", "sec/op");
    add_time("cpu_time", "cpu-sec/op");
    // The memory manager's figures go last, in the Go order (B/op before
    // allocs/op), whatever order the file has them in.
    static constexpr std::string_view kMemoryKeys[] = {"total_allocated_bytes", "allocs_per_iter",
                                                       "max_bytes_used", "net_heap_growth"};
    const double memory_pass = memory_pass_iterations(find("memory_iterations"), find("iterations"), find("threads"));
    for (const auto& [key, value] : fields_) {
      if (value.type != Scalar::Type::kNumber || is_known_non_metric(key) || key.empty()) continue;
      if (std::find(std::begin(kMemoryKeys), std::end(kMemoryKeys), key) != std::end(kMemoryKeys)) continue;
      rec.result.metrics.push_back(benchfmt::Metric{value.number, unit_for_counter(key)});
      rec.original.push_back(benchfmt::Metric{value.number, std::string()});
    }
    for (std::string_view key : kMemoryKeys) {
      const Scalar* value = find(key);
      if (value == nullptr || value->type != Scalar::Type::kNumber) continue;
      if (key == "total_allocated_bytes" && memory_pass > 0) {
        rec.result.metrics.push_back(benchfmt::Metric{value->number / memory_pass, "B/op"});
      } else {
        rec.result.metrics.push_back(benchfmt::Metric{value->number, unit_for_counter(key)});
      }
      rec.original.push_back(benchfmt::Metric{value->number, std::string()});
    }
    if (rec.result.metrics.empty()) {
      warn(line, who + " has no measurements");
      return;
    }
    rec.result.name = "Benchmark" + name->text;
    if (!snapshot_) snapshot_ = std::make_shared<const ConfigList>(config_);
    rec.config = snapshot_;
    rec.file = file_name_;
    rec.line = line;
    events_.emplace_back(std::move(rec));
  }

  SourceStreamBuf& stream_;
  std::string file_name_;
  std::deque<Event>& events_;
  std::vector<Frame> frames_;
  std::string key_;  // the last key read
  std::vector<std::pair<std::string, Scalar>> fields_;  // of the benchmark being read
  int benchmark_line_ = 0;
  ConfigList config_;
  std::shared_ptr<const ConfigList> snapshot_;
  bool saw_anything_ = false;
  bool saw_benchmarks_ = false;
  bool stopped_ = false;
};

}  // namespace

struct GbJsonReader::Impl {
  Impl(ByteSource& src, std::string name)
      : file_name(name.empty() ? "<unknown>" : std::move(name)), stream(src), handler(stream, file_name, events) {}

  std::string file_name;
  SourceStreamBuf stream;
  std::deque<Event> events;
  GbJsonHandler handler;
  bool parsed = false;
  UnitMetadata no_meta;  // JSON has no unit metadata; kept for the interface
  BenchRecord result;
  SyntaxError err;
  RecordKind kind = RecordKind::kSyntaxError;
  std::string error;

  // Reads the whole input into the queue.
  void parse() {
    parsed = true;
    std::istream in(&stream);
    nlohmann::json::sax_parse(in, &handler, nlohmann::json::input_format_t::json, /*strict=*/true);
    if (stream.io_failed()) {
      error = file_name + ":" + std::to_string(stream.line_at(stream.consumed())) + ": " + stream.io_error();
      return;
    }
    if (!handler.stopped() && !handler.saw_benchmarks()) {
      events.emplace_back(SyntaxError{file_name, 1, "not Google Benchmark JSON: no \"benchmarks\" array"});
    }
  }

  bool advance() {
    if (!parsed) parse();
    if (events.empty()) return false;
    if (auto* rec = std::get_if<BenchRecord>(&events.front())) {
      result = std::move(*rec);
      kind = RecordKind::kResult;
    } else {
      err = std::move(std::get<SyntaxError>(events.front()));
      kind = RecordKind::kSyntaxError;
    }
    events.pop_front();
    return true;
  }
};

GbJsonReader::GbJsonReader(ByteSource& source, std::string file_name, ConfigList initial_config)
    : impl_(std::make_unique<Impl>(source, std::move(file_name))) {
  for (const ConfigEntry& c : initial_config) {
    if (!c.value.empty()) impl_->handler.set_config(c.key, c.value, false);
  }
}

GbJsonReader::~GbJsonReader() = default;

bool GbJsonReader::next() { return impl_->advance(); }
RecordKind GbJsonReader::kind() const { return impl_->kind; }
const BenchRecord& GbJsonReader::result() const { return impl_->result; }
BenchRecord& GbJsonReader::mutable_result() { return impl_->result; }
const UnitMetadata& GbJsonReader::unit_metadata() const { return impl_->no_meta; }
const SyntaxError& GbJsonReader::syntax_error() const { return impl_->err; }
const std::string& GbJsonReader::error() const { return impl_->error; }

}  // namespace zerolab::stat
