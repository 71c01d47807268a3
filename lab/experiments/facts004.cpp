// Seed 004's facts, decided from observations (facts004.hpp).
#include "lab/experiments/facts004.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace zerolab::lab::facts004 {
namespace {

std::string hex_bytes(const unsigned char* p, std::size_t n) {
  std::string out;
  char byte[4];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(byte, sizeof byte, i == 0 ? "%02X" : " %02X", p[i]);
    out += byte;
  }
  return out;
}

bool all_equal(const unsigned char* p, std::size_t n, unsigned char value) {
  return std::all_of(p, p + n, [value](unsigned char c) { return c == value; });
}

std::string ms(double ns) {
  char text[32];
  std::snprintf(text, sizeof text, ns < 1e6 ? "%.3f" : "%.1f", ns / 1e6);
  return text;
}

}  // namespace

FactResult stack_frame_shows_old_bytes(bool same_frame, const unsigned char* seen, std::size_t n) {
  FactResult r;
  r.holds = same_frame && n > 0 && all_equal(seen, n, 0xAA);
  r.observed = std::string(same_frame ? "same frame" : "a different frame") +
               "; the unwritten array holds " + hex_bytes(seen, std::min<std::size_t>(n, 8)) +
               " ...";
  return r;
}

FactResult freed_block_keeps_old_bytes(bool same_block, const unsigned char* seen, std::size_t n) {
  FactResult r;
  r.holds = same_block && n > 0 && all_equal(seen, n, 0xBB);
  r.observed =
      std::string(same_block ? "the same block came back" : "a different block came back") +
      "; bytes 16..27: " + hex_bytes(seen, std::min<std::size_t>(n, 12));
  return r;
}

std::string LargeBlock::describe() const {
  std::string s = nonzero == 0 ? "zero"
                               : std::to_string(nonzero) + " non-zero bytes (first at offset " +
                                     std::to_string(first_nonzero) + ")";
  return s + (mmapped ? ", from mmap" : ", from the heap (brk)");
}

FactResult large_block_is_zero(const LargeBlock& block, const std::string& label) {
  FactResult r;
  r.holds = block.ok && block.nonzero == 0;
  r.observed = block.ok ? label + ": " + block.describe() : label + ": malloc failed";
  if (block.ok && block.nonzero != 0 && !block.mmapped) {
    r.observed += ": the heap top had been used by this process's earlier small allocations";
  }
  return r;
}

bool parse_dirty_stack(const std::string& output, DirtyStack& out, std::string& error) {
  std::istringstream lines(output);
  const char* labels[] = {"first", "after-fill"};
  std::string* addresses[] = {&out.first_address, &out.after_address};
  std::vector<unsigned char>* bytes[] = {&out.first, &out.after};
  for (int i = 0; i < 2; ++i) {
    std::string line;
    if (!std::getline(lines, line)) {
      error = "dirty_stack printed " + std::to_string(i) + " lines, want 2";
      return false;
    }
    std::istringstream fields(line);
    std::string label;
    fields >> label >> *addresses[i];
    if (label != labels[i] || addresses[i]->rfind("0x", 0) != 0) {
      error = "dirty_stack line " + std::to_string(i + 1) + ": want \"" + labels[i] +
              " 0x<address> <64 bytes>\", got \"" + line + "\"";
      return false;
    }
    bytes[i]->clear();
    std::string hex;
    while (fields >> hex) {
      char* end = nullptr;
      const unsigned long v = std::strtoul(hex.c_str(), &end, 16);
      if (hex.size() != 2 || *end != '\0' || v > 0xFF) {
        error = "dirty_stack line " + std::to_string(i + 1) + ": \"" + hex + "\" is not a byte";
        return false;
      }
      bytes[i]->push_back(static_cast<unsigned char>(v));
    }
    if (bytes[i]->size() != 64) {
      error = "dirty_stack line " + std::to_string(i + 1) + ": " +
              std::to_string(bytes[i]->size()) + " bytes, want 64";
      return false;
    }
  }
  return true;
}

