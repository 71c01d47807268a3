// The libdw line resolver (libdw_lines.hpp).
#include "profile/libdw/libdw_lines.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <gelf.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

namespace zerolab::internal::profile {
namespace {

// elfutils' default search path for separate debug files ("" beside the
// file, its .debug directory, /usr/lib/debug), as a null pointer asks.
char* g_debuginfo_path = nullptr;

const Dwfl_Callbacks kOfflineCallbacks = {
    dwfl_build_id_find_elf,
    dwfl_standard_find_debuginfo,
    dwfl_offline_section_address,
    &g_debuginfo_path,
};

// Owns one Dwfl: the libdw handle a module is reported into and read through, ended with it.
struct OwnedDwfl {
  Dwfl* dwfl = dwfl_begin(&kOfflineCallbacks);
  OwnedDwfl() = default;
  OwnedDwfl(const OwnedDwfl&) = delete;
  OwnedDwfl& operator=(const OwnedDwfl&) = delete;
  ~OwnedDwfl() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }
};

bool is_function(Dwarf_Die* die) {
  const int tag = dwarf_tag(die);
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point;
}

// A string attribute of `die` or of what its abstract origin or
// specification chain names; nullptr if none.
const char* string_attribute(Dwarf_Die* die, unsigned int name) {
  Dwarf_Attribute attr;
  if (dwarf_attr_integrate(die, name, &attr) == nullptr) return nullptr;
  return dwarf_formstring(&attr);
}

const char* linkage_name(Dwarf_Die* die) {
  const char* name = string_attribute(die, DW_AT_linkage_name);
  return name != nullptr ? name : string_attribute(die, DW_AT_MIPS_linkage_name);
}

// A function symbol of the module's ELF file.
struct Symbol {
  GElf_Addr address;
  GElf_Xword size;
  std::string name;
};

// The function symbols of `elf` (.symtab, else .dynsym), sorted by address.
std::vector<Symbol> function_symbols(Elf* elf) {
  std::vector<Symbol> out;
  Elf_Scn* table = nullptr;
  GElf_Shdr table_header{};
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr) continue;
    if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && table == nullptr)) {
      if (table != nullptr && table_header.sh_type == SHT_SYMTAB) continue;
      table = scn;
      table_header = sh;
    }
  }
  if (table == nullptr || table_header.sh_entsize == 0) return out;
  Elf_Data* data = elf_getdata(table, nullptr);
  if (data == nullptr) return out;
  const std::size_t count = table_header.sh_size / table_header.sh_entsize;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Sym sym;
    if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
    const int type = GELF_ST_TYPE(sym.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
        sym.st_value == 0) {
      continue;
    }
    const char* name = elf_strptr(elf, table_header.sh_link, sym.st_name);
    if (name != nullptr) out.push_back({sym.st_value, sym.st_size, name});
  }
  std::sort(out.begin(), out.end(), [](const Symbol& a, const Symbol& b) {
    return a.address != b.address ? a.address < b.address : a.size < b.size;
  });
  return out;
}

// The symbol addr2line takes for `address`: the nearest function symbol at
// or before it (of those at one address, the largest); nullptr if none.
const Symbol* symbol_before(const std::vector<Symbol>& symbols, GElf_Addr address) {
  auto it = std::upper_bound(symbols.begin(), symbols.end(), address,
                             [](GElf_Addr a, const Symbol& s) { return a < s.address; });
  return it == symbols.begin() ? nullptr : &*std::prev(it);
}

// The start of `die`'s first non-empty range (addr2line's "start" of a
// function); 0 if it has none.
Dwarf_Addr first_range_start(Dwarf_Die* die) {
  Dwarf_Addr base = 0;
  Dwarf_Addr start = 0;
  Dwarf_Addr end = 0;
  for (ptrdiff_t at = 0; (at = dwarf_ranges(die, at, &base, &start, &end)) > 0;) {
    if (start < end) return start;
  }
  return 0;
}

// Languages whose DWARF names are the names as linked (binutils' list).
bool names_unmangled(Dwarf_Die* cu) {
  switch (dwarf_srclang(cu)) {
    case DW_LANG_C89:
    case DW_LANG_C:
    case DW_LANG_Ada83:
    case DW_LANG_Cobol74:
    case DW_LANG_Cobol85:
    case DW_LANG_Fortran77:
    case DW_LANG_Pascal83:
    case DW_LANG_C99:
    case DW_LANG_Ada95:
    case DW_LANG_PLI:
    case DW_LANG_UPC:
    case DW_LANG_C11:
    case DW_LANG_Mips_Assembler:
      return true;
    default:
      return false;
  }
}

