// libFuzzer target for `zerolab compare -format html`: the input, split at
// the first NUL, is two result files in the Go benchmark format (any names,
// any values: NaN, ±Inf, 1e308, sizes that do not parse). Both go through
// the table builder and the HTML renderer, which must not crash or hang,
// must draw exactly the points it declares, and must never emit markup
// taken from the input.
//
// Example:
//   ./compare_html_fuzz -dict=fuzz/compare_html.dict -max_total_time=600 build/fuzz/work/h
//   fuzz/corpus/compare_html_fuzz
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_args.hpp"
#include "fuzz_common.hpp"
#include "report/compare_html.hpp"

namespace {

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

// The sum of every data-points="K".
std::size_t declared(const std::string& html) {
  const std::string key = "data-points=\"";
  std::size_t total = 0;
  for (std::size_t pos = html.find(key); pos != std::string::npos; pos = html.find(key, pos + 1)) {
    total += std::stoul(html.substr(pos + key.size(), 12));
  }
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace zerolab::stat;
  if (size > 4096) return 0;
  std::vector<std::string> parts = zerolab_fuzz::split_at_nul(data, size);
  parts.resize(2);

  std::string error;
  std::unique_ptr<Filter> filter = Filter::parse("*", &error);
  ProjectionParser parser;
  auto table_by = parser.parse_with_unit(".config", filter.get(), &error);
  auto row_by = parser.parse(".fullname", filter.get(), &error);
  auto col_by = parser.parse(".file", filter.get(), &error);
  auto residue = parser.residue();
  zerolab_fuzz::check(table_by && row_by && col_by && residue);

  TableBuilder builder(*table_by, *row_by, *col_by, *residue);
  for (std::size_t i = 0; i < 2; ++i) {
    StringSource source(parts[i]);
    const std::string file = i == 0 ? "old.txt" : "new.txt";
    GoReader reader(source, file, ConfigList{{".file", file, false}});
    while (reader.next()) {
      if (reader.kind() == RecordKind::kResult) builder.add(reader.mutable_result());
    }
  }
  if (builder.result_count() == 0) return 0;
  UnitMetadataMap units;
  TableOptions opts;
  opts.units = &units;
  Tables tables = builder.finish(opts);
  const std::string html = zerolab::report::render_compare_html(tables, {"old.txt", "new.txt"});
  zerolab_fuzz::check(declared(html) == count(html, "class=\"pt\""));
  zerolab_fuzz::check(html.find("<script") == std::string::npos);
  zerolab_fuzz::check(html.size() >= 8 && html.compare(html.size() - 8, 8, "</html>\n") == 0);
  return 0;
}
