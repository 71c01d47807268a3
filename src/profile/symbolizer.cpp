// The profiles' symbolizer (symbolizer.hpp): maps, ELF program headers,
// symbol tables, and the addr2line line resolver.
#include "profile/symbolizer.hpp"

#include <elf.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cxxabi.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "files/read_only_file.hpp"

extern char** environ;

namespace zerolab::internal::profile {
namespace {

using LoadSegment = Symbolizer::LoadSegment;

// Reads the header of a 64-bit ELF file; false if `in` holds none.
bool read_elf64_header(const internal::ReadOnlyFile& in, Elf64_Ehdr& eh) {
  return in.read_at(0, &eh, sizeof eh) && std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
         eh.e_ident[EI_CLASS] == ELFCLASS64;
}

// The PT_LOAD segments of a 64-bit ELF file ({} if it is not one).
std::vector<LoadSegment> load_segments(const std::string& path) {
  std::vector<LoadSegment> out;
  const internal::ReadOnlyFile in(path);
  Elf64_Ehdr eh{};
  if (!read_elf64_header(in, eh) || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
    return out;
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!in.read_at(eh.e_phoff + static_cast<std::uint64_t>(i) * sizeof ph, &ph, sizeof ph)) break;
    if (ph.p_type == PT_LOAD) out.push_back({ph.p_offset, ph.p_vaddr, ph.p_filesz});
  }
  return out;
}

std::uint64_t file_offset_to_vaddr(const std::vector<LoadSegment>& segments, std::uint64_t off) {
  for (const LoadSegment& s : segments) {
    if (off >= s.offset && off < s.offset + s.size) return off - s.offset + s.vaddr;
  }
  return off;
}

// Function symbols of an ELF file (names as stored), sorted by address.
struct Symbol {
  std::uint64_t address;
  std::uint64_t size;
  std::string name;
};

std::vector<Symbol> read_function_symbols(const std::string& path) {
  std::vector<Symbol> out;
  const internal::ReadOnlyFile in(path);
  Elf64_Ehdr eh{};
  if (!read_elf64_header(in, eh) || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum > 4096)
    return out;
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (!in.read_at(eh.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr))) return out;
  // .symtab when there is one (it holds .dynsym's functions too), else .dynsym.
  const Elf64_Shdr* table = nullptr;
  for (const Elf64_Shdr& sh : sections) {
    if (sh.sh_type == SHT_SYMTAB) table = &sh;
  }
  for (const Elf64_Shdr& sh : sections) {
    if (table == nullptr && sh.sh_type == SHT_DYNSYM) table = &sh;
  }
  if (table == nullptr || table->sh_link >= sections.size() || table->sh_size > (256u << 20))
    return out;
  const Elf64_Shdr& strings = sections[table->sh_link];
  if (strings.sh_size > (256u << 20)) return out;
  std::string names(strings.sh_size, '\0');
  in.read_at(strings.sh_offset, names.data(), names.size());  // a short table leaves NULs
  std::vector<Elf64_Sym> symbols(table->sh_size / sizeof(Elf64_Sym));
  if (!in.read_at(table->sh_offset, symbols.data(), symbols.size() * sizeof(Elf64_Sym))) return out;
  for (const Elf64_Sym& sym : symbols) {
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0 || sym.st_name >= names.size())
      continue;
    out.push_back({sym.st_value, sym.st_size, names.c_str() + sym.st_name});
  }
  std::sort(out.begin(), out.end(),
            [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
  return out;
}

bool file_exists(const std::string& path) {
  return access(path.c_str(), R_OK) == 0;
}

// Whether addr2line can find file and line information for the ELF file at
// `path`: DWARF sections of its own, or a separate debug file where
// binutils looks for one (the build ID's file under /usr/lib/debug/.build-id,
// the .gnu_debuglink name beside the file, in its .debug directory or under
// /usr/lib/debug), or a debuginfod server to ask. Without any, addr2line
// names no file or line, and what it names is not used (resolve()): the
// run (a few milliseconds of start-up each) is skipped.
bool may_have_line_info(const std::string& path) {
  const char* debuginfod = std::getenv("DEBUGINFOD_URLS");
  if (debuginfod != nullptr && *debuginfod != '\0') return true;
  const internal::ReadOnlyFile in(path);
  Elf64_Ehdr eh{};
  if (!read_elf64_header(in, eh) || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum > 4096 ||
      eh.e_shstrndx >= eh.e_shnum) {
    return true;  // not understood here: addr2line decides
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (!in.read_at(eh.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr))) return true;
  const Elf64_Shdr& names_section = sections[eh.e_shstrndx];
  if (names_section.sh_size > (1u << 20)) return true;
  std::string names(names_section.sh_size, '\0');
  if (!in.read_at(names_section.sh_offset, names.data(), names.size())) return true;
  auto contents = [&](const Elf64_Shdr& sh) {
    std::string bytes(std::min<std::uint64_t>(sh.sh_size, 4096), '\0');
    if (!in.read_at(sh.sh_offset, bytes.data(), bytes.size())) bytes.clear();
    return bytes;
  };
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  for (const Elf64_Shdr& sh : sections) {
    if (sh.sh_name >= names.size()) continue;
    const std::string name = names.c_str() + sh.sh_name;
    if (name == ".debug_info" || name == ".debug_line" || name == ".zdebug_info" ||
        name == ".zdebug_line" || name == ".gnu_debugaltlink") {
      return true;
    }
    if (name == ".gnu_debuglink") {
      const std::string link = contents(sh).c_str();
      if (link.empty() || link.find('/') != std::string::npos) return true;
      for (const std::string& candidate :
           {dir + "/" + link, dir + "/.debug/" + link, "/usr/lib/debug" + dir + "/" + link,
            "/usr/lib/debug/" + link}) {
        if (file_exists(candidate)) return true;
      }
    }
    if (sh.sh_type == SHT_NOTE && name == ".note.gnu.build-id") {
      const std::string note = contents(sh);
      if (note.size() < sizeof(Elf64_Nhdr)) continue;
      Elf64_Nhdr nh{};
      std::memcpy(&nh, note.data(), sizeof nh);
      const std::size_t desc_at = sizeof nh + ((nh.n_namesz + 3) & ~3u);
      if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz < 2 || desc_at + nh.n_descsz > note.size())
        continue;
      std::string id;
      for (std::size_t i = 0; i < nh.n_descsz; ++i) {
        char byte[3];
        std::snprintf(byte, sizeof byte, "%02x", static_cast<unsigned char>(note[desc_at + i]));
        id += byte;
      }
      if (file_exists("/usr/lib/debug/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) +
                      ".debug")) {
        return true;
      }
    }
  }
  return false;
}

