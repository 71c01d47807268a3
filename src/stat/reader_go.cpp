// The Go benchmark format reader (include/zerolab/stat_reader.hpp),
// line for line as benchfmt.Reader parses it.
//
// Example:
//   zerolab::stat::StringSource src("BenchmarkA 10 5 ns/op\n");
//   zerolab::stat::GoReader r(src, "a.txt");
//   r.next();  // r.result().result.metrics[0].value == 5e-9
#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "go_compat.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {

// ===== sources, records, metadata =================================================

std::ptrdiff_t StringSource::read(char* buf, std::size_t n, std::string& /*error*/) {
  const std::size_t k = n < data_.size() ? n : data_.size();
  if (k > 0) std::memcpy(buf, data_.data(), k);
  data_.remove_prefix(k);
  return static_cast<std::ptrdiff_t>(k);
}

std::ptrdiff_t FileSource::read(char* buf, std::size_t n, std::string& error) {
  errno = 0;
  const std::size_t k = std::fread(buf, 1, n, file_);
  if (k > 0) return static_cast<std::ptrdiff_t>(k);
  if (std::ferror(file_)) {
    const int err = errno != 0 ? errno : EIO;
    error = "read " + path_ + ": " + go_errno_text(err);
    return -1;
  }
  return 0;
}

std::string go_errno_text(int err) {
  std::string s = std::strerror(err);
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

std::string_view BenchRecord::full_name() const {
  std::string_view n = result.name;
  if (n.substr(0, 9) == "Benchmark") n.remove_prefix(9);
  return n;
}

std::string_view BenchRecord::config_value(std::string_view key) const {
  if (!config) return {};
  for (const ConfigEntry& c : *config) {
    if (c.key == key) return c.value;
  }
  return {};
}

std::string SyntaxError::to_string() const {
  return file + ":" + std::to_string(line) + ": " + message;
}

const UnitMetadata* UnitMetadataMap::get(std::string_view unit, std::string_view key) const {
  const TidyUnit t = tidy_unit(unit);
  auto it = entries_.find(std::make_pair(t.unit, std::string(key)));
  return it == entries_.end() ? nullptr : &it->second;
}

Assumption UnitMetadataMap::assumption(std::string_view unit) const {
  const UnitMetadata* m = get(unit, "assume");
  return m != nullptr && m->value == "exact" ? Assumption::kExact : Assumption::kNothing;
}

int UnitMetadataMap::better(std::string_view unit) const {
  if (const UnitMetadata* m = get(unit, "better"); m != nullptr) {
    if (m->value == "higher") return 1;
    if (m->value == "lower") return -1;
    return 0;
  }
  if (unit == "ns/op" || unit == "sec/op") return -1;
  if (unit == "MB/s" || unit == "B/s") return 1;
  if (unit == "B/op" || unit == "allocs/op") return -1;
  return 0;
}

const UnitMetadata* UnitMetadataMap::insert(const UnitMetadata& m, bool* inserted) {
  auto key = std::make_pair(m.unit, m.key);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    if (inserted != nullptr) *inserted = false;
    return it->second.value == m.value ? nullptr : &it->second;
  }
  entries_.emplace(std::move(key), m);
  if (inserted != nullptr) *inserted = true;
  return nullptr;
}

// ===== GoReader ========================================================================

namespace {

constexpr std::uint64_t kAsciiSpace = (1ULL << '\t') | (1ULL << '\n') | (1ULL << '\v') |
                                      (1ULL << '\f') | (1ULL << '\r') | (1ULL << ' ');

bool ascii_space(unsigned char c) {
  return c < 64 && ((kAsciiSpace >> c) & 1) != 0;
}

// benchfmt's splitField: the leading non-space run, then the rest after the
// spaces that follow it.
std::pair<std::string_view, std::string_view> split_field(std::string_view x) {
  std::size_t i = 0;
  std::string_view rest;
  bool have_rest = false;
  while (i < x.size()) {
    const auto c = static_cast<unsigned char>(x[i]);
    if (c < 0x80) {
      if (ascii_space(c)) {
        rest = x.substr(i + 1);
        have_rest = true;
        break;
      }
      ++i;
    } else {
      auto [r, n] = internal::decode_rune(x.substr(i));
      if (internal::is_space(r)) {
        rest = x.substr(i + n);
        have_rest = true;
        break;
      }
      i += n;
    }
  }
  const std::string_view field = x.substr(0, i);
  if (!have_rest) return {field, {}};
  while (!rest.empty()) {
    const auto c = static_cast<unsigned char>(rest[0]);
    if (c < 0x80) {
      if (!ascii_space(c)) break;
      rest.remove_prefix(1);
    } else {
      auto [r, n] = internal::decode_rune(rest);
      if (!internal::is_space(r)) break;
      rest.remove_prefix(n);
    }
  }
  return {field, rest};
}

// benchfmt's parseKeyValueLine.
bool parse_key_value(std::string_view line, std::string_view& key, std::string_view& val) {
  key = {};
  val = {};
  bool found = false;
  for (std::size_t i = 0; i < line.size();) {
    auto [r, n] = internal::decode_rune(line.substr(i));
    if (i == 0 && !internal::is_lower(r)) return false;
    if (internal::is_space(r) || internal::is_upper(r)) return false;
    if (i > 0 && r == ':') {
      key = line.substr(0, i);
      val = line.substr(i + 1);
      found = true;
      break;
    }
    i += n;
  }
  if (!found || key.empty()) return false;
  if (val.empty()) return true;
  bool ok = false;
  while (!val.empty() && (val[0] == ' ' || val[0] == '\t')) {
    val.remove_prefix(1);
    ok = true;
  }
  return ok;
}

struct Queued {
  RecordKind kind = RecordKind::kSyntaxError;
  UnitMetadata meta;
  SyntaxError err;
};

}  // namespace

