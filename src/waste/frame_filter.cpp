// The frames `zerolab waste` never names a site by (frame_filter.hpp).
#include "waste/frame_filter.hpp"

#include <re2/re2.h>

#include "waste/flags.hpp"

namespace zerolab::waste {
namespace {

// The built-in list, matched by hand: compiling it as one RE2 cost more
// than half a millisecond at every start of `zerolab waste`. A function
// matches when its name up to the first '.' (a clone suffix: ".cold",
// ".isra.0") or '(' (a demangled parameter list) is one of these names, or
// one of the prefixes below followed by letters, or when it lies in
// namespace std:: or __gnu_cxx::.
constexpr std::string_view kWrapperNames[] = {
    "xmalloc", "xcalloc", "xrealloc", "xzalloc", "xmallocz", "xstrdup", "xstrndup", "xmemdup",
    "xmemdupz", "do_xmalloc", "xmalloc_gently", "xmallocz_gently",
    // SQLite
    "sqlite3Malloc", "sqlite3MallocZero", "sqlite3Realloc", "sqlite3MemMalloc", "sqlite3MemRealloc",
    "dbMallocRawFinish", "sqlite3_malloc", "sqlite3_malloc64", "sqlite3_realloc",
    "sqlite3_realloc64",
    // CPython
    "PyObject_Malloc", "PyObject_Calloc", "PyObject_Realloc", "_PyObject_Malloc",
    "_PyObject_Calloc", "_PyObject_Realloc", "pymalloc_alloc", "pymalloc_realloc",
    "_PyObject_GC_Alloc", "_PyObject_GC_Malloc",
    // GLib
    "g_malloc", "g_malloc0", "g_realloc", "g_try_malloc", "g_try_malloc0", "g_try_realloc",
    "g_malloc_n", "g_malloc0_n", "g_realloc_n", "g_memdup", "g_memdup2", "g_strdup", "g_strndup",
    "g_slice_alloc", "g_slice_alloc0",
    // C++ and zerolab
    "operator new", "operator new[]", "zerolab::zero_fill", "zerolab::zero_fill_nt"};

struct LetterPrefix {
  std::string_view prefix;
  bool needs_a_letter;  // sqlite3DbMalloc alone is a wrapper; PyMem_ alone is not
};
constexpr LetterPrefix kWrapperPrefixes[] = {
    {"sqlite3DbMalloc", false}, {"sqlite3DbRealloc", false}, {"PyMem_", true}, {"_PyMem_", true}};

bool all_letters(std::string_view s) {
  for (const char c : s) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) return false;
  }
  return true;
}

bool builtin_wrapper(std::string_view function) {
  if (function.starts_with("std::") || function.starts_with("__gnu_cxx::")) return true;
  const std::string_view name = function.substr(0, function.find_first_of(".("));
  for (const std::string_view w : kWrapperNames) {
    if (name == w) return true;
  }
  for (const LetterPrefix& p : kWrapperPrefixes) {
    if (!name.starts_with(p.prefix)) continue;
    const std::string_view rest = name.substr(p.prefix.size());
    if ((!p.needs_a_letter || !rest.empty()) && all_letters(rest)) return true;
  }
  return false;
}

}  // namespace

FrameFilter::FrameFilter() = default;

bool FrameFilter::parse(const std::vector<std::string>& patterns, FrameFilter& out,
                        std::string& error) {
  FrameFilter f;
  for (const std::string& p : patterns) {
    if (p.empty()) {
      error = "--skip-frame: empty pattern (it would match every frame)";
      return false;
    }
    re2::RE2::Options options;
    options.set_log_errors(false);
    options.set_max_mem(1 << 20);
    auto re = std::make_shared<const re2::RE2>(p, options);
    if (!re->ok()) {
      error = "--skip-frame " + shown_arg(p) + ": " + re->error();
      for (char& c : error) {
        if (c == '\n' || c == '\r') c = ' ';
      }
      return false;
    }
    f.user_.push_back(std::move(re));
    f.patterns_.push_back(p);
  }
  out = std::move(f);
  return true;
}

bool FrameFilter::skipped(std::string_view function) const {
  if (builtin_wrapper(function)) return true;
  const re2::StringPiece name(function.data(), function.size());
  for (const auto& re : user_) {
    if (re2::RE2::PartialMatch(name, *re)) return true;
  }
  return false;
}

}  // namespace zerolab::waste
