// callgrind client requests for the counting child (counting.hpp).
#include "bench/counting.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "files/whole_file.hpp"

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
// callgrind only toggles; this thread's state makes on and off idempotent.
thread_local bool t_collecting = false;
void collect_on() {
  if (t_collecting) return;
  t_collecting = true;
  CALLGRIND_TOGGLE_COLLECT;
}
void collect_off() {
  if (!t_collecting) return;
  t_collecting = false;
  CALLGRIND_TOGGLE_COLLECT;
}
void zero_counts() {
  CALLGRIND_ZERO_STATS;
}
std::atomic<int> g_dumps{0};
void dump_counts(const std::string& trigger) {
  CALLGRIND_DUMP_STATS_AT(trigger.c_str());
  g_dumps.fetch_add(1, std::memory_order_relaxed);
}
int dumps_written() {
  return g_dumps.load(std::memory_order_relaxed);
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
int dumps_written() {
  return 0;
}
#endif

bool read_own_dump(int index, CallgrindDump& dump, std::string& error) {
  const char* prefix = std::getenv(kDumpPrefixVariable);
  if (prefix == nullptr || *prefix == '\0') {
    error = std::string(kDumpPrefixVariable) + " is not set (not a counting run's child)";
    return false;
  }
  const std::string path = std::string(prefix) + "." + std::to_string(index);
  std::string text;
  if (!read_whole_file(path, std::size_t{1} << 30, text, error)) return false;
  if (!parse_callgrind_dump(text, dump, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

bool is_child() {
  const char* marker = std::getenv(kChildMarker);
  return marker != nullptr && std::strcmp(marker, "1") == 0 && running_on_valgrind();
}

}  // namespace zerolab::internal::counting
