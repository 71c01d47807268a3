// Experiment `stack-zero` (seed 004, "Сколько стоит кадр"): what a
// zero-initialized stack buffer (`char buf[N]{}`) costs per call against an
// uninitialized one, at 64 B, 1 KiB and 8 KiB, and which instructions g++
// emits to zero each (the seed shows Go's MOVUPS chain, DUFFZERO and REP
// STOSQ). Each function, as in the seed, declares its buffer, lets it
// escape to an empty asm statement (so the zeroing cannot be dropped) and
// reads two bytes.
//
// The uninitialized variant never reads indeterminate bytes as far as the
// compiler is concerned: an asm statement claims to write the buffer first
// ("=m"), so the reads are of defined values (see zerolab/uninit.hpp).
//
// Example:
//   zerolab lab stack-zero
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "lab/experiments/catalog.hpp"
#include "lab/experiments/facts004.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/go_test_fact.hpp"

// Plain C names so the fact can find them in the disassembly.
extern "C" {
__attribute__((noinline, used)) int zerolab_stack_zeroed_64(int i);
__attribute__((noinline, used)) int zerolab_stack_zeroed_1024(int i);
__attribute__((noinline, used)) int zerolab_stack_zeroed_8192(int i);
__attribute__((noinline, used)) int zerolab_stack_uninit_64(int i);
__attribute__((noinline, used)) int zerolab_stack_uninit_1024(int i);
__attribute__((noinline, used)) int zerolab_stack_uninit_8192(int i);
}

namespace {

template <int kN>
__attribute__((always_inline)) inline int zeroed_frame(int i) {
  char buf[kN]{};
  asm volatile("" : : "r"(buf) : "memory");  // the buffer escapes: zeroing must happen
  return buf[i & (kN - 1)] + buf[(i * 7) & (kN - 1)];
}

template <int kN>
__attribute__((always_inline)) inline int uninit_frame(int i) {
  char buf[kN];
  asm volatile("" : "=m"(buf));              // "written" by the asm: defined bytes
  asm volatile("" : : "r"(buf) : "memory");  // and escaping, as above
  return buf[i & (kN - 1)] + buf[(i * 7) & (kN - 1)];
}

}  // namespace

extern "C" {
int zerolab_stack_zeroed_64(int i) {
  return zeroed_frame<64>(i);
}
int zerolab_stack_zeroed_1024(int i) {
  return zeroed_frame<1024>(i);
}
int zerolab_stack_zeroed_8192(int i) {
  return zeroed_frame<8192>(i);
}
int zerolab_stack_uninit_64(int i) {
  return uninit_frame<64>(i);
}
int zerolab_stack_uninit_1024(int i) {
  return uninit_frame<1024>(i);
}
int zerolab_stack_uninit_8192(int i) {
  return uninit_frame<8192>(i);
}
}

namespace zerolab::lab {
namespace {

template <int (*kFn)(int)>
void call_bench(B& b) {
  int i = 0;
  int sum = 0;
  for (auto _ : b.loop()) {
    sum += kFn(i++);
    do_not_optimize(sum);
  }
}

// The disassembly of one of this program's functions, from objdump.
std::string disassembly_of(const std::string& symbol) {
  // Our own path: /proc/self/exe in objdump's command line would be objdump.
  char self[4096];
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) throw std::runtime_error("cannot read /proc/self/exe");
  self[len] = '\0';
  const std::string command = "objdump -d --no-show-raw-insn --disassemble=" + symbol + " '" +
                              std::string(self) + "' 2>/dev/null";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run objdump");
  std::string text;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) text += line;
  const int status = ::pclose(pipe);
  if (status != 0 || text.find("<" + symbol + ">:") == std::string::npos) {
    throw std::runtime_error("objdump could not disassemble " + symbol +
                             " (is binutils installed?)");
  }
  return text;
}

FactResult instructions_fact() {
  return facts004::frame_zeroing_pattern(
      facts004::classify_zeroing(disassembly_of("zerolab_stack_zeroed_64")),
      facts004::classify_zeroing(disassembly_of("zerolab_stack_zeroed_1024")),
      facts004::classify_zeroing(disassembly_of("zerolab_stack_zeroed_8192")));
}

// The seed's Go (1.24) has ir.MaxStackVarSize = 128 KiB; Go 1.19's is 10 MiB.
Precondition stack_limit_is_128k() {
  return go_at_least(24, "the seed's Go, whose ir.MaxStackVarSize is 128 KiB; Go 1.19's is 10 MiB");
}

}  // namespace

