// A finding's call tree: every stack of its sites, outermost frame first,
// merged frame by frame as a flame graph merges them: by function (and
// file), so one function calling from two lines is one node; the lines are
// in the sites' stacks. Each node holds what
// the stacks through it wasted; a node's own amount (its total minus its
// children's) is what it wasted as a site. The JSON report carries it and
// the HTML report draws it as an icicle graph.
//
// Example:
//   CallNode root;                                  // "all" of one kind
//   add_stack(root, {main_frame, parse_frame}, {4096, 2, 1e-6});
//   add_stack(root, {main_frame, load_frame}, {1024, 1, 2e-7});
//   sort_by_bytes(root);
//   root.amount.bytes == 5120; root.children[0].function == "main";
//   root.children[0].children[0].function == "parse"
#ifndef ZEROLAB_SRC_WASTE_CALL_TREE_HPP_
#define ZEROLAB_SRC_WASTE_CALL_TREE_HPP_

#include <string>
#include <vector>

namespace zerolab::waste {

struct Amount {
  double bytes = 0;
  double calls = 0;
  double seconds = 0;  // estimated
};

struct CallFrame {
  std::string function;
  std::string file;  // "" when unknown
  int line = 0;      // not part of a tree node's identity
};

struct CallNode {
  CallFrame frame;  // empty at the root; line: the first stack's
  Amount amount;    // the stacks through this node
  std::vector<CallNode> children;
};

// Adds one stack (outermost first) to the tree under `root`.
void add_stack(CallNode& root, const std::vector<CallFrame>& outermost_first, const Amount& amount);

// Children largest bytes first (then calls, then name), at every level.
void sort_by_bytes(CallNode& root);

// Multiplies each figure of `a` by the same figure of `factor`; for every
// node of the tree (sampled sites scaled down to their finding's total).
void scale_amount(Amount& a, const Amount& factor);
void scale_tree(CallNode& root, const Amount& factor);

}  // namespace zerolab::waste

#endif  // ZEROLAB_SRC_WASTE_CALL_TREE_HPP_
