// zerolab/stat_filter.hpp — selecting and grouping benchmark results the
// way benchstat's benchproc package does: filter expressions
// (".name:Copy /size:4k goos:(linux OR darwin) -.unit:/^B/"), projections
// (".config", ".fullname", "/size@num", "/format@(gob json)") that map each
// result to a Key, and the order Keys sort in.
//
// Keys (see golang.org/x/perf/benchproc/syntax): .name, .fullname, .file,
// /<sub-name key> (/gomaxprocs also reads the "-N" suffix), .unit (filters
// only), .config (projections only), any other word a file configuration
// key. Regular expressions are Go's, run by RE2 (the library Go's regexp
// package mirrors) with Go's defaults; errors are worded as Go words them.
//
// Thread-safety: a Filter is immutable once parsed. A Projection interns
// keys as results are projected: one thread at a time.
//
// Example:
//   std::string error;
//   auto filter = zerolab::stat::Filter::parse("/format:json .unit:ns/op", &error);
//   zerolab::stat::ProjectionParser parser;
//   auto rows = parser.parse(".name", filter.get(), &error);
//   // for each BenchRecord r: if (filter->apply(r)) { Key k = rows->project(r); ... }
#ifndef ZEROLAB_STAT_FILTER_HPP_
#define ZEROLAB_STAT_FILTER_HPP_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {

// A parse error in a filter or projection expression. to_string() gives
// benchproc's three-line form: "syntax error: <msg>\n\t<query>\n\t   ^".
struct QueryError {
  std::string query;
  std::size_t offset = 0;  // byte offset in query
  std::string message;

  std::string to_string() const;
};

// Extracts a key's value from a result ("" when absent).
using Extractor = std::function<std::string_view(const BenchRecord&)>;

// An extractor for .name, .fullname, /key or a configuration key; null and
// an error message for keys it cannot extract ("", .unit, .config).
Extractor make_extractor(std::string_view key, std::string* error);

// Parts of a benchmark name: "Copy/size=4k-16" → base "Copy", parts
// {"/size=4k", "-16"}.
void split_name(std::string_view full_name, std::string_view& base,
                std::vector<std::string_view>& parts);

class Filter {
 public:
  struct Node;

  // Parses a filter expression; null and *error set on failure.
  static std::unique_ptr<Filter> parse(std::string_view query, std::string* error);

  // '(' groups and '-' negations may nest this deep (as Go bounds its
  // parsers); deeper is a syntax error at the first one past it.
  static constexpr int kMaxNesting = 1000;

  Filter();
  ~Filter();
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;

  // Keeps only the metrics of rec that match; returns whether any remain.
  bool apply(BenchRecord& rec) const;
  // Whether rec as a whole (ignoring .unit terms' per-metric selection)
  // matches, and for each metric whether it matches.
  std::vector<bool> match(const BenchRecord& rec) const;

  // Adds terms that must also hold (used by fixed-order projections).
  void and_with(std::vector<std::unique_ptr<Node>> terms);

  // The expression in canonical form: "(.name:Copy AND -/size:4k)".
  std::string to_string() const;

 private:
  std::unique_ptr<Node> root_;
};

// One field of a projection.
struct ProjectionField {
  enum class Order { kFirst, kFixed, kAlpha, kNum };

  std::string name;
  bool is_tuple = false;  // .config: a group of configuration fields
  int idx = -1;           // slot in a key's values; -1 for groups
  Order order = Order::kFirst;
  std::vector<ProjectionField*> sub;              // group members
  std::unordered_map<std::string, int> observed;  // kFirst: order of first sight
  std::unordered_map<std::string, int> fixed;     // kFixed: listed order
  bool tracks_observation = false;

  // <0, 0 or >0 as a sorts before, with or after b in this field's order.
  int compare(std::string_view a, std::string_view b) const;
};

// A Key identifies one distinct projected tuple of a Projection.
struct Key {
  int id = -1;
  bool is_zero() const { return id < 0; }
  friend bool operator==(Key a, Key b) { return a.id == b.id; }
  friend bool operator!=(Key a, Key b) { return a.id != b.id; }
  friend bool operator<(Key a, Key b) { return a.id < b.id; }
};

class ProjectionParser;

// Extracts a tuple of fields from results and interns it as a Key.
class Projection {
 public:
  Projection();
  ~Projection();
  Projection(const Projection&) = delete;
  Projection& operator=(const Projection&) = delete;

  // The Key of rec's fields (a .unit field is left empty).
  Key project(const BenchRecord& rec);
  // One Key per metric of rec, differing in .unit if this projection has it.
  std::vector<Key> project_values(const BenchRecord& rec);

  // Fields as written, and flattened (groups expanded): the sort order.
  const std::vector<ProjectionField*>& fields() const { return root_->sub; }
  std::vector<const ProjectionField*> flattened_fields() const;
  const ProjectionField* unit_field() const { return unit_field_; }

  // The value of field f in key k ("" when absent).
  std::string_view get(Key k, const ProjectionField* f) const;
  // The non-empty values of k in field order, space separated.
  std::string string_values(Key k) const;
  // Whether a sorts before b.
  bool less(Key a, Key b) const;
  void sort_keys(std::vector<Key>& keys) const;
  std::size_t key_count() const { return rows_.size(); }

 private:
  friend class ProjectionParser;
  using ProjectFn = std::function<void(const BenchRecord&, std::vector<std::string_view>&)>;

  ProjectionField* add_field(ProjectionField* group, std::string name);
  ProjectionField* add_group(ProjectionField* group, std::string name);
  Key intern_row();

  std::vector<std::unique_ptr<ProjectionField>> storage_;
  ProjectionField* root_ = nullptr;
  ProjectionField* unit_field_ = nullptr;
  int n_fields_ = 0;
  std::vector<ProjectFn> project_;
  std::vector<std::string_view> row_;
  std::unordered_map<std::string, int> key_index_;
  std::vector<std::vector<std::string>> rows_;
  std::string scratch_;
};

// Parses related projections (-table, -row, -col, -ignore): specific keys
// named in any of them are left out of the group keys .config and
// .fullname in the others.
class ProjectionParser {
 public:
  ProjectionParser();
  ~ProjectionParser();
  ProjectionParser(const ProjectionParser&) = delete;
  ProjectionParser& operator=(const ProjectionParser&) = delete;

  // Parses a projection; fixed orders add their filter to *filter. Null and
  // *error set (QueryError text) on failure.
  std::unique_ptr<Projection> parse(std::string_view projection, Filter* filter,
                                    std::string* error);
  // parse() plus a trailing .unit field, for projecting each metric.
  std::unique_ptr<Projection> parse_with_unit(std::string_view projection, Filter* filter,
                                              std::string* error);
  // Every field no parsed projection covers (to warn about results that
  // differ only in fields nobody looked at).
  std::unique_ptr<Projection> residue();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// Fields in which at least two of keys differ.
std::vector<const ProjectionField*> non_singular_fields(const Projection& p,
                                                        const std::vector<Key>& keys);

// Go's strconv.Quote.
std::string go_quote(std::string_view s);

}  // namespace zerolab::stat

#endif  // ZEROLAB_STAT_FILTER_HPP_