// The function holding `vaddr`, or "".
std::string symbol_at(const std::vector<Symbol>& symbols, std::uint64_t vaddr) {
  auto it = std::upper_bound(symbols.begin(), symbols.end(), vaddr,
                             [](std::uint64_t v, const Symbol& s) { return v < s.address; });
  if (it == symbols.begin()) return "";
  --it;
  if (vaddr >= it->address + std::max<std::uint64_t>(it->size, 1)) return "";
  return demangle_if_mangled(it->name.c_str());
}

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Runs `argv` with stdin from `input_path`; returns its stdout ("" on failure).
std::string run_capture(const std::vector<std::string>& args, const std::string& input_path) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return "";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, input_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  std::string text;
  if (rc == 0) {
    char buf[65536];
    for (;;) {
      const ssize_t n = read(out[0], buf, sizeof buf);
      if (n > 0) {
        text.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        break;
      }
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  close(out[0]);
  return text;
}

// The address of the instruction `pc` stands for: a return address points
// past its call, so one byte back lies in the call.
std::uint64_t code_address(const ResolvedPc& pc) {
  return pc.kind == PcKind::kReturnAddress ? pc.vaddr - 1 : pc.vaddr;
}

// "file:line" or "file:line (discriminator N)" or "??:0" / "??:?".
void parse_location(std::string_view text, Frame& f) {
  if (const std::size_t paren = text.find(" ("); paren != std::string_view::npos) {
    text = text.substr(0, paren);
  }
  const std::size_t colon = text.rfind(':');
  const std::string_view file = colon == std::string_view::npos ? text : text.substr(0, colon);
  if (file != "??" && !file.empty()) f.file = std::string(file);
  if (colon != std::string_view::npos)
    f.line = std::atoi(std::string(text.substr(colon + 1)).c_str());
}

}  // namespace

std::string demangle_if_mangled(const char* name) {
  if (std::strncmp(name, "_Z", 2) != 0) return name;
  int status = -1;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string result = status == 0 && out != nullptr ? out : name;
  std::free(out);
  return result;
}

