// Experiment `needzero` (seed 004, "Проверяем needzero на практике"): seven
// 256 MiB zeroed allocations, the previous one freed each time. Go's
// mallocgc skips memclr when the span is fresh from the kernel
// (span.needzero == 0, the arena's zeroedBase), so the first allocations
// cost almost nothing and the reused ones pay for zeroing: 0.8 ms vs
// 217 ms, then 45–48 ms steady (the seed's 270x).
//
// Here the same with C's calloc and malloc+memset and with
// zerolab::PageHeap, whose Zero::kYes does what needzero does (and, unlike
// Go's one-way zeroedBase, trusts memory again after release() handed it
// back with MADV_DONTNEED). Every benchmark reports two figures per
// allocation: alloc-ns/op, the allocation call alone (what the seed timed),
// and ns/op, the call plus a first write to every page — because fresh
// memory is cheap only until it is touched: calloc and PageHeap hand out
// pages the kernel has not produced yet, and the faults (the kernel zeroing
// each page) come at the first touch.
//
// Benchmarks (one 256 MiB allocation per iteration, fixed counts):
//   calloc           glibc: a fresh mmap every time (256 MiB is past the
//                    mmap threshold, which stops rising at 32 MiB)
//   malloc+memset    the same memory, zeroed by hand (the faults come in memset)
//   pageheap-fresh   Zero::kYes from a new PageHeap: nothing written
//   pageheap-dirty   Zero::kYes of the span just freed: zero_fill over resident pages
//   pageheap-released the same after release(): MADV_DONTNEED made it zero again
//   c-first-write    the seed's C first write pass (its "Сколько стоит
//                    обнуление" table), on 64 MiB: fresh anonymous memory
//                    on 4 KiB pages, one byte written per page (the kernel
//                    makes and zeroes each page); alloc-ns/op per 256 MiB
//   c-memset-warm    the seed's C memset over warm memory, on 256 MiB:
//                    resident pages just written, zeroed with memset
// For the two C rows alloc-ns/op is the pass itself: the seed compares its
// Go rows' throughput with these ("1.1 GiB/s … exactly the first write
// pass's"; "5.2–5.5 GiB/s … again a match with C's memset"), so the Go peer's
// reused-first and reused-steady are judged against them as run here.
//
// Example:
//   zerolab lab needzero
#include <sys/mman.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/experiments/catalog.hpp"
#include "lab/experiments/facts004.hpp"
#include "lab/framework/child_process.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/go_test_fact.hpp"
#include "zerolab/page_heap.hpp"

