// Private to zerolab::stat: the pieces of Go's runtime behaviour that
// benchstat's output depends on bit for bit — its math (stat/go_math.hpp),
// its text formatting and parsing (format/go_text.hpp, shared with the
// harness) and its sort (stat/go_sort.hpp). The stat sources include this
// one header for all three.
//
// Example:
//   double g = zerolab::internal::go_exp(1.0);                  // Go's math.Exp(1)
//   std::string s = zerolab::internal::format_g(1234567.0);     // "1.234567e+06"
#ifndef ZEROLAB_SRC_STAT_GO_COMPAT_HPP_
#define ZEROLAB_SRC_STAT_GO_COMPAT_HPP_

#include "format/go_text.hpp"
#include "stat/go_math.hpp"
#include "stat/go_sort.hpp"

#endif  // ZEROLAB_SRC_STAT_GO_COMPAT_HPP_
