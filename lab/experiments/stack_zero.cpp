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

#include "lab/experiment.hpp"

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
  asm volatile("" : "=m"(buf));               // "written" by the asm: defined bytes
  asm volatile("" : : "r"(buf) : "memory");  // and escaping, as above
  return buf[i & (kN - 1)] + buf[(i * 7) & (kN - 1)];
}

}  // namespace

extern "C" {
int zerolab_stack_zeroed_64(int i) { return zeroed_frame<64>(i); }
int zerolab_stack_zeroed_1024(int i) { return zeroed_frame<1024>(i); }
int zerolab_stack_zeroed_8192(int i) { return zeroed_frame<8192>(i); }
int zerolab_stack_uninit_64(int i) { return uninit_frame<64>(i); }
int zerolab_stack_uninit_1024(int i) { return uninit_frame<1024>(i); }
int zerolab_stack_uninit_8192(int i) { return uninit_frame<8192>(i); }
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

// How g++ zeroed one function's buffer: "vector stores (4)", "rep stos",
// "memset call", or what the disassembly shows, from objdump.
std::string zeroing_of(const std::string& symbol, std::string& error) {
  // Our own path: /proc/self/exe in objdump's command line would be objdump.
  char self[4096];
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) {
    error = "cannot read /proc/self/exe";
    return "";
  }
  self[len] = '\0';
  const std::string command = "objdump -d --no-show-raw-insn --disassemble=" + symbol + " '" +
                              std::string(self) + "' 2>/dev/null";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    error = "cannot run objdump";
    return "";
  }
  int vector_stores = 0;
  int scalar_zero_stores = 0;
  bool rep_stos = false;
  bool memset_call = false;
  bool found = false;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    const std::string l = line;
    if (l.find("<" + symbol + ">:") != std::string::npos) found = true;
    if (l.find("rep stos") != std::string::npos) rep_stos = true;
    if (l.find("memset") != std::string::npos && l.find("call") != std::string::npos) {
      memset_call = true;
    }
    if ((l.find("movups") != std::string::npos || l.find("movaps") != std::string::npos ||
         l.find("movdqa") != std::string::npos || l.find("movdqu") != std::string::npos) &&
        l.find("(%r") != std::string::npos) {
      ++vector_stores;
    }
    if (l.find("movq   $0x0,") != std::string::npos) ++scalar_zero_stores;
  }
  const int status = ::pclose(pipe);
  if (!found || status != 0) {
    error = "objdump could not disassemble " + symbol + " (is binutils installed?)";
    return "";
  }
  if (memset_call) return "memset call";
  if (rep_stos) return "rep stos";
  if (vector_stores > 0) return std::to_string(vector_stores) + " vector stores";
  if (scalar_zero_stores > 0) return std::to_string(scalar_zero_stores) + " movq $0 stores";
  return "no zeroing seen";
}

FactResult instructions_fact() {
  FactResult r;
  std::string error;
  const std::string z64 = zeroing_of("zerolab_stack_zeroed_64", error);
  const std::string z1k = zeroing_of("zerolab_stack_zeroed_1024", error);
  const std::string z8k = zeroing_of("zerolab_stack_zeroed_8192", error);
  if (!error.empty()) throw std::runtime_error(error);
  r.observed = "g++: 64 B " + z64 + ", 1 KiB " + z1k + ", 8 KiB " + z8k;
  // The seed's pattern: straight-line stores for small frames, a string
  // instruction or library call for large ones.
  r.holds = z64.find("stores") != std::string::npos &&
            (z8k == "rep stos" || z8k == "memset call");
  return r;
}

}  // namespace

Experiment make_stack_zero_experiment() {
  Experiment e;
  e.id = "stack-zero";
  e.title = "a zero-initialized stack buffer per call: 64 B, 1 KiB, 8 KiB";
  e.seed_file = "004_9bd089f53a065852.txt";
  e.seed_section = "Сколько стоит кадр (StackZero: 3.28, 27.96, 87.05 ns)";
  e.note =
      "Go zeroes such frames itself (MOVUPS, DUFFZERO, REP STOSQ); C++ zeroes only what `{}` "
      "asks for — the uninitialized variant is Go's missing option.";
  e.benchmarks = {
      {"BenchmarkStackBuffer/zeroed/size=64B", &call_bench<&zerolab_stack_zeroed_64>},
      {"BenchmarkStackBuffer/uninit/size=64B", &call_bench<&zerolab_stack_uninit_64>},
      {"BenchmarkStackBuffer/zeroed/size=1KiB", &call_bench<&zerolab_stack_zeroed_1024>},
      {"BenchmarkStackBuffer/uninit/size=1KiB", &call_bench<&zerolab_stack_uninit_1024>},
      {"BenchmarkStackBuffer/zeroed/size=8KiB", &call_bench<&zerolab_stack_zeroed_8192>},
      {"BenchmarkStackBuffer/uninit/size=8KiB", &call_bench<&zerolab_stack_uninit_8192>},
  };
  for (auto& b : e.benchmarks) b.benchtime = std::chrono::milliseconds(200);
  e.claims = {
      Claim::ratio("a zeroed 64 B frame costs more than an uninitialized one", "3.28 ns (Go)",
                   "BenchmarkStackBuffer/zeroed/size=64B", "BenchmarkStackBuffer/uninit/size=64B"),
      Claim::ratio("a zeroed 1 KiB frame costs more than an uninitialized one", "27.96 ns (Go)",
                   "BenchmarkStackBuffer/zeroed/size=1KiB",
                   "BenchmarkStackBuffer/uninit/size=1KiB"),
      Claim::ratio("a zeroed 8 KiB frame costs more than an uninitialized one", "87.05 ns (Go)",
                   "BenchmarkStackBuffer/zeroed/size=8KiB",
                   "BenchmarkStackBuffer/uninit/size=8KiB"),
      Claim::fact("small frames are zeroed with straight-line stores, large ones with a string "
                  "instruction or a call",
                  "Go: MOVUPS (64 B), DUFFZERO (1 KiB), REP STOSQ (8 KiB)", &instructions_fact),
  };
  return e;
}

}  // namespace zerolab::lab
