// Experiment `zero-cost` (seed 004, "Сколько стоит обнуление", the C
// table): what a gigabyte of zeros costs depending on who writes them and
// whether the pages exist yet — calloc, the first read pass and the first
// write pass over fresh anonymous memory, malloc+memset on fresh memory,
// memset over resident memory; and the .bss fact (zero-initialized statics
// take no room in the file).
//
// The passes touch one byte per 4 KiB page (the cost is the page faults and
// the kernel's zeroing, not our loop), over memory mapped fresh for every
// iteration and held to 4 KiB pages with MADV_NOHUGEPAGE so the per-page
// figures hold whatever the THP mode.
//
// Example:
//   zerolab lab zero-cost
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lab/experiment.hpp"

namespace zerolab::lab {
namespace {

constexpr std::size_t kGiB = std::size_t{1} << 30;
constexpr std::size_t kPage = 4096;
constexpr double kPages = static_cast<double>(kGiB / kPage);

// A 64 MiB zero-initialized static: it lives in .bss, which has a size in
// memory and none in the file.
constexpr std::size_t kBssSize = std::size_t{64} << 20;
alignas(4096) unsigned char g_zero_bss[kBssSize];

template <class T>
inline T* opaque(T* p) {
  asm volatile("" : "+r"(p) : : "memory");
  return p;
}

// Fresh anonymous memory on 4 KiB pages, or a fatal error.
unsigned char* map_fresh(B& b) {
  void* p = mmap(nullptr, kGiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) b.fatal("mmap of 1 GiB failed: " + std::string(std::strerror(errno)));
  madvise(p, kGiB, MADV_NOHUGEPAGE);
  return static_cast<unsigned char*>(p);
}

void report_gibps(B& b) {
  const double sec_per_op = static_cast<double>(b.elapsed().count()) / 1e9 /
                            static_cast<double>(b.n() > 0 ? b.n() : 1);
  if (sec_per_op > 0) b.report_metric(static_cast<double>(kGiB) / (1 << 30) / sec_per_op, "GiB/s");
}

void calloc_1gib(B& b) {
  for (std::int64_t i = 0; i < b.n(); ++i) {
    void* p = opaque(std::calloc(1, kGiB));
    b.stop_timer();
    if (p == nullptr) b.fatal("calloc of 1 GiB failed");
    std::free(p);
    b.start_timer();
  }
}

void first_read_pass(B& b) {
  for (std::int64_t i = 0; i < b.n(); ++i) {
    b.stop_timer();
    unsigned char* p = map_fresh(b);
    b.start_timer();
    unsigned sum = 0;
    for (std::size_t off = 0; off < kGiB; off += kPage) sum += *static_cast<volatile unsigned char*>(p + off);
    do_not_optimize(sum);
    b.stop_timer();
    munmap(p, kGiB);
    b.start_timer();
  }
  report_gibps(b);
}

void first_write_pass(B& b) {
  for (std::int64_t i = 0; i < b.n(); ++i) {
    b.stop_timer();
    unsigned char* p = map_fresh(b);
    b.start_timer();
    for (std::size_t off = 0; off < kGiB; off += kPage) *static_cast<volatile unsigned char*>(p + off) = 1;
    b.stop_timer();
    munmap(p, kGiB);
    b.start_timer();
  }
  report_gibps(b);
}

void malloc_memset_fresh(B& b) {
  for (std::int64_t i = 0; i < b.n(); ++i) {
    unsigned char* p = opaque(static_cast<unsigned char*>(std::malloc(kGiB)));
    if (p == nullptr) b.fatal("malloc of 1 GiB failed");
    std::memset(p, 0, kGiB);
    do_not_optimize(p);
    b.stop_timer();
    std::free(p);
    b.start_timer();
  }
  report_gibps(b);
}

void memset_resident(B& b) {
  unsigned char* p = map_fresh(b);
  std::memset(p, 1, kGiB);  // every page resident and written
  b.reset_timer();
  for (std::int64_t i = 0; i < b.n(); ++i) {
    std::memset(opaque(p), 0, kGiB);
    clobber_memory();
  }
  b.stop_timer();
  report_gibps(b);
  munmap(p, kGiB);
}

// Finds the loaded segment of the main program that holds g_zero_bss.
struct SegmentSearch {
  std::uintptr_t address = 0;
  std::uint64_t memsz = 0;
  std::uint64_t filesz = 0;
  bool found = false;
};

int find_segment(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<SegmentSearch*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (search->address >= begin && search->address < begin + ph.p_memsz) {
      search->memsz = ph.p_memsz;
      search->filesz = ph.p_filesz;
      search->found = true;
      return 1;
    }
  }
  return 0;
}

std::string mib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1 << 20));
  return text;
}

