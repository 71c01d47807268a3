// Projections (include/zerolab/stat_filter.hpp): the `-row`, `-col`,
// `-table` and `-ignore` field lists, benchproc's ordering of their values
// and its projection parser, over the tokens of stat/query_lexer.hpp.
//
// Example:
//   std::string err;
//   zerolab::stat::ProjectionParser pp;
//   auto rows = pp.parse(".name /size@(1k 4k)", /*filter=*/nullptr, &err);
// libstdc++ 12 trips a false -Wmaybe-uninitialized inside std::function
// when optimized with sanitizers (GCC bug 105562).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "go_compat.hpp"
#include "stat/extractors.hpp"
#include "stat/filter_node.hpp"
#include "stat/query_lexer.hpp"
#include "zerolab/stat_filter.hpp"

namespace zerolab::stat {

using internal::compile_regex;
using internal::ErrorTracker;
using internal::quote_word;
using internal::Tok;
using internal::Tokenizer;

// ===== projections ==============================================================================

namespace {

// Whether the row of values av sorts before bv: by the first field where they
// differ, in that field's order, then as text.
bool rows_less(const std::vector<std::string>& av, const std::vector<std::string>& bv,
               const std::vector<const ProjectionField*>& fields) {
  for (const ProjectionField* f : fields) {
    const auto idx = static_cast<std::size_t>(f->idx);
    const std::string_view aa = idx < av.size() ? std::string_view(av[idx]) : std::string_view();
    const std::string_view bb = idx < bv.size() ? std::string_view(bv[idx]) : std::string_view();
    if (aa != bb) {
      const int c = f->compare(aa, bb);
      if (c != 0) return c < 0;
      return aa < bb;
    }
  }
  return false;
}

}  // namespace

int ProjectionField::compare(std::string_view a, std::string_view b) const {
  auto lookup = [](const std::unordered_map<std::string, int>& m, std::string_view v) {
    auto it = m.find(std::string(v));
    return it == m.end() ? 0 : it->second;
  };
  switch (order) {
    case Order::kFirst:
      return lookup(observed, a) - lookup(observed, b);
    case Order::kFixed:
      return lookup(fixed, a) - lookup(fixed, b);
    case Order::kAlpha:
      return a < b ? -1 : (a > b ? 1 : 0);
    case Order::kNum: {
      // benchproc's parseNum: a float, or digits with an SI/IEC prefix.
      auto parse_num = [](std::string_view x, double& v) {
        if (x.empty()) return false;
        if (internal::parse_go_float(x, v) == internal::NumError::kNone) return true;
        std::size_t i = 0;
        while (i < x.size() && !((x[i] >= '0' && x[i] <= '9') || x[i] == '.')) ++i;
        if (i == x.size()) return false;
        std::size_t j = i;
        while (j < x.size() && ((x[j] >= '0' && x[j] <= '9') || x[j] == '.')) ++j;
        if (internal::parse_go_float(x.substr(i, j - i), v) != internal::NumError::kNone)
          return false;
        static constexpr std::string_view kPrefixes = "KMGTPEZY";
        if (j < x.size() && (x[j] == 'k' || kPrefixes.find(x[j]) != std::string_view::npos)) {
          const char pre = x[j] == 'k' ? 'K' : x[j];
          const int exp = 1 + static_cast<int>(kPrefixes.find(pre));
          const bool iec = j + 1 < x.size() && x[j + 1] == 'i';
          v *= std::pow(iec ? 1024.0 : 1000.0, exp);
        }
        return true;
      };
      double aa = 0;
      double bb = 0;
      const bool oka = parse_num(a, aa);
      const bool okb = parse_num(b, bb);
      if (oka && okb) {
        if (aa < bb || (!std::isnan(aa) && std::isnan(bb))) return -1;
        if (aa > bb || (std::isnan(aa) && !std::isnan(bb))) return 1;
        return 0;
      }
      if (!oka && !okb) return 0;
      return oka ? -1 : 1;
    }
  }
  return 0;
}

Projection::Projection() {
  storage_.push_back(std::make_unique<ProjectionField>());
  root_ = storage_.back().get();
}

Projection::~Projection() = default;

ProjectionField* Projection::add_field(ProjectionField* group, std::string name) {
  storage_.push_back(std::make_unique<ProjectionField>());
  ProjectionField* f = storage_.back().get();
  f->name = std::move(name);
  f->idx = n_fields_++;
  group->sub.push_back(f);
  row_.emplace_back();
  return f;
}

ProjectionField* Projection::add_group(ProjectionField* group, std::string name) {
  storage_.push_back(std::make_unique<ProjectionField>());
  ProjectionField* f = storage_.back().get();
  f->name = std::move(name);
  f->is_tuple = true;
  group->sub.push_back(f);
  return f;
}

std::vector<const ProjectionField*> Projection::flattened_fields() const {
  std::vector<const ProjectionField*> out;
  auto walk = [&out](auto&& self, const ProjectionField* f) -> void {
    if (f->idx != -1) {
      out.push_back(f);
      return;
    }
    for (const ProjectionField* s : f->sub) self(self, s);
  };
  walk(walk, root_);
  return out;
}

Key Projection::intern_row() {
  std::size_t len = row_.size();
  while (len > 0 && row_[len - 1].empty()) --len;
  scratch_.clear();
  for (std::size_t i = 0; i < len; ++i) {
    scratch_.append(std::to_string(row_[i].size()));
    scratch_.push_back(':');
    scratch_.append(row_[i]);
  }
  auto it = key_index_.find(scratch_);
  if (it != key_index_.end()) return Key{it->second};
  for (ProjectionField* f : root_->sub) {
    if (!f->tracks_observation) continue;
    const std::string val = f->idx >= 0 && static_cast<std::size_t>(f->idx) < len
                                ? std::string(row_[static_cast<std::size_t>(f->idx)])
                                : std::string();
    f->observed.emplace(val, static_cast<int>(f->observed.size()));
  }
  const int id = static_cast<int>(rows_.size());
  rows_.emplace_back(row_.begin(), row_.begin() + static_cast<std::ptrdiff_t>(len));
  key_index_.emplace(scratch_, id);
  return Key{id};
}

Key Projection::project(const BenchRecord& rec) {
  for (auto& v : row_) v = {};
  for (auto& fn : project_) fn(rec, row_);
  return intern_row();
}

std::vector<Key> Projection::project_values(const BenchRecord& rec) {
  for (auto& v : row_) v = {};
  for (auto& fn : project_) fn(rec, row_);
  std::vector<Key> out(rec.result.metrics.size());
  if (unit_field_ == nullptr) {
    const Key k = intern_row();
    for (auto& o : out) o = k;
    return out;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    row_[static_cast<std::size_t>(unit_field_->idx)] = rec.result.metrics[i].unit;
    out[i] = intern_row();
  }
  return out;
}

std::string_view Projection::get(Key k, const ProjectionField* f) const {
  if (k.is_zero() || f->idx < 0) return {};
  const auto& vals = rows_[static_cast<std::size_t>(k.id)];
  const auto idx = static_cast<std::size_t>(f->idx);
  return idx < vals.size() ? std::string_view(vals[idx]) : std::string_view();
}

std::string Projection::string_values(Key k) const {
  if (k.is_zero()) return "<zero>";
  std::string out;
  const auto& vals = rows_[static_cast<std::size_t>(k.id)];
  for (const ProjectionField* f : flattened_fields()) {
    const auto idx = static_cast<std::size_t>(f->idx);
    if (idx >= vals.size() || vals[idx].empty()) continue;
    if (!out.empty()) out.push_back(' ');
    out.append(vals[idx]);
  }
  return out;
}

bool Projection::less(Key a, Key b) const {
  return rows_less(rows_[static_cast<std::size_t>(a.id)], rows_[static_cast<std::size_t>(b.id)],
                   flattened_fields());
}

void Projection::sort_keys(std::vector<Key>& keys) const {
  const std::vector<const ProjectionField*> flat = flattened_fields();
  std::sort(keys.begin(), keys.end(), [this, &flat](Key a, Key b) {
    return rows_less(rows_[static_cast<std::size_t>(a.id)], rows_[static_cast<std::size_t>(b.id)],
                     flat);
  });
}

std::vector<const ProjectionField*> non_singular_fields(const Projection& p,
                                                        const std::vector<Key>& keys) {
  std::vector<const ProjectionField*> out;
  if (keys.size() <= 1) return out;
  for (const ProjectionField* f : p.flattened_fields()) {
    const std::string_view base = p.get(keys[0], f);
    for (std::size_t i = 1; i < keys.size(); ++i) {
      if (p.get(keys[i], f) != base) {
        out.push_back(f);
        break;
      }
    }
  }
  return out;
}

// ===== projection parser
// ==========================================================================

namespace {

struct FieldSpec {
  std::string key;
  std::string order;  // "first", "fixed", or a name
  std::vector<std::string> fixed;
  std::size_t key_off = 0;
  std::size_t order_off = 0;
};

std::pair<FieldSpec, Tokenizer> parse_field(Tokenizer toks) {
  FieldSpec f;
  auto [key, toks2] = toks.key_or_op();
  if (!(key.kind == 'w' || key.kind == 'q')) return {f, toks.error("expected key").second};
  toks = toks2;
  f.key = key.text;
  f.key_off = key.off;
  f.order = "first";
  f.order_off = key.off + key.text.size();
  auto [sep, toks3] = toks.key_or_op();
  if (sep.kind != '@') return {f, toks};
  toks = toks3;
  auto [order, toks4] = toks.key_or_op();
  f.order_off = order.off;
  if (order.kind == 'w' || order.kind == 'q') {
    f.order = order.text;
    return {f, toks4};
  }
  if (order.kind == '(') {
    f.order = "fixed";
    toks = toks4;
    for (;;) {
      auto [t, toks5] = toks.key_or_op();
      if (t.kind == 'w' || t.kind == 'q') {
        toks = toks5;
        f.fixed.push_back(t.text);
      } else if (t.kind == ')') {
        if (f.fixed.empty()) {
          toks = toks.error("nothing to match").second;
        } else {
          toks = toks5;
        }
        break;
      } else {
        toks = toks.error("missing )").second;
        break;
      }
    }
    return {f, toks};
  }
  return {f, toks.error("expected named sort order or parenthesized list").second};
}

bool parse_projection_fields(std::string_view q, std::vector<FieldSpec>& fields,
                             std::string* error) {
  ErrorTracker errt;
  errt.q_orig.assign(q);
  Tokenizer toks(errt.q_orig, &errt);
  for (;;) {
    auto [tok, toks2] = toks.key_or_op();
    if (tok.kind == 0) break;
    if (tok.kind == ',' && !fields.empty()) toks = toks2;
    auto [f, rest] = parse_field(toks);
    toks = rest;
    fields.push_back(std::move(f));
  }
  toks.end();
  if (errt.has) {
    if (error != nullptr) *error = errt.err.to_string();
    return false;
  }
  return true;
}

}  // namespace

struct ProjectionParser::State {
  std::set<std::string, std::less<>> config_keys;
  std::vector<std::string> fullname_keys;
  bool have_config = false;
  bool have_fullname = false;
  Extractor full_extractor;  // built on first use, after all parsing

