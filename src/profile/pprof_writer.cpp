// pprof's profile.proto, hand-serialized (pprof_writer.hpp). Field numbers
// are profile.proto's: Profile{1 sample_type, 2 sample, 3 mapping,
// 4 location, 5 function, 6 string_table, 9 time_nanos, 10 duration_nanos,
// 11 period_type, 12 period, 13 comment, 14 default_sample_type}; ValueType{1 type, 2 unit};
// Sample{1 location_id (packed), 2 value (packed)}; Mapping{1 id,
// 2 memory_start, 3 memory_limit, 4 file_offset, 5 filename,
// 7 has_functions, 8 has_filenames, 9 has_line_numbers, 10 has_inline_frames};
// Location{1 id, 2 mapping_id, 3 address, 4 line}; Line{1 function_id,
// 2 line}; Function{1 id, 2 name, 3 system_name, 4 filename}.
#include "profile/pprof_writer.hpp"

#include <array>

namespace zerolab::internal::profile {
namespace {

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_tag(std::string& out, int field, int wire) {
  put_varint(out, static_cast<std::uint64_t>(field) << 3 | static_cast<std::uint64_t>(wire));
}

void put_uint(std::string& out, int field, std::uint64_t v) {
  if (v == 0) return;  // proto3 default
  put_tag(out, field, 0);
  put_varint(out, v);
}

void put_int(std::string& out, int field, std::int64_t v) {
  put_uint(out, field, static_cast<std::uint64_t>(v));
}

void put_bytes(std::string& out, int field, std::string_view bytes) {
  put_tag(out, field, 2);
  put_varint(out, bytes.size());
  out.append(bytes);
}

void put_bool(std::string& out, int field, bool v) {
  if (!v) return;
  put_tag(out, field, 0);
  put_varint(out, 1);
}

// A ValueType{1 type, 2 unit} (string table ids) as field `field`.
void put_value_type(std::string& out, int field,
                    const std::pair<std::int64_t, std::int64_t>& type_unit) {
  std::string vt;
  put_int(vt, 1, type_unit.first);
  put_int(vt, 2, type_unit.second);
  put_bytes(out, field, vt);
}

template <typename T>
void put_packed(std::string& out, int field, const std::vector<T>& values) {
  if (values.empty()) return;
  std::string body;
  for (T v : values) put_varint(body, static_cast<std::uint64_t>(v));
  put_bytes(out, field, body);
}

std::uint32_t crc32(std::string_view data) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? 0xedb88320U ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xffffffffU;
  for (const char b : data) c = table[(c ^ static_cast<unsigned char>(b)) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffU;
}

void put_le32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

PprofBuilder::PprofBuilder(const std::vector<std::pair<std::string, std::string>>& sample_types) {
  for (const auto& [type, unit] : sample_types)
    sample_types_.emplace_back(string_id(type), string_id(unit));
}

std::int64_t PprofBuilder::string_id(const std::string& s) {
  auto it = string_index_.find(s);
  if (it != string_index_.end()) return it->second;
  const auto id = static_cast<std::int64_t>(strings_.size());
  strings_.push_back(s);
  string_index_.emplace(s, id);
  return id;
}

std::uint64_t PprofBuilder::function_id(const std::string& name, const std::string& file) {
  const auto key = std::make_pair(name, file);
  auto it = function_index_.find(key);
  if (it != function_index_.end()) return it->second;
  functions_.emplace_back(string_id(name), string_id(file));
  const std::uint64_t id = functions_.size();
  function_index_.emplace(key, id);
  return id;
}

std::uint64_t PprofBuilder::mapping(const std::string& file, std::uint64_t start,
                                    std::uint64_t limit, std::uint64_t file_offset) {
  mappings_.push_back({start, limit, file_offset, string_id(file)});
  return mappings_.size();
}

std::uint64_t PprofBuilder::location(std::uint64_t mapping_id, std::uint64_t address,
                                     const std::vector<PprofLine>& lines) {
  const auto key = std::make_pair(mapping_id, address);
  auto it = location_index_.find(key);
  if (it != location_index_.end()) return it->second;
  Location loc{mapping_id, address, {}};
  for (const PprofLine& l : lines) loc.lines.emplace_back(function_id(l.function, l.file), l.line);
  locations_.push_back(std::move(loc));
  const std::uint64_t id = locations_.size();
  location_index_.emplace(key, id);
  return id;
}

void PprofBuilder::add_sample(const std::vector<std::uint64_t>& locations,
                              const std::vector<std::int64_t>& values) {
  samples_.push_back({locations, values});
}

void PprofBuilder::set_period(const std::string& type, const std::string& unit,
                              std::int64_t period) {
  period_type_ = {string_id(type), string_id(unit)};
  period_ = period;
}

void PprofBuilder::set_time(std::int64_t time_nanos, std::int64_t duration_nanos) {
  time_nanos_ = time_nanos;
  duration_nanos_ = duration_nanos;
}

void PprofBuilder::add_comment(const std::string& comment) {
  comments_.push_back(string_id(comment));
}

std::string PprofBuilder::serialize() const {
  std::string out;
  for (const auto& type : sample_types_) put_value_type(out, 1, type);
  for (const Sample& s : samples_) {
    std::string body;
    put_packed(body, 1, s.locations);
    put_packed(body, 2, s.values);
    put_bytes(out, 2, body);
  }
  for (std::size_t i = 0; i < mappings_.size(); ++i) {
    const Mapping& m = mappings_[i];
    std::string body;
    put_uint(body, 1, i + 1);
    put_uint(body, 2, m.start);
    put_uint(body, 3, m.limit);
    put_uint(body, 4, m.offset);
    put_int(body, 5, m.file);
    put_bool(body, 7, true);
    put_bool(body, 8, true);
    put_bool(body, 9, true);
    put_bool(body, 10, true);
    put_bytes(out, 3, body);
  }
  for (std::size_t i = 0; i < locations_.size(); ++i) {
    const Location& l = locations_[i];
    std::string body;
    put_uint(body, 1, i + 1);
    put_uint(body, 2, l.mapping);
    put_uint(body, 3, l.address);
    for (const auto& [function, line] : l.lines) {
      std::string lb;
      put_uint(lb, 1, function);
      put_int(lb, 2, line);
      put_bytes(body, 4, lb);
    }
    put_bytes(out, 4, body);
  }
  for (std::size_t i = 0; i < functions_.size(); ++i) {
    std::string body;
    put_uint(body, 1, i + 1);
    put_int(body, 2, functions_[i].first);
    put_int(body, 3, functions_[i].first);
    put_int(body, 4, functions_[i].second);
    put_bytes(out, 5, body);
  }
  for (const std::string& s : strings_) put_bytes(out, 6, s);
  put_int(out, 9, time_nanos_);
  put_int(out, 10, duration_nanos_);
  if (period_type_.first != 0 || period_type_.second != 0) put_value_type(out, 11, period_type_);
  put_int(out, 12, period_);
  put_packed(out, 13, comments_);
  put_int(out, 14, default_sample_type_);
  return out;
}

std::string gzip_stored(std::string_view data) {
  std::string out;
  const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};  // deflate, no name, Unix
  out.append(reinterpret_cast<const char*>(header), sizeof header);
  std::size_t at = 0;
  do {
    const std::size_t n = data.size() - at < 65535 ? data.size() - at : 65535;
    const bool last = at + n == data.size();
    out.push_back(static_cast<char>(last ? 1 : 0));  // BFINAL, BTYPE=00 (stored)
    out.push_back(static_cast<char>(n & 0xff));
    out.push_back(static_cast<char>(n >> 8));
    out.push_back(static_cast<char>(~n & 0xff));
    out.push_back(static_cast<char>((~n >> 8) & 0xff));
    out.append(data.substr(at, n));
    at += n;
  } while (at < data.size());
  put_le32(out, crc32(data));
  put_le32(out, static_cast<std::uint32_t>(data.size()));
  return out;
}

}  // namespace zerolab::internal::profile
