// See markdown.hpp. markdown_text finds code spans as CommonMark does (a run
// of n backticks up to the next run of exactly n) and writes their insides
// literally, since nothing in a span is interpreted.
#include "text/markdown.hpp"

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

std::size_t backtick_run(std::string_view text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && text[end] == '`') ++end;
  return end - at;
}

// Where the code span opened by the `n` backticks at `open` closes (the
// next run of exactly n), or npos when it does not (the run is literal).
std::size_t span_close(std::string_view text, std::size_t open, std::size_t n) {
  for (std::size_t at = text.find('`', open + n); at != std::string_view::npos;) {
    const std::size_t run = backtick_run(text, at);
    if (run == n) return at;
    at = text.find('`', at + run);
  }
  return std::string_view::npos;
}

// The inside of a code span markdown_text keeps: as written (no entities,
// no backslashes: a span shows them as they are), but for what would end
// the line or, in a table, the cell.
void append_span_inside(std::string_view inside, std::string& out) {
  for (const char c : inside) {
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      if (c == '|') out += '\\';
      out += c;
    }
  }
}

}  // namespace

std::string markdown_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t done = 0;
  for (std::size_t at = text.find('`'); at != std::string_view::npos;) {
    const std::size_t n = backtick_run(text, at);
    const std::size_t close = span_close(text, at, n);
    if (close == std::string_view::npos) {
      at = text.find('`', at + n);
      continue;
    }
    out += escaped(text.substr(done, at - done), Place::kText);
    out.append(n, '`');
    append_span_inside(text.substr(at + n, close - at - n), out);
    out.append(n, '`');
    done = close + n;
    at = text.find('`', done);
  }
  out += escaped(text.substr(done), Place::kText);
  return out;
}

std::string markdown_code(std::string_view text) {
  return escaped(text, Place::kCodeSpan);
}

std::string markdown_code_cell(std::string_view text) {
  return escaped(text, Place::kCodeSpanInTable);
}

}  // namespace zerolab::internal
