// Symbols for the profiles (the harness's -cpuprofile/-memprofile and
// `zerolab waste`): turns the addresses a process image recorded into
// function, file and line, at write time or after the process is gone.
//
// Each address is mapped through the image's executable mappings (the
// record's copy of /proc/self/maps) to a module and a file offset, the
// offset to the ELF virtual address through the module's PT_LOAD headers,
// and the address (minus one for a return address, which points past its
// call; as is for an interrupted instruction, a CPU sample's leaf) to
// frames by a LineResolver: innermost inlined frame first, each with its
// function and the file and line of that level (the address's line-table
// row for the innermost, the call site of the inlined function for each
// outer one; addr2line -f -C -i's answer). The default resolver runs
// Debian's addr2line once per module (it finds separate debug files under
// /usr/lib/debug by build id); `zerolab waste` passes one that reads the
// DWARF in-process with elfutils' libdw (profile/libdw/libdw_lines.hpp),
// which the harness does not link. A module with no debug information of
// its own, no separate debug file and no debuginfod server is not handed
// to the resolver at all. What the resolver cannot place at a file and
// line is looked up in the module's ELF symbol tables (.symtab, else
// .dynsym), within each symbol's size (addr2line's own guess there is the
// nearest symbol before the address, however far); an address in no
// symbol gives "<module>+0x<address>", no file.
// The C/C++ runtime libraries (runtime_module) get only their symbol tables
// unless a full resolve is asked for: sites are never named by their frames,
// and libc's separate debug file alone takes addr2line a third of a second.
// Even those tables (0.7 ms for libc's, 1.5 ms for libstdc++'s) are read
// only for the addresses want_name() asks for; other runtime frames are
// named "<module>+0x<address>".
//
// Thread-safety: one Symbolizer per thread.
//
// Example:
//   Symbolizer s;
//   const int id = s.add(maps, 0x55d0c0a0b1c4);
//   s.resolve(false);     // one addr2line run per module
//   s.get(id).frames[0]   // {"main", "/src/prog.c", 42}, innermost first
#ifndef ZEROLAB_SRC_PROFILE_SYMBOLIZER_HPP_
#define ZEROLAB_SRC_PROFILE_SYMBOLIZER_HPP_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace zerolab::internal::profile {

// One line of /proc/<pid>/maps (executable mappings only are kept).
struct MapEntry {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::uint64_t offset = 0;
  std::string path;
};

// libc, libstdc++, libgcc_s, libm, libpthread, libdl or the dynamic loader.
bool runtime_module(const std::string& path);

// addr2line -C's name: a mangled name (_Z...) demangled, parameters
// included; any other name as it is (__cxa_demangle alone reads a C name
// such as "f" as a type, "float").
std::string demangle_if_mangled(const char* name);

// Parses maps text; lines that do not parse, and mappings without a file
// path, are skipped.
std::vector<MapEntry> parse_maps(std::string_view text);

struct Frame {
  std::string function;  // demangled; "<module>+0x..." without symbols
  std::string file;      // "" when unknown
  int line = 0;          // 0 when unknown
};

// What an address is: where a call returns to (every frame of a stack but
// a CPU sample's leaf), or the instruction itself (that leaf).
enum class PcKind { kReturnAddress, kInstruction };

struct ResolvedPc {
  std::string module;       // path of the ELF file, "" if the address is in no mapping
  std::uint64_t vaddr = 0;  // the address as an ELF virtual address of `module`
  PcKind kind = PcKind::kReturnAddress;
  std::uint64_t pc = 0;       // the address as first added, in its image
  MapEntry mapping;           // the mapping that held it then ({} if none)
  std::vector<Frame> frames;  // innermost (inlined) first; never empty after resolve()
};

// Where file, line and inlined frames come from (Symbolizer::resolve).
class LineResolver {
 public:
  virtual ~LineResolver() = default;
  // For each of `addresses` (code addresses: ELF virtual addresses of the
  // ELF file `module`), its frames, innermost first: function (demangled,
  // "" where the debug information names none), file ("" where unknown),
  // line. An address without debug information gets no frames; the result
  // has one entry per address, or is empty where the module could not be
  // read at all.
  virtual std::vector<std::vector<Frame>> frames(const std::string& module,
                                                 const std::vector<std::uint64_t>& addresses) = 0;
};

// Binutils' addr2line (-a -f -C -i), run once per module; `program` is the
// program to run (found in PATH).
class Addr2lineResolver final : public LineResolver {
 public:
  explicit Addr2lineResolver(std::string program = "addr2line") : program_(std::move(program)) {}
  std::vector<std::vector<Frame>> frames(const std::string& module,
                                         const std::vector<std::uint64_t>& addresses) override;

 private:
  std::string program_;
};

class Symbolizer {
 public:
  // Registers `pc` of an image with these mappings; the same module
  // address (of any image) and kind gives the same id.
  int add(const std::vector<MapEntry>& maps, std::uint64_t pc,
          PcKind kind = PcKind::kReturnAddress);
  // Names `id` from its module's symbol table even in a runtime library
  // (for a site whose frames are all in the runtime).
  void want_name(int id);
  // Resolves everything added so far; `full`: the runtime libraries'
  // file and line too. `lines` names files, lines and inlined frames.
  void resolve(bool full, LineResolver& lines);
  // The same through addr2line; `addr2line` is the program to run.
  void resolve(bool full, const std::string& addr2line = "addr2line");
  const ResolvedPc& get(int id) const { return pcs_[static_cast<std::size_t>(id)]; }

  // An ELF PT_LOAD segment: file offset, virtual address, file size.
  struct LoadSegment {
    std::uint64_t offset;
    std::uint64_t vaddr;
    std::uint64_t size;
  };

 private:
  std::map<std::string, std::vector<LoadSegment>> segments_;  // per module, read once
  std::vector<ResolvedPc> pcs_;
  std::map<std::tuple<std::string, std::uint64_t, PcKind>, int> index_;
  std::vector<int> wanted_;
  std::size_t resolved_ = 0;
};

}  // namespace zerolab::internal::profile

#endif  // ZEROLAB_SRC_PROFILE_SYMBOLIZER_HPP_
