// store/run.cpp — see run.hpp.
#include "store/run.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <stdexcept>

#include "format/go_text.hpp"
#include "zerolab/stat.hpp"

namespace zerolab::store {
namespace {

// Applies the Go reader's rules for a config line to a simulated list:
// an empty value deletes the key (the last entry moves into its place),
// any other value replaces it in place or appends it.
void apply_config_line(std::vector<KeyValue>& list, const std::string& key,
                       const std::string& value) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].first != key) continue;
    if (value.empty()) {
      if (i + 1 != list.size()) std::swap(list[i], list.back());
      list.pop_back();
    } else {
      list[i].second = value;
    }
    return;
  }
  if (!value.empty()) list.emplace_back(key, value);
}

void append_config_line(std::string& out, const std::string& key, const std::string& value) {
  out += key;
  out += ':';
  if (!value.empty()) {
    out += ' ';
    out += value;
  }
  out += '\n';
}

bool has_key(const std::vector<KeyValue>& list, const std::string& key) {
  return std::any_of(list.begin(), list.end(), [&](const KeyValue& kv) { return kv.first == key; });
}

// Writes the config lines that turn `current` into `next` (and updates current).
void write_transition(std::string& out, std::vector<KeyValue>& current,
                      const std::vector<KeyValue>& next) {
  if (current == next) return;
  // First try: delete what is gone, then set what changed.
  std::vector<KeyValue> sim = current;
  std::vector<KeyValue> lines;
  for (const KeyValue& kv : current) {
    if (!has_key(next, kv.first)) lines.emplace_back(kv.first, "");
  }
  for (const KeyValue& kv : next) {
    bool same = false;
    for (const KeyValue& c : current) same = same || (c == kv);
    if (!same) lines.push_back(kv);
  }
  for (const KeyValue& l : lines) apply_config_line(sim, l.first, l.second);
  if (sim != next) {
    // The order would differ: clear everything, then write next in order.
    lines.clear();
    for (const KeyValue& kv : current) lines.emplace_back(kv.first, "");
    for (const KeyValue& kv : next) lines.push_back(kv);
  }
  for (const KeyValue& l : lines) append_config_line(out, l.first, l.second);
  current = next;
}

std::string format_uuid(const unsigned char b[16]) {
  char buf[40];
  std::snprintf(buf, sizeof buf,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return buf;
}

// Go's escape of a non-printable rune, as strconv.QuoteRune writes it.
void append_go_escape(std::string& out, char32_t r) {
  char buf[16];
  switch (r) {
    case '\a':
      out += "\\a";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\v':
      out += "\\v";
      return;
    default:
      break;
  }
  if (r < 0x20 || r == 0x7f) {
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(r));
  } else if (r < 0x10000) {
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(r));
  } else {
    std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(r));
  }
  out += buf;
}

}  // namespace

std::string go_field(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const auto [rune, width] = internal::decode_rune(text);
    if (rune == internal::kRuneError && width == 1) {
      out += text[0];  // not UTF-8: kept for the store's own refusal
    } else if (internal::is_space(rune)) {
      out += '_';
    } else if (!internal::is_graphic(rune)) {
      append_go_escape(out, rune);
    } else {
      out.append(text.substr(0, width));
    }
    text.remove_prefix(width);
  }
  return out;
}

std::string terminal_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const auto [rune, width] = internal::decode_rune(text);
    if (rune == internal::kRuneError && width == 1) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(text[0]));
      out += buf;
    } else if (rune == ' ' || internal::is_graphic(rune)) {
      out.append(text.substr(0, width));
    } else {
      append_go_escape(out, rune);
    }
    text.remove_prefix(width);
  }
  return out;
}

std::string go_config_key(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 1);
  const char32_t first = text.empty() ? 0 : internal::decode_rune(text).first;
  // The first letter must be lower-case once A-Z are lowered.
  if (!internal::is_lower(first) && !(first >= 'A' && first <= 'Z')) out += 'x';
  while (!text.empty()) {
    const auto [rune, width] = internal::decode_rune(text);
    if (rune == internal::kRuneError && width == 1) {
      out += text[0];
    } else if (rune >= 'A' && rune <= 'Z') {
      out += static_cast<char>(rune - 'A' + 'a');
    } else if (internal::is_space(rune) || rune == ':' || internal::is_upper(rune)) {
      out += '_';  // an upper-case letter beyond ASCII too: the reader stops at it
    } else if (!internal::is_graphic(rune)) {
      append_go_escape(out, rune);
    } else {
      out.append(text.substr(0, width));
    }
    text.remove_prefix(width);
  }
  return out;
}

