// The symbolizer's line resolver that reads DWARF in-process, through
// elfutils' libdw (Debian's libdw-dev), for `zerolab waste`'s report: the
// frames addr2line -f -C -i would print, without starting a process per
// module. Its own library (zerolab_libdw_lines), so the benchmark harness,
// which also links the symbolizer, does not depend on libdw.
//
// For each address: the CU whose ranges hold it, the function whose code
// holds it (a concrete subprogram, wherever it is declared), then the
// inlined subroutines and blocks inside that hold it; every function among
// them is a frame, innermost first. A frame's name follows addr2line's
// rules (the DWARF linkage name demangled with abi::__cxa_demangle, else
// DW_AT_name, following DW_AT_abstract_origin and DW_AT_specification; in
// C++ the innermost frame without a linkage name takes the ELF symbol's
// name: see Names in the .cpp). The innermost frame's file and line are the
// address's line-table row; each outer frame's are the call site
// (DW_AT_call_file, DW_AT_call_line) of the inlined subroutine inside it;
// relative paths are taken from the compilation directory. Separate debug
// files are found as elfutils finds them (the build ID under
// /usr/lib/debug/.build-id, .gnu_debuglink, debuginfod when DEBUGINFOD_URLS
// is set). A file libdw cannot open, or one without DWARF, gives no frames;
// malformed DWARF gives what of it reads, never a crash. Unlike addr2line,
// an address outside every CU gets no frames (addr2line names a file from
// the STT_FILE symbols there, with line 0), so the symbolizer's sized
// symbol lookup names it.
//
// Thread-safety: one LibdwResolver per thread.
//
// Example:
//   LibdwResolver lines;
//   symbols.resolve(false, lines);
#ifndef ZEROLAB_SRC_PROFILE_LIBDW_LIBDW_LINES_HPP_
#define ZEROLAB_SRC_PROFILE_LIBDW_LIBDW_LINES_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "profile/symbolizer.hpp"

namespace zerolab::internal::profile {

class LibdwResolver final : public LineResolver {
 public:
  std::vector<std::vector<Frame>> frames(const std::string& module,
                                         const std::vector<std::uint64_t>& addresses) override;
};

}  // namespace zerolab::internal::profile

#endif  // ZEROLAB_SRC_PROFILE_LIBDW_LIBDW_LINES_HPP_
