// Go's benchmark-name matching (name_matcher.hpp).
#include "bench/name_matcher.hpp"

#include <algorithm>
#include <cstdio>

namespace zerolab::internal {

std::vector<std::vector<std::string>> NameMatcher::split(const std::string& pattern) {
  std::vector<std::vector<std::string>> alternatives;
  std::vector<std::string> levels;
  std::string s = pattern;
  int brackets = 0;
  int parens = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '[') {
      ++brackets;
    } else if (c == ']') {
      if (--brackets < 0) brackets = 0;
    } else if (c == '(' && brackets == 0) {
      ++parens;
    } else if (c == ')' && brackets == 0) {
      --parens;
    } else if (c == '\\') {
      ++i;
    } else if ((c == '/' || c == '|') && brackets == 0 && parens == 0) {
      levels.push_back(s.substr(0, i));
      s.erase(0, i + 1);
      i = 0;
      if (c == '|') {
        alternatives.push_back(std::move(levels));
        levels.clear();
      }
      continue;
    }
    ++i;
  }
  levels.push_back(s);
  alternatives.push_back(std::move(levels));
  return alternatives;
}

bool NameMatcher::validate(const std::string& pattern, std::string& error) {
  // A bound keeps a hostile pattern from costing unbounded compile time.
  if (pattern.size() > kMaxPatternLength) {
    error = "pattern longer than " + std::to_string(kMaxPatternLength) + " bytes";
    return false;
  }
  for (const auto& levels : split(pattern)) {
    for (const auto& level : levels) {
      if (!compile(level, error)) return false;
    }
  }
  return true;
}

NameMatcher::Regex NameMatcher::compile(const std::string& expression, std::string& error) {
  std::string what;
  Regex re = GoRegex::compile(expression, &what);
  if (!re) error = "bad regular expression \"" + expression + "\": error parsing regexp: " + what;
  return re;
}

void NameMatcher::set_pattern(const std::string& pattern) {
  alternatives_.clear();
  for (const auto& levels : split(pattern)) {
    Levels compiled;
    std::string error;
    for (const auto& level : levels) compiled.push_back(compile(level, error));
    alternatives_.push_back(std::move(compiled));
  }
}

bool NameMatcher::matches(const std::vector<std::string>& levels, bool& partial) const {
  for (const Levels& alternative : alternatives_) {
    bool ok = true;
    for (std::size_t i = 0; i < levels.size() && i < alternative.size(); ++i) {
      if (!alternative[i] || !alternative[i]->search(levels[i])) {
        ok = false;
        break;
      }
    }
    if (ok) {
      partial = levels.size() < alternative.size();
      return true;
    }
  }
  partial = false;
  return false;
}

bool NameMatcher::matches(const std::string& name) const {
  std::vector<std::string> levels;
  std::size_t start = 0;
  while (true) {
    const auto slash = name.find('/', start);
    levels.push_back(name.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  bool partial = false;
  return matches(levels, partial);
}

std::string NameMatcher::unique(const std::string& parent, const std::string& subname) {
  std::string name = parent + "/" + subname;
  bool empty = subname.empty();
  while (true) {
    const auto it = sub_names_.find(name);
    if (!empty && it == sub_names_.end()) {
      sub_names_[name] = 1;
      return name;
    }
    const int next = it == sub_names_.end() ? 0 : it->second;
    sub_names_[name] = next + 1;
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "#%02d", next);
    name += suffix;
    empty = false;
  }
}

NameMatcher::Match NameMatcher::full_name(const std::string& parent, std::string_view subname,
                                          int depth) {
  Match m;
  m.name = depth > 0 ? unique(parent, rewrite_name(subname)) : std::string(subname);
  std::vector<std::string> levels;
  std::size_t start = 0;
  while (true) {
    const auto slash = m.name.find('/', start);
    levels.push_back(m.name.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  m.ok = matches(levels, m.partial);
  if (!m.ok) m.partial = false;
  return m;
}

std::string rewrite_name(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      out.push_back('_');
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

}  // namespace zerolab::internal
