// Building comparison tables (include/zerolab/stat_table.hpp) as
// benchstat's benchtab.Builder does: cells, baselines, summaries,
// comparisons, residue warnings and geomean rows.
//
// Example:
//   zerolab::stat::Tables t = builder.finish({0.95, 0.05, &files.units()});
//   auto regressions = zerolab::stat::find_regressions(t, files.units(), 5.0);

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "go_compat.hpp"
#include "zerolab/stat_table.hpp"

namespace zerolab::stat {

struct TableBuilder::BuilderTable {
  struct Cell {
    std::vector<double> values;
    std::set<int> residue;
    ValueOrigin first_nan;
  };
  std::set<int> rows;
  std::set<int> cols;
  std::map<std::pair<int, int>, Cell> cells;
};

const TableCell* Table::cell(Key row, Key col) const {
  auto it = cells.find({row.id, col.id});
  return it == cells.end() ? nullptr : it->second.get();
}

TableBuilder::TableBuilder(Projection& table_by, Projection& row_by, Projection& col_by,
                           Projection& residue)
    : table_by_(table_by), row_by_(row_by), col_by_(col_by), residue_(residue) {}

TableBuilder::~TableBuilder() = default;

void TableBuilder::add(const BenchRecord& rec) {
  ++results_;
  const std::vector<Key> table_keys = table_by_.project_values(rec);
  const Key row = row_by_.project(rec);
  const Key col = col_by_.project(rec);
  const Key residue = residue_.project(rec);
  for (std::size_t i = 0; i < table_keys.size(); ++i) {
    auto& table = tables_[table_keys[i].id];
    if (!table) table = std::make_unique<BuilderTable>();
    auto [it, inserted] = table->cells.try_emplace({row.id, col.id});
    if (inserted) {
      table->rows.insert(row.id);
      table->cols.insert(col.id);
    }
    const double v = rec.result.metrics[i].value;
    it->second.values.push_back(v);
    it->second.residue.insert(residue.id);
    if (std::isnan(v) && it->second.first_nan.line == 0)
      it->second.first_nan = ValueOrigin{rec.file, rec.line};
  }
}

namespace {

void summarize_col(Table& table, std::size_t col_index, std::size_t n_base) {
  TableSummary& s = table.summary[col_index];
  const bool is_base = col_index == 0;
  const Key col = table.cols[col_index];
  std::vector<double> summaries;
  std::vector<double> ratios;
  bool bad_ratio = false;
  for (Key row : table.rows) {
    const TableCell* c = table.cell(row, col);
    if (c == nullptr) continue;
    summaries.push_back(c->summary.center);
    if (c->baseline != nullptr) {
      const double a = c->summary.center;
      const double b = c->baseline->summary.center;
      double ratio = 0;
      if (a == b) {
        ratio = 1;
      } else if (b == 0) {
        bad_ratio = true;
        ratios.push_back(0);
        continue;
      } else {
        ratio = a / b;
      }
      ratios.push_back(ratio);
    }
  }
  if (!is_base && n_base != ratios.size()) {
    s.warnings.push_back("benchmark set differs from baseline; geomeans may not be comparable");
  }
  const double gm = geomean(summaries);
  if (std::isnan(gm)) {
    s.warnings.push_back("summaries must be >0 to compute geomean");
  } else {
    s.has_summary = true;
    s.summary = gm;
  }
  if (!is_base && !bad_ratio) {
    const double gr = geomean(ratios);
    if (std::isnan(gr)) {
      s.warnings.push_back("ratios must be >0 to compute geomean");
    } else {
      s.has_ratio = true;
      s.ratio = gr;
    }
  }
}

}  // namespace

Tables TableBuilder::finish(const TableOptions& options) {
  Tables out;
  out.table_by = &table_by_;
  out.row_by = &row_by_;
  out.col_by = &col_by_;
  for (const auto& [id, unused] : tables_) {
    (void)unused;
    out.keys.push_back(Key{id});
  }
  table_by_.sort_keys(out.keys);
  const ProjectionField* unit_field = table_by_.unit_field();
  for (Key k : out.keys) {
    BuilderTable& bt = *tables_[k.id];
    Table t;
    t.options = options;
    t.unit = unit_field != nullptr ? std::string(table_by_.get(k, unit_field)) : std::string();
    t.assumption =
        options.units != nullptr ? options.units->assumption(t.unit) : Assumption::kNothing;
    for (int r : bt.rows) t.rows.push_back(Key{r});
    for (int c : bt.cols) t.cols.push_back(Key{c});
    row_by_.sort_keys(t.rows);
    col_by_.sort_keys(t.cols);
    for (auto& [rc, cell] : bt.cells) {
      auto tc = std::make_unique<TableCell>();
      tc->sample = make_sample(std::move(cell.values));
      tc->first_nan = cell.first_nan;
      t.cells.emplace(rc, std::move(tc));
    }
    const Key base_col = t.cols[0];
    for (auto& [rc, tc] : t.cells) {
      if (rc.second != base_col.id) {
        auto it = t.cells.find({rc.first, base_col.id});
        if (it != t.cells.end()) tc->baseline = it->second.get();
      }
    }
    for (auto& [rc, tc] : t.cells) {
      tc->summary = summarize(tc->sample, t.assumption, options.confidence);
      if (tc->baseline != nullptr) {
        tc->comparison = compare(tc->baseline->sample, tc->sample, t.assumption, options.alpha);
      }
      const auto& residue = bt.cells[rc].residue;
      if (residue.size() > 1) {
        std::vector<Key> keys;
        keys.reserve(residue.size());
        for (int r : residue) keys.push_back(Key{r});
        residue_.sort_keys(keys);
        const auto fields = non_singular_fields(residue_, keys);
        if (!fields.empty()) {
          std::string w = "benchmarks vary in ";
          for (std::size_t i = 0; i < fields.size(); ++i) {
            if (i > 0) w += ", ";
            w += fields[i]->name;
          }
          tc->sample.warnings.push_back(std::move(w));
        }
      }
    }
    out.tables.push_back(std::move(t));
  }
  for (Table& t : out.tables) {
    t.summary.resize(t.cols.size());
    std::size_t n_base = 0;
    for (Key row : t.rows) {
      if (t.cell(row, t.cols[0]) != nullptr) ++n_base;
    }
    for (std::size_t i = 0; i < t.cols.size(); ++i) summarize_col(t, i, n_base);
  }
  return out;
}

std::vector<Regression> find_regressions(const Tables& tables, const UnitMetadataMap& units,
                                         double max_percent) {
  std::vector<Regression> out;
  for (const Table& t : tables.tables) {
    const int better = units.better(t.unit);
    for (Key row : t.rows) {
      for (std::size_t ci = 1; ci < t.cols.size(); ++ci) {
        const TableCell* c = t.cell(row, t.cols[ci]);
        if (c == nullptr || c->baseline == nullptr) continue;
        if (!c->comparison.significant()) continue;
        const double old_center = c->baseline->summary.center;
        const double new_center = c->summary.center;
        if (old_center == new_center || std::isnan(old_center) || std::isnan(new_center)) continue;
        double pct = 0;
        if (old_center == 0) {
          pct = new_center > 0 ? std::numeric_limits<double>::infinity()
                               : -std::numeric_limits<double>::infinity();
        } else {
          pct = ((new_center / old_center) - 1.0) * 100.0;
        }
        const bool worse = better > 0 ? pct < -max_percent : pct > max_percent;
        if (!worse) continue;
        Regression r;
        r.unit = t.unit;
        r.row = tables.row_by->string_values(row);
        r.column = tables.col_by->string_values(t.cols[ci]);
        r.baseline_column = tables.col_by->string_values(t.cols[0]);
        r.old_center = old_center;
        r.new_center = new_center;
        r.percent = pct;
        r.comparison = c->comparison;
        out.push_back(std::move(r));
      }
    }
  }
  return out;
}

std::string superscript(int i) {
  static constexpr const char* kDigits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  if (i == 0) return kDigits[0];
  std::string digits;
  std::vector<int> ds;
  while (i > 0) {
    ds.push_back(i % 10);
    i /= 10;
  }
  for (auto it = ds.rbegin(); it != ds.rend(); ++it) digits += kDigits[*it];
  return digits;
}

std::vector<std::string> skipped_nan_comparisons(const Tables& tables) {
  std::vector<std::string> lines;
  for (const Table& t : tables.tables) {
    for (const auto& [key, cell] : t.cells) {
      (void)key;
      const bool compared_nan = cell->baseline != nullptr &&
                                (cell->first_nan.line != 0 || cell->baseline->first_nan.line != 0);
      if (!compared_nan) continue;
      const ValueOrigin& o =
          cell->first_nan.line != 0 ? cell->first_nan : cell->baseline->first_nan;
      lines.push_back(o.file + ":" + std::to_string(o.line) + ": NaN measurement in " + t.unit +
                      "; the comparison was skipped");
    }
  }
  return lines;
}

}  // namespace zerolab::stat