struct GoReader::Impl {
  Impl(ByteSource& s, std::string name, UnitMetadataMap* u)
      : src(s),
        file_name(name.empty() ? "<unknown>" : std::move(name)),
        units(u != nullptr ? u : &own_units) {}

  ByteSource& src;
  std::string file_name;
  UnitMetadataMap own_units;
  UnitMetadataMap* units;

  // Not value-initialized: src.read fills it (`zerolab waste` found 60 KiB
  // of fresh pages zeroed here, then overwritten, per input).
  std::unique_ptr<char[]> buf = std::make_unique_for_overwrite<char[]>(kMaxLine);
  std::size_t start = 0;
  std::size_t end = 0;
  bool eof = false;
  bool read_failed = false;
  std::string read_error;
  int line = 0;

  ConfigList config;
  std::shared_ptr<const ConfigList> snapshot;

  BenchRecord result;
  std::deque<Queued> queue;
  Queued current;
  RecordKind current_kind = RecordKind::kSyntaxError;
  std::string error;
  bool stopped = false;

  std::unordered_map<std::string, TidyUnit> tidy_cache;

  void set_config(std::string_view key, std::string_view value, bool file) {
    snapshot.reset();
    for (ConfigEntry& c : config) {
      if (c.key == key) {
        c.value.assign(value);
        c.file = file;
        return;
      }
    }
    config.push_back(ConfigEntry{std::string(key), std::string(value), file});
  }

  void delete_config(std::string_view key) {
    for (std::size_t i = 0; i < config.size(); ++i) {
      if (config[i].key == key) {
        snapshot.reset();
        if (i + 1 != config.size()) std::swap(config[i], config.back());
        config.pop_back();
        return;
      }
    }
  }

  const TidyUnit& tidy(std::string_view unit) {
    auto it = tidy_cache.find(std::string(unit));
    if (it != tidy_cache.end()) return it->second;
    if (tidy_cache.size() > 4096) tidy_cache.clear();
    return tidy_cache.emplace(std::string(unit), tidy_unit(unit)).first->second;
  }

  // Go's bufio.Scanner with ScanLines and the default 64 KiB limit.
  bool next_line(std::string_view& out) {
    for (;;) {
      if (end > start || read_failed) {
        const char* base = buf.get() + start;
        const void* nl = std::memchr(base, '\n', end - start);
        if (nl != nullptr) {
          const auto len = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
          out = std::string_view(base, len);
          if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
          start += len + 1;
          return true;
        }
        if (eof || read_failed) {
          if (end > start) {
            out = std::string_view(base, end - start);
            if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
            start = end;
            return true;
          }
          return false;
        }
      } else if (eof) {
        return false;
      }
      if (start > 0) {
        std::memmove(buf.get(), buf.get() + start, end - start);
        end -= start;
        start = 0;
      }
      if (end == kMaxLine) {
        read_failed = true;
        read_error = "bufio.Scanner: token too long";
        end = start = 0;
        return false;
      }
      const std::ptrdiff_t n = src.read(buf.get() + end, kMaxLine - end, read_error);
      if (n < 0) {
        read_failed = true;
      } else if (n == 0) {
        eof = true;
      } else {
        end += static_cast<std::size_t>(n);
      }
    }
  }

  void push_error(std::string message) {
    Queued q;
    q.kind = RecordKind::kSyntaxError;
    q.err = SyntaxError{file_name, line, std::move(message)};
    queue.push_back(std::move(q));
  }