namespace zerolab::lab {
namespace {

constexpr std::size_t kSize = std::size_t{256} << 20;
constexpr std::size_t kPage = 4096;

template <class T>
inline T* opaque(T* p) {
  asm volatile("" : "+r"(p) : : "memory");
  return p;
}

using Clock = std::chrono::steady_clock;

double ns_since(Clock::time_point t0) {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
}

// The first write of a program using the buffer: one byte per page.
void touch(unsigned char* p) {
  for (std::size_t off = 0; off < kSize; off += kPage)
    *static_cast<volatile unsigned char*>(p + off) = 1;
}

void report(B& b, double alloc_ns) {
  b.report_metric(alloc_ns / static_cast<double>(b.n() > 0 ? b.n() : 1), "alloc-ns/op");
}

void calloc_256(B& b) {
  double alloc_ns = 0;
  for (std::int64_t i = 0; i < b.n(); ++i) {
    const auto t0 = Clock::now();
    auto* p = opaque(static_cast<unsigned char*>(std::calloc(1, kSize)));
    alloc_ns += ns_since(t0);
    if (p == nullptr) b.fatal("calloc of 256 MiB failed");
    touch(p);
    b.stop_timer();
    std::free(p);
    b.start_timer();
  }
  report(b, alloc_ns);
}

void malloc_memset_256(B& b) {
  double alloc_ns = 0;
  for (std::int64_t i = 0; i < b.n(); ++i) {
    const auto t0 = Clock::now();
    auto* p = opaque(static_cast<unsigned char*>(std::malloc(kSize)));
    if (p == nullptr) b.fatal("malloc of 256 MiB failed");
    std::memset(p, 0, kSize);
    alloc_ns += ns_since(t0);
    touch(opaque(p));
    b.stop_timer();
    std::free(p);
    b.start_timer();
  }
  report(b, alloc_ns);
}

// allocate(kSize, Zero::kYes) timed into alloc_ns, or a fatal error.
unsigned char* heap_zeroed(B& b, PageHeap& heap, double& alloc_ns) {
  const auto t0 = Clock::now();
  std::error_code error;
  auto* p = static_cast<unsigned char*>(heap.try_allocate(kSize, Zero::kYes, error));
  alloc_ns += ns_since(t0);
  if (p == nullptr) b.fatal("PageHeap::allocate(256 MiB): " + error.message());
  return p;
}

void pageheap_fresh(B& b) {
  double alloc_ns = 0;
  for (std::int64_t i = 0; i < b.n(); ++i) {
    b.stop_timer();
    std::optional<PageHeap> heap(std::in_place);
    b.start_timer();
    unsigned char* p = heap_zeroed(b, *heap, alloc_ns);
    touch(p);
    b.stop_timer();
    heap.reset();  // unmaps
    b.start_timer();
  }
  report(b, alloc_ns);
}

// A heap whose first 256 MiB have been written and freed: dirty.
void dirty_heap(B& b, PageHeap& heap) {
  double ignored = 0;
  unsigned char* p = heap_zeroed(b, heap, ignored);
  std::memset(p, 0xAB, kSize);
  heap.deallocate(p);
}

void pageheap_dirty(B& b) {
  PageHeap heap;
  dirty_heap(b, heap);
  b.reset_timer();
  double alloc_ns = 0;
  for (std::int64_t i = 0; i < b.n(); ++i) {
    unsigned char* p = heap_zeroed(b, heap, alloc_ns);
    touch(p);
    b.stop_timer();
    heap.deallocate(p);  // dirty again
    b.start_timer();
  }
  b.stop_timer();
  report(b, alloc_ns);
}

void pageheap_released(B& b) {
  PageHeap heap;
  dirty_heap(b, heap);
  b.reset_timer();
  double alloc_ns = 0;
  for (std::int64_t i = 0; i < b.n(); ++i) {
    b.stop_timer();
    heap.release();
    b.start_timer();
    unsigned char* p = heap_zeroed(b, heap, alloc_ns);
    touch(p);
    b.stop_timer();
    heap.deallocate(p);
    b.start_timer();
  }
  b.stop_timer();
  report(b, alloc_ns);
}

// The seed's C first write pass, on a fresh 64 MiB: its time is the faults
// and the kernel's zeroing of every page, the same per page at any size
// beyond the caches. alloc-ns/op is given per 256 MiB (the pass's time x 4),
// as the Go rows it is compared with; the seed compares them per byte (GiB/s).
// 64 MiB, not 256: this VM's 4 KiB faults cost up to 20 s per GiB under load.
constexpr std::size_t kFirstWriteSize = std::size_t{64} << 20;
// The reported time is per kSize: the pass's time times this whole ratio.
constexpr std::size_t kFirstWritesPerSize = kSize / kFirstWriteSize;
static_assert(kSize % kFirstWriteSize == 0);

void c_first_write(B& b) {
  double pass_ns = 0;
  for (std::int64_t i = 0; i < b.n(); ++i) {
    b.stop_timer();
    void* m =
        mmap(nullptr, kFirstWriteSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) b.fatal("mmap of 64 MiB failed: " + std::string(std::strerror(errno)));
    madvise(m, kFirstWriteSize, MADV_NOHUGEPAGE);
    auto* p = static_cast<unsigned char*>(m);
    b.start_timer();
    const auto t0 = Clock::now();
    for (std::size_t off = 0; off < kFirstWriteSize; off += kPage)
      *static_cast<volatile unsigned char*>(p + off) = 1;
    pass_ns += ns_since(t0);
    b.stop_timer();
    munmap(m, kFirstWriteSize);
    b.start_timer();
  }
  report(b, pass_ns * static_cast<double>(kFirstWritesPerSize));
}

// The seed's C memset over warm memory: 256 MiB resident and just written.
// The pages are made resident on huge pages where the system allows
// (MADV_HUGEPAGE): 128 faults instead of 65536 before the timer, where this
// VM's 4 KiB faults cost seconds; the timed memset writes resident memory
// either way.
void c_memset_warm(B& b) {
  void* m = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) b.fatal("mmap of 256 MiB failed: " + std::string(std::strerror(errno)));
  madvise(m, kSize, MADV_HUGEPAGE);
  auto* p = opaque(static_cast<unsigned char*>(m));
  std::memset(p, 1, kSize);  // every page resident and written
  b.reset_timer();
  double pass_ns = 0;
  for (std::int64_t i = 0; i < b.n(); ++i) {
    const auto t0 = Clock::now();
    std::memset(opaque(p), 0, kSize);
    pass_ns += ns_since(t0);
  }
  b.stop_timer();
  do_not_optimize(p);
  munmap(m, kSize);
  report(b, pass_ns);
}

// The seed's program, literally, with PageHeap: allocate, allocate again
// while the first is alive, then five times free the previous buffer and
// allocate. Only the allocation calls are timed, as in the seed; nothing
// else writes the buffers.
FactResult seven_allocations() {
  PageHeap heap;
  std::vector<double> t;
  void* keep = nullptr;
  for (int step = 1; step <= 7; ++step) {
    if (step >= 3) heap.deallocate(keep);
    const auto t0 = Clock::now();
    void* p = heap.allocate(kSize, Zero::kYes);
    t.push_back(ns_since(t0));
    if (step == 2) heap.deallocate(keep);
    keep = p;
  }
  heap.deallocate(keep);
  const PageHeapStats s = heap.stats();
  return facts004::fresh_allocations_are_free(t, s.bytes_zeroed >> 20, s.bytes_zero_skipped >> 20);
}

#ifndef ZEROLAB_PROBE_DIR
#define ZEROLAB_PROBE_DIR "lab/probes"
#endif

// The seed's strace of heap_dirty (dirty-memory's probe, a fresh process):
// glibc's malloc(10 << 20) is an anonymous private mmap.
FactResult glibc_large_malloc_mmaps() {
  const std::string probe = std::string(ZEROLAB_PROBE_DIR) + "/heap_dirty";
  // sh finds strace on PATH; strace's lines go to stderr, which run_child reads too.
  // In a sanitizer build the probe is sanitized too, and LeakSanitizer aborts
  // under ptrace: its leak check is off for this run (the mmap lines stay).
  const ChildRun run = run_child({"/bin/sh", "-c",
                                  "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" "
                                  "exec strace -e trace=mmap \"$0\" >/dev/null",
                                  probe});
  if (run.exit_status != 0) {
    throw std::runtime_error("strace -e trace=mmap " + probe + " exited with " +
                             std::to_string(run.exit_status) + ": " + run.output);
  }
  return facts004::anonymous_mmap_seen(run.output, std::uint64_t{10} << 20);
}

}  // namespace

