// Go (RE2) syntax translated to POSIX ERE and run by glibc (go_regex.hpp).
#include "format/go_regex.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace zerolab::internal {

namespace {

constexpr int kMaxRepeat = 1000;           // Go's limit on {n,m} counts
constexpr double kMaxExpansion = 10000;    // glibc expands x{n,m} into m copies

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ere_special(char c) { return c != '\0' && std::strchr(".[]{}()\\*+?|^$", c) != nullptr; }
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, unsigned long r) {
  if (r < 0x80) {
    out += static_cast<char>(r);
  } else if (r < 0x800) {
    out += static_cast<char>(0xC0 | (r >> 6));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xE0 | (r >> 12));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (r >> 18));
    out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  }
}

// Go's Perl classes, ASCII only as in Go; as bracket contents.
const char* perl_class(char c) {
  switch (c) {
    case 'd': case 'D': return "0-9";
    case 's': case 'S': return "\t\n\f\r ";
    case 'w': case 'W': return "0-9A-Za-z_";
    default: return nullptr;
  }
}

// A literal byte outside brackets.
void append_literal(std::string& out, char c) {
  if (is_ere_special(c)) out += '\\';
  out += c;
}

class Translator {
 public:
  Translator(std::string_view in, std::string* error) : in_(in), error_(error) {}

  bool run(std::string* ere, bool* icase) {
    if (!leading_flags(icase)) return false;
    while (i_ < in_.size()) {
      if (!step()) return false;
    }
    if (depth_ != 0) return fail("missing closing )", in_);
    if (!check_expansion()) return false;
    *ere = std::move(out_);
    return true;
  }

 private:
  enum class Prev { kNothing, kAtom, kEmptyWidth, kRepeat, kLazy };

  bool fail(const char* what, std::string_view where) {
    *error_ = std::string(what) + ": `" + std::string(where) + "`";
    return false;
  }

  // (?i), (?s), (?m), (?U) and combinations at the very start.
  bool leading_flags(bool* icase) {
    *icase = false;
    while (in_.substr(i_, 2) == "(?") {
      std::size_t j = i_ + 2;
      bool negate = false;
      bool i_flag = false;
      while (j < in_.size() && std::strchr("imsU-", in_[j]) != nullptr && in_[j] != '\0') {
        if (in_[j] == '-') negate = true;
        if (in_[j] == 'i') i_flag = !negate;
        ++j;
      }
      if (j >= in_.size() || in_[j] != ')' || j == i_ + 2) return true;  // a group; step() decides
      *icase = *icase || i_flag;
      i_ = j + 1;
    }
    return true;
  }

  bool step() {
    const char c = in_[i_];
    switch (c) {
      case '\\': return escape();
      case '[': return bracket();
      case '(': return open_group();
      case ')': {
        if (depth_ == 0) return fail("unexpected )", in_);
        --depth_;
        out_ += ')';
        ++i_;
        prev_ = Prev::kAtom;
        last_group_product_ = group_product_.back();
        group_product_.pop_back();
        group_product_.back() = std::max(group_product_.back(), last_group_product_);
        last_atom_is_group_ = true;
        return true;
      }
      case '|':
        out_ += '|';
        ++i_;
        prev_ = Prev::kNothing;
        return true;
      case '^':
      case '$':
        out_ += c;
        ++i_;
        prev_ = Prev::kEmptyWidth;
        last_atom_ = out_.size() - 1;
        return true;
      case '.':
        begin_atom();
        out_ += '.';
        ++i_;
        prev_ = Prev::kAtom;
        return true;
      case '*':
      case '+':
      case '?':
        return repeat(std::string(1, c), 1);
      case '{': {
        std::size_t len = 0;
        int lo = 0;
        int hi = 0;
        if (counted_repeat(&len, &lo, &hi)) {
          if (lo > kMaxRepeat || hi > kMaxRepeat || (hi >= 0 && hi < lo)) {
            return fail("invalid repeat count", in_.substr(i_, len));
          }
          // Go's repeatIsValid: nested counted repeats may multiply to at
          // most 1000 (a bare {0} or {1} is not checked).
          const int factor = hi < 0 ? lo : hi;
          const int inner = last_atom_is_group_ ? last_group_product_ : 1;
          if (prev_ == Prev::kAtom && (lo >= 2 || hi >= 2) && factor != 0 &&
              static_cast<long long>(factor) * inner > kMaxRepeat) {
            return fail("invalid repeat count", in_.substr(i_, len));
          }
          if (prev_ == Prev::kAtom) {
            group_product_.back() = std::max(group_product_.back(), std::max(factor, 1) * inner);
          }
          return repeat(std::string(in_.substr(i_, len)), len);
        }
        atom_literal('{');
        return true;
      }
      default:
        atom_literal(c);
        return true;
    }
  }

