// Experiment `reset-cost` (seed 004, "Обнуление живой памяти"): one use of
// a pooled object — write a 40-byte name and eight ints into it — then its
// reset before it goes back to the pool, for an object with owning members
// (std::string, std::vector<int>, std::unique_ptr<int>) reset with
// `obj = T{}` (the vector's and unique_ptr's buffers are freed and the next
// use allocates them again; libstdc++'s string, move-assigned an empty
// inline string, copies it into the buffer it already has and keeps it)
// or with clear() on each member (the capacity is kept), against a
// trivially copyable object of the same sizeof cleared with memset. A
// second pair resets objects that are already empty: `obj = T{}` against a
// memset of the same size.
//
// Example:
//   zerolab lab reset-cost
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "lab/experiment.hpp"

namespace zerolab::lab {
namespace {

constexpr char kName[] = "cable-modem-00:1a:2b:3c:4d:5e/downstream";  // 40 chars
constexpr int kInts = 8;

struct Owning {
  std::string name;
  std::vector<int> values;
  std::unique_ptr<int> extra;
};

// The same size, trivially copyable: the bytes a memset can clear.
struct Trivial {
  unsigned char bytes[sizeof(Owning)];
};
static_assert(std::is_trivially_copyable_v<Trivial>);
static_assert(sizeof(Trivial) == sizeof(Owning));

void use(Owning& o, int i) {
  o.name.assign(kName, sizeof kName - 1);
  o.values.reserve(kInts);
  for (int k = 0; k < kInts; ++k) o.values.push_back(i + k);
  if (!o.extra) o.extra = std::make_unique<int>();
  *o.extra = i;
}

// As many of the ints as fit after the name (sizeof(Owning) is 64 here).
constexpr std::size_t kTrivialInts = (sizeof(Trivial) - 40) / sizeof(int);

void use(Trivial& t, int i) {
  std::memcpy(t.bytes, kName, 40);
  for (std::size_t k = 0; k < kTrivialInts; ++k) {
    const int v = i + static_cast<int>(k);
    std::memcpy(t.bytes + 40 + sizeof(int) * k, &v, sizeof v);
  }
}

void owning_assign(B& b) {
  // One object, as a pool holds it between uses.
  auto* o = new Owning;
  int i = 0;
  for (auto _ : b.loop()) {
    use(*o, i++);
    do_not_optimize(*o);
    *o = Owning{};
    clobber_memory();
  }
  delete o;
}

void owning_clear(B& b) {
  auto* o = new Owning;
  int i = 0;
  for (auto _ : b.loop()) {
    use(*o, i++);
    do_not_optimize(*o);
    o->name.clear();
    o->values.clear();
    *o->extra = 0;
    clobber_memory();
  }
  delete o;
}

void trivial_memset(B& b) {
  auto* t = new Trivial;
  int i = 0;
  for (auto _ : b.loop()) {
    use(*t, i++);
    do_not_optimize(*t);
    std::memset(t, 0, sizeof *t);
    clobber_memory();
  }
  delete t;
}

void empty_assign(B& b) {
  auto* o = new Owning;
  for (auto _ : b.loop()) {
    do_not_optimize(*o);
    *o = Owning{};
    clobber_memory();
  }
  delete o;
}

void empty_memset(B& b) {
  auto* t = new Trivial;
  for (auto _ : b.loop()) {
    do_not_optimize(*t);
    std::memset(t, 0, sizeof *t);
    clobber_memory();
  }
  delete t;
}

std::string name(const char* v) { return std::string("BenchmarkResetCost/") + v; }

}  // namespace

Experiment make_reset_cost_experiment() {
  Experiment e;
  e.id = "reset-cost";
  e.title = "resetting a pooled object: owning members (obj = T{}, clear()) vs memset of the same size";
  e.seed_file = "004_9bd089f53a065852.txt";
  e.seed_section = "Обнуление живой памяти (resetStruct vs clearBytes, the practical note for pools)";
  e.note =
      "No GC write barrier (Go's wbZero): what obj = T{} costs in C++ is freeing the members' "
      "buffers, and the next use allocating them again; clear() keeps them.";
  const auto t = std::chrono::milliseconds(100);
  e.benchmarks = {
      {name("UseThenReset/Owning=T{}"), &owning_assign, 0, t},
      {name("UseThenReset/Owning.clear()"), &owning_clear, 0, t},
      {name("UseThenReset/Trivial.memset"), &trivial_memset, 0, t},
      {name("ResetEmpty/Owning=T{}"), &empty_assign, 0, t},
      {name("ResetEmpty/Trivial.memset"), &empty_memset, 0, t},
  };
  e.claims = {
      Claim::ratio(
          "resetting an object with pointers before returning it to a pool costs more than "
          "clearing bytes of the same size",
          "— (resetStruct calls runtime.wbZero; clearBytes is a plain memclr)",
          name("UseThenReset/Owning=T{}"), name("UseThenReset/Trivial.memset"), 1.0),
      Claim::bound(
          "C++: obj = T{} drops the vector's and unique_ptr's buffers, so every use allocates "
          "them again (libstdc++'s string keeps its own when moved an inline one)",
          "—", name("UseThenReset/Owning=T{}"), "allocs/op", 2, 2),
      Claim::bound("C++: clear() on each member keeps their buffers: 0 allocs/op", "—",
                   name("UseThenReset/Owning.clear()"), "allocs/op", 0, 0),
      Claim::ratio("C++: reusing the buffers is what saves the cost: T{} >= 2x clear()", "—",
                   name("UseThenReset/Owning=T{}"), name("UseThenReset/Owning.clear()"), 2.0),
  };
  return e;
}

}  // namespace zerolab::lab
