// Copies of MemoryManager results that outlive Google Benchmark's
// (kept_results.hpp).
#include "gbench/kept_results.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <tuple>

namespace zerolab::gbench::internal {
namespace {

struct Kept {
  const benchmark::MemoryManager::Result* slot;
  benchmark::MemoryManager::Result result;
  bool claimed;
};

using RunKey = std::tuple<std::int64_t, std::int64_t, std::int64_t>;

struct Store {
  std::mutex mu;
  std::deque<Kept> kept;  // deque: push_back keeps the addresses handed out
  std::map<RunKey, Kept*> claimed;
};

Store& store() {
  static Store* const s = new Store();  // used until exit, from reporters
  return *s;
}

}  // namespace

void keep_result(const benchmark::MemoryManager::Result* slot,
                 const benchmark::MemoryManager::Result& result) {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mu);
  s.kept.push_back(Kept{slot, result, false});
}

const benchmark::MemoryManager::Result* kept_result(const benchmark::BenchmarkReporter::Run& run) {
  if (run.memory_result == nullptr) return nullptr;
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mu);
  const RunKey key{run.family_index, run.per_family_instance_index, run.repetition_index};
  if (const auto it = s.claimed.find(key);
      it != s.claimed.end() && it->second->slot == run.memory_result) {
    return &it->second->result;
  }
  for (Kept& k : s.kept) {
    if (k.claimed || k.slot != run.memory_result) continue;
    k.claimed = true;
    s.claimed[key] = &k;
    return &k.result;
  }
  return nullptr;
}

}  // namespace zerolab::gbench::internal