std::string go_config_value(std::string_view text) {
  while (!text.empty() &&
         (text[0] == ' ' || text[0] == '\t' || text[0] == '\n' || text[0] == '\r')) {
    text.remove_prefix(1);
  }
  std::string out(text);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::string Run::label(const std::string& key) const {
  for (const KeyValue& kv : labels) {
    if (kv.first == key) return kv.second;
  }
  return {};
}

std::string Run::config(const std::string& key) const {
  for (const auto& block : configs) {
    for (const KeyValue& kv : block) {
      if (kv.first == key) return kv.second;
    }
  }
  return {};
}

void RunBuilder::add(const stat::BenchRecord& record) {
  run_.results.push_back(take(record));
}

StoredResult RunBuilder::take(const stat::BenchRecord& record) {
  if (record.config.get() != last_config_ || run_.configs.empty()) {
    std::vector<KeyValue> block;
    if (record.config) {
      for (const stat::ConfigEntry& c : *record.config) {
        if (!c.file) continue;
        // Kept as the Go format will write it (a later key that becomes
        // the same as an earlier one replaces it, as the reader would).
        std::string key = go_config_key(c.key);
        std::string value = go_config_value(c.value);
        if (value.empty()) continue;
        auto same = std::find_if(block.begin(), block.end(),
                                 [&](const KeyValue& kv) { return kv.first == key; });
        if (same != block.end()) {
          same->second = std::move(value);
        } else {
          block.emplace_back(std::move(key), std::move(value));
        }
      }
    }
    if (run_.configs.empty() || run_.configs.back() != block)
      run_.configs.push_back(std::move(block));
    last_config_ = record.config.get();
    keep_alive_ = record.config;  // so the pointer is not reused for another list
  }
  StoredResult r;
  r.name = go_field(record.result.name);
  r.iterations = record.result.iterations;
  r.block = static_cast<int>(run_.configs.size() - 1);
  r.values.reserve(record.result.metrics.size());
  for (std::size_t i = 0; i < record.result.metrics.size(); ++i) {
    const bool tidied = i < record.original.size() && !record.original[i].unit.empty();
    r.values.push_back(tidied ? record.original[i] : record.result.metrics[i]);
    r.values.back().unit = go_field(r.values.back().unit);
  }
  ++results_;
  values_ += r.values.size();
  return r;
}

void RunBuilder::add(const stat::UnitMetadata& unit) {
  run_.units.push_back(
      UnitNote{go_field(unit.orig_unit), go_field(unit.key), go_field(unit.value)});
}

Run RunBuilder::finish() {
  Run out = std::move(run_);
  run_ = Run{};
  results_ = 0;
  values_ = 0;
  last_config_ = nullptr;
  keep_alive_.reset();
  return out;
}

namespace {

// A configuration block as the Go format writes it (see go_config_key).
std::vector<KeyValue> go_block(const std::vector<KeyValue>& block) {
  std::vector<KeyValue> out;
  out.reserve(block.size());
  for (const KeyValue& kv : block) {
    std::string key = go_config_key(kv.first);
    std::string value = go_config_value(kv.second);
    if (value.empty()) continue;
    auto same =
        std::find_if(out.begin(), out.end(), [&](const KeyValue& o) { return o.first == key; });
    if (same != out.end()) {
      same->second = std::move(value);
    } else {
      out.emplace_back(std::move(key), std::move(value));
    }
  }
  return out;
}

constexpr std::size_t kWriterChunk = 64 * 1024;

}  // namespace

GoFormatWriter::GoFormatWriter(const Run& header, Sink sink) : sink_(std::move(sink)) {
  configs_.reserve(header.configs.size());
  for (const auto& block : header.configs) configs_.push_back(go_block(block));
  for (const UnitNote& u : header.units) {
    buf_ += "Unit " + go_field(u.unit) + " " + go_field(u.key) + "=" + go_field(u.value) + "\n";
  }
}

void GoFormatWriter::add_block(const std::vector<KeyValue>& block) {
  configs_.push_back(go_block(block));
}

void GoFormatWriter::write(const StoredResult& r) {
  // A block with no keys has no rows in the store: absent means empty.
  static const std::vector<KeyValue> no_config;
  const bool known = r.block >= 0 && static_cast<std::size_t>(r.block) < configs_.size();
  write_transition(buf_, current_, known ? configs_[static_cast<std::size_t>(r.block)] : no_config);
  buf_ += go_field(r.name);
  buf_ += '\t';
  buf_ += std::to_string(r.iterations);
  for (const benchfmt::Metric& m : r.values) {
    buf_ += '\t';
    buf_ += stat::format_go_float(m.value);
    buf_ += ' ';
    buf_ += go_field(m.unit);
  }
  buf_ += '\n';
  if (buf_.size() >= kWriterChunk) flush();
}

void GoFormatWriter::flush() {
  if (buf_.empty()) return;
  sink_(buf_);
  buf_.clear();
}

std::string to_go_format(const Run& run) {
  std::string out;
  GoFormatWriter writer(run, [&](std::string_view text) { out.append(text); });
  for (const StoredResult& r : run.results) writer.write(r);
  writer.flush();
  return out;
}

Run select_results(const Run& run,
                   const std::function<bool(const std::vector<KeyValue>& config)>& keep) {
  Run out;
  out.id = run.id;
  out.unix_ms = run.unix_ms;
  out.kind = run.kind;
  out.command = run.command;
  out.source = run.source;
  out.machine = run.machine;
  out.labels = run.labels;
  out.units = run.units;
  std::vector<int> new_block(run.configs.size(), -1);
  const std::vector<KeyValue> no_config;
  for (const StoredResult& r : run.results) {
    const bool known = r.block >= 0 && static_cast<std::size_t>(r.block) < run.configs.size();
    const auto b = static_cast<std::size_t>(r.block);
    if (!keep(known ? run.configs[b] : no_config)) continue;
    StoredResult copy = r;
    if (known) {
      if (new_block[b] < 0) {
        new_block[b] = static_cast<int>(out.configs.size());
        out.configs.push_back(run.configs[b]);
      }
      copy.block = new_block[b];
    } else {
      copy.block = -1;
    }
    out.results.push_back(std::move(copy));
  }
  return out;
}

namespace {

// FNV-1a, 128-bit, over the Go text and the labels.
__extension__ typedef unsigned __int128 u128;
constexpr u128 kFnvPrime = (static_cast<u128>(0x0000000001000000ULL) << 64) | 0x000000000000013BULL;
constexpr u128 kFnvOffset =
    (static_cast<u128>(0x6c62272e07bb0142ULL) << 64) | 0x62b821756295c58dULL;

}  // namespace

ContentHash::ContentHash(const Run& header)
    : h_(kFnvOffset), writer_(header, [this](std::string_view text) { mix(text); }) {}

void ContentHash::mix(std::string_view text) {
  for (const char c : text) {
    h_ ^= static_cast<unsigned char>(c);
    h_ *= kFnvPrime;
  }
}

std::string ContentHash::finish(const std::vector<KeyValue>& labels) {
  writer_.flush();
  for (const KeyValue& kv : labels) {
    mix("\nlabel ");
    mix(kv.first);
    mix("=");
    mix(kv.second);
  }
  unsigned char b[16];
  for (int i = 0; i < 16; ++i) b[i] = static_cast<unsigned char>(h_ >> (8 * (15 - i)));
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x80);  // version 8
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 9562 variant
  return format_uuid(b);
}

std::string content_uuid(const Run& run) {
  ContentHash hash(run);
  for (const StoredResult& r : run.results) hash.add(r);
  return hash.finish(run.labels);
}

std::string random_uuid() {
  unsigned char b[16];
  std::size_t got = 0;
  while (got < sizeof b) {
    const ssize_t n = ::getrandom(b + got, sizeof b - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("getrandom failed");
    }
    got += static_cast<std::size_t>(n);
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  return format_uuid(b);
}

bool is_uuid(std::string_view text) {
  if (text.size() != 36) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return false;
    }
  }
  return true;
}

void set_labels(Run& run, const std::vector<KeyValue>& labels) {
  for (const KeyValue& kv : labels) {
    auto it = std::find_if(run.labels.begin(), run.labels.end(),
                           [&](const KeyValue& x) { return x.first == kv.first; });
    if (it != run.labels.end()) {
      it->second = kv.second;
    } else {
      run.labels.push_back(kv);
    }
  }
  std::sort(run.labels.begin(), run.labels.end());
  run.machine = run.label("machine");
  if (run.machine.empty()) run.machine = run.config("cpu");
  if (run.machine.empty()) run.machine = "unknown";
}

}  // namespace zerolab::store
