// The one way zerolab writes user text (benchmark names, titles, messages,
// file names, command lines) into Markdown, so it stays text and stays in its
// table cell, line or code span, whatever it contains.
//
// markdown_text: for a paragraph, heading, list item or table cell.
//   '|'  -> "\|"    (would end a table cell)
//   '\\' -> "\\\\"  (would escape the next character, e.g. a cell's closing '|')
//   '<'  -> "&lt;", '>' -> "&gt;"   (would be read as an HTML tag)
//   '\n', '\r' -> ' '              (would end the line, the row or the cell)
//   everything else as is. Backticks stay, so a quote from a Markdown source
//   keeps its `code` (a lone backtick shows as itself); inside such a span
//   only '|' and line breaks change (a span shows '<', '&' and '\' as they
//   are, so escaping them there would show the escapes); '&' stays (an
//   entity in the input shows as its character); '*' and '_' are left to
//   the renderer.
//
// markdown_code: the inside of a code span (`...`) in a paragraph, where
// nothing is interpreted: '`' (would end the span) becomes '\'', and line
// breaks become spaces. markdown_code_cell: the same inside a table cell,
// where GFM splits the row at every unescaped '|' before it reads the spans,
// so '|' also becomes "\|" (shown as '|').
//
// Thread-safety: pure functions.
//
// Example:
//   markdown_text("make<char[]> | a\\b")   // "make&lt;char[]&gt; \\| a\\\\b"
//   "`" + markdown_code("x`y") + "`"       // "`x'y`"
//   "`" + markdown_code_cell("operator|") + "`"  // "`operator\\|`"
#ifndef ZEROLAB_SRC_FORMAT_MARKDOWN_HPP_
#define ZEROLAB_SRC_FORMAT_MARKDOWN_HPP_

#include <string>
#include <string_view>

namespace zerolab::internal {

// `text` escaped for Markdown prose or a table cell (rules above).
std::string markdown_text(std::string_view text);

// `text` for inside a code span in prose (rules above).
std::string markdown_code(std::string_view text);

// `text` for inside a code span in a table cell (rules above).
std::string markdown_code_cell(std::string_view text);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_FORMAT_MARKDOWN_HPP_