// One module's names as addr2line gives them. A function is named by its
// DWARF linkage name, or in a C (or other unmangled language's) CU by its
// DW_AT_name. Any other (a static C++ function, a lambda) is named, the
// first time it is the innermost frame of an address, by the ELF symbol at
// or before that address (a static function's qualified name and
// parameters; a ".cold" part's own symbol; for a function inlined into
// another, the other's symbol); if that symbol starts where the function's
// first range does, the function keeps that name from then on, as a caller
// too; otherwise later lookups give its DW_AT_name. So, as in one addr2line
// run, the addresses are named in the order given.
class Names {
 public:
  Names(Elf* elf, Dwarf_Addr dwarf_to_elf) : elf_(elf), dwarf_to_elf_(dwarf_to_elf) {}

  std::string innermost(Dwarf_Die* cu, Dwarf_Die* die, Dwarf_Addr pc) {
    if (const char* name = linkage_name(die); name != nullptr) return demangle_if_mangled(name);
    if (names_unmangled(cu)) return plain_name(die);
    const Dwarf_Off key = dwarf_dieoffset(die);
    if (auto it = settled_.find(key); it != settled_.end()) return it->second;
    if (!symbols_read_) {
      symbols_ = function_symbols(elf_);
      symbols_read_ = true;
    }
    const Symbol* sym = symbol_before(symbols_, pc + dwarf_to_elf_);
    if (sym == nullptr) {
      settled_.emplace(key, plain_name(die));
      return plain_name(die);
    }
    std::string named = demangle_if_mangled(sym->name.c_str());
    settled_.emplace(
        key, sym->address == first_range_start(die) + dwarf_to_elf_ ? named : plain_name(die));
    return named;
  }

  // An address in no function of its CU (padding after one): the symbol
  // at or before it, "" if none.
  std::string outside_functions(Dwarf_Addr pc) {
    if (!symbols_read_) {
      symbols_ = function_symbols(elf_);
      symbols_read_ = true;
    }
    const Symbol* sym = symbol_before(symbols_, pc + dwarf_to_elf_);
    return sym == nullptr ? std::string() : demangle_if_mangled(sym->name.c_str());
  }

  std::string caller(Dwarf_Die* die) {
    if (const char* name = linkage_name(die); name != nullptr) return demangle_if_mangled(name);
    if (auto it = settled_.find(dwarf_dieoffset(die)); it != settled_.end()) return it->second;
    return plain_name(die);
  }

 private:
  static std::string plain_name(Dwarf_Die* die) {
    const char* name = string_attribute(die, DW_AT_name);
    return name == nullptr ? std::string() : demangle_if_mangled(name);
  }

  Elf* elf_;
  Dwarf_Addr dwarf_to_elf_;
  std::vector<Symbol> symbols_;
  bool symbols_read_ = false;
  std::map<Dwarf_Off, std::string> settled_;
};

// `path` from the CU's line table; a relative one (its directory entry
// relative too) is taken from the compilation directory, as addr2line does.
std::string source_path(Dwarf_Die* cu, const char* path) {
  if (path[0] == '/') return path;
  Dwarf_Attribute attr;
  const char* dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
  return dir == nullptr ? std::string(path) : std::string(dir) + "/" + path;
}

// The call site of the inlined subroutine `die`, from its CU's file table.
void call_site(Dwarf_Die* die, Dwarf_Die* cu, Frame& f) {
  Dwarf_Attribute attr;
  Dwarf_Word file = 0;
  Dwarf_Word line = 0;
  if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &file) != 0) return;
  if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &line) == 0 && line <= 0x7fffffff)
    f.line = static_cast<int>(line);
  Dwarf_Files* files = nullptr;
  std::size_t count = 0;
  if (dwarf_getsrcfiles(cu, &files, &count) != 0 || file >= count) return;
  if (const char* path = dwarf_filesrc(files, file, nullptr, nullptr); path != nullptr)
    f.file = source_path(cu, path);
}

