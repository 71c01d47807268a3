// Google Benchmark JSON reader (include/zerolab/stat_reader.hpp): a
// streaming pull parser that turns each element of "benchmarks" into a
// BenchRecord as it is read.
//
// Example:
//   zerolab::stat::StringSource src(R"({"context":{"host_name":"h"},"benchmarks":[
//       {"name":"BM_A","run_type":"iteration","iterations":10,"real_time":5,"time_unit":"us"}]})");
//   zerolab::stat::GbJsonReader r(src, "a.json");
//   r.next();  // r.result().result.metrics[0] == {5e-6, "sec/op"}
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "go_compat.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {
namespace {

// A scalar JSON value kept as text: strings unescaped, numbers and
// literals as written.
struct Scalar {
  enum class Type { kString, kNumber, kBool, kNull, kComposite } type = Type::kNull;
  std::string text;
};

class JsonStream {
 public:
  explicit JsonStream(ByteSource& src) : src_(src), buf_(64 * 1024) {}

  int line() const { return line_; }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  int error_line() const { return error_line_; }
  bool io_failed() const { return io_failed_; }
  const std::string& io_error() const { return io_error_; }

  void fail(const std::string& what) {
    if (error_.empty()) {
      error_ = what;
      error_line_ = line_;
    }
  }

  int peek() {
    if (pos_ == end_ && !fill()) return -1;
    return static_cast<unsigned char>(buf_[pos_]);
  }

  int get() {
    const int c = peek();
    if (c >= 0) {
      ++pos_;
      if (c == '\n') ++line_;
    }
    return c;
  }

  void skip_ws() {
    for (;;) {
      const int c = peek();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        get();
      } else {
        return;
      }
    }
  }

  // Expects c after optional whitespace.
  bool expect(char c) {
    skip_ws();
    const int got = peek();
    if (got != static_cast<unsigned char>(c)) {
      fail(describe_unexpected(got, std::string("'") + c + "'"));
      return false;
    }
    get();
    return true;
  }

