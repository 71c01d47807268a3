// Google Benchmark JSON reader (include/zerolab/stat_reader.hpp): nlohmann-json's
// SAX parser reads the document on a HandOffThread, so that next() can hand
// out one record at a time while the parser, which reads a whole document in
// one call, is paused. The parser pauses when it needs bytes (next() reads
// them from the source, on the caller's thread, so a reader dropped while
// its source blocks never waits for it) and when kMaxQueued events wait:
// memory stays bounded by one chunk and one queue, not by the file.
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

#include "gb_json_handler.hpp"
#include "handoff_thread.hpp"
#include "json_stream.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {

struct GbJsonReader::Impl final : JsonEventSink {
  // Events the parser may queue before it waits for next() to take them.
  static constexpr std::size_t kMaxQueued = 1024;

  Impl(ByteSource& src, std::string name)
      : source(src),
        file_name(name.empty() ? "<unknown>" : std::move(name)),
        stream([this](char* buf, std::size_t n, std::string& e) { return read_for_parser(buf, n, e); }),
        handler(stream, file_name, *this),
        parser([this](HandOffThread& /*self*/) { parse(); }) {}

  ByteSource& source;
  std::string file_name;
  JsonByteStream stream;
  GbJsonHandler handler;
  std::deque<JsonEvent> events;
  // A read the parser waits for, done by next() on the caller's thread.
  struct ReadRequest {
    char* buf = nullptr;
    std::size_t n = 0;
    std::string* error = nullptr;
    std::ptrdiff_t got = 0;
    bool pending = false;
  } request;
  UnitMetadata no_meta;  // JSON has no unit metadata; kept for the interface
  BenchRecord result;
  SyntaxError err;
  RecordKind kind = RecordKind::kSyntaxError;
  std::string error;
  HandOffThread parser;  // last: stopped before the rest goes

  // On the parser's thread.
  void parse() {
    std::istream in(&stream);
    nlohmann::json::sax_parse(in, &handler, nlohmann::json::input_format_t::json, /*strict=*/true);
    if (stream.io_failed()) {
      error = file_name + ":" + std::to_string(stream.line_at(stream.consumed())) + ": " + stream.io_error();
      return;
    }
    handler.finish();
  }

  std::ptrdiff_t read_for_parser(char* buf, std::size_t n, std::string& read_error) {
    request = ReadRequest{buf, n, &read_error, 0, true};
    if (!parser.yield()) return 0;  // the reader is going away: end of input
    return request.got;
  }

  bool push(JsonEvent event) override {
    events.push_back(std::move(event));
    return events.size() < kMaxQueued || parser.yield();
  }

  // On the caller's thread: runs the parser until it has queued an event
  // or finished.
  bool advance() {
    while (events.empty()) {
      if (request.pending) {
        request.got = source.read(request.buf, request.n, *request.error);
        request.pending = false;
      }
      bool more = false;
      try {
        more = parser.resume();
      } catch (const std::system_error& e) {
        error = file_name + ": cannot start the JSON parser's thread: " + e.what();
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
