// pprof's profile format (github.com/google/pprof, proto/profile.proto)
// written by hand: a builder for samples, locations with their (inlined)
// lines, functions and mappings, serialized as protobuf and gzipped as
// `go tool pprof` reads it. Functions, files and lines are resolved by the
// caller before writing, so pprof -top/-list/-http show names without the
// binaries at hand (every mapping says has_functions etc.).
//
// The gzip stream uses stored (uncompressed) deflate blocks with the
// standard CRC-32, so the writer depends on nothing; profiles are small.
//
// Thread-safety: one builder per thread.
//
// Example:
//   PprofBuilder b({{"calls", "count"}, {"bytes", "bytes"}});
//   const auto m = b.mapping("/usr/bin/prog", 0x1000, 0x9000, 0);
//   const auto loc = b.location(m, 0x1234, {{"main", "prog.c", 42}});
//   b.add_sample({loc}, {3, 4096});
//   write gzip_stored(b.serialize()) to "profile.pb.gz"
#ifndef ZEROLAB_SRC_PROFILE_PPROF_WRITER_HPP_
#define ZEROLAB_SRC_PROFILE_PPROF_WRITER_HPP_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace zerolab::internal::profile {

struct PprofLine {
  std::string function;
  std::string file;
  std::int64_t line = 0;
};

class PprofBuilder {
 public:
  // (type, unit) per value of every sample, e.g. {"alloc_space", "bytes"}.
  explicit PprofBuilder(const std::vector<std::pair<std::string, std::string>>& sample_types);

  // Mappings are numbered from 1; has_functions/filenames/line_numbers/
  // inline_frames are all set (the writer resolves everything).
  std::uint64_t mapping(const std::string& file, std::uint64_t start, std::uint64_t limit,
                        std::uint64_t file_offset);
  // A location (ids from 1), one per (mapping, address); `lines` innermost
  // (inlined) first, as pprof wants them.
  std::uint64_t location(std::uint64_t mapping_id, std::uint64_t address,
                         const std::vector<PprofLine>& lines);
  // `locations` leaf first; one value per sample type.
  void add_sample(const std::vector<std::uint64_t>& locations,
                  const std::vector<std::int64_t>& values);

  void set_period(const std::string& type, const std::string& unit, std::int64_t period);
  // The sample type pprof shows without -sample_index (else the last one).
  void set_default_sample_type(const std::string& type) { default_sample_type_ = string_id(type); }
  void set_time(std::int64_t time_nanos, std::int64_t duration_nanos);
  void add_comment(const std::string& comment);

  // The Profile message, not compressed.
  std::string serialize() const;

 private:
  std::int64_t string_id(const std::string& s);
  std::uint64_t function_id(const std::string& name, const std::string& file);

  struct Mapping {
    std::uint64_t start, limit, offset;
    std::int64_t file;
  };
  struct Location {
    std::uint64_t mapping, address;
    std::vector<std::pair<std::uint64_t, std::int64_t>> lines;  // function id, line
  };
  struct Sample {
    std::vector<std::uint64_t> locations;
    std::vector<std::int64_t> values;
  };

  std::vector<std::string> strings_{""};
  std::map<std::string, std::int64_t> string_index_{{"", 0}};
  std::vector<std::pair<std::int64_t, std::int64_t>> sample_types_;
  std::vector<Mapping> mappings_;
  std::vector<Location> locations_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> location_index_;
  std::vector<std::pair<std::int64_t, std::int64_t>> functions_;  // name, file
  std::map<std::pair<std::string, std::string>, std::uint64_t> function_index_;
  std::vector<Sample> samples_;
  std::pair<std::int64_t, std::int64_t> period_type_{0, 0};
  std::int64_t period_ = 0;
  std::int64_t time_nanos_ = 0;
  std::int64_t duration_nanos_ = 0;
  std::vector<std::int64_t> comments_;
  std::int64_t default_sample_type_ = 0;
};

// `data` as a gzip member (RFC 1952) of stored deflate blocks.
std::string gzip_stored(std::string_view data);

}  // namespace zerolab::internal::profile

#endif  // ZEROLAB_SRC_PROFILE_PPROF_WRITER_HPP_
