// Two `zerolab waste` reports compared (diff.hpp).
#include "waste/diff.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "text/markdown.hpp"

namespace zerolab::waste {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// One line: control bytes (a parse error quotes the input) become spaces.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return s;
}

class Reader {
 public:
  Reader(const std::string& name, std::string& error) : name_(name), error_(error) {}

  bool fail(const std::string& path, const std::string& what) {
    error_ = one_line(name_ + ": " + path + ": " + what);
    return false;
  }

  bool count(const json& obj, const std::string& path, const char* key, std::int64_t& out) {
    const auto it = obj.find(key);
    const std::string at = path + "." + key;
    if (it == obj.end()) return fail(at, "missing");
    if (it->is_number_unsigned()) {
      const auto v = it->get<std::uint64_t>();
      if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return fail(at, "too large");
      out = static_cast<std::int64_t>(v);
      return true;
    }
    if (it->is_number_integer() && it->get<std::int64_t>() >= 0) {
      out = it->get<std::int64_t>();
      return true;
    }
    return fail(at, "want a non-negative integer");
  }

  bool text(const json& obj, const std::string& path, const char* key, std::string& out,
            bool optional = false) {
    const auto it = obj.find(key);
    const std::string at = path + "." + key;
    if (it == obj.end()) return optional ? true : fail(at, "missing");
    if (!it->is_string()) return fail(at, "want a string");
    out = it->get<std::string>();
    return true;
  }

  bool site(const json& j, const std::string& path, SummarySite& s) {
    if (!j.is_object()) return fail(path, "want an object");
    return text(j, path, "function", s.function) && text(j, path, "file", s.file) &&
           count(j, path, "line", s.line) && count(j, path, "bytes", s.bytes) &&
           count(j, path, "calls", s.calls) && text(j, path, "source", s.source, true) &&
           text(j, path, "destination", s.destination, true);
  }

  bool finding(const json& j, const std::string& path, SummaryFinding& f) {
    if (!j.is_object()) return fail(path, "want an object");
    std::string kind;
    if (!text(j, path, "kind", kind)) return false;
    const auto k = kind_from_name(kind);
    if (!k) return fail(path + ".kind", "unknown kind " + quote_arg(kind));
    f.kind = *k;
    if (!count(j, path, "bytes", f.bytes) || !count(j, path, "calls", f.calls)) return false;
    const auto secs = j.find("estimated_seconds");
    if (secs == j.end()) return fail(path + ".estimated_seconds", "missing");
    if (!secs->is_number() || !(secs->get<double>() >= 0) || !std::isfinite(secs->get<double>()))
      return fail(path + ".estimated_seconds", "want a non-negative number");
    f.estimated_seconds = secs->get<double>();
    const auto sites = j.find("sites");
    if (sites == j.end()) return fail(path + ".sites", "missing");
    if (!sites->is_array()) return fail(path + ".sites", "want an array");
    std::map<std::tuple<std::string, std::string, std::int64_t, std::string, std::string>,
             std::size_t>
        index;
    for (std::size_t i = 0; i < sites->size(); ++i) {
      SummarySite s;
      if (!site((*sites)[i], path + ".sites[" + std::to_string(i) + "]", s)) return false;
      const auto key = std::make_tuple(s.function, s.file, s.line, s.source, s.destination);
      const auto [it, added] = index.emplace(key, f.sites.size());
      if (added) {
        f.sites.push_back(std::move(s));
        continue;
      }
      SummarySite& same = f.sites[it->second];
      if (same.bytes > std::numeric_limits<std::int64_t>::max() - s.bytes ||
          same.calls > std::numeric_limits<std::int64_t>::max() - s.calls)
        return fail(path + ".sites[" + std::to_string(i) + "]", "too large");
      same.bytes += s.bytes;
      same.calls += s.calls;
    }
    return true;
  }

 private:
  const std::string& name_;
  std::string& error_;
};

