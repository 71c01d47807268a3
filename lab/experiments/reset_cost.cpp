// Experiment `reset-cost` (seed 004, "Обнуление живой памяти", zeroing live
// memory): the seed's three functions, each timed alone on an object that is
// already empty, kept on the heap between ops as a pooled object is:
//   ResetEmpty/resetStruct  obj = T{} on T {unique_ptr<int>, vector<char>,
//                           string} (the seed's {*int, []byte, string});
//   ResetEmpty/clearPtrs    every element of a pointer array of the same
//                           size set to nullptr (the seed's clear([]*int));
//   ResetEmpty/clearBytes   memset of sizeof(T) bytes (clear([]byte)).
// Each function is a non-inlined call, as the seed's are //go:noinline. The
// Go peer (peers/go/reset-cost) times the same three under the same names,
// and again as GC/ResetEmpty/... with a garbage collection running, the
// only place the seed says the difference shows.
//
// Example:
//   zerolab lab reset-cost
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "lab/experiments/catalog.hpp"
#include "lab/experiments/reset_cost_calls.hpp"
#include "lab/framework/experiment.hpp"

namespace zerolab::lab {
namespace {

// The seed's T {a *int; b []byte; c string}, in C++'s owning types.
struct T {
  std::unique_ptr<int> a;
  std::vector<char> b;
  std::string c;
};

constexpr std::size_t kPointers = sizeof(T) / sizeof(void*);

[[gnu::noinline]] void reset_struct(T* p) {
  *p = T{};
}
[[gnu::noinline]] void clear_ptrs(int** s, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) s[i] = nullptr;
}
[[gnu::noinline]] void clear_bytes(unsigned char* s, std::size_t n) {
  std::memset(s, 0, n);
}

void reset_struct_bench(B& b) {
  auto t = std::make_unique<T>();
  for (auto _ : b.loop()) {
    reset_struct(t.get());
    clobber_memory();
  }
  do_not_optimize(*t);
}

void clear_ptrs_bench(B& b) {
  auto s = std::make_unique<int*[]>(kPointers);
  for (auto _ : b.loop()) {
    clear_ptrs(s.get(), kPointers);
    clobber_memory();
  }
  do_not_optimize(s);
}

void clear_bytes_bench(B& b) {
  auto s = std::make_unique<unsigned char[]>(sizeof(T));
  for (auto _ : b.loop()) {
    clear_bytes(s.get(), sizeof(T));
    clobber_memory();
  }
  do_not_optimize(s);
}

std::string name(const char* v) {
  return std::string("BenchmarkResetCost/ResetEmpty/") + v;
}

}  // namespace

Experiment make_reset_cost_experiment() {
  Experiment e = Experiment::from_seed(
      "reset-cost",
      "resetting a pooled object with pointers (T{}) vs clearing pointers or bytes of the same "
      "size",
      {"004_9bd089f53a065852.txt",
       "Обнуление живой памяти (resetStruct, clearPtrs, clearBytes; the practical note for pools)"},
      {"C++ has no write barrier: obj = T{} on an empty T destroys and builds empty members "
       "(no frees), where Go's resetStruct runs the barrier (runtime.wbZero in the seed's Go, "
       "typedmemclr in 1.19) when a GC is on.",
       "sizeof(T) is " + std::to_string(sizeof(T)) +
           " B here (std::string is 32 B with its inline buffer), 48 B in Go."},
      {"reset-cost",
       "50ms",
       {"clear(s) is the range loop the compiler turns into the same memclr call (Go 1.19).",
        "resetStruct's barrier is typedmemclr in Go 1.19 (wbZero in the seed's Go); the objdump "
        "check accepts both.",
        "The GC/ variants run runtime.GC() back to back on another goroutine (the seed says the "
        "difference shows during a GC)."}});
  const auto t = std::chrono::milliseconds(100);
  e.benchmarks = {
      {name("resetStruct"), &reset_struct_bench, 0, t},
      {name("clearPtrs"), &clear_ptrs_bench, 0, t},
      {name("clearBytes"), &clear_bytes_bench, 0, t},
  };
  const std::string sec = "Обнуление живой памяти";
  const auto go = [](const char* v) {
    return std::string("BenchmarkResetCost/GC/ResetEmpty/") + v;
  };
  // The seed's difference is Go's write barrier during a collection; C++
  // has neither, so its timings (kept in the medians table beside Go's)
  // would test something else.
  const char* no_barrier =
      "the difference is Go's write barrier during a GC, which C++ has neither of; the C++ "
      "timings are in the medians table";
  // The seed: the difference shows during a collection. Go here is judged
  // with a collection running (GC/...); C++ has none.
  e.claims.push_back(
      Claim::is_faster(
          {"Сброс объекта с указателями перед возвратом в sync.Pool стоит дороже, чем такой же по "
           "размеру clear на слайсе байт. Разница вылезает именно во время сборки мусора.",
           sec,
           "no timing (objdump: resetStruct calls runtime.wbZero, clearBytes "
           "memclrNoHeapPointers)"},
          name("resetStruct"), name("clearBytes"))
          .go_names(go("resetStruct"), go("clearBytes"))
          .cpp_not_comparable_because(no_barrier));
  e.claims.push_back(
      Claim::is_faster(
          {"А если в объекте есть указатели, во время сборки мусора к обнулению добавится ещё и "
           "барьер записи.",
           "Что из этого следует",
           "no timing (objdump: clear([]*int) is memclrHasPointers, a barrier then "
           "memclrNoHeapPointers)"},
          name("clearPtrs"), name("clearBytes"))
          .go_names(go("clearPtrs"), go("clearBytes"))
          .cpp_not_comparable_because(no_barrier));
  e.claims.push_back(
      Claim::fact_check({"Чистый memclr только в последней строке.", sec,
                         "resetStruct: runtime.wbZero, runtime.writeBarrier; clearPtrs: "
                         "runtime.memclrHasPointers; clearBytes: runtime.memclrNoHeapPointers"},
                        nullptr)
          .cpp_not_comparable_because("C++ has no write barrier: the three are plain stores")
          .go_fact([](const GoPeerBinary& peer) {
            return check_reset_calls(observe_reset_calls(peer));
          }));
  return e;
}

}  // namespace zerolab::lab