Experiment make_needzero_experiment() {
  Experiment e = Experiment::from_seed(
      "needzero",
      "fresh vs reused memory for a zeroed 256 MiB allocation (Go's needzero, PageHeap)",
      {"004_9bd089f53a065852.txt", "Проверяем needzero на практике"},
      {"The seed's rows map to pageheap-fresh (steps 1-2) and pageheap-dirty (steps 4-7: "
       "resident, zeroed in place).",
       "Its step 3 (a reused span, pages partly scavenged: zeroing and faults) has no "
       "PageHeap counterpart: PageHeap trusts memory it released (MADV_DONTNEED) as zero, "
       "where Go's one-way zeroedBase zeroes it again.",
       "alloc-ns/op is the allocation call alone (what the seed timed); ns/op adds a first "
       "write to every page.",
       "PageHeap uses transparent huge pages where the system allows (madvise here); calloc "
       "gets 4 KiB pages.",
       "The seed's two C rows the Go rows are compared with run on 256 MiB (memset over warm "
       "memory) and 64 MiB (the first write pass, its time given per 256 MiB), where its C "
       "table's ran on 1 GiB: the same per-byte work, beyond any cache, as the seed compares "
       "them (GiB/s)."},
      {"needzero",
       "1x",
       {"The seed's program as written, run in a fresh child process per op (its first "
        "allocations are fresh only once per process); its rows are reported as alloc-ns/op."}});
  e.benchmarks = {
      {"BenchmarkNeedZero/calloc", &calloc_256, 1},
      {"BenchmarkNeedZero/malloc+memset", &malloc_memset_256, 1},
      {"BenchmarkNeedZero/pageheap-fresh", &pageheap_fresh, 1},
      {"BenchmarkNeedZero/pageheap-dirty", &pageheap_dirty, 5},
      {"BenchmarkNeedZero/pageheap-released", &pageheap_released, 1},
      {"BenchmarkNeedZero/c-first-write", &c_first_write, 1},
      {"BenchmarkNeedZero/c-memset-warm", &c_memset_warm, 1},
  };
  const std::string section = "Проверяем needzero на практике";
  const char* no_step3 =
      "PageHeap has no step 3: it trusts released pages as zero (no zeroing), Go zeroes them";
  e.claims = {
      Claim::about({"Разница между первой и третьей строкой в 270 раз. Сравнение неравное: в "
                    "быстром пути не записывается ни одного байта.",
                    section, "272x (217.4 vs 0.8 ms)"},
                   272, "BenchmarkNeedZero/pageheap-dirty", "BenchmarkNeedZero/pageheap-fresh")
          .in("alloc-ns/op")
          .cpp_not_comparable_because(no_step3)
          .go_names("BenchmarkNeedZero/reused-first", "BenchmarkNeedZero/fresh"),
      Claim::within({"Первые две аллокации по 256 мегабайт заняли меньше двух миллисекунд.",
                     section, "0.8 and 1.6 ms"},
                    "BenchmarkNeedZero/pageheap-fresh", "alloc-ns/op", 0, 2, 1e-6, "ms")
          .go_bench("BenchmarkNeedZero/fresh"),
      Claim::direction(
          {"Третья строка показывает первую аллокацию из переиспользованного спана. "
           "217 миллисекунд … Здесь и обнуление, и страничные ошибки: скавенджер успел "
           "вернуть часть страниц ядру. … Строки с четвёртой по седьмую показывают "
           "установившийся режим. 45–48 миллисекунд",
           section, "4.7x (217.4 vs 46.4 ms, the median of 47.7 46.1 45.6 47.0)"},
          4.7, "BenchmarkNeedZero/pageheap-released", "BenchmarkNeedZero/pageheap-dirty")
          .in("alloc-ns/op")
          .cpp_not_comparable_because(no_step3)
          .go_names("BenchmarkNeedZero/reused-first", "BenchmarkNeedZero/reused-steady"),
      // Two languages, one figure: equivalences, within the noise the seed states for its
      // absolute figures ("гуляют вдвое": a factor of two, so ±100%).
      Claim::no_change({"Строки с четвёртой по седьмую показывают установившийся режим. 45–48 "
                        "миллисекунд, 5.2–5.5 ГиБ/с. Страницы резидентны, работает только "
                        "memclr. И снова совпадение с C: memset по прогретой памяти дал 5.6 "
                        "ГиБ/с. … абсолютные числа на этом ноутбуке гуляют вдвое.",
                        section,
                        "1.04x (46.4 ms per 256 MiB, the steady median, vs 44.6 ms at C's 5.6 "
                        "GiB/s); within the seed's twofold noise"},
                       1.0, "BenchmarkNeedZero/pageheap-dirty", "BenchmarkNeedZero/c-memset-warm")
          .in("alloc-ns/op")
          .go_against_c("BenchmarkNeedZero/reused-steady", "BenchmarkNeedZero/c-memset-warm"),
      Claim::no_change({"Третья строка показывает первую аллокацию из переиспользованного спана. "
                        "217 миллисекунд, 1.1 ГиБ/с. … Ровно её же показал первый проход на "
                        "запись в C-замере из первого раздела. Это одна и та же работа: ядро "
                        "выделяет страницу и обнуляет её. … абсолютные числа на этом ноутбуке "
                        "гуляют вдвое.",
                        section,
                        "0.99x (217.4 ms per 256 MiB vs 219.1 ms, C's 876.5 ms per GiB); within "
                        "the seed's twofold noise"},
                       1.0, "", "")
          .in("alloc-ns/op")
          .cpp_not_comparable_because(no_step3)
          .go_against_c("BenchmarkNeedZero/reused-first", "BenchmarkNeedZero/c-first-write"),
      Claim::fact_check({"Первые две аллокации по 256 мегабайт заняли меньше двух миллисекунд. … "
                         "Строки с четвёртой по седьмую показывают установившийся режим. 45–48 "
                         "миллисекунд",
                         section,
                         "0.8 1.6 217.4 47.7 46.1 45.6 47.0 ms: the fresh two at least 28x below "
                         "the steady best (45.6 / 1.6); the seed's program run with PageHeap"},
                        &seven_allocations)
          .go_not_comparable("Go's run of this program is the claims above (fresh, reused-first, "
                             "reused-steady)"),
      Claim::at_least_times({"fresh memory stays cheaper than reused dirty memory once its "
                             "first touch is counted (alloc + a write to every page)",
                             "", ""},
                            1.0, "BenchmarkNeedZero/pageheap-dirty",
                            "BenchmarkNeedZero/pageheap-fresh")
          .project(),
      Claim::is_faster({"memory handed back to the kernel costs more on reuse than zeroing "
                        "resident memory, first touch counted (faults + the kernel's zeroing)",
                        "", ""},
                       "BenchmarkNeedZero/pageheap-released", "BenchmarkNeedZero/pageheap-dirty")
          .project(),
      Claim::within({"calloc(256 MiB) itself returns in under 1 ms (a fresh mmap; its faults "
                     "come at first touch)",
                     "", ""},
                    "BenchmarkNeedZero/calloc", "alloc-ns/op", 0, 1, 1e-6, "ms")
          .project(),
      Claim::is_faster({"zeroing in place (PageHeap, dirty) beats malloc+memset, whose 256 MiB "
                        "are fresh pages every time (first touch counted on both)",
                        "", ""},
                       "BenchmarkNeedZero/malloc+memset", "BenchmarkNeedZero/pageheap-dirty")
          .project(),
  };
  // What the runtime does with the kernel, seen from outside: the seed's
  // GODEBUG=clobberfree=1 and strace -e trace=mmap,madvise on the Go peer's child
  // processes (needzero's kernel_test.go).
  const std::string two_parts = "Условие из двух частей";
  const Precondition strace =
      on_path({"strace"}, "the seed's strace -e trace=mmap,madvise watches the runtime");
  e.claims.push_back(
      Claim::fact_check({"С GODEBUG=clobberfree=1 сборщик забивает каждый освобождаемый объект "
                         "константой 0xdeadbeef, функция clobberfree в runtime/mgcsweep.go.",
                         two_parts,
                         "no figure: a freed object reads 0xdeadbeef (without the setting it "
                         "keeps its bytes)"},
                        nullptr)
          .cpp_not_comparable_because("C++ has no collector: free() returns a block at once and "
                                      "glibc writes only its list pointers into it")
          .go_fact(go_test("TestClobberFree")));
  e.claims.push_back(
      Claim::fact_check(
          {"То есть обычно идёт MADV_DONTNEED, после которого ядро при следующем "
           "обращении действительно отдаст чистые страницы.",
           two_parts, "no figure: madvise(MADV_DONTNEED) when the scavenger returns pages"},
          nullptr)
          .needs(only_on(ClaimSide::kGo, strace))
          .cpp_not_comparable_because("the Go scavenger's flag; glibc returns a large block by "
                                      "munmap")
          .go_fact(go_test("TestScavengerUsesMadvDontneed")));
  e.claims.push_back(
      Claim::fact_check({"Но с GODEBUG=madvdontneed=0 рантайм переключается на MADV_FREE, а он "
                         "нулей не гарантирует",
                         two_parts, "no figure: madvise(MADV_FREE) instead"},
                        nullptr)
          .needs(only_on(ClaimSide::kGo, strace))
          .cpp_not_comparable_because("the Go scavenger's flag; glibc returns a large block by "
                                      "munmap")
          .go_fact(go_test("TestMadvdontneed0UsesMadvFree")));
  e.claims.push_back(
      Claim::fact_check({"MAP_ANON плюс MAP_PRIVATE, ровно то, что glibc делала для malloc(10 << "
                         "20).",
                         "Откуда берётся свежая память",
                         "mmap(NULL, 10489856, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, "
                         "-1, 0) for malloc(10 << 20)"},
                        &glibc_large_malloc_mmaps)
          .needs(strace)
          .go_fact(go_test("TestFreshMemoryIsAnonymousMmap")));
  e.plots.push_back(
      PlotSpec::strip("time per 256 MiB pass", "BenchmarkNeedZero/", "ns/op", "time per pass"));
  e.plots.push_back(PlotSpec::strip("page faults per 256 MiB pass", "BenchmarkNeedZero/",
                                    "faults/op", "page faults per pass"));
  return e;
}

}  // namespace zerolab::lab
