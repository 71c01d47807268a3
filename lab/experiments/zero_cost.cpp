// Experiment `zero-cost` (seed 004, "Сколько стоит обнуление", the C
// table): what a gigabyte of zeros costs depending on who writes them and
// whether the pages exist yet — calloc, the first read pass and the first
// write pass over fresh anonymous memory, malloc+memset on fresh memory,
// memset over resident memory; and the .bss facts (seed 004, "Глобальные
// переменные: секция .bss": 64 MB of zeros cost the file nothing, 4 MB of
// non-zero static data cost 4 MB), read from three probe programs built
// beside the lab (lab/bss_probe/).
//
// The passes touch one byte per 4 KiB page (the cost is the page faults and
// the kernel's zeroing, not our loop), over memory mapped fresh for every
// iteration and held to 4 KiB pages with MADV_NOHUGEPAGE so the per-page
// figures hold whatever the THP mode.
//
// Example:
//   zerolab lab zero-cost
#include <elf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

#include "lab/experiments/catalog.hpp"
#include "lab/experiments/facts004.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/go_test_fact.hpp"

namespace zerolab::lab {
namespace {

constexpr std::size_t kGiB = std::size_t{1} << 30;
constexpr std::size_t kPage = 4096;
constexpr double kPages = static_cast<double>(kGiB) / static_cast<double>(kPage);

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
  const double sec_per_op =
      static_cast<double>(b.elapsed().count()) / 1e9 / static_cast<double>(b.n() > 0 ? b.n() : 1);
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

// Both first-touch bodies: every op maps 1 GiB fresh, untimed, and times
// `pass` over it alone.
template <class Pass>
void fresh_passes(B& b, Pass pass) {
  for (std::int64_t i = 0; i < b.n(); ++i) {
    b.stop_timer();
    unsigned char* p = map_fresh(b);
    b.start_timer();
    pass(p);
    b.stop_timer();
    munmap(p, kGiB);
    b.start_timer();
  }
  report_gibps(b);
}

void first_read_pass(B& b) {
  fresh_passes(b, [](unsigned char* p) {
    unsigned sum = 0;
    for (std::size_t off = 0; off < kGiB; off += kPage)
      sum += *static_cast<volatile unsigned char*>(p + off);
    do_not_optimize(sum);
  });
}

void first_write_pass(B& b) {
  fresh_passes(b, [](unsigned char* p) {
    for (std::size_t off = 0; off < kGiB; off += kPage)
      *static_cast<volatile unsigned char*>(p + off) = 1;
  });
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

#ifndef ZEROLAB_PROBE_DIR
#define ZEROLAB_PROBE_DIR "lab/probes"
#endif

// A probe program's file size and its writable LOAD segment's sizes, or
// false when it cannot be read as a 64-bit ELF file.
bool read_probe(const std::string& path, std::uint64_t& size, std::uint64_t& rw_filesz,
                std::uint64_t& rw_memsz) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr eh{};
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh) ||
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) {
    return false;
  }
  rw_filesz = rw_memsz = 0;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + i * sizeof ph));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) return false;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) != 0) {
      rw_filesz = ph.p_filesz;
      rw_memsz = ph.p_memsz;
    }
  }
  in.seekg(0, std::ios::end);
  size = static_cast<std::uint64_t>(in.tellg());
  return true;
}

// The three probes, or a thrown error naming the one that is missing.
facts004::BssProbes probes() {
  facts004::BssProbes p;
  std::uint64_t f = 0;
  std::uint64_t m = 0;
  const std::string dir = ZEROLAB_PROBE_DIR;
  auto read = [&](const char* name, std::uint64_t& size, std::uint64_t& filesz,
                  std::uint64_t& memsz) {
    if (!read_probe(dir + "/" + name, size, filesz, memsz)) {
      throw std::runtime_error("cannot read the probe program " + dir + "/" + name +
                               " (built with the lab: cmake --build --preset release)");
    }
  };
  read("bin_empty", p.empty, f, m);
  read("bin_zeroed", p.zeroed, p.zeroed_rw_filesz, p.zeroed_rw_memsz);
  read("bin_static", p.with_static, f, m);
  return p;
}

FactResult zeros_cost_no_file() {
  return facts004::zeros_cost_no_file(probes());
}
FactResult nonzero_static_costs_file() {
  return facts004::nonzero_static_costs_file(probes());
}

