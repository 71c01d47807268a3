// Shared body of the zerolab::stat fuzz targets: everything a reader
// yields goes through benchstat's pipeline (filter, projections, tables,
// statistics) and every renderer, so a crash anywhere downstream of a
// parser is found too.
//
// Example:
//   zerolab::stat::StringSource src(input);
//   zerolab::stat::GoReader reader(src, "fuzz.txt");
//   zerolab_fuzz::run_pipeline(reader);
#ifndef ZEROLAB_FUZZ_FUZZ_COMMON_HPP_
#define ZEROLAB_FUZZ_FUZZ_COMMON_HPP_

#include <cstdlib>
#include <string>

#include "zerolab/benchfmt.hpp"
#include "zerolab/stat.hpp"
#include "zerolab/stat_filter.hpp"
#include "zerolab/stat_reader.hpp"
#include "zerolab/stat_table.hpp"

namespace zerolab_fuzz {

// Results beyond this many are read but not tabulated (keeps runs fast).
constexpr int kMaxResults = 3000;

inline void check(bool ok) {
  if (!ok) std::abort();
}

inline void run_pipeline(zerolab::stat::RecordReader& reader,
                         const zerolab::stat::UnitMetadataMap& units) {
  using namespace zerolab::stat;
  std::string err;
  auto filter = Filter::parse("*", &err);
  check(filter != nullptr);
  ProjectionParser parser;
  auto table_by = parser.parse_with_unit(".config", filter.get(), &err);
  auto row_by = parser.parse(".name", filter.get(), &err);
  auto col_by = parser.parse("/gomaxprocs", filter.get(), &err);
  auto residue = parser.residue();
  check(table_by && row_by && col_by && residue);
  TableBuilder builder(*table_by, *row_by, *col_by, *residue);
  int results = 0;
  std::size_t bytes = 0;
  while (reader.next()) {
    switch (reader.kind()) {
      case RecordKind::kResult: {
        BenchRecord& rec = reader.mutable_result();
        check(!rec.result.metrics.empty());
        check(rec.result.metrics.size() == rec.original.size());
        check(rec.config != nullptr);
        bytes += zerolab::benchfmt::format_result_line(rec.result, 20).size();
        if (++results <= kMaxResults && filter->apply(rec)) builder.add(rec);
        break;
      }
      case RecordKind::kSyntaxError:
        bytes += reader.syntax_error().to_string().size();
        break;
      case RecordKind::kUnitMetadata:
        check(!reader.unit_metadata().unit.empty());
        break;
    }
  }
  TableOptions opts;
  opts.units = &units;
  Tables tables = builder.finish(opts);
  std::string warnings;
  bytes += render_text(tables).size() + render_csv(tables, &warnings).size() +
           render_markdown(tables).size() + render_json(tables).size();
  bytes += find_regressions(tables, units, 0).size();
  check(bytes < (std::size_t{1} << 40));
}

}  // namespace zerolab_fuzz

#endif  // ZEROLAB_FUZZ_FUZZ_COMMON_HPP_