FactResult bss_takes_no_file_space() {
  FactResult r;
  SegmentSearch search;
  search.address = reinterpret_cast<std::uintptr_t>(opaque(g_zero_bss));
  dl_iterate_phdr(&find_segment, &search);
  struct stat st {};
  if (!search.found || stat("/proc/self/exe", &st) != 0) {
    r.observed = "could not find the segment holding the array or the executable's size";
    return r;
  }
  // The array reads as zero (the kernel's zero pages on first touch).
  bool zero = true;
  for (std::size_t off = 0; off < kBssSize; off += kPage) zero = zero && opaque(g_zero_bss)[off] == 0;
  const std::uint64_t bss = search.memsz - search.filesz;
  r.holds = zero && bss >= kBssSize && static_cast<std::uint64_t>(st.st_size) < kBssSize;
  r.observed = "a 64 MiB zeroed static: its segment has " + mib(static_cast<double>(bss)) +
               " in memory beyond the file's " + mib(static_cast<double>(search.filesz)) +
               "; the zerolab binary is " + mib(static_cast<double>(st.st_size)) +
               (zero ? "; the array reads as zero" : "; the array is NOT zero");
  return r;
}

}  // namespace

Experiment make_zero_cost_experiment() {
  Experiment e;
  e.id = "zero-cost";
  e.title = "what a gigabyte of zeros costs: calloc, first touch, memset";
  e.seed_file = "004_9bd089f53a065852.txt";
  e.seed_section = "Сколько стоит обнуление (the C table, 1 GiB)";
  e.note =
      "The same C library calls as the seed; the passes touch one byte per 4 KiB page, so "
      "their time is the kernel's (faults, zeroing), not the loop's.";
  e.benchmarks = {
      {"BenchmarkZeroCost/calloc", &calloc_1gib, 1},
      {"BenchmarkZeroCost/first-read-pass", &first_read_pass, 1},
      {"BenchmarkZeroCost/first-write-pass", &first_write_pass, 1},
      {"BenchmarkZeroCost/malloc+memset-fresh", &malloc_memset_fresh, 1},
      {"BenchmarkZeroCost/memset-resident", &memset_resident, 1},
  };
  e.claims = {
      Claim::bound("calloc(1 GiB) costs almost nothing (under 1 ms)", "0.0 ms",
                   "BenchmarkZeroCost/calloc", "ns/op", 0, 1, 1e-6, "ms"),
      Claim::bound("calloc(1 GiB) takes almost no page faults (under 64)", "3 faults",
                   "BenchmarkZeroCost/calloc", "faults/op", 0, 64),
      Claim::bound("the first read pass takes one fault per 4 KiB page", "262143 faults / 262144 pages",
                   "BenchmarkZeroCost/first-read-pass", "faults/op", 0.95, 1.05, 1 / kPages,
                   "faults/page"),
      Claim::ratio("the first write pass costs more than the read pass (the kernel zeroes)",
                   "2.90x (876.5 vs 302.7 ms)", "BenchmarkZeroCost/first-write-pass",
                   "BenchmarkZeroCost/first-read-pass"),
      Claim::ratio("memset over resident memory is several (>= 2) times faster than the first write",
                   "4.90x (876.5 vs 178.7 ms)", "BenchmarkZeroCost/first-write-pass",
                   "BenchmarkZeroCost/memset-resident", 2.0),
      Claim::ratio("malloc+memset on fresh memory is several (>= 2) times slower than memset over resident",
                   "4.49x (802.5 vs 178.7 ms)", "BenchmarkZeroCost/malloc+memset-fresh",
                   "BenchmarkZeroCost/memset-resident", 2.0),
      Claim::fact("a 64 MiB zero-initialized static adds almost nothing to the binary (.bss)",
                  "", &bss_takes_no_file_space),
  };
  e.plots.push_back(PlotSpec::strip("time per 1 GiB pass", "BenchmarkZeroCost/", "ns/op",
                                    "time per pass"));
  e.plots.push_back(PlotSpec::strip("page faults per 1 GiB pass", "BenchmarkZeroCost/", "faults/op",
                                    "page faults per pass"));
  return e;
}

}  // namespace zerolab::lab