// The seed's first attempt: a C program that allocates with malloc and
// zeroes with memset, built with gcc -O2; with -DBARRIER the seed's OPAQUE
// stands between them.
constexpr const char* kCallocProbe = R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define OPAQUE(p) __asm__ volatile("" : "+r"(p) : : "memory")
int main(int argc, char **argv) {
  (void)argv;
  size_t n = (size_t)argc << 30;
  char *p = malloc(n);
  if (p == NULL) return 1;
#ifdef BARRIER
  OPAQUE(p);
#endif
  memset(p, 0, n);
  printf("%p\n", (void *)p);
  free(p);
  return 0;
}
)";

// Runs a shell command; its output, or a thrown error with it.
std::string shell(const std::string& command) {
  std::FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run: " + command);
  std::string text;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) text += line;
  if (::pclose(pipe) != 0) {
    throw std::runtime_error(command + " failed: " + text.substr(0, text.find('\n')));
  }
  return text;
}

// The PLT calls of the probe built with gcc -O2 (and `flags`), as the seed
// counted them with objdump -d.
facts004::PltCalls calloc_probe_calls(const std::string& flags) {
  char dir[] = "/tmp/zerolab-calloc-XXXXXX";
  if (::mkdtemp(dir) == nullptr) throw std::runtime_error("cannot make a directory in /tmp");
  const std::string d = dir;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::remove((dir + "/calloc_cost.c").c_str());
      std::remove((dir + "/calloc_cost").c_str());
      ::rmdir(dir.c_str());
    }
  } cleanup{d};
  {
    std::ofstream src(d + "/calloc_cost.c");
    src << kCallocProbe;
    if (!src) throw std::runtime_error("cannot write " + d + "/calloc_cost.c");
  }
  shell("gcc -O2 " + flags + " -o '" + d + "/calloc_cost' '" + d + "/calloc_cost.c'");
  return facts004::count_plt_calls(shell("objdump -d '" + d + "/calloc_cost'"));
}

FactResult gcc_folds_to_calloc() {
  return facts004::malloc_memset_became_calloc(calloc_probe_calls(""));
}
FactResult barrier_stops_the_fold() {
  return facts004::barrier_keeps_malloc_memset(calloc_probe_calls("-DBARRIER"));
}

}  // namespace