  void begin_atom() {
    last_atom_ = out_.size();
    last_atom_is_group_ = false;
  }

  void atom_literal(char c) {
    begin_atom();
    append_literal(out_, c);
    ++i_;
    prev_ = Prev::kAtom;
  }

  // {n}, {n,} or {n,m} at i_: its length and counts (hi -1 for none);
  // false when Go reads the brace as a literal.
  bool counted_repeat(std::size_t* len, int* lo, int* hi) {
    std::size_t j = i_ + 1;
    auto number = [&](int* v) {
      const std::size_t start = j;
      long long n = 0;
      while (j < in_.size() && is_digit(in_[j])) {
        if (n <= kMaxRepeat) n = n * 10 + (in_[j] - '0');
        ++j;
      }
      *v = static_cast<int>(n > kMaxRepeat ? kMaxRepeat + 1 : n);
      return j > start;
    };
    if (!number(lo)) return false;
    *hi = *lo;
    if (j < in_.size() && in_[j] == ',') {
      ++j;
      if (!number(hi)) *hi = -1;
    }
    if (j >= in_.size() || in_[j] != '}') return false;
    *len = j + 1 - i_;
    return true;
  }

  // A quantifier `op` (already validated) of `len` input bytes.
  bool repeat(const std::string& op, std::size_t len) {
    if (prev_ == Prev::kRepeat || prev_ == Prev::kLazy) {
      if (op == "?" && prev_ == Prev::kRepeat) {  // Go's non-greedy form
        ++i_;
        prev_ = Prev::kLazy;
        return true;
      }
      return fail("invalid nested repetition operator",
                  in_.substr(last_repeat_, i_ + len - last_repeat_));
    }
    if (prev_ == Prev::kNothing) return fail("missing argument to repetition operator", op);
    if (prev_ == Prev::kEmptyWidth) {
      // glibc refuses a repeated anchor; group it, which means the same.
      out_.insert(last_atom_, "(");
      out_ += ')';
    }
    out_ += op;
    last_repeat_ = i_;
    i_ += len;
    prev_ = Prev::kRepeat;
    return true;
  }

  bool open_group() {
    const std::size_t start = i_;
    if (in_.substr(i_, 3) == "(?:") {
      i_ += 3;
    } else if (in_.substr(i_, 4) == "(?P<" || in_.substr(i_, 3) == "(?<") {
      const std::size_t close = in_.find('>', i_);
      if (close == std::string_view::npos) return fail("invalid named capture", in_.substr(i_));
      for (std::size_t k = in_.find('<', i_) + 1; k < close; ++k) {
        const char n = in_[k];
        const bool word = is_digit(n) || (n >= 'a' && n <= 'z') || (n >= 'A' && n <= 'Z') || n == '_';
        if (!word) return fail("invalid named capture", in_.substr(start, close + 1 - start));
      }
      if (close == in_.find('<', i_) + 1) return fail("invalid named capture", in_.substr(start, close + 1 - start));
      i_ = close + 1;
    } else if (in_.substr(i_, 2) == "(?") {
      std::size_t j = i_ + 2;
      while (j < in_.size() && in_[j] != ')' && in_[j] != ':') ++j;
      return fail("invalid or unsupported Perl syntax (zerolab: flags only at the start)",
                  in_.substr(i_, j < in_.size() ? j + 1 - i_ : j - i_));
    } else {
      ++i_;
    }
    begin_atom();
    out_ += '(';
    ++depth_;
    group_product_.push_back(1);
    prev_ = Prev::kNothing;
    return true;
  }

