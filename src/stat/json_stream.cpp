// JsonByteStream (stat/json_stream.hpp): reads a chunk, respells NaN and
// Infinity outside strings, stops at the buffering limits, counts newlines
// of what the parser has been given.
//
// Example:
//   zerolab::stat::JsonByteStream buf(read);
//   std::istream in(&buf);
//   nlohmann::json::sax_parse(in, &handler);
#include "json_stream.hpp"

#include <algorithm>

namespace zerolab::stat {

int JsonByteStream::line_at(std::uint64_t offset) {
  count_newlines_to(offset);
  return 1 + newlines_;
}

JsonByteStream::int_type JsonByteStream::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  count_newlines_to(base_ + out_.size());
  base_ += out_.size();
  out_.clear();
  while (out_.empty() && !done_) refill();
  char* begin = out_.data();
  setg(begin, begin, begin + out_.size());
  return out_.empty() ? traits_type::eof() : traits_type::to_int_type(out_[0]);
}

void JsonByteStream::refill() {
  const std::ptrdiff_t n = read_(raw_.get(), kChunk, io_error_);
  if (n <= 0) {
    io_failed_ = n < 0;
    done_ = true;
    flush_word();
    return;
  }
  respell(raw_.get(), raw_.get() + n);
}

// Copies [p, end) to out_: string contents in runs, NaN and Infinity outside
// strings respelled, up to the first byte past a limit.
void JsonByteStream::respell(const char* p, const char* end) {
  out_.reserve(out_.size() + static_cast<std::size_t>(end - p));
  while (p < end) {
    if (in_string_) {
      const char* run = p;
      while (p < end && (escape_ || (*p != '"' && *p != '\\'))) {
        escape_ = false;
        ++p;
      }
      string_bytes_ += static_cast<std::size_t>(p - run);
      if (string_bytes_ > kMaxString) {
        out_.append(run, p - static_cast<std::ptrdiff_t>(string_bytes_ - kMaxString));
        return over_limit("invalid JSON: string longer than 1 MiB");
      }
      out_.append(run, p);
      if (p == end) return;
      out_.push_back(*p);
      if (*p == '\\') {
        escape_ = true;
      } else {
        in_string_ = false;
      }
      ++string_bytes_;
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
    const bool number = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || letter;
    number_bytes_ = number ? number_bytes_ + 1 : 0;
    if (number_bytes_ > kMaxNumber) return over_limit("invalid JSON: number too long");
    out_.push_back(c);
    in_string_ = c == '"';
    string_bytes_ = 0;
  }
}

void JsonByteStream::flush_word() {
  if (word_ == "NaN") {
    out_ += kNaNSpelling;
  } else if (word_ == "Infinity") {
    out_ += kInfinitySpelling;
  } else {
    out_ += word_;
  }
  word_.clear();
}

void JsonByteStream::over_limit(const char* message) {
  limit_error_ = message;
  done_ = true;
}

void JsonByteStream::count_newlines_to(std::uint64_t offset) {
  const std::uint64_t end = std::min<std::uint64_t>(offset, base_ + out_.size());
  if (end <= counted_) return;
  const auto from = static_cast<std::ptrdiff_t>(counted_ - base_);
  const auto to = static_cast<std::ptrdiff_t>(end - base_);
  newlines_ += static_cast<int>(std::count(out_.begin() + from, out_.begin() + to, '\n'));
  counted_ = end;
}

}  // namespace zerolab::stat
