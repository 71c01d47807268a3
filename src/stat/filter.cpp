// Filters, projections and keys (include/zerolab/stat_filter.hpp): the
// tokenizer and parsers follow benchproc's grammar and its error messages.
//
// Example:
//   std::string err;
//   auto f = zerolab::stat::Filter::parse("-(/size:1k OR /size:2k)", &err);
//   f->to_string();  // "-(/size:1k OR /size:2k)"
// libstdc++ 12 trips a false -Wmaybe-uninitialized inside std::function
// when optimized with sanitizers (GCC bug 105562).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "go_compat.hpp"
#include "format/go_regex.hpp"
#include "zerolab/stat_filter.hpp"

namespace zerolab::stat {

// ===== errors and quoting ==============================================================

std::string QueryError::to_string() const {
  std::size_t pos = 0;
  for (std::size_t i = 0; i < query.size();) {
    if (i >= offset) break;
    auto [r, n] = internal::decode_rune(std::string_view(query).substr(i));
    if (internal::is_graphic(r)) ++pos;
    i += n;
  }
  return "syntax error: " + message + "\n\t" + query + "\n\t" + std::string(pos, ' ') + "^";
}

std::string go_quote(std::string_view s) {
  std::string out = "\"";
  static const char* kHex = "0123456789abcdef";
  for (std::size_t i = 0; i < s.size();) {
    auto [r, n] = internal::decode_rune(s.substr(i));
    if (r == internal::kRuneError && n == 1) {
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
    } else if (r == ' ' || (internal::is_graphic(r) && !internal::is_space(r))) {
      internal::append_rune(out, r);
    } else {
      switch (r) {
        case '\a': out += "\\a"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\v': out += "\\v"; break;
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

namespace {

// ===== tokenizer =========================================================================

bool is_op(char32_t c) { return c == '(' || c == ')' || c == ':' || c == '@' || c == ','; }
bool is_start_op(char32_t c) { return is_op(c) || c == '-' || c == '*'; }

struct CompiledRegex {
  std::string source;
  std::unique_ptr<zerolab::internal::GoRegex> re;
};

struct ErrorTracker {
  std::string q_orig;
  bool has = false;
  QueryError err;

  void error(std::string_view rest, const std::string& msg) {
    if (has) return;
    has = true;
    err = QueryError{q_orig, q_orig.size() - rest.size(), msg};
  }
};

struct Tok {
  char kind = 0;  // 'w', 'q', 'r', 'A', 'O', an operator, or 0 at the end
  std::size_t off = 0;
  std::string text;
  std::shared_ptr<CompiledRegex> re;
};

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
      auto [r, n] = internal::decode_rune(in.substr(i));
      if (r == internal::kRuneError && n == 1) {
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
      auto [r, n] = internal::decode_rune(in.substr(i));
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
      case 'a': out.push_back('\a'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'v': out.push_back('\v'); break;
      case '\\': out.push_back('\\'); break;
      case '"': out.push_back('"'); break;
      case 'x': case 'u': case 'U': {
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
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
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
bool regexp_parse_until_slash(std::string_view str, std::string_view& expr, std::string_view& rest) {
  int cs = 0;
  int cp = 0;
  for (std::size_t i = 0; i < str.size();) {
    if (cs == 0 && cp == 0 && str[i] == '/') {
      expr = str.substr(0, i);
      rest = str.substr(i);
      return true;
    }
    switch (str[i]) {
      case '[': ++cs; break;
      case ']': if (--cs < 0) cs = 0; break;
      case '(': if (cs == 0) ++cp; break;
      case ')': if (cs == 0) --cp; break;
      case '\\': ++i; break;
      default: break;
    }
    ++i;
  }
  return false;
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

// benchproc's tokenizer. Like Go's pointer-receiver methods, peeking at a
// token skips the spaces before it in the tokenizer peeked at, which moves
// the position later errors report.
class Tokenizer {
 public:
  Tokenizer(std::string_view q, ErrorTracker* errt) : q_(q), errt_(errt) {}

  std::pair<Tok, Tokenizer> key_or_op() { return next(false); }
  std::pair<Tok, Tokenizer> value_or_op() { return next(true); }

  void end() {
    auto [tok, rest] = key_or_op();
    if (tok.kind != 0) error("unexpected " + go_quote(tok.text));
  }

  std::pair<Tok, Tokenizer> error(const std::string& msg) {
    errt_->error(q_, msg);
    return make(0, "", std::string_view());
  }

 private:
  std::pair<Tok, Tokenizer> make(char kind, std::string text, std::string_view rest) const {
    Tok t;
    t.kind = kind;
    t.off = errt_->q_orig.size() - q_.size();
    t.text = std::move(text);
    return {std::move(t), Tokenizer(rest, errt_)};
  }

  std::pair<Tok, Tokenizer> next(bool allow_regexp) {
    while (!q_.empty()) {
      const auto c0 = static_cast<unsigned char>(q_[0]);
      if (is_start_op(c0)) return make(static_cast<char>(c0), std::string(q_.substr(0, 1)), q_.substr(1));
      std::size_t n = 0;
      if (c0 == ' ') {
        n = 1;
      } else {
        auto [r, size] = internal::decode_rune(q_);
        if (internal::is_space(r)) n = size;
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

  std::pair<Tok, Tokenizer> quoted_word() {
    std::size_t pos = 1;
    while (pos < q_.size() && (q_[pos] != '"' || q_[pos - 1] == '\\')) ++pos;
    if (pos == q_.size()) return error("missing end quote");
    std::string word;
    if (!go_unquote(q_.substr(0, pos + 1), word)) return error("bad escape sequence");
    return make('q', std::move(word), q_.substr(pos + 1));
  }

  std::pair<Tok, Tokenizer> bare_word() const {
    std::size_t end = q_.size();
    for (std::size_t i = 0; i < q_.size();) {
      auto [r, n] = internal::decode_rune(q_.substr(i));
      if (internal::is_space(r) || is_op(r)) {
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

  std::pair<Tok, Tokenizer> regexp() {
    std::string_view expr;
    std::string_view rest;
    if (!regexp_parse_until_slash(q_.substr(1), expr, rest)) return error("missing close \"/\"");
    std::string err;
    auto re = compile_regex(expr, &err);
    if (!re) return error(err);
    const std::string_view q2 = rest.substr(1);
    if (!(q2.empty() || internal::is_space(static_cast<unsigned char>(q2[0])) ||
          is_start_op(static_cast<unsigned char>(q2[0])))) {
      q_ = q2;
      return error("regexp must be followed by space or an operator (unescaped \"/\"?)");
    }
    auto result = make('r', std::string(expr), q2);
    result.first.re = std::move(re);
    return result;
  }

  std::string_view q_;
  ErrorTracker* errt_;
};

// Go's quoteWord: the form that tokenizes back to s.
std::string quote_word(std::string_view s) {
  if (s.empty()) return "\"\"";
  std::size_t i = 0;
  while (i < s.size()) {
    auto [r, n] = internal::decode_rune(s.substr(i));
    if (r == '"' || r == ' ' || r == '\a' || r == '\b') return go_quote(s);
    if (is_op(r) || internal::is_space(r) || (i == 0 && (r == '-' || r == '*'))) return go_quote(s);
    i += n;
  }
  return std::string(s);
}

}  // namespace

// ===== extractors ==========================================================================

void split_name(std::string_view full, std::string_view& base, std::vector<std::string_view>& parts) {
  parts.clear();
  std::string_view buf = full;
  std::string_view gomaxprocs;
  for (std::size_t k = full.size(); k > 0; --k) {
    const std::size_t i = k - 1;
    if (full[i] == '-' && i < full.size() - 1) {
      buf = full.substr(0, i);
      gomaxprocs = full.substr(i);
      break;
    }
    if (!(full[i] >= '0' && full[i] <= '9')) break;
  }
  std::size_t prev = 0;
  bool first = true;
  for (std::size_t i = 0; i < buf.size(); ++i) {
    if (buf[i] == '/') {
      if (first) {
        base = buf.substr(prev, i - prev);
        first = false;
      } else {
        parts.push_back(buf.substr(prev, i - prev));
      }
      prev = i;
    }
  }
  if (first) {
    base = buf.substr(prev);
  } else {
    parts.push_back(buf.substr(prev));
  }
  if (!gomaxprocs.empty()) parts.push_back(gomaxprocs);
}

namespace {

std::string_view name_base(std::string_view full) {
  const std::size_t slash = full.find('/');
  if (slash != std::string_view::npos) return full.substr(0, slash);
  for (std::size_t k = full.size(); k > 0; --k) {
    const std::size_t i = k - 1;
    if (full[i] == '-' && i < full.size() - 1) return full.substr(0, i);
    if (!(full[i] >= '0' && full[i] <= '9')) break;
  }
  return full;
}

// The full name without excluded sub-name keys (and "*" for an excluded
// .name), as benchproc's newExtractorFullName builds it.
Extractor make_full_name_extractor(const std::vector<std::string>& exclude) {
  std::vector<std::string> del;
  bool exc_name = false;
  bool exc_gomaxprocs = false;
  for (const std::string& k : exclude) {
    if (k == ".name") exc_name = true;
    if (k.empty() || k[0] != '/') continue;
    del.push_back(k + "=");
    if (k == "/gomaxprocs") exc_gomaxprocs = true;
  }
  if (del.empty() && !exc_name && !exc_gomaxprocs) {
    return [](const BenchRecord& r) { return r.full_name(); };
  }
  auto buf = std::make_shared<std::string>();
  return [del, exc_name, exc_gomaxprocs, buf](const BenchRecord& r) -> std::string_view {
    const std::string_view name = r.full_name();
    bool found = exc_name;
    if (!found) {
      for (const std::string& k : del) {
        if (name.find(k) != std::string_view::npos) {
          found = true;
          break;
        }
      }
    }
    if (!found && exc_gomaxprocs && name.find('-') != std::string_view::npos) found = true;
    if (!found) return name;
    std::string_view base;
    std::vector<std::string_view> parts;
    split_name(name, base, parts);
    buf->clear();
    if (exc_name) {
      buf->push_back('*');
    } else {
      buf->append(base);
    }
    for (std::string_view part : parts) {
      bool skip = false;
      for (const std::string& k : del) {
        if (part.substr(0, k.size()) == k) {
          skip = true;
          break;
        }
      }
      if (!skip && exc_gomaxprocs && part[0] == '-') skip = true;
      if (!skip) buf->append(part);
    }
    return *buf;
  };
}

}  // namespace

Extractor make_extractor(std::string_view key, std::string* error) {
  if (key.empty()) {
    if (error != nullptr) *error = "key must not be empty";
    return nullptr;
  }
  if (key == ".config" || key == ".unit") {
    if (error != nullptr) *error = std::string(key) + " is not an extractor";
    return nullptr;
  }
  if (key == ".name") return [](const BenchRecord& r) { return name_base(r.full_name()); };
  if (key == ".fullname") return [](const BenchRecord& r) { return r.full_name(); };
  if (key[0] == '/') {
    std::string prefix = std::string(key) + "=";
    const bool is_gomaxprocs = key == "/gomaxprocs";
    return [prefix, is_gomaxprocs](const BenchRecord& r) -> std::string_view {
      std::string_view base;
      std::vector<std::string_view> parts;
      split_name(r.full_name(), base, parts);
      if (is_gomaxprocs && !parts.empty() && parts.back()[0] == '-') return parts.back().substr(1);
      for (std::string_view part : parts) {
        if (part.substr(0, prefix.size()) == prefix) return part.substr(prefix.size());
      }
      return {};
    };
  }
  std::string k(key);
  return [k](const BenchRecord& r) { return r.config_value(k); };
}

// ===== filter nodes and parser =================================================================

struct Filter::Node {
  enum class Kind { kAnd, kOr, kNot, kMatch, kUnitMatch, kPredicate };
  Kind kind = Kind::kAnd;
  std::vector<std::unique_ptr<Node>> children;
  std::string key;
  std::string literal;
  std::shared_ptr<CompiledRegex> re;
  Extractor extract;
  std::function<bool(const BenchRecord&)> predicate;

  bool matches(std::string_view value) const {
    if (re) return re->re->search(value);
    return literal == value;
  }

  std::string to_string() const {
    switch (kind) {
      case Kind::kNot:
        return "-" + children[0]->to_string();
      case Kind::kAnd:
      case Kind::kOr: {
        if (children.empty()) return kind == Kind::kAnd ? "*" : "-*";
        std::string s = "(";
        for (std::size_t i = 0; i < children.size(); ++i) {
          if (i > 0) s += kind == Kind::kAnd ? " AND " : " OR ";
          s += children[i] ? children[i]->to_string() : "<nil>";
        }
        return s + ")";
      }
      case Kind::kMatch:
      case Kind::kUnitMatch:
        if (re) return quote_word(key) + ":/" + re->source + "/";
        return quote_word(key) + ":" + quote_word(literal);
      case Kind::kPredicate:
        return "<projection>";
    }
    return "";
  }

  // benchproc's filterFn: either a per-metric mask or a whole-result answer.
  struct Eval {
    bool has_mask = false;
    std::vector<bool> mask;
    bool x = false;
  };

  Eval eval(const BenchRecord& r) const {
    Eval out;
    switch (kind) {
      case Kind::kUnitMatch: {
        out.has_mask = true;
        const auto& m = r.result.metrics;
        out.mask.assign(m.size(), false);
        for (std::size_t i = 0; i < m.size(); ++i) {
          const std::string& orig = i < r.original.size() ? r.original[i].unit : std::string();
          out.mask[i] = matches(m[i].unit) || (!orig.empty() && matches(orig));
        }
        return out;
      }
      case Kind::kMatch:
        out.x = matches(extract(r));
        return out;
      case Kind::kPredicate:
        out.x = predicate(r);
        return out;
      case Kind::kNot: {
        out = children[0]->eval(r);
        if (!out.has_mask) {
          out.x = !out.x;
        } else {
          out.mask.flip();
        }
        return out;
      }
      case Kind::kAnd: {
        for (const auto& sub : children) {
          Eval e = sub->eval(r);
          if (!e.has_mask) {
            if (!e.x) return Eval{};
          } else if (!out.has_mask) {
            out.has_mask = true;
            out.mask = std::move(e.mask);
          } else {
            for (std::size_t i = 0; i < out.mask.size(); ++i) out.mask[i] = out.mask[i] && e.mask[i];
          }
        }
        out.x = true;
        return out;
      }
      case Kind::kOr: {
        for (const auto& sub : children) {
          Eval e = sub->eval(r);
          if (!e.has_mask) {
            if (e.x) {
              Eval t;
              t.x = true;
              return t;
            }
          } else if (!out.has_mask) {
            out.has_mask = true;
            out.mask = std::move(e.mask);
          } else {
            for (std::size_t i = 0; i < out.mask.size(); ++i) out.mask[i] = out.mask[i] || e.mask[i];
          }
        }
        out.x = false;
        return out;
      }
    }
    return out;
  }
};

namespace {

using NodePtr = std::unique_ptr<Filter::Node>;

NodePtr make_op(Filter::Node::Kind kind, std::vector<NodePtr> children) {
  auto n = std::make_unique<Filter::Node>();
  n->kind = kind;
  n->children = std::move(children);
  return n;
}

NodePtr make_match(const std::string& key, const Tok& val) {
  auto n = std::make_unique<Filter::Node>();
  n->kind = Filter::Node::Kind::kMatch;
  n->key = key;
  if (val.kind == 'r') {
    n->re = val.re;
  } else {
    n->literal = val.text;
  }
  return n;
}

class FilterParser {
 public:
  std::pair<NodePtr, Tokenizer> expr(Tokenizer toks) {
    std::vector<NodePtr> terms;
    for (;;) {
      auto r = and_expr(toks);
      toks = r.second;
      terms.push_back(std::move(r.first));
      auto [op, toks2] = toks.key_or_op();
      if (op.kind != 'O') break;
      toks = toks2;
    }
    if (terms.size() == 1) return {std::move(terms[0]), toks};
    return {make_op(Filter::Node::Kind::kOr, std::move(terms)), toks};
  }

  // Each key:value match and the offset of its key, for later errors.
  std::vector<std::pair<Filter::Node*, std::size_t>> match_offsets_;

 private:
  std::pair<NodePtr, Tokenizer> and_expr(Tokenizer toks) {
    auto r = match(toks);
    toks = r.second;
    std::vector<NodePtr> terms;
    terms.push_back(std::move(r.first));
    for (;;) {
      auto [op, toks2] = toks.key_or_op();
      if (op.kind == 'A') {
        toks = toks2;
        continue;
      }
      if (op.kind == '(' || op.kind == '-' || op.kind == '*' || op.kind == 'w' || op.kind == 'q') {
        auto r2 = match(toks);
        toks = r2.second;
        terms.push_back(std::move(r2.first));
        continue;
      }
      if (op.kind == ')' || op.kind == 'O' || op.kind == 0) break;
      return {nullptr, toks.error("unexpected " + go_quote(op.text)).second};
    }
    if (terms.size() == 1) return {std::move(terms[0]), toks};
    return {make_op(Filter::Node::Kind::kAnd, std::move(terms)), toks};
  }

  std::pair<NodePtr, Tokenizer> match(Tokenizer start) {
    auto [tok, rest] = start.key_or_op();
    switch (tok.kind) {
      case '(': {
        auto r = expr(rest);
        Tokenizer inner = r.second;
        auto [op, toks2] = inner.key_or_op();
        if (op.kind != ')') return {nullptr, inner.error("missing \")\"").second};
        return {std::move(r.first), toks2};
      }
      case '-': {
        auto r = match(rest);
        std::vector<NodePtr> c;
        c.push_back(std::move(r.first));
        return {make_op(Filter::Node::Kind::kNot, std::move(c)), r.second};
      }
      case '*':
        return {make_op(Filter::Node::Kind::kAnd, {}), rest};
      case 'w':
      case 'q': {
        const std::size_t off = tok.off;
        const std::string key = tok.text;
        auto [op, toks2] = rest.key_or_op();
        if (op.kind != ':') return {nullptr, start.error("expected key:value").second};
        rest = toks2;
        auto [val, inner] = rest.value_or_op();
        if (val.kind == 'w' || val.kind == 'q' || val.kind == 'r') {
          auto m = make_match(key, val);
          match_offsets_.emplace_back(m.get(), off);
          return {std::move(m), inner};
        }
        if (val.kind != '(') return {nullptr, start.error("expected key:value").second};
        std::vector<NodePtr> terms;
        for (;;) {
          auto [v, t2] = inner.value_or_op();
          if (v.kind != 'w' && v.kind != 'q' && v.kind != 'r') {
            return {nullptr, inner.error("expected value").second};
          }
          auto m = make_match(key, v);
          match_offsets_.emplace_back(m.get(), off);
          terms.push_back(std::move(m));
          inner = t2;
          auto [sep, t3] = inner.value_or_op();
          if (sep.kind == ')') return {make_op(Filter::Node::Kind::kOr, std::move(terms)), t3};
          if (sep.kind != 'O') return {nullptr, inner.error("value list must be separated by OR").second};
          inner = t3;
        }
      }
      default:
        break;
    }
    return {nullptr, start.error("expected key:value or subexpression").second};
  }
};

// Compiles the parsed tree: extractors for keys, .unit matches, and the
// errors benchproc reports at this stage.
bool compile_tree(Filter::Node* n, const std::string& query,
                  const std::vector<std::pair<Filter::Node*, std::size_t>>& offsets, std::string* error) {
  if (n == nullptr) return true;
  if (n->kind == Filter::Node::Kind::kMatch) {
    std::size_t off = 0;
    for (const auto& [node, o] : offsets) {
      if (node == n) off = o;
    }
    if (n->key == ".unit") {
      n->kind = Filter::Node::Kind::kUnitMatch;
      return true;
    }
    if (n->key == ".config") {
      *error = QueryError{query, off, ".config is only allowed in projections"}.to_string();
      return false;
    }
    std::string err;
    n->extract = make_extractor(n->key, &err);
    if (!n->extract) {
      *error = QueryError{query, off, err}.to_string();
      return false;
    }
    return true;
  }
  for (auto& c : n->children) {
    if (!compile_tree(c.get(), query, offsets, error)) return false;
  }
  return true;
}

}  // namespace

Filter::Filter() : root_(make_op(Node::Kind::kAnd, {})) {}
Filter::~Filter() = default;

std::unique_ptr<Filter> Filter::parse(std::string_view query, std::string* error) {
  ErrorTracker errt;
  errt.q_orig.assign(query);
  Tokenizer toks(errt.q_orig, &errt);
  FilterParser p;
  auto [root, rest] = p.expr(toks);
  Tokenizer tail = rest;
  tail.end();
  if (errt.has) {
    if (error != nullptr) *error = errt.err.to_string();
    return nullptr;
  }
  std::string err;
  if (!compile_tree(root.get(), errt.q_orig, p.match_offsets_, &err)) {
    if (error != nullptr) *error = err;
    return nullptr;
  }
  auto f = std::make_unique<Filter>();
  f->root_ = std::move(root);
  return f;
}

std::vector<bool> Filter::match(const BenchRecord& rec) const {
  const Node::Eval e = root_->eval(rec);
  const std::size_t n = rec.result.metrics.size();
  if (!e.has_mask) return std::vector<bool>(n, e.x);
  std::vector<bool> m = e.mask;
  m.resize(n, false);
  return m;
}

bool Filter::apply(BenchRecord& rec) const {
  if (root_->kind == Node::Kind::kAnd && root_->children.empty()) return true;
  const std::vector<bool> m = match(rec);
  auto& metrics = rec.result.metrics;
  if (std::all_of(m.begin(), m.end(), [](bool b) { return b; })) return true;
  std::size_t j = 0;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (m[i]) {
      if (j != i) {
        metrics[j] = std::move(metrics[i]);
        if (i < rec.original.size()) rec.original[j] = std::move(rec.original[i]);
      }
      ++j;
    }
  }
  metrics.resize(j);
  if (rec.original.size() > j) rec.original.resize(j);
  return j > 0;
}

void Filter::and_with(std::vector<std::unique_ptr<Node>> terms) {
  if (terms.empty()) return;
  terms.push_back(std::move(root_));
  root_ = make_op(Node::Kind::kAnd, std::move(terms));
}

std::string Filter::to_string() const { return root_->to_string(); }

// ===== projections ==============================================================================

int ProjectionField::compare(std::string_view a, std::string_view b) const {
  auto lookup = [](const std::unordered_map<std::string, int>& m, std::string_view v) {
    auto it = m.find(std::string(v));
    return it == m.end() ? 0 : it->second;
  };
  switch (order) {
    case Order::kFirst:
      return lookup(observed, a) - lookup(observed, b);
    case Order::kFixed:
      return lookup(fixed, a) - lookup(fixed, b);
    case Order::kAlpha:
      return a < b ? -1 : (a > b ? 1 : 0);
    case Order::kNum: {
      // benchproc's parseNum: a float, or digits with an SI/IEC prefix.
      auto parse_num = [](std::string_view x, double& v) {
        if (x.empty()) return false;
        if (internal::parse_go_float(x, v) == internal::NumError::kNone) return true;
        std::size_t i = 0;
        while (i < x.size() && !((x[i] >= '0' && x[i] <= '9') || x[i] == '.')) ++i;
        if (i == x.size()) return false;
        std::size_t j = i;
        while (j < x.size() && ((x[j] >= '0' && x[j] <= '9') || x[j] == '.')) ++j;
        if (internal::parse_go_float(x.substr(i, j - i), v) != internal::NumError::kNone) return false;
        static constexpr std::string_view kPrefixes = "KMGTPEZY";
        if (j < x.size() && (x[j] == 'k' || kPrefixes.find(x[j]) != std::string_view::npos)) {
          const char pre = x[j] == 'k' ? 'K' : x[j];
          const int exp = 1 + static_cast<int>(kPrefixes.find(pre));
          const bool iec = j + 1 < x.size() && x[j + 1] == 'i';
          v *= std::pow(iec ? 1024.0 : 1000.0, exp);
        }
        return true;
      };
      double aa = 0;
      double bb = 0;
      const bool oka = parse_num(a, aa);
      const bool okb = parse_num(b, bb);
      if (oka && okb) {
        if (aa < bb || (!std::isnan(aa) && std::isnan(bb))) return -1;
        if (aa > bb || (std::isnan(aa) && !std::isnan(bb))) return 1;
        return 0;
      }
      if (!oka && !okb) return 0;
      return oka ? -1 : 1;
    }
  }
  return 0;
}

Projection::Projection() {
  storage_.push_back(std::make_unique<ProjectionField>());
  root_ = storage_.back().get();
}

Projection::~Projection() = default;

ProjectionField* Projection::add_field(ProjectionField* group, std::string name) {
  storage_.push_back(std::make_unique<ProjectionField>());
  ProjectionField* f = storage_.back().get();
  f->name = std::move(name);
  f->idx = n_fields_++;
  group->sub.push_back(f);
  row_.emplace_back();
  return f;
}

ProjectionField* Projection::add_group(ProjectionField* group, std::string name) {
  storage_.push_back(std::make_unique<ProjectionField>());
  ProjectionField* f = storage_.back().get();
  f->name = std::move(name);
  f->is_tuple = true;
  group->sub.push_back(f);
  return f;
}

std::vector<const ProjectionField*> Projection::flattened_fields() const {
  std::vector<const ProjectionField*> out;
  auto walk = [&out](auto&& self, const ProjectionField* f) -> void {
    if (f->idx != -1) {
      out.push_back(f);
      return;
    }
    for (const ProjectionField* s : f->sub) self(self, s);
  };
  walk(walk, root_);
  return out;
}

Key Projection::intern_row() {
  std::size_t len = row_.size();
  while (len > 0 && row_[len - 1].empty()) --len;
  scratch_.clear();
  for (std::size_t i = 0; i < len; ++i) {
    scratch_.append(std::to_string(row_[i].size()));
    scratch_.push_back(':');
    scratch_.append(row_[i]);
  }
  auto it = key_index_.find(scratch_);
  if (it != key_index_.end()) return Key{it->second};
  for (ProjectionField* f : root_->sub) {
    if (!f->tracks_observation) continue;
    const std::string val = f->idx >= 0 && static_cast<std::size_t>(f->idx) < len
                                ? std::string(row_[static_cast<std::size_t>(f->idx)])
                                : std::string();
    f->observed.emplace(val, static_cast<int>(f->observed.size()));
  }
  const int id = static_cast<int>(rows_.size());
  rows_.emplace_back(row_.begin(), row_.begin() + static_cast<std::ptrdiff_t>(len));
  key_index_.emplace(scratch_, id);
  return Key{id};
}

Key Projection::project(const BenchRecord& rec) {
  for (auto& v : row_) v = {};
  for (auto& fn : project_) fn(rec, row_);
  return intern_row();
}

std::vector<Key> Projection::project_values(const BenchRecord& rec) {
  for (auto& v : row_) v = {};
  for (auto& fn : project_) fn(rec, row_);
  std::vector<Key> out(rec.result.metrics.size());
  if (unit_field_ == nullptr) {
    const Key k = intern_row();
    for (auto& o : out) o = k;
    return out;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    row_[static_cast<std::size_t>(unit_field_->idx)] = rec.result.metrics[i].unit;
    out[i] = intern_row();
  }
  return out;
}

std::string_view Projection::get(Key k, const ProjectionField* f) const {
  if (k.is_zero() || f->idx < 0) return {};
  const auto& vals = rows_[static_cast<std::size_t>(k.id)];
  const auto idx = static_cast<std::size_t>(f->idx);
  return idx < vals.size() ? std::string_view(vals[idx]) : std::string_view();
}

std::string Projection::string_values(Key k) const {
  if (k.is_zero()) return "<zero>";
  std::string out;
  const auto& vals = rows_[static_cast<std::size_t>(k.id)];
  for (const ProjectionField* f : flattened_fields()) {
    const auto idx = static_cast<std::size_t>(f->idx);
    if (idx >= vals.size() || vals[idx].empty()) continue;
    if (!out.empty()) out.push_back(' ');
    out.append(vals[idx]);
  }
  return out;
}

bool Projection::less(Key a, Key b) const {
  const auto& av = rows_[static_cast<std::size_t>(a.id)];
  const auto& bv = rows_[static_cast<std::size_t>(b.id)];
  for (const ProjectionField* f : flattened_fields()) {
    const auto idx = static_cast<std::size_t>(f->idx);
    const std::string_view aa = idx < av.size() ? std::string_view(av[idx]) : std::string_view();
    const std::string_view bb = idx < bv.size() ? std::string_view(bv[idx]) : std::string_view();
    if (aa != bb) {
      const int c = f->compare(aa, bb);
      if (c != 0) return c < 0;
      return aa < bb;
    }
  }
  return false;
}

void Projection::sort_keys(std::vector<Key>& keys) const {
  const std::vector<const ProjectionField*> flat = flattened_fields();
  std::sort(keys.begin(), keys.end(), [this, &flat](Key a, Key b) {
    const auto& av = rows_[static_cast<std::size_t>(a.id)];
    const auto& bv = rows_[static_cast<std::size_t>(b.id)];
    for (const ProjectionField* f : flat) {
      const auto idx = static_cast<std::size_t>(f->idx);
      const std::string_view aa = idx < av.size() ? std::string_view(av[idx]) : std::string_view();
      const std::string_view bb = idx < bv.size() ? std::string_view(bv[idx]) : std::string_view();
      if (aa != bb) {
        const int c = f->compare(aa, bb);
        if (c != 0) return c < 0;
        return aa < bb;
      }
    }
    return false;
  });
}

std::vector<const ProjectionField*> non_singular_fields(const Projection& p, const std::vector<Key>& keys) {
  std::vector<const ProjectionField*> out;
  if (keys.size() <= 1) return out;
  for (const ProjectionField* f : p.flattened_fields()) {
    const std::string_view base = p.get(keys[0], f);
    for (std::size_t i = 1; i < keys.size(); ++i) {
      if (p.get(keys[i], f) != base) {
        out.push_back(f);
        break;
      }
    }
  }
  return out;
}

// ===== projection parser ==========================================================================

namespace {

struct FieldSpec {
  std::string key;
  std::string order;  // "first", "fixed", or a name
  std::vector<std::string> fixed;
  std::size_t key_off = 0;
  std::size_t order_off = 0;
};

std::pair<FieldSpec, Tokenizer> parse_field(Tokenizer toks) {
  FieldSpec f;
  auto [key, toks2] = toks.key_or_op();
  if (!(key.kind == 'w' || key.kind == 'q')) return {f, toks.error("expected key").second};
  toks = toks2;
  f.key = key.text;
  f.key_off = key.off;
  f.order = "first";
  f.order_off = key.off + key.text.size();
  auto [sep, toks3] = toks.key_or_op();
  if (sep.kind != '@') return {f, toks};
  toks = toks3;
  auto [order, toks4] = toks.key_or_op();
  f.order_off = order.off;
  if (order.kind == 'w' || order.kind == 'q') {
    f.order = order.text;
    return {f, toks4};
  }
  if (order.kind == '(') {
    f.order = "fixed";
    toks = toks4;
    for (;;) {
      auto [t, toks5] = toks.key_or_op();
      if (t.kind == 'w' || t.kind == 'q') {
        toks = toks5;
        f.fixed.push_back(t.text);
      } else if (t.kind == ')') {
        if (f.fixed.empty()) {
          toks = toks.error("nothing to match").second;
        } else {
          toks = toks5;
        }
        break;
      } else {
        toks = toks.error("missing )").second;
        break;
      }
    }
    return {f, toks};
  }
  return {f, toks.error("expected named sort order or parenthesized list").second};
}

bool parse_projection_fields(std::string_view q, std::vector<FieldSpec>& fields, std::string* error) {
  ErrorTracker errt;
  errt.q_orig.assign(q);
  Tokenizer toks(errt.q_orig, &errt);
  for (;;) {
    auto [tok, toks2] = toks.key_or_op();
    if (tok.kind == 0) break;
    if (tok.kind == ',' && !fields.empty()) toks = toks2;
    auto [f, rest] = parse_field(toks);
    toks = rest;
    fields.push_back(std::move(f));
  }
  toks.end();
  if (errt.has) {
    if (error != nullptr) *error = errt.err.to_string();
    return false;
  }
  return true;
}

}  // namespace

struct ProjectionParser::State {
  std::set<std::string, std::less<>> config_keys;
  std::vector<std::string> fullname_keys;
  bool have_config = false;
  bool have_fullname = false;
  Extractor full_extractor;  // built on first use, after all parsing

  std::string_view full_name(const BenchRecord& r) {
    if (!full_extractor) full_extractor = make_full_name_extractor(fullname_keys);
    return full_extractor(r);
  }

  // Adds field f to projection s; may produce a filter term.
  bool make_projection(Projection& s, std::string_view q, const FieldSpec& f, std::shared_ptr<State> self,
                       std::unique_ptr<Filter::Node>* filter, std::string* error) {
    ProjectionField::Order order = ProjectionField::Order::kFirst;
    if (f.order == "fixed") {
      order = ProjectionField::Order::kFixed;
    } else if (f.order == "first") {
      order = ProjectionField::Order::kFirst;
    } else if (f.order == "alpha") {
      order = ProjectionField::Order::kAlpha;
    } else if (f.order == "num") {
      order = ProjectionField::Order::kNum;
    } else {
      *error = QueryError{std::string(q), f.order_off, "unknown order " + go_quote(f.order)}.to_string();
      return false;
    }
    auto init_field = [&f, order](ProjectionField* field) {
      field->order = order;
      if (order == ProjectionField::Order::kFixed) {
        for (std::size_t i = 0; i < f.fixed.size(); ++i) field->fixed.emplace(f.fixed[i], static_cast<int>(i));
      }
    };
    auto make_filter = [&f, order, filter](Extractor ext) {
      if (order != ProjectionField::Order::kFixed || filter == nullptr) return;
      auto allowed = std::make_shared<std::set<std::string, std::less<>>>(f.fixed.begin(), f.fixed.end());
      auto node = std::make_unique<Filter::Node>();
      node->kind = Filter::Node::Kind::kPredicate;
      node->predicate = [ext, allowed](const BenchRecord& r) { return allowed->count(ext(r)) > 0; };
      *filter = std::move(node);
    };

    if (f.key == ".config") {
      if (order == ProjectionField::Order::kFixed) {
        *error = QueryError{std::string(q), f.order_off, "fixed order not allowed for .config"}.to_string();
        return false;
      }
      have_config = true;
      ProjectionField* group = s.add_group(s.root_, ".config");
      auto seen = std::make_shared<std::unordered_map<std::string, ProjectionField*>>();
      Projection* sp = &s;
      s.project_.push_back([self, group, seen, sp, order](const BenchRecord& r, std::vector<std::string_view>& row) {
        if (!r.config) return;
        for (const ConfigEntry& c : *r.config) {
          if (!c.file) continue;
          auto it = seen->find(c.key);
          ProjectionField* field = nullptr;
          if (it == seen->end()) {
            if (self->config_keys.count(c.key) > 0) continue;
            field = sp->add_field(group, c.key);
            field->order = order;
            seen->emplace(c.key, field);
          } else {
            field = it->second;
          }
          row[static_cast<std::size_t>(field->idx)] = c.value;
        }
      });
      return true;
    }
    if (f.key == ".fullname") {
      have_fullname = true;
      ProjectionField* field = s.add_field(s.root_, ".fullname");
      init_field(field);
      field->tracks_observation = order == ProjectionField::Order::kFirst;
      make_filter([](const BenchRecord& r) { return r.full_name(); });
      s.project_.push_back([self, field](const BenchRecord& r, std::vector<std::string_view>& row) {
        row[static_cast<std::size_t>(field->idx)] = self->full_name(r);
      });
      return true;
    }
    if (f.key == ".unit") {
      *error = QueryError{std::string(q), f.key_off, ".unit is only allowed in filters"}.to_string();
      return false;
    }
    if (f.key == ".name" || (!f.key.empty() && f.key[0] == '/')) {
      fullname_keys.push_back(f.key);
    } else {
      config_keys.insert(f.key);
    }
    std::string err;
    Extractor ext = make_extractor(f.key, &err);
    if (!ext) {
      *error = QueryError{std::string(q), f.key_off, err}.to_string();
      return false;
    }
    ProjectionField* field = s.add_field(s.root_, f.key);
    init_field(field);
    field->tracks_observation = order == ProjectionField::Order::kFirst;
    make_filter(ext);
    s.project_.push_back([ext, field](const BenchRecord& r, std::vector<std::string_view>& row) {
      row[static_cast<std::size_t>(field->idx)] = ext(r);
    });
    return true;
  }
};

ProjectionParser::ProjectionParser() : state_(std::make_shared<State>()) {}
ProjectionParser::~ProjectionParser() = default;

std::unique_ptr<Projection> ProjectionParser::parse(std::string_view projection, Filter* filter,
                                                    std::string* error) {
  std::vector<FieldSpec> specs;
  std::string err;
  if (!parse_projection_fields(projection, specs, &err)) {
    if (error != nullptr) *error = err;
    return nullptr;
  }
  auto proj = std::make_unique<Projection>();
  std::vector<std::unique_ptr<Filter::Node>> filter_parts;
  for (const FieldSpec& f : specs) {
    std::unique_ptr<Filter::Node> part;
    if (!state_->make_projection(*proj, projection, f, state_, &part, &err)) {
      if (error != nullptr) *error = err;
      return nullptr;
    }
    if (part) filter_parts.push_back(std::move(part));
  }
  if (!filter_parts.empty() && filter != nullptr) filter->and_with(std::move(filter_parts));
  return proj;
}

std::unique_ptr<Projection> ProjectionParser::parse_with_unit(std::string_view projection, Filter* filter,
                                                              std::string* error) {
  auto proj = parse(projection, filter, error);
  if (!proj) return nullptr;
  ProjectionField* f = proj->add_field(proj->root_, ".unit");
  f->order = ProjectionField::Order::kFirst;
  f->tracks_observation = true;
  proj->unit_field_ = f;
  return proj;
}

std::unique_ptr<Projection> ProjectionParser::residue() {
  auto s = std::make_unique<Projection>();
  std::string err;
  if (!state_->have_config) {
    FieldSpec f;
    f.key = ".config";
    f.order = "first";
    state_->make_projection(*s, "", f, state_, nullptr, &err);
  }
  if (!state_->have_fullname) {
    FieldSpec f;
    f.key = ".fullname";
    f.order = "first";
    state_->make_projection(*s, "", f, state_, nullptr, &err);
  }
  return s;
}

}  // namespace zerolab::stat