  // One escape outside brackets.
  bool escape() {
    if (i_ + 1 >= in_.size()) return fail("trailing backslash at end of expression", "");
    const char c = in_[i_ + 1];
    begin_atom();
    prev_ = Prev::kAtom;
    if (const char* cls = perl_class(c)) {
      out_ += (c >= 'a') ? "[" : "[^";
      out_ += cls;
      out_ += ']';
      i_ += 2;
      return true;
    }
    switch (c) {
      case 'b': out_ += "\\b"; prev_ = Prev::kEmptyWidth; i_ += 2; return true;
      case 'B': out_ += "\\B"; prev_ = Prev::kEmptyWidth; i_ += 2; return true;
      case 'A': out_ += "^"; prev_ = Prev::kEmptyWidth; i_ += 2; return true;
      case 'z': out_ += "$"; prev_ = Prev::kEmptyWidth; i_ += 2; return true;
      default: break;
    }
    std::string bytes;
    std::size_t len = 0;
    if (!escaped_char(i_, &bytes, &len)) return false;
    for (const char b : bytes) append_literal(out_, b);
    i_ += len;
    return true;
  }

  // A single-character escape at `at` (the backslash): the bytes it stands
  // for and its length in the input.
  bool escaped_char(std::size_t at, std::string* bytes, std::size_t* len) {
    if (at + 1 >= in_.size()) return fail("trailing backslash at end of expression", "");
    const char c = in_[at + 1];
    *len = 2;
    switch (c) {
      case 'n': *bytes = "\n"; return true;
      case 't': *bytes = "\t"; return true;
      case 'r': *bytes = "\r"; return true;
      case 'f': *bytes = "\f"; return true;
      case 'v': *bytes = "\v"; return true;
      case 'a': *bytes = "\a"; return true;
      case 'x': return hex_escape(at, bytes, len);
      default: break;
    }
    const bool punct = (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
                       (c >= '{' && c <= '~');
    if (punct) {
      *bytes = std::string(1, c);
      return true;
    }
    return fail(c == 'p' || c == 'P' || c == 'Q'
                    ? "invalid escape sequence (zerolab: not supported)"
                    : "invalid escape sequence",
                in_.substr(at, 2));
  }

  bool hex_escape(std::size_t at, std::string* bytes, std::size_t* len) {
    std::size_t j = at + 2;
    unsigned long r = 0;
    if (j < in_.size() && in_[j] == '{') {
      ++j;
      const std::size_t start = j;
      while (j < in_.size() && hex_value(in_[j]) >= 0) {
        r = r * 16 + static_cast<unsigned long>(hex_value(in_[j]));
        if (r > 0x10FFFF) break;
        ++j;
      }
      if (j == start || j >= in_.size() || in_[j] != '}' || r > 0x10FFFF) {
        return fail("invalid escape sequence", in_.substr(at, j + 1 > in_.size() ? in_.size() - at : j + 1 - at));
      }
      ++j;
    } else {
      if (j + 2 > in_.size() || hex_value(in_[j]) < 0 || hex_value(in_[j + 1]) < 0) {
        return fail("invalid escape sequence", in_.substr(at, std::min(in_.size(), j + 2) - at));
      }
      r = static_cast<unsigned long>(hex_value(in_[j]) * 16 + hex_value(in_[j + 1]));
      j += 2;
    }
    if (r == 0) return fail("invalid escape sequence (zerolab: NUL cannot be matched)", in_.substr(at, j - at));
    bytes->clear();
    append_utf8(*bytes, r);
    *len = j - at;
    return true;
  }

  // A bracket expression [...] in Go's syntax, rebuilt for POSIX, where a
  // backslash is literal and ']' and '-' are literal only first and last.
  bool bracket() {
    const std::size_t start = i_;
    std::size_t j = i_ + 1;
    bool negated = false;
    if (j < in_.size() && in_[j] == '^') {
      negated = true;
      ++j;
    }
    std::string items;
    bool close_bracket = false;
    bool dash = false;
    bool caret = false;
    bool open_bracket = false;
    bool first = true;
    auto add_char = [&](const std::string& b) {
      if (b == "]") {
        close_bracket = true;
      } else if (b == "-") {
        dash = true;
      } else if (b == "^") {
        caret = true;
      } else if (b == "[") {
        open_bracket = true;
      } else {
        items += b;
      }
    };
    while (true) {
      if (j >= in_.size()) return fail("missing closing ]", in_.substr(start));
      const char c = in_[j];
      if (c == ']' && !first) break;
      first = false;
      if (c == '[' && in_.substr(j, 2) == "[:") {
        const std::size_t close = in_.find(":]", j + 2);
        if (close == std::string_view::npos) {
          add_char("[");
          ++j;
          continue;
        }
        const std::string name(in_.substr(j + 2, close - j - 2));
        static const char* const kNames[] = {"alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph",
                                             "lower", "print", "punct", "space", "upper", "word", "xdigit"};
        bool known = false;
        for (const char* n : kNames) known = known || name == n;
        if (!known) return fail("invalid character class range", in_.substr(j, close + 2 - j));
        if (name == "word") {
          items += "0-9A-Za-z_";
        } else if (name == "ascii") {
          items += "\x01-\x7f";
        } else {
          items += "[:" + name + ":]";
        }
        j = close + 2;
        continue;
      }
      // One character (literal or escaped) or a Perl class.
      std::string lo;
      std::size_t len = 1;
      if (c == '\\') {
        if (j + 1 < in_.size() && perl_class(in_[j + 1]) != nullptr) {
          if (in_[j + 1] <= 'Z') {
            return fail("invalid escape sequence (zerolab: negated class inside brackets not supported)",
                        in_.substr(j, 2));
          }
          items += perl_class(in_[j + 1]);
          j += 2;
          continue;
        }
        if (!escaped_char(j, &lo, &len)) return false;
      } else {
        lo = std::string(1, c);
      }
      j += len;
      // A range lo-hi?
      if (j + 1 < in_.size() && in_[j] == '-' && in_[j + 1] != ']') {
        std::string hi;
        std::size_t hlen = 1;
        if (in_[j + 1] == '\\') {
          if (!escaped_char(j + 1, &hi, &hlen)) return false;
        } else {
          hi = std::string(1, in_[j + 1]);
        }
        const std::size_t range_end = j + 1 + hlen;
        if (lo.size() != 1 || hi.size() != 1) {
          return fail("invalid character class range (zerolab: non-ASCII range not supported)",
                      in_.substr(j - len, range_end - (j - len)));
        }
        if (static_cast<unsigned char>(hi[0]) < static_cast<unsigned char>(lo[0])) {
          return fail("invalid character class range", in_.substr(j - len, range_end - (j - len)));
        }
        // POSIX cannot start or end a range at ']' or '-' inside the
        // item list safely; spell such a range out byte by byte.
        const auto a = static_cast<unsigned char>(lo[0]);
        const auto b = static_cast<unsigned char>(hi[0]);
        if (a <= ']' && b >= '-') {
          for (unsigned v = a; v <= b; ++v) add_char(std::string(1, static_cast<char>(v)));
        } else {
          items += lo + "-" + hi;
        }
        j = range_end;
        continue;
      }
      for (const char b : lo) add_char(std::string(1, b));
    }
    // Assemble: ']' first, '^' anywhere but first, '[' where it cannot
    // start "[:" or "[.", '-' last.
    std::string set = "[";
    if (negated) set += '^';
    if (close_bracket) set += ']';
    set += items;
    if (open_bracket) set += '[';
    if (caret) {
      if (set == "[") {
        set = dash ? "[-^" : "\\^";  // "[^]" would negate
        dash = false;
      } else {
        set += '^';
      }
    }
    if (dash) set += '-';
    if (set != "\\^") set += ']';
    begin_atom();
    out_ += set;
    i_ = j + 1;
    prev_ = Prev::kAtom;
    return true;
  }

  // glibc compiles x+ as xx* and x{n,m} as m copies of x: bound the product
  // of nested multipliers so compile time and memory stay small.
  bool check_expansion() {
    double expansion = 1;
    for (std::size_t k = 0; k < out_.size(); ++k) {
      const char c = out_[k];
      if (c == '\\') {
        ++k;
        continue;
      }
      if (c == '[') {  // skip a bracket expression
        std::size_t m = k + 1;
        if (m < out_.size() && out_[m] == '^') ++m;
        if (m < out_.size() && out_[m] == ']') ++m;
        while (m < out_.size() && out_[m] != ']') {
          if (out_.compare(m, 2, "[:") == 0) m = out_.find(":]", m) + 1;
          ++m;
        }
        k = m;
        continue;
      }
      if (c == '+') expansion *= 2;
      if (c == '{') {
        const std::size_t close = out_.find('}', k);
        int largest = 0;
        int v = 0;
        for (std::size_t m = k + 1; m < close; ++m) {
          if (is_digit(out_[m])) {
            v = v * 10 + (out_[m] - '0');
          } else {
            largest = std::max(largest, v);
            v = 0;
          }
        }
        largest = std::max(largest, v);
        if (out_[close - 1] == ',') largest += 1;
        expansion *= largest + 1;
        k = close;
      }
      if (expansion > kMaxExpansion) {
        return fail("expression too large (zerolab: nested repetition)", in_);
      }
    }
    return true;
  }

  std::string_view in_;
  std::string* error_;
  std::size_t i_ = 0;
  std::string out_;
  int depth_ = 0;
  Prev prev_ = Prev::kNothing;
  std::size_t last_atom_ = 0;
  std::size_t last_repeat_ = 0;
  // Largest product of nested counted repeats in each open group (the
  // first entry is the whole expression), and in the group just closed.
  std::vector<int> group_product_ = {1};
  int last_group_product_ = 1;
  bool last_atom_is_group_ = false;
};

}  // namespace