DiffStatus status_of(const Change& c, bool in_old, bool in_new) {
  if (!in_old) return DiffStatus::kAppeared;
  if (!in_new) return DiffStatus::kVanished;
  if (c.new_bytes != c.old_bytes)
    return c.new_bytes > c.old_bytes ? DiffStatus::kGrew : DiffStatus::kShrank;
  if (c.new_calls != c.old_calls)
    return c.new_calls > c.old_calls ? DiffStatus::kGrew : DiffStatus::kShrank;
  return DiffStatus::kSame;
}

std::int64_t magnitude(std::int64_t v) {
  return v < 0 ? -v : v;
}

std::string signed_text(std::int64_t v) {
  return (v > 0 ? "+" : "") + std::to_string(v);
}

std::string site_name(const SiteChange& s) {
  std::string out = s.function;
  if (!s.file.empty()) out += "  " + s.file + ":" + std::to_string(s.line);
  if (!s.source.empty()) out += "  [" + s.source + " -> " + s.destination + "]";
  return out;
}

std::string render_text(const WasteDiff& d) {
  std::string out = "zerolab waste diff: " + d.old_name + " -> " + d.new_name + "\n";
  if (d.kinds.empty()) out += "\nNo waste in either run.\n";
  for (const KindChange& k : d.kinds) {
    const Change& c = k.change;
    out += "\n" + std::string(kind_name(k.kind)) + ": " + diff_status_name(c.status) + ", " +
           std::to_string(c.old_bytes) + " -> " + std::to_string(c.new_bytes) + " bytes (" +
           signed_text(c.delta_bytes()) + "), " + std::to_string(c.old_calls) + " -> " +
           std::to_string(c.new_calls) + " calls (" + signed_text(c.delta_calls()) + ")\n";
    for (const SiteChange& s : k.sites) {
      if (s.change.status == DiffStatus::kSame) continue;
      char line[96];
      std::snprintf(line, sizeof line, "  %-8s %+14" PRId64 " bytes %+10" PRId64 " calls  ",
                    diff_status_name(s.change.status), s.change.delta_bytes(),
                    s.change.delta_calls());
      out += line + site_name(s) + "\n";
    }
    const auto same = std::count_if(k.sites.begin(), k.sites.end(), [](const SiteChange& s) {
      return s.change.status == DiffStatus::kSame;
    });
    if (same > 0) out += "  " + std::to_string(same) + " site(s) unchanged\n";
  }
  return out;
}

std::string render_markdown(const WasteDiff& d) {
  using internal::markdown_code_cell;
  using internal::markdown_text;
  std::string out = "# zerolab waste diff: " + markdown_text(d.old_name) + " → " +
                    markdown_text(d.new_name) + "\n";
  if (d.kinds.empty()) out += "\nNo waste in either run.\n";
  for (const KindChange& k : d.kinds) {
    const Change& c = k.change;
    out += "\n## " + std::string(kind_name(k.kind)) + ": " + diff_status_name(c.status) + "\n\n";
    out += "| | old | new | change |\n|---|---|---|---|\n";
    out += "| bytes | " + std::to_string(c.old_bytes) + " | " + std::to_string(c.new_bytes) +
           " | " + signed_text(c.delta_bytes()) + " |\n";
    out += "| calls | " + std::to_string(c.old_calls) + " | " + std::to_string(c.new_calls) +
           " | " + signed_text(c.delta_calls()) + " |\n\n";
    out += "| status | bytes | calls | function | file:line |\n|---|---|---|---|---|\n";
    for (const SiteChange& s : k.sites) {
      out +=
          std::string("| ") + diff_status_name(s.change.status) + " | " +
          signed_text(s.change.delta_bytes()) + " | " + signed_text(s.change.delta_calls()) +
          " | `" + markdown_code_cell(s.function) + "` | " +
          markdown_text((s.file.empty() ? "?" : s.file + ":" + std::to_string(s.line)) +
                        (s.source.empty() ? "" : " (" + s.source + " → " + s.destination + ")")) +
          " |\n";
    }
  }
  return out;
}

