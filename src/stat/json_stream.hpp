// The bytes nlohmann-json's parser reads for the Google Benchmark JSON reader
// (reader_json.cpp): a std::streambuf over a read function that
//  - counts what it hands out, so any byte offset becomes a 1-based line;
//  - spells Google Benchmark's unquoted NaN and ±Infinity (not JSON) outside
//    strings as numbers no one writes (kNaNSpelling, kInfinitySpelling), for
//    the handler to turn back;
//  - bounds what the parser buffers: a string over 1 MiB or a number over
//    400 bytes ends the input, with limit_error() saying which.
//
// Example:
//   zerolab::stat::StringSource src("{\"x\":\n NaN}");
//   zerolab::stat::JsonByteStream buf([&src](char* b, std::size_t n, std::string& e) { return
//   src.read(b, n, e); }); std::istream in(&buf);  // reads {"x":\n 0E+000000000000000000}
//   buf.line_at(6);         // 2
#ifndef ZEROLAB_SRC_STAT_JSON_STREAM_HPP_
#define ZEROLAB_SRC_STAT_JSON_STREAM_HPP_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>

namespace zerolab::stat {

inline constexpr std::string_view kNaNSpelling = "0E+000000000000000000";
inline constexpr std::string_view kInfinitySpelling = "1E+000000000000000000";

class JsonByteStream final : public std::streambuf {
 public:
  // ByteSource::read's contract: a count, 0 at the end, -1 with error set.
  using ReadFn = std::function<std::ptrdiff_t(char* buf, std::size_t n, std::string& error)>;

  static constexpr std::size_t kMaxString = 1 << 20;
  static constexpr std::size_t kMaxNumber = 400;
  static constexpr std::size_t kChunk = 256 * 1024;

  // raw_ is not value-initialized: each read fills what it uses.
  explicit JsonByteStream(ReadFn read)
      : read_(std::move(read)), raw_(std::make_unique_for_overwrite<char[]>(kChunk)) {}

  bool io_failed() const { return io_failed_; }
  const std::string& io_error() const { return io_error_; }
  // "invalid JSON: string longer than 1 MiB" when a limit ended the input.
  const std::string& limit_error() const { return limit_error_; }

  // Bytes handed to the parser so far.
  std::uint64_t consumed() const { return base_ + static_cast<std::uint64_t>(gptr() - eback()); }

  // The 1-based line of the byte at `offset` (asked in increasing order,
  // within what was handed out).
  int line_at(std::uint64_t offset);

 protected:
  int_type underflow() override;

 private:
  void refill();
  void respell(const char* p, const char* end);
  void flush_word();
  void over_limit(const char* message);
  void count_newlines_to(std::uint64_t offset);

  ReadFn read_;
  std::unique_ptr<char[]> raw_;  // kChunk bytes
  std::string out_;              // the respelled bytes being handed out
  std::uint64_t base_ = 0;       // offset of out_[0]
  std::uint64_t counted_ = 0;
  int newlines_ = 0;  // before counted_
  std::string word_;
  std::size_t string_bytes_ = 0;  // of the string being read
  std::size_t number_bytes_ = 0;  // of the number being read
  bool in_string_ = false;
  bool escape_ = false;
  bool done_ = false;
  bool io_failed_ = false;
  std::string io_error_;
  std::string limit_error_;
};

}  // namespace zerolab::stat

#endif  // ZEROLAB_SRC_STAT_JSON_STREAM_HPP_
