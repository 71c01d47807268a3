// See markdown.hpp.
#include "format/markdown.hpp"

namespace zerolab::internal {
namespace {

enum class Place { kText, kCodeSpan, kCodeSpanInTable };

std::string escaped(std::string_view text, Place place) {
  const bool code = place != Place::kText;
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (code && c == '`') {
      out += '\'';
    } else if (!code && c == '<') {
      out += "&lt;";
    } else if (!code && c == '>') {
      out += "&gt;";
    } else {
      if ((c == '|' && place != Place::kCodeSpan) || (c == '\\' && !code)) out += '\\';
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string markdown_text(std::string_view text) { return escaped(text, Place::kText); }

std::string markdown_code(std::string_view text) { return escaped(text, Place::kCodeSpan); }

std::string markdown_code_cell(std::string_view text) { return escaped(text, Place::kCodeSpanInTable); }

}  // namespace zerolab::internal