  std::string describe_unexpected(int got, const std::string& wanted) {
    if (got < 0) return "invalid JSON: unexpected end of input, expected " + wanted;
    if (got >= 0x20 && got < 0x7F) {
      return std::string("invalid JSON: unexpected '") + static_cast<char>(got) + "', expected " + wanted;
    }
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(got) & 0xFFu);
    return std::string("invalid JSON: unexpected byte ") + hex + ", expected " + wanted;
  }

  bool parse_string(std::string& out) {
    out.clear();
    if (get() != '"') {
      fail("invalid JSON: expected a string");
      return false;
    }
    for (;;) {
      const int c = get();
      if (c < 0) {
        fail("invalid JSON: unexpected end of input in a string");
        return false;
      }
      if (c == '"') return true;
      if (c < 0x20) {
        fail("invalid JSON: control character in a string");
        return false;
      }
      if (c != '\\') {
        out.push_back(static_cast<char>(c));
        if (out.size() > kMaxString) {
          fail("invalid JSON: string longer than 1 MiB");
          return false;
        }
        continue;
      }
      const int e = get();
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          char32_t r = 0;
          if (!hex4(r)) return false;
          if (r >= 0xD800 && r <= 0xDBFF && peek() == '\\') {
            get();
            if (get() != 'u') {
              fail("invalid JSON: bad escape in a string");
              return false;
            }
            char32_t lo = 0;
            if (!hex4(lo)) return false;
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
              r = 0x10000 + ((r - 0xD800) << 10) + (lo - 0xDC00);
            } else {
              internal::append_rune(out, internal::kRuneError);
              r = lo;
            }
          }
          internal::append_rune(out, r);
          break;
        }
        default:
          fail("invalid JSON: bad escape in a string");
          return false;
      }
    }
  }

  // A number (or NaN/Infinity, as Google Benchmark writes them) as text.
  bool parse_number(std::string& out) {
    out.clear();
    if (peek() == '-') out.push_back(static_cast<char>(get()));
    if (peek() == 'N' || peek() == 'I') {
      std::string word;
      while (peek() >= 'A' && peek() <= 'z' && word.size() < 10) word.push_back(static_cast<char>(get()));
      if (word == "NaN" || word == "Infinity") {
        out += word;
        return true;
      }
      fail("invalid JSON: unexpected word \"" + word + "\"");
      return false;
    }
    auto digits = [this, &out] {
      bool any = false;
      while (peek() >= '0' && peek() <= '9') {
        out.push_back(static_cast<char>(get()));
        any = true;
        if (out.size() > 400) break;
      }
      return any;
    };
    if (peek() == '0') {
      out.push_back(static_cast<char>(get()));
    } else if (!digits()) {
      fail(describe_unexpected(peek(), "a value"));
      return false;
    }
    if (peek() == '.') {
      out.push_back(static_cast<char>(get()));
      if (!digits()) {
        fail("invalid JSON: digits expected after '.'");
        return false;
      }
    }
    if (peek() == 'e' || peek() == 'E') {
      out.push_back(static_cast<char>(get()));
      if (peek() == '+' || peek() == '-') out.push_back(static_cast<char>(get()));
      if (!digits()) {
        fail("invalid JSON: digits expected in an exponent");
        return false;
      }
    }
    if (out.size() > 400) {
      fail("invalid JSON: number too long");
      return false;
    }
    return true;
  }

  bool parse_literal(const char* word) {
    for (const char* p = word; *p != '\0'; ++p) {
      if (get() != static_cast<unsigned char>(*p)) {
        fail(std::string("invalid JSON: expected ") + word);
        return false;
      }
    }
    return true;
  }

  // Reads any value; scalars are returned, composites skipped.
  bool parse_value(Scalar& out, int depth) {
    skip_ws();
    const int c = peek();
    switch (c) {
      case '"':
        out.type = Scalar::Type::kString;
        return parse_string(out.text);
      case 't':
        out.type = Scalar::Type::kBool;
        out.text = "true";
        return parse_literal("true");
      case 'f':
        out.type = Scalar::Type::kBool;
        out.text = "false";
        return parse_literal("false");
      case 'n':
        out.type = Scalar::Type::kNull;
        out.text.clear();
        return parse_literal("null");
      case '{':
      case '[':
        out.type = Scalar::Type::kComposite;
        out.text.clear();
        return skip_composite(depth);
      default:
        out.type = Scalar::Type::kNumber;
        return parse_number(out.text);
    }
  }

  bool skip_composite(int depth) {
    if (depth >= GbJsonReader::kMaxDepth) {
      fail("invalid JSON: nesting deeper than " + std::to_string(GbJsonReader::kMaxDepth));
      return false;
    }
    const int open = get();
    const char close = open == '{' ? '}' : ']';
    skip_ws();
    if (peek() == close) {
      get();
      return true;
    }
    Scalar scratch;
    std::string key;
    for (;;) {
      if (open == '{') {
        skip_ws();
        if (peek() != '"') {
          fail(describe_unexpected(peek(), "a string key"));
          return false;
        }
        if (!parse_string(key) || !expect(':')) return false;
      }
      if (!parse_value(scratch, depth + 1)) return false;
      skip_ws();
      const int c = get();
      if (c == close) return true;
      if (c != ',') {
        fail(describe_unexpected(c, std::string("',' or '") + close + "'"));
        return false;
      }
    }
  }

 private:
  static constexpr std::size_t kMaxString = 1 << 20;

  bool hex4(char32_t& r) {
    r = 0;
    for (int i = 0; i < 4; ++i) {
      const int c = get();
      int v = -1;
      if (c >= '0' && c <= '9') v = c - '0';
      if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
      if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
      if (v < 0) {
        fail("invalid JSON: bad \\u escape in a string");
        return false;
      }
      r = r * 16 + static_cast<char32_t>(v);
    }
    return true;
  }

  bool fill() {
    if (io_failed_ || eof_) return false;
    const std::ptrdiff_t n = src_.read(buf_.data(), buf_.size(), io_error_);
    if (n < 0) {
      io_failed_ = true;
      return false;
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    pos_ = 0;
    end_ = static_cast<std::size_t>(n);
    return true;
  }

  ByteSource& src_;
  std::vector<char> buf_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  bool io_failed_ = false;
  std::string io_error_;
  int line_ = 1;
  std::string error_;
  int error_line_ = 0;
};

