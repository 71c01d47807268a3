// zerolab::Pool's per-thread registry (pool_registry.hpp): which pools this
// thread has a slot in, and giving the slots back when the thread exits.
#include "mem/pool_registry.hpp"

#include <algorithm>
#include <vector>

namespace zerolab::internal {
namespace {

struct Entry {
  std::uint64_t id;
  std::weak_ptr<PoolCore> shared;
  PoolLocal* local;
};

class Registry {
 public:
  ~Registry() {
    pool_tls = PoolTls{};
    for (Entry& e : entries_) {
      if (std::shared_ptr<PoolCore> s = e.shared.lock()) s->thread_exit(e.local);
    }
  }
  PoolLocal* find(std::uint64_t id) const noexcept {
    for (const Entry& e : entries_) {
      if (e.id == id) return e.local;
    }
    return nullptr;
  }
  void add(std::uint64_t id, std::weak_ptr<PoolCore> shared, PoolLocal* local) {
    // Drop the entries of pools that are gone (their locals went with them).
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                  [](const Entry& e) { return e.shared.expired(); }),
                   entries_.end());
    entries_.push_back(Entry{id, std::move(shared), local});
  }

 private:
  std::vector<Entry> entries_;
};

thread_local Registry registry;
std::atomic<std::uint64_t> last_id{0};

}  // namespace

std::uint64_t next_pool_id() noexcept {
  return last_id.fetch_add(1, std::memory_order_relaxed) + 1;
}

PoolLocal* find_pool_local(std::uint64_t id) noexcept {
  return registry.find(id);
}

void register_pool_local(std::uint64_t id, std::weak_ptr<PoolCore> shared, PoolLocal* local) {
  registry.add(id, std::move(shared), local);
}

}  // namespace zerolab::internal
