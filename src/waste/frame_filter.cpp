// The frames `zerolab waste` never names a site by (frame_filter.hpp).
#include "waste/frame_filter.hpp"

#include <re2/re2.h>

#include "waste/flags.hpp"

namespace zerolab::waste {
namespace {

// Whole names, optionally followed by a parameter list (a demangled C++
// name) or a clone suffix (".cold", ".isra.0", ".constprop.0").
constexpr const char* kBuiltinWrappers =
    "^(?:"
    "xmalloc|xcalloc|xrealloc|xzalloc|xmallocz|xstrdup|xstrndup|xmemdup|xmemdupz|do_xmalloc|"
    "xmalloc_gently|xmallocz_gently|"
    "sqlite3Malloc|sqlite3MallocZero|sqlite3Realloc|sqlite3DbMalloc[A-Za-z]*|"
    "sqlite3DbRealloc[A-Za-z]*|sqlite3MemMalloc|sqlite3MemRealloc|dbMallocRawFinish|"
    "sqlite3_malloc|sqlite3_malloc64|sqlite3_realloc|sqlite3_realloc64|"
    "_?PyMem_[A-Za-z]+|_?PyObject_(?:Malloc|Calloc|Realloc)|pymalloc_alloc|pymalloc_realloc|"
    "_PyObject_GC_Alloc|_PyObject_GC_Malloc|"
    "g_malloc|g_malloc0|g_realloc|g_try_malloc|g_try_malloc0|g_try_realloc|g_malloc_n|"
    "g_malloc0_n|g_realloc_n|g_memdup|g_memdup2|g_strdup|g_strndup|g_slice_alloc|g_slice_alloc0|"
    "operator new(?:\\[\\])?|zerolab::zero_fill|zerolab::zero_fill_nt"
    ")(?:[.(].*)?$"
    "|^(?:std|__gnu_cxx)::";

}  // namespace

FrameFilter::FrameFilter() {
  static const std::shared_ptr<const re2::RE2> builtin = [] {
    re2::RE2::Options options;
    options.set_log_errors(false);
    return std::make_shared<const re2::RE2>(kBuiltinWrappers, options);
  }();
  builtin_ = builtin;
}

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
  const re2::StringPiece name(function.data(), function.size());
  if (re2::RE2::PartialMatch(name, *builtin_)) return true;
  for (const auto& re : user_) {
    if (re2::RE2::PartialMatch(name, *re)) return true;
  }
  return false;
}

}  // namespace zerolab::waste
