// Which stack frames a `zerolab waste` site is never named by: allocation
// wrappers (a built-in list) and whatever the user names with
// --skip-frame REGEX (repeatable, like pprof's -ignore). A site is named by
// the first frame, innermost first, that is outside the C/C++ runtime
// libraries and the system headers (report.cpp) and whose function no
// pattern matches, so a block from xmalloc is charged to xmalloc's caller.
//
// Patterns are RE2 syntax, matched anywhere in the demangled function name
// ("operator new(unsigned long)", "xmalloc", "Foo::alloc(int)"): anchor
// them (^...$) to match a whole name. The built-in list (no regex: it is
// matched by hand, so a run without --skip-frame compiles none) matches
// whole names, or a name followed by its parameter list or a clone suffix:
//   C wrappers:   xmalloc xcalloc xrealloc xzalloc xmallocz xstrdup xstrndup
//                 xmemdup xmemdupz do_xmalloc xmalloc_gently xmallocz_gently
//   SQLite:       sqlite3Malloc sqlite3MallocZero sqlite3Realloc sqlite3DbMalloc*
//                 sqlite3DbRealloc* sqlite3MemMalloc sqlite3MemRealloc dbMallocRawFinish
//                 sqlite3_malloc sqlite3_malloc64 sqlite3_realloc sqlite3_realloc64
//   CPython:      PyMem_* _PyMem_* PyObject_Malloc/Calloc/Realloc _PyObject_Malloc/Calloc/
//                 Realloc pymalloc_alloc pymalloc_realloc _PyObject_GC_Alloc _PyObject_GC_Malloc
//   GLib:         g_malloc g_malloc0 g_realloc g_try_malloc g_try_malloc0 g_try_realloc
//                 g_malloc_n g_malloc0_n g_realloc_n g_memdup g_memdup2 g_strdup g_strndup
//                 g_slice_alloc g_slice_alloc0
//   C++:          operator new / new[] (every overload), and every function of namespace
//                 std:: or __gnu_cxx:: (std::allocator, std::vector's _M_allocate...)
//   zerolab:      zerolab::zero_fill, zerolab::zero_fill_nt (a memset of the caller's)
//
// Thread-safety: const methods may be called from any thread.
//
// Example:
//   FrameFilter f;
//   std::string error;
//   if (!FrameFilter::parse({"^my_alloc$", "Arena::grow"}, f, error)) ...;  // "--skip-frame ..."
//   f.skipped("xmalloc")            // true (built in)
//   f.skipped("my_alloc")           // true
//   f.skipped("parse_header")       // false
#ifndef ZEROLAB_SRC_WASTE_FRAME_FILTER_HPP_
#define ZEROLAB_SRC_WASTE_FRAME_FILTER_HPP_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace zerolab::waste {

class FrameFilter {
 public:
  // The built-in list alone.
  FrameFilter();

  // The built-in list plus `patterns` (each one --skip-frame). False with a
  // one-line `error` naming the bad pattern and RE2's reason.
  static bool parse(const std::vector<std::string>& patterns, FrameFilter& out, std::string& error);

  // True if a site is never named by a frame of this function.
  bool skipped(std::string_view function) const;

  // The user's patterns, as given.
  const std::vector<std::string>& patterns() const { return patterns_; }

 private:
  std::vector<std::shared_ptr<const re2::RE2>> user_;
  std::vector<std::string> patterns_;
};

}  // namespace zerolab::waste

#endif  // ZEROLAB_SRC_WASTE_FRAME_FILTER_HPP_
