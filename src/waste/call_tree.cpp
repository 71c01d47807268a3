// A finding's call tree (call_tree.hpp).
#include "waste/call_tree.hpp"

#include <algorithm>
#include <tuple>

namespace zerolab::waste {
namespace {

void add_to(Amount& to, const Amount& a) {
  to.bytes += a.bytes;
  to.calls += a.calls;
  to.seconds += a.seconds;
}

bool same_function(const CallFrame& a, const CallFrame& b) {
  return a.function == b.function && a.file == b.file;
}

}  // namespace

void add_stack(CallNode& root, const std::vector<CallFrame>& outermost_first,
               const Amount& amount) {
  CallNode* node = &root;
  add_to(node->amount, amount);
  for (const CallFrame& f : outermost_first) {
    auto it = std::find_if(node->children.begin(), node->children.end(),
                           [&](const CallNode& c) { return same_function(c.frame, f); });
    if (it == node->children.end()) {
      node->children.push_back(CallNode{f, {}, {}});
      it = node->children.end() - 1;
    }
    node = &*it;
    add_to(node->amount, amount);
  }
}

void sort_by_bytes(CallNode& root) {
  std::sort(root.children.begin(), root.children.end(), [](const CallNode& a, const CallNode& b) {
    return std::tie(b.amount.bytes, b.amount.calls, a.frame.function, a.frame.file) <
           std::tie(a.amount.bytes, a.amount.calls, b.frame.function, b.frame.file);
  });
  for (CallNode& c : root.children) sort_by_bytes(c);
}

void scale_amount(Amount& a, const Amount& factor) {
  a.bytes *= factor.bytes;
  a.calls *= factor.calls;
  a.seconds *= factor.seconds;
}

void scale_tree(CallNode& root, const Amount& factor) {
  scale_amount(root.amount, factor);
  for (CallNode& c : root.children) scale_tree(c, factor);
}

}  // namespace zerolab::waste
