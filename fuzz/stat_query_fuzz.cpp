// libFuzzer target for benchproc's query languages as `zerolab compare`
// reads them: the input is split at NUL into a -filter expression, a -row,
// a -col and a -table projection. Each must parse or fail with a message
// whose caret lies inside the query; what parses is then run over a fixed
// set of results through the table builder and every renderer.
//
// Example:
//   ./stat_query_fuzz -dict=fuzz/stat_query.dict -max_total_time=600 build/fuzz/work/q
//   fuzz/corpus/stat_query_fuzz
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_args.hpp"
#include "fuzz_common.hpp"

namespace {

constexpr const char* kResults =
    "goos: linux\n"
    "pkg: example.com/x\n"
    "cpu: Fuzz CPU\n"
    "BenchmarkCopy/size=4k/format=json-2  100  120 ns/op  4096 B/op  1 allocs/op\n"
    "BenchmarkCopy/size=4k/format=gob-2   100  110 ns/op  2048 B/op  2 allocs/op\n"
    "BenchmarkCopy/size=64k/format=json-2 100  900 ns/op  65536 B/op  1 allocs/op\n"
    "BenchmarkZero/method=nt-4            100  33.5 ns/op  1.5e9 B/s\n"
    "note: second\n"
    "BenchmarkCopy/size=4k/format=json-2  100  125 ns/op  4096 B/op  1 allocs/op\n"
    "BenchmarkZero/method=nt-4            100  31.5 ns/op  1.6e9 B/s\n";

// A parse error must say what and where: a message, and in benchproc's
// three-line form ("syntax error: ...\n\t<query>\n\t   ^") a caret no
// further right than one past the query's last character.
void check_error(const std::string& query, const std::string& error) {
  zerolab_fuzz::check(!error.empty());
  const std::size_t caret_line = error.rfind("\n\t");
  if (error.rfind("syntax error: ", 0) != 0 || caret_line == std::string::npos) return;
  const std::size_t caret = error.size() - (caret_line + 2) - 1;
  zerolab_fuzz::check(error.back() == '^');
  zerolab_fuzz::check(caret <= query.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace zerolab::stat;
  if (size > 24000) return 0;  // room for filters nested past the 1000-level bound
  std::vector<std::string> parts = zerolab_fuzz::split_at_nul(data, size);
  parts.resize(4);
  const std::string& filter_query = parts[0];
  std::string error;
  std::unique_ptr<Filter> filter = Filter::parse(filter_query, &error);
  if (!filter) {
    check_error(filter_query, error);
    return 0;
  }
  zerolab_fuzz::check(!filter->to_string().empty());

  ProjectionParser parser;
  error.clear();
  auto row_by = parser.parse(parts[1].empty() ? ".fullname" : parts[1], filter.get(), &error);
  if (!row_by) {
    check_error(parts[1], error);
    return 0;
  }
  auto col_by = parser.parse(parts[2].empty() ? ".file" : parts[2], filter.get(), &error);
  if (!col_by) {
    check_error(parts[2], error);
    return 0;
  }
  auto table_by =
      parser.parse_with_unit(parts[3].empty() ? ".config" : parts[3], filter.get(), &error);
  if (!table_by) {
    check_error(parts[3], error);
    return 0;
  }
  auto residue = parser.residue();
  zerolab_fuzz::check(residue != nullptr);

  TableBuilder builder(*table_by, *row_by, *col_by, *residue);
  StringSource source(kResults);
  GoReader reader(source, "fuzz.txt");
  while (reader.next()) {
    if (reader.kind() != RecordKind::kResult) continue;
    BenchRecord& rec = reader.mutable_result();
    if (filter->apply(rec)) builder.add(rec);
  }
  UnitMetadataMap units;
  TableOptions opts;
  opts.units = &units;
  Tables tables = builder.finish(opts);
  std::string warnings;
  std::size_t bytes = render_text(tables).size() + render_csv(tables, &warnings).size() +
                      render_markdown(tables).size() + render_json(tables).size();
  zerolab_fuzz::check(bytes < (std::size_t{1} << 30));
  return 0;
}
