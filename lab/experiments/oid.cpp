// Experiment `oid` (seed 001, "cableshow.formatOID" and "cableshow.parseOID"):
// formatting an OID (up to five sections of 0..999) from an int64 six ways
// — Foolish (+= of std::to_string temporaries), Naive (a stream),
// StringBuilder (reserve + to_string), AppendInt (to_chars into a stack
// buffer), StringTable (the 4000-byte "ddd." table), Memoized (Interner) —
// and parsing two ways, Naive (split + std::stoi) and NoAlloc (from_chars
// from the back). Every variant sees the same 1000 seeded random OIDs; the
// variants themselves are in oid.hpp (round-trip tested in oid_test).
//
// The Go peer: peers/go/oid implements the seed's Go variants under the same
// benchmark names, over the same 1000 OIDs (oid::benchmark_oids; its test
// and oid_test pin the first two and the sum), and scripts/oid-go-peer.sh
// runs both sides and compares them with `zerolab compare` (issue 6's figure: the best
// C++ format <= 0.5x the time of Go's best on the same machine).
//
// Example:
//   zerolab lab oid
//   scripts/oid-go-peer.sh build/release
#include <cstdint>
#include <string>
#include <vector>

#include "lab/experiment.hpp"
#include "lab/experiments/oid.hpp"

namespace zerolab::lab {
namespace {

const std::vector<std::int64_t>& oids() {
  static const std::vector<std::int64_t> v = oid::benchmark_oids();
  return v;
}

const std::vector<std::string>& oid_strings() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (std::int64_t n : oids()) out.push_back(oid::format_table(n));
    return out;
  }();
  return v;
}

template <std::string (*kFormat)(std::int64_t)>
void format(B& b) {
  const auto& in = oids();
  std::size_t j = 0;
  for (auto _ : b.loop()) {
    std::string s = kFormat(in[j]);
    do_not_optimize(s);
    if (++j == in.size()) j = 0;
  }
}

void format_memoized(B& b) {
  // One cache for every run, filled before the first loop (in Go the
  // sync.Map fills during the first 1000 iterations and is then all hits).
  static Interner<std::int64_t>* cache = [] {
    auto* c = new Interner<std::int64_t>(4096);
    for (std::int64_t n : oids()) oid::format_memoized(*c, n);
    return c;
  }();
  const auto& in = oids();
  std::size_t j = 0;
  for (auto _ : b.loop()) {
    std::string_view s = oid::format_memoized(*cache, in[j]);
    do_not_optimize(s);
    if (++j == in.size()) j = 0;
  }
}

void parse_naive(B& b) {
  const auto& in = oid_strings();
  std::size_t j = 0;
  for (auto _ : b.loop()) {
    oid::Parsed p = oid::parse_naive(in[j]);
    do_not_optimize(p);
    if (++j == in.size()) j = 0;
  }
}

void parse_no_alloc(B& b) {
  const auto& in = oid_strings();
  std::size_t j = 0;
  for (auto _ : b.loop()) {
    oid::Parsed p = oid::parse_no_alloc(in[j]);
    do_not_optimize(p);
    if (++j == in.size()) j = 0;
  }
}

std::string fmt(const char* v) { return std::string("BenchmarkFormatOID/") + v; }
std::string parse(const char* v) { return std::string("BenchmarkParseOID/") + v; }

}  // namespace

Experiment make_oid_experiment() {
  Experiment e;
  e.id = "oid";
  e.title = "formatting and parsing OIDs: six formatters, two parsers, allocs/op";
  e.seed_file = "001_4eae026f8a0067a6.txt";
  e.seed_section = "cableshow.formatOID #1-#4 and cableshow.parseOID";
  e.note =
      "std::string keeps up to 15 chars inline (SSO): a section's to_string never allocates, "
      "and only OIDs longer than 15 chars (most random ones) cost the final string's 1 alloc; allocs/op is printed truncated, as Go does, so 0.97 shows as 0 (see B/op). "
      "The Go peer, same names and OIDs: scripts/oid-go-peer.sh (peers/go/oid).";
  const auto t = std::chrono::milliseconds(100);
  e.benchmarks = {
      {fmt("Foolish"), &format<oid::format_foolish>, 0, t},
      {fmt("Naive"), &format<oid::format_naive>, 0, t},
      {fmt("StringBuilder"), &format<oid::format_builder>, 0, t},
      {fmt("AppendInt"), &format<oid::format_append_int>, 0, t},
      {fmt("StringTable"), &format<oid::format_table>, 0, t},
      {fmt("Memoized"), &format_memoized, 0, t},
      {parse("Naive"), &parse_naive, 0, t},
      {parse("NoAlloc"), &parse_no_alloc, 0, t},
  };
  e.claims = {
      Claim::ratio("StringTable is about 4x faster than Naive", "Naive ~4x StringTable's 24 ns",
                   fmt("Naive"), fmt("StringTable"), 4.0),
      Claim::ratio("Memoized is about 2x faster than StringTable", "1.94x (24.62 vs 12.68 ns/op)",
                   fmt("StringTable"), fmt("Memoized"), 2.0),
      Claim::ratio("ParseNoAlloc is about 2x faster than ParseNaive", "2.13x (58.48 vs 27.46 ns/op)",
                   parse("Naive"), parse("NoAlloc"), 2.0),
      Claim::bound("Memoized: 0 allocs/op", "0 allocs/op", fmt("Memoized"), "allocs/op", 0, 0),
      Claim::bound("ParseNoAlloc: 0 allocs/op", "0 allocs/op", parse("NoAlloc"), "allocs/op", 0,
                   0),
      Claim::bound("StringTable: at most 1 alloc/op (the result)", "1 allocs/op",
                   fmt("StringTable"), "allocs/op", 0, 1),
      Claim::bound("AppendInt: at most 1 alloc/op (the result)", "1 allocs/op", fmt("AppendInt"),
                   "allocs/op", 0, 1),
      Claim::bound("StringBuilder: Go's 5 allocs/op; C++ at most 1 (SSO)", "5 allocs/op",
                   fmt("StringBuilder"), "allocs/op", 0, 1),
      Claim::bound("Foolish: Go's 12 allocs/op; C++ at most 2 (SSO)", "12 allocs/op",
                   fmt("Foolish"), "allocs/op", 0, 2),
  };
  return e;
}

}  // namespace zerolab::lab