// Appends to `path` the DIEs under `parent` whose code holds `pc`, each
// inside the one before: functions (concrete and inlined instances) and
// blocks, looked for inside namespaces and types too. (dwarf_getscopes
// stops at the first inlined instance and, on some split hot/cold
// functions, finds nothing.)
void scopes_holding(Dwarf_Die* parent, Dwarf_Addr pc, int depth, std::vector<Dwarf_Die>& path) {
  if (depth > 64) return;  // deeper nesting is malformed DWARF
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return;
  do {
    switch (dwarf_tag(&child)) {
      case DW_TAG_subprogram:
      case DW_TAG_inlined_subroutine:
      case DW_TAG_entry_point:
      case DW_TAG_lexical_block:
      case DW_TAG_try_block:
      case DW_TAG_catch_block:
        if (dwarf_haspc(&child, pc) == 1) {
          path.push_back(child);
          scopes_holding(&child, pc, depth + 1, path);
          return;
        }
        break;
      case DW_TAG_namespace:
      case DW_TAG_class_type:
      case DW_TAG_structure_type:
      case DW_TAG_union_type:
      case DW_TAG_module: {
        const std::size_t before = path.size();
        scopes_holding(&child, pc, depth + 1, path);
        if (path.size() != before) return;
        break;
      }
      default:
        break;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

// The code ranges of a CU's functions (concrete subprograms and entry
// points, wherever they are declared: a lambda's operator() sits inside
// the function that holds the lambda, its code outside that function's).
struct FunctionRange {
  Dwarf_Addr begin;
  Dwarf_Addr end;
  Dwarf_Die die;
};

void collect_functions(Dwarf_Die* parent, int depth, std::vector<FunctionRange>& out) {
  if (depth > 64) return;  // deeper nesting is malformed DWARF
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return;
  do {
    switch (dwarf_tag(&child)) {
      case DW_TAG_subprogram:
      case DW_TAG_entry_point: {
        Dwarf_Addr base = 0;
        Dwarf_Addr begin = 0;
        Dwarf_Addr end = 0;
        for (ptrdiff_t at = 0; (at = dwarf_ranges(&child, at, &base, &begin, &end)) > 0;)
          out.push_back({begin, end, child});
        collect_functions(&child, depth + 1, out);
        break;
      }
      case DW_TAG_namespace:
      case DW_TAG_class_type:
      case DW_TAG_structure_type:
      case DW_TAG_union_type:
      case DW_TAG_module:
      case DW_TAG_lexical_block:
        collect_functions(&child, depth + 1, out);
        break;
      default:
        break;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

// The frames of DWARF address `pc` in the CU `cu`, innermost first.
std::vector<Frame> frames_at(Dwarf_Die* cu, const std::vector<FunctionRange>& functions,
                             Dwarf_Addr pc, Names& names) {
  std::vector<Frame> out;
  Frame innermost;
  if (Dwarf_Line* row = dwarf_getsrc_die(cu, pc); row != nullptr) {
    if (const char* path = dwarf_linesrc(row, nullptr, nullptr); path != nullptr)
      innermost.file = source_path(cu, path);
    int line = 0;
    if (dwarf_lineno(row, &line) == 0) innermost.line = line;
  } else if (const char* name = dwarf_diename(cu); name != nullptr) {
    innermost.file = name;  // in the CU, in no row: addr2line names the CU's file
  }
  std::vector<Dwarf_Die> path;  // outermost first
  const FunctionRange* holder = nullptr;
  for (const FunctionRange& f : functions) {
    if (pc >= f.begin && pc < f.end &&
        (holder == nullptr || f.end - f.begin < holder->end - holder->begin))
      holder = &f;
  }
  if (holder != nullptr) {
    Dwarf_Die top = holder->die;
    path.push_back(top);
    scopes_holding(&top, pc, 0, path);
  }
  Frame next = std::move(innermost);  // where the next function found is
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    Dwarf_Die* die = &*it;
    if (!is_function(die)) continue;
    next.function = out.empty() ? names.innermost(cu, die, pc) : names.caller(die);
    out.push_back(std::move(next));
    next = Frame{};
    if (dwarf_tag(die) != DW_TAG_inlined_subroutine) break;
    // The function this one was inlined into is at its call site.
    call_site(die, cu, next);
  }
  if (out.empty()) {
    next.function = names.outside_functions(pc);
    out.push_back(std::move(next));
  }
  return out;
}

}  // namespace

std::vector<std::vector<Frame>> LibdwResolver::frames(const std::string& module,
                                                      const std::vector<std::uint64_t>& addresses) {
  std::vector<std::vector<Frame>> out;
  OwnedDwfl handle;
  if (handle.dwfl == nullptr) return out;
  Dwfl_Module* mod = dwfl_report_offline(handle.dwfl, module.c_str(), module.c_str(), -1);
  if (dwfl_report_end(handle.dwfl, nullptr, nullptr) != 0 || mod == nullptr) return out;
  Dwarf_Addr elf_bias = 0;
  Elf* elf = dwfl_module_getelf(mod, &elf_bias);
  if (elf == nullptr) return out;
  Dwarf_Addr dwarf_bias = 0;
  Dwarf* dwarf = dwfl_module_getdwarf(mod, &dwarf_bias);
  if (dwarf == nullptr) return out;
  // ELF address + elf_bias = Dwfl address = DWARF address + dwarf_bias.
  Names names(elf, dwarf_bias - elf_bias);
  out.resize(addresses.size());
  std::map<Dwarf_Off, std::vector<FunctionRange>> functions;  // per CU, read once
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    const Dwarf_Addr pc = addresses[i] + elf_bias - dwarf_bias;
    // The CU whose ranges hold the address (.debug_aranges, else each
    // CU's ranges); none: the address has no line information.
    Dwarf_Die cu;
    if (dwarf_addrdie(dwarf, pc, &cu) == nullptr || dwarf_haspc(&cu, pc) != 1) continue;
    auto it = functions.find(dwarf_dieoffset(&cu));
    if (it == functions.end()) {
      it = functions.emplace(dwarf_dieoffset(&cu), std::vector<FunctionRange>()).first;
      collect_functions(&cu, 0, it->second);
    }
    out[i] = frames_at(&cu, it->second, pc, names);
  }
  return out;
}

}  // namespace zerolab::internal::profile
