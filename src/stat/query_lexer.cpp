// The query language's lexer (src/stat/query_lexer.hpp): benchproc's
// tokenizer, Go's quoting and unquoting, and the errors with their caret.
//
// Example:
//   zerolab::internal::ErrorTracker errt{"/size:1k"};
//   zerolab::internal::Tokenizer toks(errt.q_orig, &errt);
//   auto [tok, rest] = toks.key_or_op();  // tok.kind == 'w', tok.text == "/size"

#include "stat/query_lexer.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "format/go_regex.hpp"
#include "go_compat.hpp"
#include "zerolab/stat_filter.hpp"

namespace zerolab::stat {

using internal::decode_rune;
using internal::is_space;
using internal::kRuneError;

// ===== errors and quoting ==============================================================

std::string QueryError::to_string() const {
  std::size_t pos = 0;
  for (std::size_t i = 0; i < query.size();) {
    if (i >= offset) break;
    auto [r, n] = decode_rune(std::string_view(query).substr(i));
    if (internal::is_graphic(r)) ++pos;
    i += n;
  }
  return "syntax error: " + message + "\n\t" + query + "\n\t" + std::string(pos, ' ') + "^";
}

std::string go_quote(std::string_view s) {
  std::string out = "\"";
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < s.size();) {
    auto [r, n] = decode_rune(s.substr(i));
    if (r == kRuneError && n == 1) {
      const auto b = static_cast<unsigned char>(s[i]);
      out += "\\x";
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 15]);
      i += n;
      continue;
    }
    i += n;
    if (r == '"' || r == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(r));
    } else if (r == ' ' || (internal::is_graphic(r) && !is_space(r))) {
      internal::append_rune(out, r);
    } else {
      switch (r) {
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\v':
          out += "\\v";
          break;
        default:
          if (r < ' ' || r == 0x7F) {
            out += "\\x";
            out.push_back(kHex[(r >> 4) & 15]);
            out.push_back(kHex[r & 15]);
          } else if (r < 0x10000) {
            out += "\\u";
            for (int sh = 12; sh >= 0; sh -= 4) out.push_back(kHex[(r >> sh) & 15]);
          } else {
            out += "\\U";
            for (int sh = 28; sh >= 0; sh -= 4) out.push_back(kHex[(r >> sh) & 15]);
          }
      }
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace zerolab::stat

namespace zerolab::internal {
namespace {

using stat::go_quote;

bool is_op(char32_t c) {
  return c == '(' || c == ')' || c == ':' || c == '@' || c == ',';
}
bool is_start_op(char32_t c) {
  return is_op(c) || c == '-' || c == '*';
}

// Go's strconv.Unquote for a double-quoted string (quotes included).
bool go_unquote(std::string_view q, std::string& out) {
  out.clear();
  if (q.size() < 2 || q.front() != '"' || q.back() != '"') return false;
  std::string_view in = q.substr(1, q.size() - 2);
  if (in.find('\n') != std::string_view::npos) return false;
  auto hexval = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (in.find('\\') == std::string_view::npos && in.find('"') == std::string_view::npos) {
    bool valid = true;
    for (std::size_t i = 0; i < in.size();) {
      auto [r, n] = decode_rune(in.substr(i));
      if (r == kRuneError && n == 1) {
        valid = false;
        break;
      }
      i += n;
    }
    if (valid) {
      out.assign(in);
      return true;
    }
  }
  std::size_t i = 0;
  while (i < in.size()) {
    const char c = in[i];
    if (c == '"') return false;
    if (static_cast<unsigned char>(c) >= 0x80) {
      auto [r, n] = decode_rune(in.substr(i));
      internal::append_rune(out, r);
      i += n;
      continue;
    }
    if (c != '\\') {
      out.push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= in.size()) return false;
    const char e = in[i + 1];
    i += 2;
    switch (e) {
      case 'a':
        out.push_back('\a');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'v':
        out.push_back('\v');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case '"':
        out.push_back('"');
        break;
      case 'x':
      case 'u':
      case 'U': {
        const int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        if (i + static_cast<std::size_t>(digits) > in.size()) return false;
        std::uint32_t v = 0;
        for (int d = 0; d < digits; ++d) {
          const int h = hexval(in[i + static_cast<std::size_t>(d)]);
          if (h < 0) return false;
          v = v * 16 + static_cast<std::uint32_t>(h);
        }
        i += static_cast<std::size_t>(digits);
        if (e == 'x') {
          out.push_back(static_cast<char>(v));
        } else {
          if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return false;
          internal::append_rune(out, v);
        }
        break;
      }
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        if (i + 2 > in.size()) return false;
        std::uint32_t v = static_cast<std::uint32_t>(e - '0');
        for (int d = 0; d < 2; ++d) {
          const char o = in[i + static_cast<std::size_t>(d)];
          if (o < '0' || o > '7') return false;
          v = v * 8 + static_cast<std::uint32_t>(o - '0');
        }
        if (v > 255) return false;
        i += 2;
        out.push_back(static_cast<char>(v));
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

// regexpParseUntil(str, "/").
bool regexp_parse_until_slash(std::string_view str, std::string_view& expr,
                              std::string_view& rest) {
  int cs = 0;
  int cp = 0;
  for (std::size_t i = 0; i < str.size();) {
    if (cs == 0 && cp == 0 && str[i] == '/') {
      expr = str.substr(0, i);
      rest = str.substr(i);
      return true;
    }
    switch (str[i]) {
      case '[':
        ++cs;
        break;
      case ']':
        if (--cs < 0) cs = 0;
        break;
      case '(':
        if (cs == 0) ++cp;
        break;
      case ')':
        if (cs == 0) --cp;
        break;
      case '\\':
        ++i;
        break;
      default:
        break;
    }
    ++i;
  }
  return false;
}

}  // namespace

void ErrorTracker::error(std::string_view rest, const std::string& msg) {
  if (has) return;
  has = true;
  err = stat::QueryError{q_orig, q_orig.size() - rest.size(), msg};
}

std::shared_ptr<CompiledRegex> compile_regex(std::string_view expr, std::string* error) {
  auto c = std::make_shared<CompiledRegex>();
  c->source.assign(expr);
  std::string what;
  c->re = zerolab::internal::GoRegex::compile(expr, &what);
  if (!c->re) {
    *error = "error parsing regexp: " + what;
    return nullptr;
  }
  return c;
}

void Tokenizer::end() {
  auto [tok, rest] = key_or_op();
  if (tok.kind != 0) error("unexpected " + go_quote(tok.text));
}

std::pair<Tok, Tokenizer> Tokenizer::error(const std::string& msg) {
  errt_->error(q_, msg);
  return make(0, "", std::string_view());
}

std::pair<Tok, Tokenizer> Tokenizer::make(char kind, std::string text,
                                          std::string_view rest) const {
  Tok t;
  t.kind = kind;
  t.off = errt_->q_orig.size() - q_.size();
  t.text = std::move(text);
  return {std::move(t), Tokenizer(rest, errt_)};
}

std::pair<Tok, Tokenizer> Tokenizer::next(bool allow_regexp) {
  while (!q_.empty()) {
    const auto c0 = static_cast<unsigned char>(q_[0]);
    if (is_start_op(c0))
      return make(static_cast<char>(c0), std::string(q_.substr(0, 1)), q_.substr(1));
    std::size_t n = 0;
    if (c0 == ' ') {
      n = 1;
    } else {
      auto [r, size] = decode_rune(q_);
      if (is_space(r)) n = size;
    }
    if (n > 0) {
      q_.remove_prefix(n);
    } else if (allow_regexp && c0 == '/') {
      return regexp();
    } else if (c0 == '"') {
      return quoted_word();
    } else {
      return bare_word();
    }
  }
  return make(0, "", std::string_view());
}

std::pair<Tok, Tokenizer> Tokenizer::quoted_word() {
  std::size_t pos = 1;
  while (pos < q_.size() && (q_[pos] != '"' || q_[pos - 1] == '\\')) ++pos;
  if (pos == q_.size()) return error("missing end quote");
  std::string word;
  if (!go_unquote(q_.substr(0, pos + 1), word)) return error("bad escape sequence");
  return make('q', std::move(word), q_.substr(pos + 1));
}

std::pair<Tok, Tokenizer> Tokenizer::bare_word() const {
  std::size_t end = q_.size();
  for (std::size_t i = 0; i < q_.size();) {
    auto [r, n] = decode_rune(q_.substr(i));
    if (is_space(r) || is_op(r)) {
      end = i;
      break;
    }
    i += n;
  }
  const std::string_view word = q_.substr(0, end);
  char kind = 'w';
  if (word == "AND") kind = 'A';
  if (word == "OR") kind = 'O';
  return make(kind, std::string(word), q_.substr(end));
}

std::pair<Tok, Tokenizer> Tokenizer::regexp() {
  std::string_view expr;
  std::string_view rest;
  if (!regexp_parse_until_slash(q_.substr(1), expr, rest)) return error("missing close \"/\"");
  std::string err;
  auto re = compile_regex(expr, &err);
  if (!re) return error(err);
  const std::string_view q2 = rest.substr(1);
  if (!(q2.empty() || is_space(static_cast<unsigned char>(q2[0])) ||
        is_start_op(static_cast<unsigned char>(q2[0])))) {
    q_ = q2;
    return error("regexp must be followed by space or an operator (unescaped \"/\"?)");
  }
  auto result = make('r', std::string(expr), q2);
  result.first.re = std::move(re);
  return result;
}

// Go's quoteWord: the form that tokenizes back to s.
std::string quote_word(std::string_view s) {
  if (s.empty()) return "\"\"";
  std::size_t i = 0;
  while (i < s.size()) {
    auto [r, n] = decode_rune(s.substr(i));
    if (r == '"' || r == ' ' || r == '\a' || r == '\b') return go_quote(s);
    if (is_op(r) || is_space(r) || (i == 0 && (r == '-' || r == '*'))) return go_quote(s);
    i += n;
  }
  return std::string(s);
}

}  // namespace zerolab::internal