FactResult unwritten_stack_is_zero(const DirtyStack& run) {
  FactResult r;
  const std::size_t n = run.first.size();
  const auto nonzero = static_cast<std::size_t>(
      std::count_if(run.first.begin(), run.first.end(), [](unsigned char c) { return c != 0; }));
  r.holds = n > 0 && nonzero == 0;
  r.observed =
      "the first call's unwritten " + std::to_string(n) + "-byte array: " +
      (nonzero == 0 ? std::string("all zero")
                    : std::to_string(nonzero) + " non-zero bytes, " +
                          hex_bytes(run.first.data(), std::min<std::size_t>(n, 8)) + " ...") +
      "; after the 0xAA call the same frame (" +
      (run.first_address == run.after_address ? "same address" : "another address") + ") holds " +
      hex_bytes(run.after.data(), std::min<std::size_t>(run.after.size(), 4)) + " ...";
  return r;
}

FactResult anonymous_mmap_seen(const std::string& strace_output, std::uint64_t bytes) {
  static const std::string kCall = "mmap(NULL, ";
  static const std::string kRest = ", PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x";
  std::istringstream lines(strace_output);
  std::string line;
  std::size_t anonymous = 0;
  FactResult r;
  while (std::getline(lines, line)) {
    const std::size_t at = line.find(kCall);
    if (at == std::string::npos) continue;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(line.c_str() + at + kCall.size(), &end, 10);
    const auto rest = static_cast<std::size_t>(end - line.c_str());
    if (rest == at + kCall.size() || line.compare(rest, kRest.size(), kRest) != 0) {
      continue;
    }
    ++anonymous;
    if (n >= bytes && !r.holds) {
      r.holds = true;
      r.observed = line.substr(at);
    }
  }
  r.observed =
      r.holds
          ? std::to_string(anonymous) + " anonymous private read-write mmaps; " + r.observed
          : std::to_string(anonymous) + " anonymous private read-write mmaps, none of at least " +
                std::to_string(bytes) + " bytes";
  return r;
}

bool parse_heap_dirty(const std::string& output, HeapDirty& out, std::string& error) {
  std::istringstream lines(output);
  std::string line;
  const char* labels[] = {"small-first", "small-after-free", "large-first", "large-after-free"};
  HeapBlock* blocks[] = {&out.small_first, &out.small_after_free, &out.large_first,
                         &out.large_after_free};
  int line_no = 0;
  for (int i = 0; i < 4; ++i) {
    if (!std::getline(lines, line)) {
      error = "heap_dirty printed " + std::to_string(i) + " lines, want 4";
      return false;
    }
    ++line_no;
    std::istringstream in(line);
    std::string label;
    int mmapped = -1;
    HeapBlock& b = *blocks[i];
    in >> label >> b.address >> mmapped >> b.block.nonzero >> b.block.first_nonzero;
    if (label != labels[i] || !in || (mmapped != 0 && mmapped != 1)) {
      error = "heap_dirty line " + std::to_string(line_no) + ": want \"" + labels[i] +
              " ADDRESS 0|1 NONZERO FIRST BYTES...\", got \"" + line + "\"";
      return false;
    }
    b.block.ok = true;
    b.block.mmapped = mmapped == 1;
    b.bytes_16_63.clear();
    std::string hex;
    while (in >> hex) {
      char* end = nullptr;
      const unsigned long v = std::strtoul(hex.c_str(), &end, 16);
      if (hex.size() != 2 || *end != '\0' || v > 0xFF) {
        error = "heap_dirty line " + std::to_string(line_no) + ": byte \"" + hex + "\" is not hex";
        return false;
      }
      b.bytes_16_63.push_back(static_cast<unsigned char>(v));
    }
    if (b.bytes_16_63.size() != 48) {
      error = "heap_dirty line " + std::to_string(line_no) + ": " +
              std::to_string(b.bytes_16_63.size()) + " bytes, want 48";
      return false;
    }
  }
  return true;
}

FactResult zeros_cost_no_file(const BssProbes& p) {
  FactResult r;
  const auto extra = static_cast<long long>(p.zeroed) - static_cast<long long>(p.empty);
  const std::uint64_t promised =
      p.zeroed_rw_memsz > p.zeroed_rw_filesz ? p.zeroed_rw_memsz - p.zeroed_rw_filesz : 0;
  r.holds = p.empty > 0 && extra >= 0 && extra < 4096 && promised >= (std::uint64_t{64} << 20);
  r.observed = "a 64 MiB zeroed static: " + std::to_string(extra) +
               " bytes more file than the empty program; its RW segment asks for " +
               std::to_string(promised >> 20) + " MiB more in memory than in the file";
  return r;
}

