// Experiment `copy-vs-append` (seed 004, "Неожиданный случай"): copying
// 1 MiB into a new buffer. The seed's three Go forms differ in what they
// zero, and the C++ ports follow that mechanism, not the code's shape:
//   MakeThenCopy      make+copy → runtime.makeslicecopy: allocates without
//                     zeroing, copies → uninit+copy (make_uninit<char[]>
//                     then memcpy)
//   AppendNil         append to nil → growslice: no zeroing of what is
//                     overwritten → copy-construct (std::vector<char>(src))
//   MakeCapThenAppend make(0, n)+append → makeslice zeroes the whole
//                     capacity, append copies over it → zeroed+copy
//                     (std::vector<char>(n) then memcpy)
// reserve+insert, the advice's literal C++ form, writes each byte once
// (reserve does not zero): the project's own comparison.
//
// Example:
//   zerolab lab copy-vs-append
#include <cstring>
#include <vector>

#include "lab/experiments/catalog.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/go_test_fact.hpp"
#include "zerolab/uninit.hpp"

namespace zerolab::lab {
namespace {

constexpr std::size_t kN = std::size_t{1} << 20;

const std::vector<char>& source() {
  static const std::vector<char> src = [] {
    std::vector<char> s(kN);
    for (std::size_t i = 0; i < kN; ++i) s[i] = static_cast<char>(i % 251 + 1);
    return s;
  }();
  return src;
}

// Every benchmark's body: each op makes a new 1 MiB buffer holding the
// source by `copy` (one of the forms below) and frees it.
template <class Copy>
void copies(B& b, Copy copy) {
  const auto& src = source();
  b.set_bytes(kN);
  for (auto _ : b.loop()) {
    auto dst = copy(src);
    do_not_optimize(dst);
  }
}

void uninit_then_copy(B& b) {
  copies(b, [](const std::vector<char>& src) {
    auto dst = zerolab::make_uninit<char[]>(kN);
    std::memcpy(dst.get(), src.data(), kN);
    return dst;
  });
}

void zeroed_then_copy(B& b) {
  copies(b, [](const std::vector<char>& src) {
    std::vector<char> dst(kN);
    std::memcpy(dst.data(), src.data(), kN);
    return dst;
  });
}

void copy_construct(B& b) {
  copies(b, [](const std::vector<char>& src) { return std::vector<char>(src); });
}

void reserve_then_insert(B& b) {
  copies(b, [](const std::vector<char>& src) {
    std::vector<char> dst;
    dst.reserve(kN);
    dst.insert(dst.end(), src.begin(), src.end());
    return dst;
  });
}

}  // namespace

Experiment make_copy_vs_append_experiment() {
  Experiment e = Experiment::from_seed(
      "copy-vs-append", "copying 1 MiB into a new buffer: zeroed+copy vs copy without zeroing",
      {"004_9bd089f53a065852.txt",
       "Неожиданный случай (MakeThenCopy / AppendNil / MakeCapThenAppend)"},
      {"The seed's 1 MB read as 1 MiB; its three forms ported by mechanism (what each "
       "zeroes), not by shape: make(0, n)+append zeroes its capacity, so its port is "
       "vector(n)+memcpy, not reserve+insert.",
       "No GC: each 1 MiB block goes back to glibc (mmap'd until the first free raises the "
       "mmap threshold, then from the heap), where Go's large objects come from swept spans."},
      {"copy-vs-append",
       "100ms",
       {"The seed's benchmark bodies as written; src's contents are not shown (non-zero "
        "here)."}});
  e.benchmarks = {
      {"BenchmarkCopy1MiB/uninit+copy", &uninit_then_copy},
      {"BenchmarkCopy1MiB/copy-construct", &copy_construct},
      {"BenchmarkCopy1MiB/zeroed+copy", &zeroed_then_copy},
      {"BenchmarkCopy1MiB/reserve+insert", &reserve_then_insert},
  };
  const std::string section = "Неожиданный случай";
  e.claims = {
      Claim::about({"Вариант с cap и append оказался вдвое медленнее. … Мегабайт памяти "
                    "проходится дважды, отсюда и двукратная разница.",
                    section, "2.04x (354.7 vs 174.2 µs); twice, in words"},
                   2.0, "BenchmarkCopy1MiB/zeroed+copy", "BenchmarkCopy1MiB/uninit+copy")
          .sized(2.04)
          .go_names("BenchmarkMakeCapThenAppend", "BenchmarkMakeThenCopy"),
      Claim::no_change({"Здесь работает growslice, которая тоже не зануляет то, … что будет "
                        "перезаписано. … MakeThenCopy-12 174.2µ ± 21% AppendNil-12 161.9µ ± 13%",
                        section, "0.93x (161.9 vs 174.2 µs; the seed's noise ±13%, ±21%)"},
                       0.21, "BenchmarkCopy1MiB/copy-construct", "BenchmarkCopy1MiB/uninit+copy")
          .go_names("BenchmarkAppendNil", "BenchmarkMakeThenCopy"),
      Claim::fact_check({"Пару «выделили слайс, тут же скопировали в него» компилятор распознаёт "
                         "и заменяет на runtime.makeslicecopy. … А make([]byte, 0, n) идёт через "
                         "makeslice, и там обнуление безусловное",
                         section,
                         "MakeThenCopy: runtime.makeslicecopy; MakeCapThenAppend: makeslice, "
                         "growslice, memmove"},
                        nullptr)
          .cpp_not_comparable_because("Go's compiler and runtime calls; C++ has no makeslicecopy")
          .go_fact(go_test("TestRuntimeCalls")),
      Claim::no_change({"reserve+insert (the advice's literal C++ form) costs the same as "
                        "allocating without zeroing and copying: reserve() zeroes nothing",
                        "", ""},
                       0.10, "BenchmarkCopy1MiB/reserve+insert", "BenchmarkCopy1MiB/uninit+copy")
          .project(),
  };
  return e;
}

}  // namespace zerolab::lab