Experiment make_stack_zero_experiment() {
  Experiment e = Experiment::from_seed(
      "stack-zero", "a zero-initialized stack buffer per call: 64 B, 1 KiB, 8 KiB",
      {"004_9bd089f53a065852.txt", "Сколько стоит кадр (StackZero: 3.28, 27.96, 87.05 ns)"},
      {"Go zeroes such frames itself (MOVUPS, DUFFZERO, REP STOSQ); in C++ `char buf[N]{}` "
       "asks for it and g++ picks its own instructions.",
       "The uninitialized variant is C++'s option that Go lacks (the project's claims)."},
      {"stack-zero",
       "100ms",
       {"The seed's buf* functions as written; its sink reads b[0], the peer's reads the "
        "first and last byte (the text: each function reads two bytes)."}});
  e.benchmarks = {
      {"BenchmarkStackBuffer/zeroed/size=64B", &call_bench<&zerolab_stack_zeroed_64>},
      {"BenchmarkStackBuffer/uninit/size=64B", &call_bench<&zerolab_stack_uninit_64>},
      {"BenchmarkStackBuffer/zeroed/size=1KiB", &call_bench<&zerolab_stack_zeroed_1024>},
      {"BenchmarkStackBuffer/uninit/size=1KiB", &call_bench<&zerolab_stack_uninit_1024>},
      {"BenchmarkStackBuffer/zeroed/size=8KiB", &call_bench<&zerolab_stack_zeroed_8192>},
      {"BenchmarkStackBuffer/uninit/size=8KiB", &call_bench<&zerolab_stack_uninit_8192>},
  };
  for (auto& b : e.benchmarks) b.benchtime = std::chrono::milliseconds(200);
  const std::string cost = "Сколько стоит кадр";
  const std::string strategies = "Четыре стратегии";
  const char* z64 = "BenchmarkStackBuffer/zeroed/size=64B";
  const char* z1k = "BenchmarkStackBuffer/zeroed/size=1KiB";
  const char* z8k = "BenchmarkStackBuffer/zeroed/size=8KiB";
  const std::string no_escape_analysis =
      "C++ has no escape analysis: a local array stays in its frame whatever its size (the "
      "limit is the thread's stack)";
  e.claims = {
      Claim::direction({"StackZero/64B_MOVUPS-12 3.280n ± 3% StackZero/1KB_DUFFZERO-12 27.96n ± 5% "
                        "… Буфер в 1 КБ на стеке стоит 28 наносекунд",
                        cost, "8.52x (27.96 vs 3.280 ns, the table's rows)"},
                       8.52, z1k, z64)
          .go_names("BenchmarkStackZero/1KB_DUFFZERO", "BenchmarkStackZero/64B_MOVUPS")
          .counted(),
      Claim::direction({"Буфер в 1 КБ на стеке стоит 28 наносекунд, буфер в 8 КБ стоит 87 "
                        "наносекунд.",
                        cost, "3.11x (87.05 vs 27.96 ns)"},
                       3.11, z8k, z1k)
          .go_names("BenchmarkStackZero/8KB_REPSTOSQ", "BenchmarkStackZero/1KB_DUFFZERO")
          .counted(),
      Claim::fact_check({"До 64 байт включительно развёрнутая цепочка записей, от 64 до 1024 "
                         "байт устройство Даффа, дальше REP STOSQ. Ровно то, что мы увидели в "
                         "дизассемблере.",
                         strategies,
                         "MOVQ $0 (8 B), 4× MOVUPS X15 (64 B), DUFFZERO (1 KiB), "
                         "REP STOSQ ×0x400 (8 KiB)"},
                        &instructions_fact)
          .go_fact(go_test("TestZeroingInstructions")),
      // The limit the seed names is its Go's: Go 1.19's ir.MaxStackVarSize is 10 MiB, so the
      // seed's 128 KiB is not comparable there, and the same sentence is checked at this Go's own
      // limit (TestStackVarLimitHere names it).
      Claim::fact_check({"Переменная больше ir.MaxStackVarSize, а это 128 килобайт, на стек не "
                         "попадёт в любом случае. Escape-анализ отправит её в кучу независимо от "
                         "того, убегает она или нет.",
                         cost, "128 KiB (go build -gcflags=-m: \"moved to heap\")"},
                        nullptr)
          .needs(stack_limit_is_128k())
          .cpp_not_comparable_because(no_escape_analysis)
          .go_fact(go_test("TestStackVarLimitIsTheSeeds")),
      Claim::fact_check({"Переменная больше ir.MaxStackVarSize, а это 128 килобайт, на стек не "
                         "попадёт в любом случае. Escape-анализ отправит её в кучу независимо от "
                         "того, убегает она или нет.",
                         cost,
                         "128 KiB; here at Go here's own limit (Go 1.19: 10 MiB), a non-escaping "
                         "local one byte over it"},
                        nullptr)
          .cpp_not_comparable_because(no_escape_analysis)
          .go_fact(go_test("TestStackVarLimitHere")),
      Claim::fact_check({"Для неявных объектов, new и указателей на составные литералы, порог "
                         "вдвое ниже, ir.MaxImplicitStackVarSize, 64 килобайта.",
                         cost, "64 KiB (new([65536]byte) stays, new([65537]byte) escapes)"},
                        nullptr)
          .cpp_not_comparable_because(no_escape_analysis)
          .go_fact(go_test("TestImplicitStackVarLimit")),
      Claim::is_faster({"a zeroed 8 KiB frame costs more than an uninitialized one (C++ can "
                        "leave it unzeroed)",
                        "", ""},
                       z8k, "BenchmarkStackBuffer/uninit/size=8KiB")
          .project()
          .counted(),
  };
  return e;
}

}  // namespace zerolab::lab