bool to_double(const std::string& text, double& out) {
  if (text == "NaN" || text == "-NaN") {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (text == "Infinity") {
    out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "-Infinity") {
    out = -std::numeric_limits<double>::infinity();
    return true;
  }
  const char* b = text.data();
  const char* e = b + text.size();
  auto res = std::from_chars(b, e, out);
  if (res.ec == std::errc::result_out_of_range) {
    out = std::strtod(text.c_str(), nullptr);
    return true;
  }
  return res.ec == std::errc() && res.ptr == e;
}

bool is_known_non_metric(std::string_view key) {
  static constexpr std::string_view kKeys[] = {
      "name",         "run_name",    "run_type",        "family_index",   "per_family_instance_index",
      "repetitions",  "repetition_index", "threads",    "iterations",     "real_time",
      "cpu_time",     "time_unit",   "label",           "error_occurred", "error_message",
      "aggregate_name", "aggregate_unit", "big_o",      "rms",            "complexity_n",
      "memory_iterations", "skipped", "skip_message"};
  for (std::string_view k : kKeys) {
    if (k == key) return true;
  }
  return false;
}

std::string unit_for_counter(std::string_view key) {
  if (key == "bytes_per_second") return "B/s";
  if (key == "items_per_second") return "items/s";
  // A benchmark::MemoryManager's figures. Google Benchmark measures them in
  // a separate pass of its own iteration count (see memory_pass_iterations):
  // allocs_per_iter is already per iteration; total_allocated_bytes becomes
  // B/op when that count is known (read_benchmark), else it stays the pass's
  // total; the peak and the net growth are figures for the whole pass.
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

// The iteration count of Google Benchmark's memory pass: the "memory_iterations"
// field if present, else min(16, iterations per thread), as every Google
// Benchmark from 1.5 to 1.9 chooses it (benchmark_runner.cc; the JSON's
// "iterations" is the sum over threads, the memory pass runs on one).
// 0 when unknown.
double memory_pass_iterations(const Scalar* memory_iterations, const Scalar* iterations,
                              const Scalar* threads) {
  double v = 0;
  if (memory_iterations != nullptr && memory_iterations->type == Scalar::Type::kNumber) {
    return to_double(memory_iterations->text, v) && v >= 1 && v <= 1e18 ? std::floor(v) : 0;
  }
  if (iterations == nullptr || iterations->type != Scalar::Type::kNumber ||
      !to_double(iterations->text, v) || !(v >= 1 && v <= 1e18)) {
    return 0;
  }
  double t = 1;
  if (threads != nullptr && threads->type == Scalar::Type::kNumber &&
      (!to_double(threads->text, t) || !(t >= 1 && t <= 1e18))) {
    return 0;
  }
  const double per_thread = std::floor(v / std::floor(t));
  return per_thread >= 1 ? std::min(16.0, per_thread) : 0;
}

}  // namespace

struct GbJsonReader::Impl {
  Impl(ByteSource& src, std::string name) : json(src), file_name(name.empty() ? "<unknown>" : std::move(name)) {}

  enum class State { kStart, kTopMembers, kBenchmarks, kDone };

  JsonStream json;
  std::string file_name;
  UnitMetadataMap units;  // JSON has no unit metadata; kept for the interface
  UnitMetadata no_meta;
  State state = State::kStart;
  bool saw_benchmarks = false;
  bool pending_failure = false;
  ConfigList config;
  std::shared_ptr<const ConfigList> snapshot;
  BenchRecord result;
  SyntaxError err;
  RecordKind kind = RecordKind::kSyntaxError;
  std::string error;

  void set_config(const std::string& key, const std::string& value, bool file) {
    snapshot.reset();
    for (ConfigEntry& c : config) {
      if (c.key == key) {
        c.value = value;
        c.file = file;
        return;
      }
    }
    config.push_back(ConfigEntry{key, value, file});
  }

  bool emit_error(std::string message, int line) {
    err = SyntaxError{file_name, line, std::move(message)};
    kind = RecordKind::kSyntaxError;
    return true;
  }

  // After a JSON error: report it once and stop.
  bool report_json_failure() {
    state = State::kDone;
    if (json.io_failed()) {
      error = file_name + ":" + std::to_string(json.line()) + ": " + json.io_error();
      return false;
    }
    return emit_error(json.error(), json.error_line());
  }

  void read_context() {
    // At '{' of the context object.
    json.get();
    json.skip_ws();
    if (json.peek() == '}') {
      json.get();
      return;
    }
    std::string key;
    Scalar value;
    for (;;) {
      json.skip_ws();
      if (json.peek() != '"') {
        json.fail(json.describe_unexpected(json.peek(), "a string key"));
        return;
      }
      if (!json.parse_string(key) || !json.expect(':') || !json.parse_value(value, 2)) return;
      if (!key.empty() && value.type != Scalar::Type::kComposite && value.type != Scalar::Type::kNull) {
        std::string v = value.text;
        for (char& c : v) {
          if (c == '\n' || c == '\r') c = ' ';
        }
        std::string k = key;
        for (char& c : k) {
          if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':') c = '_';
        }
        // A run's date and executable differ between the runs one compares:
        // keep them as internal keys (usable in -filter, -col...) so they do
        // not split tables as file configuration would.
        const bool file_key = k != "date" && k != "executable";
        if (!v.empty()) set_config(k, v, file_key);
      }
      json.skip_ws();
      const int c = json.get();
      if (c == '}') return;
      if (c != ',') {
        json.fail(json.describe_unexpected(c, "',' or '}'"));
        return;
      }
    }
  }

  // Parses one benchmark object; returns true when it produced a record.
  bool read_benchmark() {
    json.skip_ws();
    const int start_line = json.line();
    if (json.peek() != '{') {
      Scalar skip;
      if (!json.parse_value(skip, 2)) return false;
      return emit_error("benchmarks element is not an object", start_line);
    }
    json.get();
    std::vector<std::pair<std::string, Scalar>> fields;
    json.skip_ws();
    if (json.peek() == '}') {
      json.get();
    } else {
      for (;;) {
        json.skip_ws();
        if (json.peek() != '"') {
          json.fail(json.describe_unexpected(json.peek(), "a string key"));
          return false;
        }
        std::pair<std::string, Scalar> f;
        if (!json.parse_string(f.first) || !json.expect(':') || !json.parse_value(f.second, 3)) return false;
        fields.push_back(std::move(f));
        json.skip_ws();
        const int c = json.get();
        if (c == '}') break;
        if (c != ',') {
          json.fail(json.describe_unexpected(c, "',' or '}'"));
          return false;
        }
      }
    }
    auto find = [&fields](std::string_view k) -> const Scalar* {
      for (const auto& f : fields) {
        if (f.first == k) return &f.second;
      }
      return nullptr;
    };
    const Scalar* name = find("name");
    if (name == nullptr || name->type != Scalar::Type::kString || name->text.empty()) {
      return emit_error("benchmark without a \"name\"", start_line);
    }
    if (const Scalar* rt = find("run_type"); rt != nullptr && rt->text == "aggregate") return false;
    if (find("aggregate_name") != nullptr) return false;
    if (const Scalar* e = find("error_occurred"); e != nullptr && e->text == "true") {
      const Scalar* msg = find("error_message");
      return emit_error("benchmark " + name->text + " failed: " + (msg != nullptr ? msg->text : std::string("error")),
                        start_line);
    }
    if (const Scalar* s = find("skipped"); s != nullptr && s->text == "true") return false;

    result.result.metrics.clear();
    result.original.clear();
    result.result.iterations = 0;
    if (const Scalar* it = find("iterations"); it != nullptr && it->type == Scalar::Type::kNumber) {
      double v = 0;
      if (to_double(it->text, v) && v >= -9.2e18 && v <= 9.2e18) result.result.iterations = static_cast<std::int64_t>(v);
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
        return emit_error("benchmark " + name->text + ": unknown time_unit \"" + time_unit + "\"", start_line);
      }
    }
    auto add_time = [&](std::string_view key, std::string_view unit) -> bool {
      const Scalar* t = find(key);
      if (t == nullptr || t->type != Scalar::Type::kNumber) return true;
      double v = 0;
      if (!to_double(t->text, v)) return false;
      result.result.metrics.push_back(benchfmt::Metric{v * time_scale, std::string(unit)});
      result.original.push_back(benchfmt::Metric{v, (unit == "sec/op" ? "" : "cpu-") + time_unit + "/op"});
      return true;
    };
    if (!add_time("real_time", "sec/op") || !add_time("cpu_time", "cpu-sec/op")) {
      return emit_error("benchmark " + name->text + ": bad time value", start_line);
    }
    // The memory manager's figures go last, in the Go order (B/op before
    // allocs/op), whatever order the file has them in.
    static constexpr std::string_view kMemoryKeys[] = {"total_allocated_bytes", "allocs_per_iter",
                                                       "max_bytes_used", "net_heap_growth"};
    const double memory_pass = memory_pass_iterations(find("memory_iterations"), find("iterations"), find("threads"));
    for (const auto& [key, value] : fields) {
      if (value.type != Scalar::Type::kNumber || is_known_non_metric(key) || key.empty()) continue;
      if (std::find(std::begin(kMemoryKeys), std::end(kMemoryKeys), key) != std::end(kMemoryKeys)) continue;
      double v = 0;
      if (!to_double(value.text, v)) continue;
      result.result.metrics.push_back(benchfmt::Metric{v, unit_for_counter(key)});
      result.original.push_back(benchfmt::Metric{v, std::string()});
    }
    for (std::string_view key : kMemoryKeys) {
      const Scalar* value = find(key);
      double v = 0;
      if (value == nullptr || value->type != Scalar::Type::kNumber || !to_double(value->text, v)) continue;
      if (key == "total_allocated_bytes" && memory_pass > 0) {
        result.result.metrics.push_back(benchfmt::Metric{v / memory_pass, "B/op"});
      } else {
        result.result.metrics.push_back(benchfmt::Metric{v, unit_for_counter(key)});
      }
      result.original.push_back(benchfmt::Metric{v, std::string()});
    }
    if (result.result.metrics.empty()) {
      return emit_error("benchmark " + name->text + " has no measurements", start_line);
    }
    result.result.name = "Benchmark" + name->text;
    if (!snapshot) snapshot = std::make_shared<const ConfigList>(config);
    result.config = snapshot;
    result.file = file_name;
    result.line = start_line;
    kind = RecordKind::kResult;
    return true;
  }

  bool advance() {
    if (pending_failure) {
      pending_failure = false;
      return report_json_failure();
    }
    for (;;) {
      switch (state) {
        case State::kDone:
          return false;
        case State::kStart: {
          json.skip_ws();
          if (json.peek() != '{') {
            if (json.io_failed()) return report_json_failure();
            state = State::kDone;
            return emit_error("not Google Benchmark JSON: the input is not a JSON object", json.line());
          }
          json.get();
          json.skip_ws();
          if (json.peek() == '}') {
            json.get();
            state = State::kDone;
            return emit_error("not Google Benchmark JSON: no \"benchmarks\" array", json.line());
          }
          state = State::kTopMembers;
          break;
        }
        case State::kTopMembers: {
          json.skip_ws();
          if (json.peek() != '"') {
            json.fail(json.describe_unexpected(json.peek(), "a string key"));
            return report_json_failure();
          }
          std::string key;
          if (!json.parse_string(key) || !json.expect(':')) return report_json_failure();
          json.skip_ws();
          if (key == "context" && json.peek() == '{') {
            read_context();
            if (json.failed() || json.io_failed()) return report_json_failure();
          } else if (key == "benchmarks" && json.peek() == '[') {
            json.get();
            saw_benchmarks = true;
            json.skip_ws();
            if (json.peek() == ']') {
              json.get();
              if (!after_member()) return report_json_failure();
            } else {
              state = State::kBenchmarks;
            }
            break;
          } else {
            Scalar skip;
            if (!json.parse_value(skip, 1)) return report_json_failure();
          }
          if (!after_member()) return report_json_failure();
          if (state == State::kDone && !saw_benchmarks) {
            return emit_error("not Google Benchmark JSON: no \"benchmarks\" array", 1);
          }
          break;
        }
        case State::kBenchmarks: {
          const bool produced = read_benchmark();
          if (json.failed() || json.io_failed()) return report_json_failure();
          json.skip_ws();
          const int c = json.get();
          bool ok = true;
          if (c == ']') {
            state = State::kTopMembers;
            ok = after_member();
          } else if (c != ',') {
            json.fail(json.describe_unexpected(c, "',' or ']'"));
            ok = false;
          }
          if (!ok) {
            if (!produced) return report_json_failure();
            pending_failure = true;  // reported by the next call
          }
          if (produced) return true;
          break;
        }
      }
    }
  }

  // After a top-level member: ',' continues, '}' ends the object.
  bool after_member() {
    json.skip_ws();
    const int c = json.get();
    if (c == ',') {
      state = State::kTopMembers;
      return true;
    }
    if (c == '}') {
      state = State::kDone;
      json.skip_ws();
      if (json.peek() >= 0) {
        json.fail("invalid JSON: unexpected data after the top-level object");
        return false;
      }
      return true;
    }
    json.fail(json.describe_unexpected(c, "',' or '}'"));
    return false;
  }
};

GbJsonReader::GbJsonReader(ByteSource& source, std::string file_name, ConfigList initial_config)
    : impl_(std::make_unique<Impl>(source, std::move(file_name))) {
  for (const ConfigEntry& c : initial_config) {
    if (!c.value.empty()) impl_->set_config(c.key, c.value, false);
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