  // Returns true when a result was parsed into `result`.
  bool parse_benchmark_line(std::string_view line_text) {
    std::string_view rest = line_text.substr(9);
    const std::size_t line_len = rest.size();
    auto [name, after_name] = split_field(rest);
    if (after_name.empty() && name.size() == line_len) return false;  // "go test -v" name line
    rest = after_name;
    auto [iters, after_iters] = split_field(rest);
    rest = after_iters;
    if (iters.empty()) {
      push_error("missing iteration count");
      return false;
    }
    std::int64_t n = 0;
    if (internal::NumError e = internal::parse_go_int(iters, n); e != internal::NumError::kNone) {
      push_error(std::string("parsing iteration count: ") + internal::num_error_text(e));
      return false;
    }
    result.result.metrics.clear();
    result.original.clear();
    for (;;) {
      auto [f, r1] = split_field(rest);
      rest = r1;
      if (f.empty()) {
        if (!result.result.metrics.empty()) break;
        push_error("missing measurements");
        return false;
      }
      double val = 0;
      if (internal::NumError e = internal::parse_go_float(f, val); e != internal::NumError::kNone) {
        push_error(std::string("parsing measurement: ") + internal::num_error_text(e));
        return false;
      }
      auto [u, r2] = split_field(rest);
      rest = r2;
      if (u.empty()) {
        push_error("missing units");
        return false;
      }
      const TidyUnit& t = tidy(u);
      const double tidied = val * t.factor;
      if (tidied == val) {
        result.result.metrics.push_back(benchfmt::Metric{val, std::string(u)});
        result.original.push_back(benchfmt::Metric{val, std::string()});
      } else {
        result.result.metrics.push_back(benchfmt::Metric{tidied, t.unit});
        result.original.push_back(benchfmt::Metric{val, std::string(u)});
      }
    }
    result.result.name.assign("Benchmark");
    result.result.name.append(name);
    result.result.iterations = n;
    if (!snapshot) snapshot = std::make_shared<const ConfigList>(config);
    result.config = snapshot;
    result.file = file_name;
    result.line = line;
    return true;
  }

  void parse_unit_line(std::string_view rest) {
    auto [unit, r1] = split_field(rest);
    rest = r1;
    if (unit.empty()) {
      push_error("missing unit");
      return;
    }
    const std::string tidied = tidy_unit(unit).unit;
    for (;;) {
      auto [f, r2] = split_field(rest);
      rest = r2;
      if (f.empty()) break;
      const std::size_t eq = f.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        push_error("expected key=value");
        continue;
      }
      UnitMetadata m{tidied,
                     std::string(f.substr(0, eq)),
                     std::string(f.substr(eq + 1)),
                     std::string(unit),
                     file_name,
                     line};
      bool inserted = false;
      if (const UnitMetadata* have = units->insert(m, &inserted); have != nullptr) {
        push_error("metadata " + m.key + " of unit " + std::string(unit) + " already set to " +
                   have->value);
        continue;
      }
      if (!inserted) continue;
      Queued q;
      q.kind = RecordKind::kUnitMetadata;
      q.meta = std::move(m);
      queue.push_back(std::move(q));
    }
  }

  bool advance() {
    if (!queue.empty()) {
      current = std::move(queue.front());
      queue.pop_front();
      current_kind = current.kind;
      return true;
    }
    if (stopped) return false;
    std::string_view text;
    while (next_line(text)) {
      ++line;
      if (text.size() >= 9 && text.substr(0, 9) == "Benchmark") {
        if (parse_benchmark_line(text)) {
          current_kind = RecordKind::kResult;
          return true;
        }
        if (!queue.empty()) return advance();
        continue;
      }
      if (!text.empty() && text[0] == 'U') {
        auto [f, rest] = split_field(text);
        if (f == "Unit") {
          parse_unit_line(rest);
          if (!queue.empty()) return advance();
          continue;
        }
      }
      std::string_view key;
      std::string_view val;
      if (parse_key_value(text, key, val)) {
        if (val.empty()) {
          delete_config(key);
        } else {
          set_config(key, val, true);
        }
      }
    }
    stopped = true;
    if (read_failed) error = file_name + ":" + std::to_string(line) + ": " + read_error;
    return false;
  }
};

GoReader::GoReader(ByteSource& source, std::string file_name, const ConfigList& initial_config,
                   UnitMetadataMap* units)
    : impl_(std::make_unique<Impl>(source, std::move(file_name), units)) {
  for (const ConfigEntry& c : initial_config) {
    if (c.value.empty()) {
      impl_->delete_config(c.key);
    } else {
      impl_->set_config(c.key, c.value, false);
    }
  }
}

GoReader::~GoReader() = default;

bool GoReader::next() {
  return impl_->advance();
}
RecordKind GoReader::kind() const {
  return impl_->current_kind;
}
const BenchRecord& GoReader::result() const {
  return impl_->result;
}
BenchRecord& GoReader::mutable_result() {
  return impl_->result;
}
const UnitMetadata& GoReader::unit_metadata() const {
  return impl_->current.meta;
}
const SyntaxError& GoReader::syntax_error() const {
  return impl_->current.err;
}
const std::string& GoReader::error() const {
  return impl_->error;
}

}  // namespace zerolab::stat
