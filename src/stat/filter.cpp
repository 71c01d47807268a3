// Filters and extractors (include/zerolab/stat_filter.hpp): benchproc's
// filter grammar and its error messages, over the tokens of
// stat/query_lexer.hpp; projections are in stat/projection.cpp.
//
// Example:
//   std::string err;
//   auto f = zerolab::stat::Filter::parse("-(/size:1k OR /size:2k)", &err);
//   f->to_string();  // "-(/size:1k OR /size:2k)"
// libstdc++ 12 trips a false -Wmaybe-uninitialized inside std::function
// when optimized with sanitizers (GCC bug 105562).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "go_compat.hpp"
#include "stat/filter_node.hpp"
#include "stat/query_lexer.hpp"
#include "zerolab/stat_filter.hpp"

namespace zerolab::stat {

using internal::ErrorTracker;
using internal::Tok;
using internal::Tokenizer;

namespace {

using NodePtr = std::unique_ptr<Filter::Node>;

NodePtr make_op(Filter::Node::Kind kind, std::vector<NodePtr> children) {
  auto n = std::make_unique<Filter::Node>();
  n->kind = kind;
  n->children = std::move(children);
  return n;
}

NodePtr make_match(const std::string& key, const Tok& val) {
  auto n = std::make_unique<Filter::Node>();
  n->kind = Filter::Node::Kind::kMatch;
  n->key = key;
  if (val.kind == 'r') {
    n->re = val.re;
  } else {
    n->literal = val.text;
  }
  return n;
}

class FilterParser {
 public:
  std::pair<NodePtr, Tokenizer> expr(Tokenizer toks) {
    std::vector<NodePtr> terms;
    for (;;) {
      auto r = and_expr(toks);
      toks = r.second;
      terms.push_back(std::move(r.first));
      auto [op, toks2] = toks.key_or_op();
      if (op.kind != 'O') break;
      toks = toks2;
    }
    if (terms.size() == 1) return {std::move(terms[0]), toks};
    return {make_op(Filter::Node::Kind::kOr, std::move(terms)), toks};
  }

  // Each key:value match and the offset of its key, for later errors.
  std::vector<std::pair<Filter::Node*, std::size_t>> match_offsets_;

 private:
  struct DepthGuard {
    explicit DepthGuard(int& d) : depth(d) { ++depth; }
    ~DepthGuard() { --depth; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    int& depth;
  };
  int depth_ = 0;  // of match() calls under way

  std::pair<NodePtr, Tokenizer> and_expr(Tokenizer toks) {
    auto r = match(toks);
    toks = r.second;
    std::vector<NodePtr> terms;
    terms.push_back(std::move(r.first));
    for (;;) {
      auto [op, toks2] = toks.key_or_op();
      if (op.kind == 'A') {
        toks = toks2;
        continue;
      }
      if (op.kind == '(' || op.kind == '-' || op.kind == '*' || op.kind == 'w' || op.kind == 'q') {
        auto r2 = match(toks);
        toks = r2.second;
        terms.push_back(std::move(r2.first));
        continue;
      }
      if (op.kind == ')' || op.kind == 'O' || op.kind == 0) break;
      return {nullptr, toks.error("unexpected " + go_quote(op.text)).second};
    }
    if (terms.size() == 1) return {std::move(terms[0]), toks};
    return {make_op(Filter::Node::Kind::kAnd, std::move(terms)), toks};
  }

  // key:value or key:(value OR value...). Kept out of match() so that the
  // frame every nesting level of '(' and '-' costs stays small (A1).
  [[gnu::noinline]] std::pair<NodePtr, Tokenizer> key_value(Tokenizer start, const Tok& tok,
                                                            Tokenizer rest) {
    const std::size_t off = tok.off;
    const std::string key = tok.text;
    auto [op, toks2] = rest.key_or_op();
    if (op.kind != ':') return {nullptr, start.error("expected key:value").second};
    rest = toks2;
    auto [val, inner] = rest.value_or_op();
    if (val.kind == 'w' || val.kind == 'q' || val.kind == 'r') {
      auto m = make_match(key, val);
      match_offsets_.emplace_back(m.get(), off);
      return {std::move(m), inner};
    }
    if (val.kind != '(') return {nullptr, start.error("expected key:value").second};
    std::vector<NodePtr> terms;
    for (;;) {
      auto [v, t2] = inner.value_or_op();
      if (v.kind != 'w' && v.kind != 'q' && v.kind != 'r') {
        return {nullptr, inner.error("expected value").second};
      }
      auto m = make_match(key, v);
      match_offsets_.emplace_back(m.get(), off);
      terms.push_back(std::move(m));
      inner = t2;
      auto [sep, t3] = inner.value_or_op();
      if (sep.kind == ')') return {make_op(Filter::Node::Kind::kOr, std::move(terms)), t3};
      if (sep.kind != 'O')
        return {nullptr, inner.error("value list must be separated by OR").second};
      inner = t3;
    }
  }

