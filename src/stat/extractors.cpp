// Extractors (include/zerolab/stat_filter.hpp): how a query key (.name,
// .fullname, /sub-name, config key) reads its value from a benchmark
// record, as benchproc's extractors do.
//
// Example:
//   std::string err;
//   auto size = zerolab::stat::make_extractor("/size", &err);
//   size(rec);  // "4k" for "BenchmarkCopy/size=4k-8"
// libstdc++ 12 trips a false -Wmaybe-uninitialized inside std::function
// when optimized with sanitizers (GCC bug 105562).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <string>
#include <string_view>
#include <vector>

#include "stat/extractors.hpp"
#include "zerolab/stat_filter.hpp"

namespace zerolab::stat {

void split_name(std::string_view full, std::string_view& base,
                std::vector<std::string_view>& parts) {
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

}  // namespace

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

}  // namespace zerolab::stat