void put_change(ordered_json& j, const Change& c) {
  j["status"] = diff_status_name(c.status);
  j["old_bytes"] = c.old_bytes;
  j["new_bytes"] = c.new_bytes;
  j["delta_bytes"] = c.delta_bytes();
  j["old_calls"] = c.old_calls;
  j["new_calls"] = c.new_calls;
  j["delta_calls"] = c.delta_calls();
}

std::string render_json(const WasteDiff& d) {
  ordered_json j;
  j["old"] = d.old_name;
  j["new"] = d.new_name;
  ordered_json kinds = ordered_json::array();
  for (const KindChange& k : d.kinds) {
    ordered_json kj;
    kj["kind"] = std::string(kind_name(k.kind));
    put_change(kj, k.change);
    kj["old_estimated_seconds"] = k.old_seconds;
    kj["new_estimated_seconds"] = k.new_seconds;
    ordered_json sites = ordered_json::array();
    for (const SiteChange& s : k.sites) {
      ordered_json sj;
      sj["function"] = s.function;
      sj["file"] = s.file;
      sj["line"] = s.line;
      if (!s.source.empty() || !s.destination.empty()) {
        sj["source"] = s.source;
        sj["destination"] = s.destination;
      }
      put_change(sj, s.change);
      sites.push_back(std::move(sj));
    }
    kj["sites"] = std::move(sites);
    kinds.push_back(std::move(kj));
  }
  j["kinds"] = std::move(kinds);
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

const char* diff_status_name(DiffStatus status) {
  switch (status) {
    case DiffStatus::kGrew:
      return "grew";
    case DiffStatus::kShrank:
      return "shrank";
    case DiffStatus::kSame:
      return "same";
    case DiffStatus::kAppeared:
      return "appeared";
    case DiffStatus::kVanished:
      return "vanished";
  }
  return "same";
}

bool read_report_json(std::string_view text, const std::string& name, WasteSummary& out,
                      std::string& error) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for 1e999
    std::string what = e.what();
    const std::size_t cut = what.find("] ");
    if (cut != std::string::npos) what = what.substr(cut + 2);
    error = one_line(name + ": not JSON: " + what);
    return false;
  }
  Reader reader(name, error);
  if (!j.is_object())
    return reader.fail("(top)", "want an object (a zerolab waste --format json report)");
  const auto findings = j.find("findings");
  if (findings == j.end()) return reader.fail("findings", "missing");
  if (!findings->is_array()) return reader.fail("findings", "want an array");
  WasteSummary summary;
  summary.name = name;
  bool seen[kWasteKinds] = {};
  for (std::size_t i = 0; i < findings->size(); ++i) {
    const std::string path = "findings[" + std::to_string(i) + "]";
    SummaryFinding f;
    if (!reader.finding((*findings)[i], path, f)) return false;
    const int k = static_cast<int>(f.kind);
    if (seen[k]) return reader.fail(path + ".kind", "a second " + std::string(kind_name(f.kind)));
    seen[k] = true;
    summary.findings.push_back(std::move(f));
  }
  out = std::move(summary);
  return true;
}