bool translate_go_regex(std::string_view expression, std::string* ere, bool* icase, std::string* error) {
  Translator t(expression, error);
  return t.run(ere, icase);
}

std::unique_ptr<GoRegex> GoRegex::compile(std::string_view expression, std::string* error) {
  if (expression.find('\0') != std::string_view::npos) {
    *error = "invalid UTF-8 or NUL byte: `" + std::string(expression.substr(0, expression.find('\0'))) + "`";
    return nullptr;
  }
  std::string ere;
  bool icase = false;
  if (!translate_go_regex(expression, &ere, &icase, error)) return nullptr;
  std::unique_ptr<GoRegex> re(new GoRegex);
  const int flags = REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0);
  const int code = regcomp(&re->re_, ere.c_str(), flags);
  if (code != 0) {
    char message[256];
    regerror(code, &re->re_, message, sizeof message);
    *error = std::string(message) + ": `" + std::string(expression) + "`";
    return nullptr;
  }
  re->compiled_ = true;
  re->posix_ = std::move(ere);
  return re;
}

GoRegex::~GoRegex() {
  if (compiled_) regfree(&re_);
}

bool GoRegex::search(std::string_view text) const {
  // REG_STARTEND (glibc, the BSDs) bounds the subject by pmatch[0] instead
  // of a NUL, so no copy is made per match.
  regmatch_t bounds[1];
  bounds[0].rm_so = 0;
  bounds[0].rm_eo = static_cast<regoff_t>(text.size());
  return regexec(&re_, text.data() != nullptr ? text.data() : "", 0, bounds, REG_STARTEND) == 0;
}

}  // namespace zerolab::internal
