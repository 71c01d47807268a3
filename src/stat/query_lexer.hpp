// The lexer of zerolab's query language (`-filter`, `-row`, `-col`,
// `-table`, `-ignore`; include/zerolab/stat_filter.hpp): benchproc's
// tokenizer, which both the filter parser (stat/filter.cpp) and the
// projection parser (stat/projection.cpp) read tokens from.
//
// A Tokenizer is a cheap value (a view of the rest of the query): reading a
// token returns the token and the tokenizer after it, so a parser can look
// ahead and back off. The first error is kept in the shared ErrorTracker with
// its offset, which QueryError::to_string turns into a caret line.
//
// Thread-safety: a Tokenizer and its ErrorTracker belong to one parse.
//
// Example:
//   zerolab::internal::ErrorTracker errt{"/size:1k"};
//   zerolab::internal::Tokenizer toks(errt.q_orig, &errt);
//   auto [tok, rest] = toks.key_or_op();  // tok.kind == 'w', tok.text == "/size"
#ifndef ZEROLAB_SRC_STAT_QUERY_LEXER_HPP_
#define ZEROLAB_SRC_STAT_QUERY_LEXER_HPP_

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "format/go_regex.hpp"
#include "zerolab/stat_filter.hpp"

namespace zerolab::internal {

// A `/regexp/` of a query, compiled once, with its source for to_string.
struct CompiledRegex {
  std::string source;
  std::unique_ptr<GoRegex> re;
};

// The query being parsed and its first error.
struct ErrorTracker {
  std::string q_orig;
  bool has = false;
  stat::QueryError err;

  // Records msg at the position where `rest` (a tail of q_orig) starts,
  // unless an error was recorded already.
  void error(std::string_view rest, const std::string& msg);
};

struct Tok {
  char kind =
      0;  // 'w' word, 'q' quoted word, 'r' regexp, 'A' AND, 'O' OR, an operator, or 0 at the end
  std::size_t off = 0;
  std::string text;
  std::shared_ptr<CompiledRegex> re;  // for kind 'r'
};

// benchproc's tokenizer. Like Go's pointer-receiver methods, peeking at a
// token skips the spaces before it in the tokenizer peeked at, which moves
// the position later errors report.
class Tokenizer {
 public:
  Tokenizer(std::string_view q, ErrorTracker* errt) : q_(q), errt_(errt) {}

  // The next token where a key (no regexp) or a value (regexp allowed) may stand.
  std::pair<Tok, Tokenizer> key_or_op() { return next(false); }
  std::pair<Tok, Tokenizer> value_or_op() { return next(true); }

  // Records "unexpected ..." unless the query ends here.
  void end();

  // Records msg at this position; returns the end token.
  std::pair<Tok, Tokenizer> error(const std::string& msg);

 private:
  std::pair<Tok, Tokenizer> make(char kind, std::string text, std::string_view rest) const;
  std::pair<Tok, Tokenizer> next(bool allow_regexp);
  std::pair<Tok, Tokenizer> quoted_word();
  std::pair<Tok, Tokenizer> bare_word() const;
  std::pair<Tok, Tokenizer> regexp();

  std::string_view q_;
  ErrorTracker* errt_;
};

// Compiles a query's regexp; null and *error ("error parsing regexp: ...").
std::shared_ptr<CompiledRegex> compile_regex(std::string_view expr, std::string* error);

// Go's quoteWord: the form that tokenizes back to s.
std::string quote_word(std::string_view s);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_STAT_QUERY_LEXER_HPP_