WasteDiff diff_reports(const WasteSummary& old_run, const WasteSummary& new_run) {
  WasteDiff d;
  d.old_name = old_run.name;
  d.new_name = new_run.name;
  const SummaryFinding* olds[kWasteKinds] = {};
  const SummaryFinding* news[kWasteKinds] = {};
  for (const SummaryFinding& f : old_run.findings) olds[static_cast<int>(f.kind)] = &f;
  for (const SummaryFinding& f : new_run.findings) news[static_cast<int>(f.kind)] = &f;
  for (int k = 0; k < kWasteKinds; ++k) {
    const SummaryFinding* o = olds[k];
    const SummaryFinding* n = news[k];
    if (o == nullptr && n == nullptr) continue;
    KindChange kc;
    kc.kind = static_cast<WasteKind>(k);
    kc.change.old_bytes = o != nullptr ? o->bytes : 0;
    kc.change.old_calls = o != nullptr ? o->calls : 0;
    kc.change.new_bytes = n != nullptr ? n->bytes : 0;
    kc.change.new_calls = n != nullptr ? n->calls : 0;
    kc.change.status = status_of(kc.change, o != nullptr, n != nullptr);
    kc.old_seconds = o != nullptr ? o->estimated_seconds : 0;
    kc.new_seconds = n != nullptr ? n->estimated_seconds : 0;
    using Key = std::tuple<std::string, std::string, std::int64_t, std::string, std::string>;
    std::map<Key, std::pair<const SummarySite*, const SummarySite*>> sites;
    if (o != nullptr) {
      for (const SummarySite& s : o->sites)
        sites[{s.function, s.file, s.line, s.source, s.destination}].first = &s;
    }
    if (n != nullptr) {
      for (const SummarySite& s : n->sites)
        sites[{s.function, s.file, s.line, s.source, s.destination}].second = &s;
    }
    for (const auto& [key, pair] : sites) {
      SiteChange sc;
      std::tie(sc.function, sc.file, sc.line, sc.source, sc.destination) = key;
      const auto& [os, ns] = pair;
      sc.change.old_bytes = os != nullptr ? os->bytes : 0;
      sc.change.old_calls = os != nullptr ? os->calls : 0;
      sc.change.new_bytes = ns != nullptr ? ns->bytes : 0;
      sc.change.new_calls = ns != nullptr ? ns->calls : 0;
      sc.change.status = status_of(sc.change, os != nullptr, ns != nullptr);
      kc.sites.push_back(std::move(sc));
    }
    // Largest change of bytes first; the map's key order breaks ties.
    std::stable_sort(kc.sites.begin(), kc.sites.end(),
                     [](const SiteChange& a, const SiteChange& b) {
                       return magnitude(a.change.delta_bytes()) > magnitude(b.change.delta_bytes());
                     });
    d.kinds.push_back(std::move(kc));
  }
  std::stable_sort(d.kinds.begin(), d.kinds.end(), [](const KindChange& a, const KindChange& b) {
    return magnitude(a.change.delta_bytes()) > magnitude(b.change.delta_bytes());
  });
  return d;
}

std::string render_diff(const WasteDiff& diff, WasteFormat format) {
  switch (format) {
    case WasteFormat::kJson:
      return render_json(diff);
    case WasteFormat::kMarkdown:
      return render_markdown(diff);
    case WasteFormat::kText:
    case WasteFormat::kHtml:  // not offered for diffs (flags.cpp)
      break;
  }
  return render_text(diff);
}

// A signed 128-bit sum (GCC's extension, spelled so -Wpedantic accepts it).
__extension__ using WideSum = __int128;

std::string diff_threshold(const WasteDiff& diff, const std::vector<FailOn>& fail_on) {
  for (const FailOn& f : fail_on) {
    WideSum grew = 0;  // six kinds' changes cannot overflow it
    for (const KindChange& k : diff.kinds) {
      if (!f.kind || *f.kind == k.kind) grew += k.change.delta_bytes();
    }
    if (grew > 0 && grew >= static_cast<WideSum>(f.bytes)) {
      const auto shown = grew > static_cast<WideSum>(std::numeric_limits<std::uint64_t>::max())
                             ? std::numeric_limits<std::uint64_t>::max()
                             : static_cast<std::uint64_t>(grew);
      return std::string(f.kind ? kind_name(*f.kind) : "any") + "=" + std::to_string(f.bytes) +
             " reached (grew by " + std::to_string(shown) + " bytes)";
    }
  }
  return "";
}

}  // namespace zerolab::waste