FactResult nonzero_static_costs_file(const BssProbes& p) {
  FactResult r;
  const auto extra = static_cast<long long>(p.with_static) - static_cast<long long>(p.empty);
  r.holds = p.empty > 0 && extra >= (4LL << 20);
  char text[96];
  std::snprintf(text, sizeof text,
                "a 4 MiB static {1, 2, 3}: %.2f MiB more file than the empty program",
                static_cast<double>(extra) / (1 << 20));
  r.observed = text;
  return r;
}

std::string classify_zeroing(const std::string& disassembly) {
  int vector_stores = 0;
  int scalar_zero_stores = 0;
  bool rep_stos = false;
  bool memset_call = false;
  std::size_t start = 0;
  while (start < disassembly.size()) {
    std::size_t end = disassembly.find('\n', start);
    if (end == std::string::npos) end = disassembly.size();
    const std::string l = disassembly.substr(start, end - start);
    start = end + 1;
    if (l.find("rep stos") != std::string::npos) rep_stos = true;
    if (l.find("memset") != std::string::npos && l.find("call") != std::string::npos) {
      memset_call = true;
    }
    const bool vector_move =
        l.find("movups") != std::string::npos || l.find("movaps") != std::string::npos ||
        l.find("movdqa") != std::string::npos || l.find("movdqu") != std::string::npos;
    // A store: the memory operand is the destination (after the comma).
    const auto comma = l.rfind(',');
    if (vector_move && comma != std::string::npos && l.find("(%r", comma) != std::string::npos) {
      ++vector_stores;
    }
    if (l.find("movq   $0x0,") != std::string::npos) ++scalar_zero_stores;
  }
  if (memset_call) return "memset call";
  if (rep_stos) return "rep stos";
  if (vector_stores > 0) return std::to_string(vector_stores) + " vector stores";
  if (scalar_zero_stores > 0) return std::to_string(scalar_zero_stores) + " movq $0 stores";
  return "no zeroing seen";
}

FactResult frame_zeroing_pattern(const std::string& z64, const std::string& z1k,
                                 const std::string& z8k) {
  FactResult r;
  r.observed = "g++: 64 B " + z64 + ", 1 KiB " + z1k + ", 8 KiB " + z8k;
  r.holds = z64.find("stores") != std::string::npos && (z8k == "rep stos" || z8k == "memset call");
  return r;
}

FactResult fresh_allocations_are_free(const std::vector<double>& ns, std::uint64_t zeroed_mib,
                                      std::uint64_t skipped_mib) {
  FactResult r;
  if (ns.size() != 7) {
    r.observed = "expected 7 allocation times, got " + std::to_string(ns.size());
    return r;
  }
  const double steady = *std::min_element(ns.begin() + 3, ns.end());
  r.holds = ns[0] * 28 <= steady && ns[1] * 28 <= steady;
  r.observed = "ms per step:";
  for (const double t : ns) r.observed += " " + ms(t);
  r.observed += "; zeroed " + std::to_string(zeroed_mib) + " MiB, skipped " +
                std::to_string(skipped_mib) + " MiB";
  return r;
}

std::string PltCalls::describe() const {
  return std::to_string(malloc) + " malloc, " + std::to_string(calloc) + " calloc, " +
         std::to_string(memset) + " memset";
}

PltCalls count_plt_calls(const std::string& disassembly) {
  PltCalls c;
  const auto count = [&](const std::string& what) {
    int n = 0;
    for (std::size_t at = disassembly.find(what); at != std::string::npos;
         at = disassembly.find(what, at + what.size())) {
      ++n;
    }
    return n;
  };
  c.malloc = count("<malloc@plt>");
  c.calloc = count("<calloc@plt>");
  c.memset = count("<memset@plt>");
  return c;
}

FactResult malloc_memset_became_calloc(const PltCalls& pair) {
  return {pair.calloc > 0 && pair.malloc == 0 && pair.memset == 0,
          "gcc -O2 of malloc + memset(0): " + pair.describe() + " through the PLT"};
}

FactResult barrier_keeps_malloc_memset(const PltCalls& with_barrier) {
  return {with_barrier.malloc > 0 && with_barrier.memset > 0 && with_barrier.calloc == 0,
          "gcc -O2 of malloc, OPAQUE, memset(0): " + with_barrier.describe() + " through the PLT"};
}

}  // namespace zerolab::lab::facts004
