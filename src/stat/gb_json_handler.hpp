// nlohmann-json's SAX handler for Google Benchmark JSON: follows the
// document's shape ("context" becomes file configuration, each object of
// "benchmarks" a result) and gives what it reads, record or message, to an
// event sink as soon as it has it. Every line comes from a byte offset of
// the JsonByteStream the parser reads.
//
// Example:
//   JsonByteStream stream(read);
//   struct Print : JsonEventSink { bool push(JsonEvent e) override { ...; return true; } } sink;
//   GbJsonHandler handler(stream, "a.json", sink);
//   std::istream in(&stream);
//   nlohmann::json::sax_parse(in, &handler, nlohmann::json::input_format_t::json, true);
//   handler.finish();  // "a.json:1: not Google Benchmark JSON: no \"benchmarks\" array" if so
#ifndef ZEROLAB_SRC_STAT_GB_JSON_HANDLER_HPP_
#define ZEROLAB_SRC_STAT_GB_JSON_HANDLER_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "gb_json_benchmark.hpp"
#include "json_stream.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {

using JsonEvent = std::variant<BenchRecord, SyntaxError>;

// Takes the handler's events in document order. push() returns false when
// no more are wanted: the handler then stops the parse.
class JsonEventSink {
 public:
  virtual ~JsonEventSink() = default;
  virtual bool push(JsonEvent event) = 0;
};

class GbJsonHandler {
 public:
  GbJsonHandler(JsonByteStream& stream, std::string file_name, JsonEventSink& sink)
      : stream_(stream), file_name_(std::move(file_name)), sink_(sink) {}

  // Configuration in force before the file's own (from the command line).
  void set_config(const std::string& key, const std::string& value, bool file);

  // After the parse: the message for a document without a "benchmarks"
  // array, unless the parse stopped on an error already reported.
  void finish();

  // nlohmann::json_sax's interface. False stops the parse.
  bool null() { return scalar(JsonScalar{}); }
  bool boolean(bool v) {
    return scalar(JsonScalar{JsonScalar::Type::kBool, v ? "true" : "false", 0});
  }
  bool number_integer(std::int64_t v) {
    return scalar(JsonScalar::number_of(std::to_string(v), static_cast<double>(v)));
  }
  bool number_unsigned(std::uint64_t v) {
    return scalar(JsonScalar::number_of(std::to_string(v), static_cast<double>(v)));
  }
  bool number_float(double v, const std::string& written);
  bool string(std::string& v) { return scalar(JsonScalar::string(std::move(v))); }
  bool binary(nlohmann::json::binary_t& /*unused*/) { return true; }  // never in JSON text
  bool key(std::string& k) {
    key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t /*unused*/) { return open(true); }
  bool start_array(std::size_t /*unused*/) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& e);

 private:
  enum class Frame { kTop, kContext, kBenchmarks, kBenchmark, kSkip };

  int line_of(std::uint64_t offset) { return stream_.line_at(offset); }
  // The line of the token just read (a '{', '[' or the last byte of a scalar).
  int current_line() { return line_of(stream_.consumed() > 0 ? stream_.consumed() - 1 : 0); }

  void emit(JsonEvent event);
  void warn(int line, std::string message) {
    emit(SyntaxError{file_name_, line, std::move(message)});
  }
  bool stop(std::string message);
  bool open(bool object);
  bool close();
  bool scalar(JsonScalar value);
  void add_context(const JsonScalar& value);
  void finish_benchmark();

  JsonByteStream& stream_;
  std::string file_name_;
  JsonEventSink& sink_;
  std::vector<Frame> frames_;
  std::string key_;    // the last key read
  JsonFields fields_;  // of the benchmark being read
  int benchmark_line_ = 0;
  ConfigList config_;
  std::shared_ptr<const ConfigList> snapshot_;  // config_ as the records share it
  std::vector<std::string> warnings_;           // scratch for finish_benchmark
  bool saw_anything_ = false;
  bool saw_benchmarks_ = false;
  bool stopped_ = false;    // on an error, reported
  bool cancelled_ = false;  // the sink wants no more
};

}  // namespace zerolab::stat

#endif  // ZEROLAB_SRC_STAT_GB_JSON_HANDLER_HPP_
