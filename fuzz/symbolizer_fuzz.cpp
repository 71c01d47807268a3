// libFuzzer target for the profiles' symbolizer (src/profile/symbolizer.hpp):
// the input is read as /proc/<pid>/maps text (parse_maps), and written to a
// file that a mapping then names as a module, so the ELF readers (program
// headers, section headers, symbol and string tables) parse it as they would
// a library replaced on disk. addr2line is a program that does not exist,
// so the symbol tables answer; then the libdw line resolver reads the file
// as DWARF. Every parsed mapping has an absolute path; after resolve()
// every address has frames, each with a function name; never crash.
//
// Example:
//   ./symbolizer_fuzz -max_total_time=600 fuzz/corpus/symbolizer_fuzz
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "profile/libdw/libdw_lines.hpp"
#include "profile/symbolizer.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  using namespace zerolab::internal::profile;
  for (const MapEntry& m : parse_maps(input)) check(!m.path.empty() && m.path[0] == '/');

  static const std::string module = "/tmp/zerolab-symbolizer-fuzz." + std::to_string(getpid());
  if (std::FILE* f = std::fopen(module.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  const std::vector<MapEntry> maps = {{0x10000, 0x90000, 0, module},
                                      {0x90000, 0xa0000, 0x1000, "/nonexistent"}};
  Symbolizer symbols;  // a fresh one: its segment cache must see this input
  std::vector<int> ids;
  for (const std::uint64_t pc : {0x10000ULL, 0x11234ULL, 0x8ffffULL, 0x90010ULL, 0x5ULL}) {
    ids.push_back(symbols.add(maps, pc));
    ids.push_back(symbols.add(maps, pc, PcKind::kInstruction));
  }
  symbols.want_name(ids[0]);
  symbols.resolve(false, "/nonexistent/addr2line");
  for (const int id : ids) {
    const ResolvedPc& pc = symbols.get(id);
    check(!pc.frames.empty());
    for (const Frame& f : pc.frames) check(!f.function.empty());
  }
  Symbolizer from_dwarf;
  std::vector<int> dwarf_ids;
  for (const std::uint64_t pc : {0x10000ULL, 0x11234ULL, 0x8ffffULL, 0x90010ULL, 0x5ULL}) {
    dwarf_ids.push_back(from_dwarf.add(maps, pc));
  }
  LibdwResolver lines;
  from_dwarf.resolve(true, lines);
  for (const int id : dwarf_ids) {
    const ResolvedPc& pc = from_dwarf.get(id);
    check(!pc.frames.empty());
    for (const Frame& f : pc.frames) check(!f.function.empty());
  }
  return 0;
}
