// callgrind client requests for the counting child (counting.hpp).
#include "bench/counting.hpp"

#include <cstdlib>
#include <cstring>

// valgrind cannot run sanitized programs: there the mode is not built.
#if ZEROLAB_HAVE_CALLGRIND && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define ZEROLAB_COUNTING_BUILT 1
#include <valgrind/callgrind.h>
#endif

namespace zerolab::internal::counting {

#if ZEROLAB_COUNTING_BUILT
bool built_with_callgrind() {
  return true;
}
bool running_on_valgrind() {
  return RUNNING_ON_VALGRIND != 0;
}
void collect_on() {
  CALLGRIND_TOGGLE_COLLECT;
}
void collect_off() {
  CALLGRIND_TOGGLE_COLLECT;
}
void zero_counts() {
  CALLGRIND_ZERO_STATS;
}
void dump_counts(const std::string& trigger) {
  CALLGRIND_DUMP_STATS_AT(trigger.c_str());
}
#else
bool built_with_callgrind() {
  return false;
}
bool running_on_valgrind() {
  return false;
}
void collect_on() {}
void collect_off() {}
void zero_counts() {}
void dump_counts(const std::string&) {}
#endif

bool is_child() {
  const char* marker = std::getenv(kChildMarker);
  return marker != nullptr && std::strcmp(marker, "1") == 0 && running_on_valgrind();
}

}  // namespace zerolab::internal::counting