bool runtime_module(const std::string& path) {
  const std::string base = base_name(path);
  for (const char* prefix : {"libc.so", "libstdc++.so", "libgcc_s.so", "ld-linux", "libm.so",
                             "libpthread.so", "libdl.so"}) {
    if (base.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::vector<MapEntry> parse_maps(std::string_view text) {
  std::vector<MapEntry> out;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string line(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    unsigned long long begin = 0, end = 0, offset = 0, inode = 0;
    char perms[8] = {};
    char dev[16] = {};
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %15s %llu %n", &begin, &end, perms, &offset,
                    dev, &inode, &path_at) < 6 ||
        path_at <= 0 || static_cast<std::size_t>(path_at) >= line.size()) {
      continue;
    }
    std::string path = line.substr(static_cast<std::size_t>(path_at));
    if (path.empty() || path[0] != '/') continue;
    if (const std::size_t del = path.rfind(" (deleted)"); del != std::string::npos)
      path.resize(del);
    out.push_back({begin, end, offset, path});
  }
  return out;
}

int Symbolizer::add(const std::vector<MapEntry>& maps, std::uint64_t pc, PcKind kind) {
  std::string module;
  std::uint64_t vaddr = pc;
  const MapEntry* mapping = nullptr;
  for (const MapEntry& m : maps) {
    if (pc >= m.begin && pc < m.end) {
      module = m.path;
      mapping = &m;
      auto it = segments_.find(m.path);
      if (it == segments_.end()) it = segments_.emplace(m.path, load_segments(m.path)).first;
      vaddr = file_offset_to_vaddr(it->second, pc - m.begin + m.offset);
      break;
    }
  }
  const auto key = std::make_tuple(module, vaddr, kind);
  if (auto it = index_.find(key); it != index_.end()) return it->second;
  const int id = static_cast<int>(pcs_.size());
  pcs_.push_back(
      ResolvedPc{module, vaddr, kind, pc, mapping != nullptr ? *mapping : MapEntry{}, {}});
  index_.emplace(key, id);
  return id;
}

void Symbolizer::want_name(int id) {
  wanted_.push_back(id);
}

std::vector<std::vector<Frame>> Addr2lineResolver::frames(
    const std::string& module, const std::vector<std::uint64_t>& addresses) {
  std::vector<std::vector<Frame>> out;
  char input[] = "/tmp/zerolab-addr.XXXXXX";
  const int fd = mkstemp(input);
  if (fd < 0) return out;
  std::string text;
  for (const std::uint64_t address : addresses) text += hex(address) + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  const std::string printed =
      written ? run_capture({program_, "-a", "-f", "-C", "-i", "-e", module}, input) : "";
  unlink(input);
  if (printed.empty()) return out;
  out.resize(addresses.size());
  // Groups: "0x<address>", then (function, location) pairs.
  std::size_t group = 0;
  std::vector<Frame>* current = nullptr;
  std::string_view rest = printed;
  std::vector<std::string> lines;
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    lines.emplace_back(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  for (std::size_t i = 0; i < lines.size();) {
    if (lines[i].rfind("0x", 0) == 0 && group < out.size()) {
      current = &out[group++];
      ++i;
      continue;
    }
    if (current == nullptr || i + 1 >= lines.size()) break;
    Frame f;
    parse_location(lines[i + 1], f);
    if (lines[i] != "??") f.function = lines[i];
    current->push_back(std::move(f));
    i += 2;
  }
  return out;
}

void Symbolizer::resolve(bool full, const std::string& addr2line) {
  Addr2lineResolver lines(addr2line);
  resolve(full, lines);
}

void Symbolizer::resolve(bool full, LineResolver& lines) {
  std::map<std::string, std::vector<int>> by_module;
  for (std::size_t i = resolved_; i < pcs_.size(); ++i) {
    by_module[pcs_[i].module].push_back(static_cast<int>(i));
  }
  resolved_ = pcs_.size();
  for (auto& [module, ids] : by_module) {
    if (!module.empty() && (full || !runtime_module(module)) && may_have_line_info(module)) {
      std::vector<std::uint64_t> addresses;
      addresses.reserve(ids.size());
      for (int id : ids) addresses.push_back(code_address(pcs_[static_cast<std::size_t>(id)]));
      std::vector<std::vector<Frame>> found = lines.frames(module, addresses);
      for (std::size_t k = 0; k < found.size() && k < ids.size(); ++k) {
        for (Frame& f : found[k]) {
          // Only frames placed at a file are kept: without debug
          // information addr2line names the nearest symbol before the
          // address even past that symbol's end (in a stripped binary, an
          // exported function for every static one after it); such a name
          // is dropped for the symbol tables' sized lookup below.
          if (f.file.empty()) continue;
          pcs_[static_cast<std::size_t>(ids[k])].frames.push_back(std::move(f));
        }
      }
    }
    std::vector<Symbol> symbols;
    bool symbols_read = false;
    const bool runtime_unnamed = !full && runtime_module(module);
    for (int id : ids) {
      ResolvedPc& r = pcs_[static_cast<std::size_t>(id)];
      if (!r.frames.empty() && !r.frames.front().function.empty()) continue;
      const bool wanted = std::find(wanted_.begin(), wanted_.end(), id) != wanted_.end();
      const bool lookup = !module.empty() && (!runtime_unnamed || wanted);
      if (lookup && !symbols_read) {
        symbols = read_function_symbols(module);
        symbols_read = true;
      }
      std::string name = lookup ? symbol_at(symbols, code_address(r)) : std::string();
      if (name.empty())
        name = (module.empty() ? std::string("?") : base_name(module)) + "+" + hex(r.vaddr);
      if (r.frames.empty()) r.frames.push_back(Frame{});
      for (Frame& f : r.frames) {
        if (f.function.empty()) f.function = name;
      }
    }
  }
}

}  // namespace zerolab::internal::profile
