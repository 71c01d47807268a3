// See quote.hpp.
#include "text/quote.hpp"

namespace zerolab::internal {
namespace {

void append_escaped(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u >= 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
}

}  // namespace

std::string quote_text(std::string_view text) {
  std::string out = "\"";
  if (text.size() <= kQuoteKeep) {
    append_escaped(out, text);
  } else {
    append_escaped(out, text.substr(0, kQuoteKeep / 2));
    out += "...";
    append_escaped(out, text.substr(text.size() - kQuoteKeep / 2));
  }
  out += '"';
  return out;
}

std::string shown_text(std::string_view text) {
  if (text.empty() || text.size() > kQuoteKeep) return quote_text(text);
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == '"' || c == '\\') return quote_text(text);
  }
  return std::string(text);
}

}  // namespace zerolab::internal
