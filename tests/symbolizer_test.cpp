// The libdw line resolver (src/profile/libdw/libdw_lines.hpp) against
// binutils' addr2line, which the symbolizer used before it and still uses
// by default: on every instruction of an -O2 -g program's own functions
// both give the same frames; an inlined chain has the exact functions,
// files and lines of each level; unreadable, truncated and corrupted ELF
// files give no frames or symbol-table names, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "profile/libdw/libdw_lines.hpp"
#include "profile/symbolizer.hpp"

namespace {

using zerolab::internal::profile::Addr2lineResolver;
using zerolab::internal::profile::Frame;
using zerolab::internal::profile::LibdwResolver;
using zerolab::internal::profile::MapEntry;
using zerolab::internal::profile::PcKind;
using zerolab::internal::profile::Symbolizer;

std::string run(const std::string& command) {
  std::string out;
  if (std::FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

// The addresses of every instruction of the fixture's functions `names`
// (objdump -d), as ELF virtual addresses.
std::vector<std::uint64_t> instructions_of(const std::vector<std::string>& names,
                                           const std::string& binary = SYMBOLIZER_FIXTURE) {
  std::vector<std::uint64_t> out;
  for (const std::string& name : names) {
    std::istringstream text(
        run("objdump -d --no-show-raw-insn --disassemble=" + name + " " + binary));
    std::string line;
    bool inside = false;
    while (std::getline(text, line)) {
      if (line.find("<" + name + ">:") != std::string::npos) {
        inside = true;
        continue;
      }
      if (!inside) continue;
      // "    1500:\tmov    (%rdi),%rdx"
      unsigned long long address = 0;
      char colon = 0;
      if (!line.empty() && line[0] == ' ' &&
          std::sscanf(line.c_str(), " %llx%c", &address, &colon) == 2 && colon == ':') {
        out.push_back(address);
      }
    }
  }
  return out;
}

// The line of the fixture's source holding `marker`.
int line_of(const std::string& marker) {
  std::ifstream in(SYMBOLIZER_FIXTURE_SOURCE);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find("// marker: " + marker) != std::string::npos) return n;
  }
  return -1;
}

// Frames as the symbolizer keeps them: those placed at a file.
std::vector<Frame> kept(const std::vector<Frame>& frames) {
  std::vector<Frame> out;
  for (const Frame& f : frames) {
    if (!f.file.empty()) out.push_back(f);
  }
  return out;
}

std::string show(const std::vector<Frame>& frames) {
  std::string out;
  for (const Frame& f : frames)
    out += f.function + " @ " + f.file + ":" + std::to_string(f.line) + "\n";
  return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(Symbolizer, LibdwGivesAddr2linesFramesOnEveryInstruction) {
  const std::vector<std::uint64_t> addresses = instructions_of({"_Z5outerPVll", "main"});
  ASSERT_GT(addresses.size(), 8u);
  Addr2lineResolver addr2line;
  LibdwResolver libdw;
  const auto expected = addr2line.frames(SYMBOLIZER_FIXTURE, addresses);
  const auto got = libdw.frames(SYMBOLIZER_FIXTURE, addresses);
  ASSERT_EQ(expected.size(), addresses.size());
  ASSERT_EQ(got.size(), addresses.size());
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    const std::vector<Frame> want = kept(expected[i]);
    ASSERT_FALSE(want.empty()) << std::hex << addresses[i];
    EXPECT_EQ(show(kept(got[i])), show(want)) << "at 0x" << std::hex << addresses[i];
  }
}

TEST(Symbolizer, LibdwNamesEachLevelOfAnInlinedChain) {
  const std::vector<std::uint64_t> addresses = instructions_of({"_Z5outerPVll"});
  LibdwResolver libdw;
  const auto got = libdw.frames(SYMBOLIZER_FIXTURE, addresses);
  ASSERT_EQ(got.size(), addresses.size());
  // The load of *p is inner()'s, inlined twice over.
  bool found = false;
  for (const std::vector<Frame>& frames : got) {
    if (frames.size() != 3) continue;
    found = true;
    EXPECT_EQ(frames[0].function, "demo::inner(long volatile*, long)");
    EXPECT_EQ(frames[0].line, line_of("inner body"));
    EXPECT_EQ(frames[1].function, "demo::middle(long volatile*, long)");
    EXPECT_EQ(frames[1].line, line_of("middle calls inner"));
    EXPECT_EQ(frames[2].function, "outer(long volatile*, long)");
    EXPECT_EQ(frames[2].line, line_of("outer calls middle"));
    for (const Frame& f : frames)
      EXPECT_TRUE(ends_with(f.file, "symbolizer/inline_fixture.cpp")) << f.file;
  }
  EXPECT_TRUE(found) << "no address of outer() has the three frames";
}

// A copy of the fixture, changed by `edit`, at a path of its own.
std::string edited_copy(const std::string& name, void (*edit)(std::string&)) {
  std::ifstream in(SYMBOLIZER_FIXTURE, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  edit(bytes);
  std::string path = testing::TempDir() + "symbolizer_" + name + "." + std::to_string(getpid());
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

TEST(Symbolizer, LibdwReadsNothingFromAFileThatIsNoElf) {
  const std::string garbage = edited_copy("garbage", [](std::string& b) {
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<char>((i * 131 + 7) & 0xff);
  });
  LibdwResolver libdw;
  EXPECT_TRUE(libdw.frames(garbage, {0x1000, 0x1234}).empty());
  EXPECT_TRUE(libdw.frames("/nonexistent/module", {0x1000}).empty());
  std::remove(garbage.c_str());
}

TEST(Symbolizer, ATruncatedElfIsNamedFromWhatIsLeft) {
  const std::string truncated =
      edited_copy("truncated", [](std::string& b) { b.resize(b.size() / 2); });
  const std::vector<std::uint64_t> addresses = instructions_of({"_Z5outerPVll"});
  ASSERT_FALSE(addresses.empty());
  LibdwResolver libdw;
  // The section headers are gone: no DWARF can be found.
  EXPECT_TRUE(libdw.frames(truncated, addresses).empty());
  // Through the symbolizer: one frame, named by module and address.
  Symbolizer symbols;
  const std::vector<MapEntry> maps = {{0x400000, 0x800000, 0, truncated}};
  const int id = symbols.add(maps, 0x400000 + 0x40, PcKind::kInstruction);
  symbols.resolve(false, libdw);
  const auto& frames = symbols.get(id).frames;
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].function, "symbolizer_truncated." + std::to_string(getpid()) + "+0x40");
  EXPECT_EQ(frames[0].file, "");
  EXPECT_EQ(frames[0].line, 0);
  std::remove(truncated.c_str());
}

TEST(Symbolizer, LibdwSurvivesCorruptedDwarf) {
  const std::vector<std::uint64_t> addresses = instructions_of({"_Z5outerPVll", "main"});
  ASSERT_FALSE(addresses.empty());
  static std::uint64_t seed = 0;
  for (seed = 1; seed <= 24; ++seed) {
    const std::string path = edited_copy("corrupt", [](std::string& b) {
      // Every byte of the second half (the debug sections and the tables
      // after them) flipped with probability 1/64, from a fixed sequence.
      std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL;
      for (std::size_t i = b.size() / 2; i < b.size(); ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if ((x & 63) == 0) b[i] = static_cast<char>(b[i] ^ static_cast<char>(x >> 8));
      }
    });
    LibdwResolver libdw;
    const auto got = libdw.frames(path, addresses);
    EXPECT_TRUE(got.empty() || got.size() == addresses.size()) << "seed " << seed;
    std::remove(path.c_str());
  }
}

// A program without DWARF is named from its symbol table; a C name is kept
// as it is, a mangled one demangled. (__cxa_demangle alone reads "f" as the
// type float and "i" as int.)
TEST(Symbolizer, SymbolTableNamesAreDemangledOnlyWhenMangled) {
  const std::vector<std::uint64_t> in_f = instructions_of({"f"}, SYMBOLIZER_C_NAMES_FIXTURE);
  const std::vector<std::uint64_t> in_i = instructions_of({"i"}, SYMBOLIZER_C_NAMES_FIXTURE);
  const std::vector<std::uint64_t> in_cpp =
      instructions_of({"_Z7twice_mi"}, SYMBOLIZER_C_NAMES_FIXTURE);
  ASSERT_FALSE(in_f.empty());
  ASSERT_FALSE(in_i.empty());
  ASSERT_FALSE(in_cpp.empty());
  // The file mapped whole at 0x400000 from offset 0: an address there is
  // 0x400000 plus its file offset, which for these PT_LOAD segments is the
  // virtual address less the segment's (vaddr - offset).
  Symbolizer symbols;
  LibdwResolver libdw;
  const std::vector<MapEntry> maps = {{0x400000, 0x40000000, 0, SYMBOLIZER_C_NAMES_FIXTURE}};
  const auto offset_of = [](std::uint64_t vaddr) -> std::uint64_t {
    std::istringstream text(run(std::string("readelf -lW ") + SYMBOLIZER_C_NAMES_FIXTURE));
    std::string line;
    while (std::getline(text, line)) {
      unsigned long long off = 0, va = 0, pa = 0, filesz = 0;
      if (std::sscanf(line.c_str(), " LOAD 0x%llx 0x%llx 0x%llx 0x%llx", &off, &va, &pa, &filesz) ==
              4 &&
          vaddr >= va && vaddr < va + filesz) {
        return vaddr - va + off;
      }
    }
    return vaddr;
  };
  const int f = symbols.add(maps, 0x400000 + offset_of(in_f[0]), PcKind::kInstruction);
  const int i = symbols.add(maps, 0x400000 + offset_of(in_i[0]), PcKind::kInstruction);
  const int cpp = symbols.add(maps, 0x400000 + offset_of(in_cpp[0]), PcKind::kInstruction);
  symbols.resolve(false, libdw);
  ASSERT_EQ(symbols.get(f).frames.size(), 1u);
  EXPECT_EQ(symbols.get(f).frames[0].function, "f");
  EXPECT_EQ(symbols.get(f).frames[0].file, "");
  EXPECT_EQ(symbols.get(i).frames[0].function, "i");
  EXPECT_EQ(symbols.get(cpp).frames[0].function, "twice_m(int)");
}

}  // namespace
