// `zerolab waste`'s program checks (cmd_waste_program.hpp).
#include "waste/program.hpp"

#include "files/executable_directory.hpp"
#include "files/read_only_file.hpp"
#include "waste/flags.hpp"

#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef ZEROLAB_WASTE_LIBDIR_FROM_BINDIR
#define ZEROLAB_WASTE_LIBDIR_FROM_BINDIR "../lib"
#endif

namespace zerolab::waste {
namespace {

bool executable_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string quoted(const std::string& s) {
  return quote_arg(s);
}

struct ElfFacts {
  bool elf = false;
  bool dynamic = false;  // has PT_INTERP
  std::vector<std::string> needed;
};

// Reads the program headers and the DT_NEEDED names of a 64-bit ELF file.
ElfFacts read_elf(const std::string& path) {
  ElfFacts facts;
  const internal::ReadOnlyFile in(path);
  Elf64_Ehdr eh{};
  if (!in.read_at(0, &eh, sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    return facts;
  }
  facts.elf = true;
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
      eh.e_phnum > 512) {
    return facts;
  }
  std::vector<Elf64_Phdr> phdrs(eh.e_phnum);
  if (!in.read_at(eh.e_phoff, phdrs.data(), phdrs.size() * sizeof(Elf64_Phdr))) return facts;
  const Elf64_Phdr* dynamic = nullptr;
  for (const Elf64_Phdr& ph : phdrs) {
    if (ph.p_type == PT_INTERP) facts.dynamic = true;
    if (ph.p_type == PT_DYNAMIC) dynamic = &ph;
  }
  if (dynamic == nullptr || dynamic->p_filesz > (1 << 20)) return facts;
  std::vector<Elf64_Dyn> dyn(dynamic->p_filesz / sizeof(Elf64_Dyn));
  if (!in.read_at(dynamic->p_offset, dyn.data(), dyn.size() * sizeof(Elf64_Dyn))) return facts;
  std::uint64_t strtab = 0;
  for (const Elf64_Dyn& d : dyn) {
    if (d.d_tag == DT_STRTAB) strtab = d.d_un.d_ptr;
  }
  std::uint64_t strtab_offset = 0;
  bool found = false;
  for (const Elf64_Phdr& ph : phdrs) {
    if (ph.p_type == PT_LOAD && strtab >= ph.p_vaddr && strtab < ph.p_vaddr + ph.p_filesz) {
      strtab_offset = strtab - ph.p_vaddr + ph.p_offset;
      found = true;
    }
  }
  if (!found) return facts;
  for (const Elf64_Dyn& d : dyn) {
    if (d.d_tag == DT_NEEDED)
      facts.needed.push_back(in.string_at(strtab_offset + d.d_un.d_val, 4096));
  }
  return facts;
}

bool check_at_depth(const std::string& path, std::string& error, int depth) {
  const std::string head = internal::ReadOnlyFile(path).bytes_at(0, 4096);
  if (head.size() >= 2 && head[0] == '#' && head[1] == '!') {
    const std::string line = head.substr(2, head.find('\n') - 2);
    std::size_t at = line.find_first_not_of(" \t");
    if (at == std::string::npos || depth > 3) {
      error = "program " + quoted(path) + ": a #! line without an interpreter";
      return false;
    }
    std::size_t end = line.find_first_of(" \t", at);
    std::string interpreter =
        line.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (interpreter.size() >= 4 && interpreter.compare(interpreter.size() - 4, 4, "/env") == 0 &&
        end != std::string::npos) {
      at = line.find_first_not_of(" \t", end);
      if (at != std::string::npos) {
        end = line.find_first_of(" \t", at);
        const std::string name =
            line.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (name.rfind('-', 0) != 0) {
          std::string resolved;
          if (!find_program(name, resolved, error)) return false;
          interpreter = resolved;
        }
      }
    }
    if (!executable_file(interpreter)) {
      error = "program " + quoted(path) + ": its interpreter " + quoted(interpreter) +
              " does not exist or is not executable";
      return false;
    }
    return check_at_depth(interpreter, error, depth + 1);
  }
  const ElfFacts facts = read_elf(path);
  if (!facts.elf) {
    error = "program " + quoted(path) + " is neither an ELF executable nor a #! script";
    return false;
  }
  if (!facts.dynamic) {
    error = "program " + quoted(path) +
            " is statically linked: the preload library needs the dynamic loader (LD_PRELOAD), so "
            "zerolab waste cannot look inside it";
    return false;
  }
  for (const std::string& lib : facts.needed) {
    if (lib.rfind("libasan.so", 0) == 0 || lib.rfind("libtsan.so", 0) == 0) {
      error = "program " + quoted(path) + " is built with " + lib.substr(3, 4) + " (needs " + lib +
              "), whose runtime must be loaded first: run zerolab waste on a "
              "build without sanitizers";
      return false;
    }
  }
  return true;
}

}  // namespace

bool find_program(const std::string& name, std::string& path, std::string& error) {
  if (name.empty()) {
    error = "empty program name";
    return false;
  }
  if (name.find('/') != std::string::npos) {
    struct stat st {};
    if (stat(name.c_str(), &st) != 0) {
      error = "program " + quoted(name) + ": " + std::strerror(errno);
      return false;
    }
    if (!S_ISREG(st.st_mode) || access(name.c_str(), X_OK) != 0) {
      error = "program " + quoted(name) + " is not an executable file";
      return false;
    }
    path = name;
    return true;
  }
  const char* env = std::getenv("PATH");
  const std::string search = env != nullptr ? env : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= search.size()) {
    std::size_t colon = search.find(':', start);
    if (colon == std::string::npos) colon = search.size();
    std::string dir = search.substr(start, colon - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + name;
    if (executable_file(candidate)) {
      path = candidate;
      return true;
    }
    start = colon + 1;
  }
  error = "program " + quoted(name) + " not found on PATH";
  return false;
}

bool check_program(const std::string& path, std::string& error) {
  return check_at_depth(path, error, 0);
}

bool find_preload(std::string& path, std::string& error) {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("ZEROLAB_WASTE_PRELOAD"); env != nullptr && *env != '\0') {
    candidates.emplace_back(env);
  } else {
    if (const std::string dir = internal::executable_directory(); !dir.empty()) {
      candidates.push_back(dir + "/libzerolab_waste.so");
      candidates.push_back(dir + "/" ZEROLAB_WASTE_LIBDIR_FROM_BINDIR "/libzerolab_waste.so");
    }
  }
  for (const std::string& c : candidates) {
    char real[PATH_MAX];
    if (realpath(c.c_str(), real) != nullptr && access(real, R_OK) == 0) {
      path = real;
      return true;
    }
  }
  error = "the preload library libzerolab_waste.so is not installed beside zerolab (looked in " +
          (candidates.empty() ? std::string("nowhere") : candidates.front()) +
          "); set ZEROLAB_WASTE_PRELOAD to its path";
  return false;
}

}  // namespace zerolab::waste
