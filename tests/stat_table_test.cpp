// Tests of zerolab::stat's comparison tables through the library API: the
// reference cases rendered as text must equal benchstat's output, and the
// CSV, markdown and JSON renderers and the regression check behave as
// documented.
//
// Example:
//   ./stat_test --gtest_filter='Tables.*'
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "zerolab/stat_table.hpp"

namespace zerolab::stat {
namespace {

namespace fs = std::filesystem;

using zerolab::test::read_file;

// benchstat's default pipeline over files, through the public API.
struct Pipeline {
  std::unique_ptr<Filter> filter;
  ProjectionParser parser;
  std::unique_ptr<Projection> table_by, row_by, col_by, residue;
  std::unique_ptr<TableBuilder> builder;
  UnitMetadataMap units;
  Tables tables;

  explicit Pipeline(const std::vector<std::string>& paths, const std::string& filter_expr = "*") {
    std::string err;
    filter = Filter::parse(filter_expr, &err);
    table_by = parser.parse_with_unit(".config", filter.get(), &err);
    row_by = parser.parse(".fullname", filter.get(), &err);
    col_by = parser.parse(".file", filter.get(), &err);
    residue = parser.residue();
    builder = std::make_unique<TableBuilder>(*table_by, *row_by, *col_by, *residue);
    std::vector<InputSpec> inputs = parse_inputs(paths);
    InputFiles files(inputs);
    while (files.next()) {
      if (files.kind() == RecordKind::kResult && filter->apply(files.mutable_result())) {
        builder->add(files.result());
      }
    }
    units = files.units();
    TableOptions opts;
    opts.units = &units;
    tables = builder->finish(opts);
  }
};

TEST(Tables, ReferenceCasesRenderAsBenchstat) {
  const fs::path root = fs::path(ZEROLAB_STAT_TEST_DATA) / "benchstat";
  int cases = 0;
  for (const auto& e : fs::directory_iterator(root)) {
    if (!e.is_directory()) continue;
    std::istringstream args(read_file(e.path() / "ARGS"));
    std::vector<std::string> paths;
    const fs::path old_cwd = fs::current_path();
    fs::current_path(e.path());  // labels are the paths as given
    for (std::string a; args >> a;) paths.push_back(a);
    Pipeline p(paths);
    fs::current_path(old_cwd);
    EXPECT_EQ(render_text(p.tables), read_file(e.path() / "expected.stdout")) << e.path();
    ++cases;
  }
  EXPECT_EQ(cases, 5);
}

class SyntheticTables : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("zerolab_stat_tables_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream old_f(dir_ / "old.txt");
    std::ofstream new_f(dir_ / "new.txt");
    old_f << "Unit hits better=higher\n";
    for (int i = 0; i < 8; ++i) {
      old_f << "BenchmarkFast 1 " << 100 + i << " ns/op " << 1000 + i << " MB/s " << 50 + i
            << " hits " << 10 + i << " widgets\n";
      new_f << "BenchmarkFast 1 " << 130 + i << " ns/op " << 700 + i << " MB/s " << 30 + i
            << " hits " << 20 + i << " widgets\n";
      old_f << "BenchmarkSame 1 " << 100 + i << " ns/op\n";
      new_f << "BenchmarkSame 1 " << 101 + i << " ns/op\n";
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> paths() const {
    return {(dir_ / "old.txt").string(), (dir_ / "new.txt").string()};
  }

  fs::path dir_;
};

TEST_F(SyntheticTables, RegressionsFollowEachUnitsDirection) {
  Pipeline p(paths());
  auto units_of = [](const std::vector<Regression>& rs) {
    std::vector<std::string> u;
    for (const auto& r : rs) u.push_back(r.unit + " " + r.row);
    return u;
  };
  // sec/op up 30%, B/s down 30%, hits (better=higher) down 40%, widgets
  // (no metadata: lower is better) up 100%; "Same" is not significant.
  EXPECT_EQ(units_of(find_regressions(p.tables, p.units, 0)),
            (std::vector<std::string>{"sec/op Fast", "B/s Fast", "hits Fast", "widgets Fast"}));
  EXPECT_EQ(units_of(find_regressions(p.tables, p.units, 35)),
            (std::vector<std::string>{"hits Fast", "widgets Fast"}));
  EXPECT_TRUE(find_regressions(p.tables, p.units, 1000).empty());
  const auto rs = find_regressions(p.tables, p.units, 0);
  EXPECT_NEAR(rs[0].percent, (133.5 / 103.5 - 1) * 100, 1e-9);
  EXPECT_EQ(rs[0].baseline_column, (dir_ / "old.txt").string());
}

TEST_F(SyntheticTables, CsvMarkdownAndJson) {
  Pipeline p(paths(), ".unit:ns/op");
  std::string warnings;
  const std::string csv = render_csv(p.tables, &warnings);
  EXPECT_NE(csv.find(",sec/op,CI,sec/op,CI,vs base,P\n"), std::string::npos) << csv;
  EXPECT_NE(
      csv.find("Fast,1.0350000000000001e-07,3%,1.3350000000000002e-07,3%,+28.99%,p=0.000 n=8\n"),
      std::string::npos)
      << csv;
  EXPECT_EQ(warnings, "");

  const std::string md = render_markdown(p.tables);
  EXPECT_NE(md.find("| sec/op | "), std::string::npos) << md;
  EXPECT_NE(md.find("|:--|--:|--:|--:|\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| Fast | 103.5n ± "), std::string::npos) << md;
  EXPECT_NE(md.find("| geomean | "), std::string::npos) << md;

  const std::string json = render_json(p.tables);
  EXPECT_EQ(json.rfind("{\"tables\":[", 0), 0u);
  EXPECT_NE(json.find("\"unit\":\"sec/op\""), std::string::npos);
  EXPECT_NE(json.find("\"center\":1.0350000000000001e-07"), std::string::npos) << json;
  EXPECT_NE(json.find("\"significant\":true"), std::string::npos);
  EXPECT_EQ(json.find("NaN"), std::string::npos);
  int depth = 0;
  for (char c : json) {
    depth += c == '{' || c == '[';
    depth -= c == '}' || c == ']';
    ASSERT_GE(depth, 0);
  }
  EXPECT_EQ(depth, 0);
}

TEST(Tables, SuperscriptFootnotes) {
  EXPECT_EQ(superscript(1), "¹");
  EXPECT_EQ(superscript(10), "¹⁰");
  EXPECT_EQ(superscript(0), "⁰");
}

}  // namespace
}  // namespace zerolab::stat
