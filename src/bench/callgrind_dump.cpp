// Parser of callgrind dump headers (callgrind_dump.hpp).
#include "bench/callgrind_dump.hpp"

#include <charconv>

namespace zerolab::internal {
namespace {

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) words.push_back(s.substr(i, j - i));
    i = j;
  }
  return words;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::uint64_t CallgrindDump::event(std::string_view name) const {
  for (const auto& [event_name, total] : events) {
    if (event_name == name) return total;
  }
  return 0;
}

bool CallgrindDump::has_event(std::string_view name) const {
  for (const auto& entry : events) {
    if (entry.first == name) return true;
  }
  return false;
}

bool parse_callgrind_dump(std::string_view text, CallgrindDump& out, std::string& error) {
  out = CallgrindDump{};
  std::vector<std::string_view> names;
  bool have_events = false;
  std::size_t line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    ++line_number;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = "callgrind dump line " + std::to_string(line_number) + ": ";
    if (line_number == 1 && !starts_with(line, "# callgrind format") &&
        !starts_with(line, "version:")) {
      error = where + "not a callgrind dump (no \"# callgrind format\" or \"version:\" header)";
      return false;
    }
    if (starts_with(line, "desc: Trigger: ")) {
      out.trigger = std::string(line.substr(15));
    } else if (starts_with(line, "events:")) {
      if (have_events) {
        error = where + "a second events: line";
        return false;
      }
      names = split_words(line.substr(7));
      if (names.empty()) {
        error = where + "events: names no event";
        return false;
      }
      have_events = true;
    } else if (starts_with(line, "summary:")) {
      if (!have_events) {
        error = where + "summary: before the events: line";
        return false;
      }
      const std::vector<std::string_view> counts = split_words(line.substr(8));
      if (counts.size() > names.size()) {
        error = where + "summary: has " + std::to_string(counts.size()) + " counts for " +
                std::to_string(names.size()) + " events";
        return false;
      }
      for (std::size_t i = 0; i < names.size(); ++i) {
        std::uint64_t value = 0;
        if (i < counts.size()) {
          const std::string_view c = counts[i];
          const auto [ptr, ec] = std::from_chars(c.data(), c.data() + c.size(), value);
          if (ec != std::errc() || ptr != c.data() + c.size()) {
            error = where + "summary: count \"" + std::string(c) + "\" is not a whole number";
            return false;
          }
        }
        out.events.emplace_back(std::string(names[i]), value);
      }
      return true;
    } else if (starts_with(line, "fn=") || starts_with(line, "fl=") || starts_with(line, "ob=")) {
      break;  // the cost lines begin: the header had no summary
    }
  }
  error = "callgrind dump: no summary: line in the header";
  return false;
}

}  // namespace zerolab::internal
