// The expression tree of a Filter (include/zerolab/stat_filter.hpp): what
// the filter parser (stat/filter.cpp) builds and what the projection parser
// (stat/projection.cpp) adds to, for `@(...)` fixed orders that also filter.
//
// Thread-safety: a tree is built by one thread, then only read.
//
// Example:
//   auto node = std::make_unique<zerolab::stat::Filter::Node>();
//   node->kind = zerolab::stat::Filter::Node::Kind::kPredicate;
//   node->predicate = [](const zerolab::stat::BenchRecord& r) { return !r.full_name().empty(); };
#ifndef ZEROLAB_SRC_STAT_FILTER_NODE_HPP_
#define ZEROLAB_SRC_STAT_FILTER_NODE_HPP_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stat/query_lexer.hpp"
#include "zerolab/stat_filter.hpp"

namespace zerolab::stat {

struct Filter::Node {
  enum class Kind { kAnd, kOr, kNot, kMatch, kUnitMatch, kPredicate };
  Kind kind = Kind::kAnd;
  std::vector<std::unique_ptr<Node>> children;
  std::string key;
  std::string literal;
  std::shared_ptr<internal::CompiledRegex> re;
  Extractor extract;
  std::function<bool(const BenchRecord&)> predicate;

  bool matches(std::string_view value) const {
    if (re) return re->re->search(value);
    return literal == value;
  }

  std::string to_string() const {
    switch (kind) {
      case Kind::kNot:
        return "-" + children[0]->to_string();
      case Kind::kAnd:
      case Kind::kOr: {
        if (children.empty()) return kind == Kind::kAnd ? "*" : "-*";
        std::string s = "(";
        for (std::size_t i = 0; i < children.size(); ++i) {
          if (i > 0) s += kind == Kind::kAnd ? " AND " : " OR ";
          s += children[i] ? children[i]->to_string() : "<nil>";
        }
        return s + ")";
      }
      case Kind::kMatch:
      case Kind::kUnitMatch:
        if (re) return internal::quote_word(key) + ":/" + re->source + "/";
        return internal::quote_word(key) + ":" + internal::quote_word(literal);
      case Kind::kPredicate:
        return "<projection>";
    }
    return "";
  }

  // benchproc's filterFn: either a per-metric mask or a whole-result answer.
  struct Eval {
    bool has_mask = false;
    std::vector<bool> mask;
    bool x = false;
  };

  Eval eval(const BenchRecord& r) const {
    Eval out;
    switch (kind) {
      case Kind::kUnitMatch: {
        out.has_mask = true;
        const auto& m = r.result.metrics;
        out.mask.assign(m.size(), false);
        for (std::size_t i = 0; i < m.size(); ++i) {
          const std::string& orig = i < r.original.size() ? r.original[i].unit : std::string();
          out.mask[i] = matches(m[i].unit) || (!orig.empty() && matches(orig));
        }
        return out;
      }
      case Kind::kMatch:
        out.x = matches(extract(r));
        return out;
      case Kind::kPredicate:
        out.x = predicate(r);
        return out;
      case Kind::kNot: {
        out = children[0]->eval(r);
        if (!out.has_mask) {
          out.x = !out.x;
        } else {
          out.mask.flip();
        }
        return out;
      }
      case Kind::kAnd: {
        for (const auto& sub : children) {
          Eval e = sub->eval(r);
          if (!e.has_mask) {
            if (!e.x) return Eval{};
          } else if (!out.has_mask) {
            out.has_mask = true;
            out.mask = std::move(e.mask);
          } else {
            for (std::size_t i = 0; i < out.mask.size(); ++i)
              out.mask[i] = out.mask[i] && e.mask[i];
          }
        }
        out.x = true;
        return out;
      }
      case Kind::kOr: {
        for (const auto& sub : children) {
          Eval e = sub->eval(r);
          if (!e.has_mask) {
            if (e.x) {
              Eval t;
              t.x = true;
              return t;
            }
          } else if (!out.has_mask) {
            out.has_mask = true;
            out.mask = std::move(e.mask);
          } else {
            for (std::size_t i = 0; i < out.mask.size(); ++i)
              out.mask[i] = out.mask[i] || e.mask[i];
          }
        }
        out.x = false;
        return out;
      }
    }
    return out;
  }
};

}  // namespace zerolab::stat

#endif  // ZEROLAB_SRC_STAT_FILTER_NODE_HPP_
