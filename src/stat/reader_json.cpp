// Google Benchmark JSON reader (include/zerolab/stat_reader.hpp): nlohmann-json's
// SAX parser reads the document on a Fiber (a stack of its own, on the
// caller's thread), so that next() can hand out one record at a time while
// the parser, which reads a whole document in one call, is paused. The
// parser pauses when kMaxQueued events wait and, with events waiting, before
// it reads (a read from a pipe may block: what is parsed goes out first);
// it reads nothing once the reader is dropped. Memory stays bounded by one
// chunk and one queue, not by the file.
// The pieces: json_stream.hpp (bytes, lines, NaN/Infinity, limits),
// gb_json_handler.hpp (the document's shape), gb_json_benchmark.hpp (one
// benchmark's fields to a result).
//
// Example:
//   zerolab::stat::StringSource src(R"({"context":{"host_name":"h"},"benchmarks":[
//       {"name":"BM_A","run_type":"iteration","iterations":10,"real_time":5,"time_unit":"us"}]})");
//   zerolab::stat::GbJsonReader r(src, "a.json");
//   r.next();  // r.result().result.metrics[0] == {5e-6, "sec/op"}
#include <deque>
#include <istream>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "fiber.hpp"
#include "gb_json_handler.hpp"
#include "json_stream.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {

struct GbJsonReader::Impl final : JsonEventSink {
  // Events the parser may queue before it waits for next() to take them.
  static constexpr std::size_t kMaxQueued = 1024;

  Impl(ByteSource& src, std::string name)
      : source(src),
        file_name(name.empty() ? "<unknown>" : std::move(name)),
        stream([this](char* buf, std::size_t n, std::string& e) {
          return read_for_parser(buf, n, e);
        }),
        handler(stream, file_name, *this),
        parser([this](Fiber& /*self*/) { parse(); }) {}

  ByteSource& source;
  std::string file_name;
  JsonByteStream stream;
  GbJsonHandler handler;
  std::deque<JsonEvent> events;
  UnitMetadata no_meta;  // JSON has no unit metadata; kept for the interface
  BenchRecord result;
  SyntaxError err;
  RecordKind kind = RecordKind::kSyntaxError;
  std::string error;
  Fiber parser;  // last: stopped before the rest goes

  // On the parser's stack.
  void parse() {
    std::istream in(&stream);
    nlohmann::json::sax_parse(in, &handler, nlohmann::json::input_format_t::json, /*strict=*/true);
    if (stream.io_failed()) {
      error = file_name + ":" + std::to_string(stream.line_at(stream.consumed())) + ": " +
              stream.io_error();
      return;
    }
    handler.finish();
  }

  std::ptrdiff_t read_for_parser(char* buf, std::size_t n, std::string& read_error) {
    if (!events.empty()) parser.yield();  // hand out what is parsed before a read that may block
    if (parser.cancelled()) return 0;     // the reader is going away: end of input
    return source.read(buf, n, read_error);
  }

  bool push(JsonEvent event) override {
    events.push_back(std::move(event));
    return events.size() < kMaxQueued || parser.yield();
  }

  // Runs the parser until it has queued an event or finished.
  bool advance() {
    while (events.empty()) {
      bool more = false;
      try {
        more = parser.resume();
      } catch (const std::system_error& e) {
        error = file_name + ": cannot start the JSON parser: " + e.what();
        return false;
      }
      if (!more) break;
    }
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

GbJsonReader::GbJsonReader(ByteSource& source, std::string file_name,
                           const ConfigList& initial_config)
    : impl_(std::make_unique<Impl>(source, std::move(file_name))) {
  for (const ConfigEntry& c : initial_config) {
    if (!c.value.empty()) impl_->handler.set_config(c.key, c.value, false);
  }
}

GbJsonReader::~GbJsonReader() = default;

bool GbJsonReader::next() {
  return impl_->advance();
}
RecordKind GbJsonReader::kind() const {
  return impl_->kind;
}
const BenchRecord& GbJsonReader::result() const {
  return impl_->result;
}
BenchRecord& GbJsonReader::mutable_result() {
  return impl_->result;
}
const UnitMetadata& GbJsonReader::unit_metadata() const {
  return impl_->no_meta;
}
const SyntaxError& GbJsonReader::syntax_error() const {
  return impl_->err;
}
const std::string& GbJsonReader::error() const {
  return impl_->error;
}

}  // namespace zerolab::stat