  std::string_view full_name(const BenchRecord& r) {
    if (!full_extractor) full_extractor = make_full_name_extractor(fullname_keys);
    return full_extractor(r);
  }

  // Adds field f to projection s; may produce a filter term.
  bool make_projection(Projection& s, std::string_view q, const FieldSpec& f,
                       const std::shared_ptr<State>& self, std::unique_ptr<Filter::Node>* filter,
                       std::string* error) {
    ProjectionField::Order order = ProjectionField::Order::kFirst;
    if (f.order == "fixed") {
      order = ProjectionField::Order::kFixed;
    } else if (f.order == "first") {
      order = ProjectionField::Order::kFirst;
    } else if (f.order == "alpha") {
      order = ProjectionField::Order::kAlpha;
    } else if (f.order == "num") {
      order = ProjectionField::Order::kNum;
    } else {
      *error =
          QueryError{std::string(q), f.order_off, "unknown order " + go_quote(f.order)}.to_string();
      return false;
    }
    auto init_field = [&f, order](ProjectionField* field) {
      field->order = order;
      if (order == ProjectionField::Order::kFixed) {
        for (std::size_t i = 0; i < f.fixed.size(); ++i)
          field->fixed.emplace(f.fixed[i], static_cast<int>(i));
      }
    };
    auto make_filter = [&f, order, filter](const Extractor& ext) {
      if (order != ProjectionField::Order::kFixed || filter == nullptr) return;
      auto allowed =
          std::make_shared<std::set<std::string, std::less<>>>(f.fixed.begin(), f.fixed.end());
      auto node = std::make_unique<Filter::Node>();
      node->kind = Filter::Node::Kind::kPredicate;
      node->predicate = [ext, allowed](const BenchRecord& r) { return allowed->count(ext(r)) > 0; };
      *filter = std::move(node);
    };

    if (f.key == ".config") {
      if (order == ProjectionField::Order::kFixed) {
        *error = QueryError{std::string(q), f.order_off, "fixed order not allowed for .config"}
                     .to_string();
        return false;
      }
      have_config = true;
      ProjectionField* group = s.add_group(s.root_, ".config");
      auto seen = std::make_shared<std::unordered_map<std::string, ProjectionField*>>();
      Projection* sp = &s;
      s.project_.push_back(
          [self, group, seen, sp, order](const BenchRecord& r, std::vector<std::string_view>& row) {
            if (!r.config) return;
            for (const ConfigEntry& c : *r.config) {
              if (!c.file) continue;
              auto it = seen->find(c.key);
              ProjectionField* field = nullptr;
              if (it == seen->end()) {
                if (self->config_keys.count(c.key) > 0) continue;
                field = sp->add_field(group, c.key);
                field->order = order;
                seen->emplace(c.key, field);
              } else {
                field = it->second;
              }
              row[static_cast<std::size_t>(field->idx)] = c.value;
            }
          });
      return true;
    }
    if (f.key == ".fullname") {
      have_fullname = true;
      ProjectionField* field = s.add_field(s.root_, ".fullname");
      init_field(field);
      field->tracks_observation = order == ProjectionField::Order::kFirst;
      make_filter([](const BenchRecord& r) { return r.full_name(); });
      s.project_.push_back([self, field](const BenchRecord& r, std::vector<std::string_view>& row) {
        row[static_cast<std::size_t>(field->idx)] = self->full_name(r);
      });
      return true;
    }
    if (f.key == ".unit") {
      *error =
          QueryError{std::string(q), f.key_off, ".unit is only allowed in filters"}.to_string();
      return false;
    }
    if (f.key == ".name" || (!f.key.empty() && f.key[0] == '/')) {
      fullname_keys.push_back(f.key);
    } else {
      config_keys.insert(f.key);
    }
    std::string err;
    Extractor ext = make_extractor(f.key, &err);
    if (!ext) {
      *error = QueryError{std::string(q), f.key_off, err}.to_string();
      return false;
    }
    ProjectionField* field = s.add_field(s.root_, f.key);
    init_field(field);
    field->tracks_observation = order == ProjectionField::Order::kFirst;
    make_filter(ext);
    s.project_.push_back([ext, field](const BenchRecord& r, std::vector<std::string_view>& row) {
      row[static_cast<std::size_t>(field->idx)] = ext(r);
    });
    return true;
  }
};

ProjectionParser::ProjectionParser() : state_(std::make_shared<State>()) {}
ProjectionParser::~ProjectionParser() = default;

std::unique_ptr<Projection> ProjectionParser::parse(std::string_view projection, Filter* filter,
                                                    std::string* error) {
  std::vector<FieldSpec> specs;
  std::string err;
  if (!parse_projection_fields(projection, specs, &err)) {
    if (error != nullptr) *error = err;
    return nullptr;
  }
  auto proj = std::make_unique<Projection>();
  std::vector<std::unique_ptr<Filter::Node>> filter_parts;
  for (const FieldSpec& f : specs) {
    std::unique_ptr<Filter::Node> part;
    if (!state_->make_projection(*proj, projection, f, state_, &part, &err)) {
      if (error != nullptr) *error = err;
      return nullptr;
    }
    if (part) filter_parts.push_back(std::move(part));
  }
  if (!filter_parts.empty() && filter != nullptr) filter->and_with(std::move(filter_parts));
  return proj;
}

std::unique_ptr<Projection> ProjectionParser::parse_with_unit(std::string_view projection,
                                                              Filter* filter, std::string* error) {
  auto proj = parse(projection, filter, error);
  if (!proj) return nullptr;
  ProjectionField* f = proj->add_field(proj->root_, ".unit");
  f->order = ProjectionField::Order::kFirst;
  f->tracks_observation = true;
  proj->unit_field_ = f;
  return proj;
}

std::unique_ptr<Projection> ProjectionParser::residue() {
  auto s = std::make_unique<Projection>();
  std::string err;
  if (!state_->have_config) {
    FieldSpec f;
    f.key = ".config";
    f.order = "first";
    state_->make_projection(*s, "", f, state_, nullptr, &err);
  }
  if (!state_->have_fullname) {
    FieldSpec f;
    f.key = ".fullname";
    f.order = "first";
    state_->make_projection(*s, "", f, state_, nullptr, &err);
  }
  return s;
}

}  // namespace zerolab::stat