  std::pair<NodePtr, Tokenizer> match(Tokenizer start) {
    auto [tok, rest] = start.key_or_op();
    // Every '(' and '-' is a level of recursion here and in the tree's
    // walks (eval, to_string, destruction): bounded as Go's parsers bound
    // theirs (20,000 '(' once overflowed the stack).
    if ((tok.kind == '(' || tok.kind == '-') && depth_ >= Filter::kMaxNesting) {
      return fail_at(start, nullptr);
    }
    const DepthGuard guard(depth_);
    switch (tok.kind) {
      case '(': {
        auto r = expr(rest);
        Tokenizer inner = r.second;
        auto [op, toks2] = inner.key_or_op();
        if (op.kind != ')') return fail_at(inner, "missing \")\"");
        return {std::move(r.first), toks2};
      }
      case '-': {
        auto r = match(rest);
        std::vector<NodePtr> c;
        c.push_back(std::move(r.first));
        return {make_op(Filter::Node::Kind::kNot, std::move(c)), r.second};
      }
      case '*':
        return {make_op(Filter::Node::Kind::kAnd, {}), rest};
      case 'w':
      case 'q':
        return key_value(start, tok, rest);
      default:
        break;
    }
    return fail_at(start, "expected key:value or subexpression");
  }

  // Records the error (nullptr: the nesting bound's) out of line, so its
  // strings take no room in match()'s frame.
  [[gnu::noinline]] static std::pair<NodePtr, Tokenizer> fail_at(Tokenizer at,
                                                                 const char* message) {
    if (message == nullptr) {
      return {
          nullptr,
          at.error("expression nests deeper than " + std::to_string(Filter::kMaxNesting)).second};
    }
    return {nullptr, at.error(message).second};
  }
};

// Compiles the parsed tree: extractors for keys, .unit matches, and the
// errors benchproc reports at this stage.
bool compile_tree(Filter::Node* n, const std::string& query,
                  const std::vector<std::pair<Filter::Node*, std::size_t>>& offsets,
                  std::string* error) {
  if (n == nullptr) return true;
  if (n->kind == Filter::Node::Kind::kMatch) {
    std::size_t off = 0;
    for (const auto& [node, o] : offsets) {
      if (node == n) off = o;
    }
    if (n->key == ".unit") {
      n->kind = Filter::Node::Kind::kUnitMatch;
      return true;
    }
    if (n->key == ".config") {
      *error = QueryError{query, off, ".config is only allowed in projections"}.to_string();
      return false;
    }
    std::string err;
    n->extract = make_extractor(n->key, &err);
    if (!n->extract) {
      *error = QueryError{query, off, err}.to_string();
      return false;
    }
    return true;
  }
  for (auto& c : n->children) {
    if (!compile_tree(c.get(), query, offsets, error)) return false;
  }
  return true;
}

}  // namespace

Filter::Filter() : root_(make_op(Node::Kind::kAnd, {})) {}
Filter::~Filter() = default;

std::unique_ptr<Filter> Filter::parse(std::string_view query, std::string* error) {
  ErrorTracker errt;
  errt.q_orig.assign(query);
  Tokenizer toks(errt.q_orig, &errt);
  FilterParser p;
  auto [root, rest] = p.expr(toks);
  Tokenizer tail = rest;
  tail.end();
  if (errt.has) {
    if (error != nullptr) *error = errt.err.to_string();
    return nullptr;
  }
  std::string err;
  if (!compile_tree(root.get(), errt.q_orig, p.match_offsets_, &err)) {
    if (error != nullptr) *error = err;
    return nullptr;
  }
  auto f = std::make_unique<Filter>();
  f->root_ = std::move(root);
  return f;
}

std::vector<bool> Filter::match(const BenchRecord& rec) const {
  const Node::Eval e = root_->eval(rec);
  const std::size_t n = rec.result.metrics.size();
  if (!e.has_mask) return std::vector<bool>(n, e.x);
  std::vector<bool> m = e.mask;
  m.resize(n, false);
  return m;
}

bool Filter::apply(BenchRecord& rec) const {
  if (root_->kind == Node::Kind::kAnd && root_->children.empty()) return true;
  const std::vector<bool> m = match(rec);
  auto& metrics = rec.result.metrics;
  if (std::all_of(m.begin(), m.end(), [](bool b) { return b; })) return true;
  std::size_t j = 0;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (m[i]) {
      if (j != i) {
        metrics[j] = std::move(metrics[i]);
        if (i < rec.original.size()) rec.original[j] = std::move(rec.original[i]);
      }
      ++j;
    }
  }
  metrics.resize(j);
  if (rec.original.size() > j) rec.original.resize(j);
  return j > 0;
}

void Filter::and_with(std::vector<std::unique_ptr<Node>> terms) {
  if (terms.empty()) return;
  terms.push_back(std::move(root_));
  root_ = make_op(Node::Kind::kAnd, std::move(terms));
}

std::string Filter::to_string() const {
  return root_->to_string();
}
}  // namespace zerolab::stat