Experiment make_zero_cost_experiment() {
  Experiment e = Experiment::from_seed(
      "zero-cost", "what a gigabyte of zeros costs: calloc, first touch, memset",
      {"004_9bd089f53a065852.txt", "Сколько стоит обнуление (the C table, 1 GiB)"},
      {"The seed does not show its pass loops: here a pass touches one byte per 4 KiB page "
       "(its time is the kernel's faults and zeroing, as the seed reads its figures).",
       "Memory is mapped fresh for every pass and held to 4 KiB pages (MADV_NOHUGEPAGE).",
       "The .bss probes are g++ programs; the seed's are Go's (their Go side is TestBSS)."},
      {"zero-cost",
       "",
       {"The timings are the seed's C programs: their C++ runs are the replication (Go here: "
        "not comparable).",
        "The .bss facts' Go side builds the seed's Go programs here (TestBSS)."},
       "^$"});  // the peer has no benchmarks: TestBSS is the .bss facts' Go side
  e.benchmarks = {
      {"BenchmarkZeroCost/calloc", &calloc_1gib, 1},
      {"BenchmarkZeroCost/first-read-pass", &first_read_pass, 1},
      {"BenchmarkZeroCost/first-write-pass", &first_write_pass, 1},
      {"BenchmarkZeroCost/malloc+memset-fresh", &malloc_memset_fresh, 1},
      {"BenchmarkZeroCost/memset-resident", &memset_resident, 1},
  };
  const std::string c_table = "Сколько стоит обнуление";
  const std::string bss = "Глобальные переменные: секция .bss";
  const char* c_only = "the seed's C program; its C++ run is the replication";
  // Each pass makes a whole GiB resident (the calloc row maps it only).
  const Precondition gib =
      only_on(ClaimSide::kCpp, memory_at_least(kGiB, "a pass makes a fresh 1 GiB buffer resident"));
  e.claims = {
      Claim::within({"calloc на гигабайт отработал за время, неотличимое от нуля, и вызвал три "
                     "страничных ошибки.",
                     c_table, "0.0 ms"},
                    "BenchmarkZeroCost/calloc", "ns/op", 0, 0.05, 1e-6, "ms")
          .go_not_comparable(c_only)
          .needs(gib),
      Claim::within({"calloc на гигабайт … вызвал три страничных ошибки.", c_table, "3 faults"},
                    "BenchmarkZeroCost/calloc", "faults/op", 0, 3)
          .go_not_comparable(c_only)
          .needs(gib),
      Claim::within({"Первый проход на чтение стоил 302 мс и 262 143 страничных ошибки. … то есть "
                     "по одной ошибке на страницу.",
                     c_table, "262143 faults / 262144 pages"},
                    "BenchmarkZeroCost/first-read-pass", "faults/op", 0.999, 1.001, 1 / kPages,
                    "faults/page")
          .go_not_comparable(c_only)
          .needs(gib),
      Claim::within({"Первый проход на запись стоил 876 мс при том же числе ошибок.", c_table,
                     "262143 faults / 262144 pages"},
                    "BenchmarkZeroCost/first-write-pass", "faults/op", 0.999, 1.001, 1 / kPages,
                    "faults/page")
          .go_not_comparable(c_only)
          .needs(gib),
      Claim::within({"`malloc` + `memset` по свежей памяти 802.5 мс 1.2 262 145", c_table,
                     "262145 faults / 262144 pages"},
                    "BenchmarkZeroCost/malloc+memset-fresh", "faults/op", 0.999, 1.001, 1 / kPages,
                    "faults/page")
          .go_not_comparable(c_only)
          .needs(gib),
      Claim::within({"`memset` по прогретой памяти 178.7 мс 5.6 0", c_table, "0 faults"},
                    "BenchmarkZeroCost/memset-resident", "faults/op", 0, kBelowNextCount)
          .go_not_comparable(c_only)
          .needs(gib),
      Claim::direction({"Первый проход на запись стоил 876 мс при том же числе ошибок. Разница с "
                        "чтением, около 570 мс, и есть счёт за обнуление, который выставляет ядро.",
                        c_table, "2.90x (876.5 vs 302.7 ms)"},
                       2.90, "BenchmarkZeroCost/first-write-pass",
                       "BenchmarkZeroCost/first-read-pass")
          .go_not_comparable(c_only)
          .needs(gib),
      Claim::direction(
          {"Последняя строка показывает цену обнуления в чистом виде, без участия ядра. "
           "… memset по прогретой памяти показывал от 104 до 180 мс … Соотношения при "
           "этом держатся.",
           c_table, "4.90x (876.5 vs 178.7 ms)"},
          4.90, "BenchmarkZeroCost/first-write-pass", "BenchmarkZeroCost/memset-resident")
          .go_not_comparable(c_only)
          .needs(gib),
      Claim::direction({"`malloc` + `memset` по свежей памяти 802.5 мс 1.2 262 145 `memset` по "
                        "прогретой памяти 178.7 мс",
                        c_table, "4.49x (802.5 vs 178.7 ms, the table's rows)"},
                       4.49, "BenchmarkZeroCost/malloc+memset-fresh",
                       "BenchmarkZeroCost/memset-resident")
          .go_not_comparable(c_only)
          .needs(gib),
      Claim::fact_check({"GCC на -O2 распознаёт пару «выделили память, тут же обнулили» и "
                         "заменяет её на calloc.",
                         c_table, "objdump: 2 <calloc@plt>, no malloc or memset"},
                        &gcc_folds_to_calloc)
          .go_not_comparable(c_only)
          .needs(only_on(ClaimSide::kCpp, on_path({"gcc", "objdump"},
                                                  "the seed's gcc -O2 "
                                                  "and objdump -d"))),
      Claim::fact_check({"Точечнее работает барьер:", c_table,
                         "with OPAQUE between them: malloc and memset stay"},
                        &barrier_stops_the_fold)
          .go_not_comparable(c_only)
          .needs(only_on(ClaimSide::kCpp, on_path({"gcc", "objdump"},
                                                  "the seed's gcc -O2 "
                                                  "and objdump -d"))),
      Claim::fact_check({"Разница между пустой программой и программой с 64 мегабайтами нулей "
                         "составила 121 байт. Массив в файл не попал.",
                         bss, "121 bytes; MemSiz +0x4000000, FileSiz unchanged"},
                        &zeros_cost_no_file)
          .go_fact(go_test("TestBSS")),
      Claim::fact_check({"Четыре мегабайта ненулевых данных стоят четыре мегабайта в файле.", bss,
                         "5770096 vs 1575671 bytes (+4.0 MiB)"},
                        &nonzero_static_costs_file)
          .go_fact(go_test("TestBSS")),
  };
  e.plots.push_back(
      PlotSpec::strip("time per 1 GiB pass", "BenchmarkZeroCost/", "ns/op", "time per pass"));
  e.plots.push_back(PlotSpec::strip("page faults per 1 GiB pass", "BenchmarkZeroCost/", "faults/op",
                                    "page faults per pass"));
  return e;
}

}  // namespace zerolab::lab
