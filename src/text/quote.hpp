// The one way zerolab quotes user input in a message: in double quotes, with
// '"' and '\\' escaped and every byte outside printable ASCII written as \n,
// \r, \t or \xNN, so a quoted file name, flag value or manifest line can never
// break the message's one line (a raw CR, a NUL that cuts the text, an ESC
// sequence). Long input is cut in the middle with "..." so a 10 KB flag value
// stays readable.
//
// Thread-safety: pure functions.
//
// Example:
//   quote_text("a\r\nb")      // "\"a\\r\\nb\""
//   quote_text("x\0y"sv)      // "\"x\\x00y\""
//   shown_text("main.txt")    // "main.txt" (plain text is shown as is)
#ifndef ZEROLAB_SRC_FORMAT_QUOTE_HPP_
#define ZEROLAB_SRC_FORMAT_QUOTE_HPP_

#include <cstddef>
#include <string>
#include <string_view>

namespace zerolab::internal {

// Input longer than this many bytes is shown as its first and last
// kQuoteKeep / 2 bytes around "...".
inline constexpr std::size_t kQuoteKeep = 256;

// `text` in double quotes with escapes (see above).
std::string quote_text(std::string_view text);

// `text` as is when it is printable ASCII without spaces, quotes or
// backslashes (and not too long), else quote_text(text).
std::string shown_text(std::string_view text);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_FORMAT_QUOTE_HPP_
