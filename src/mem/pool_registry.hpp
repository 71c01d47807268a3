// Which pools this thread has a slot in (pool.cpp), so a thread's slots go
// back to their pools when it exits (PoolCore::thread_exit).
//
// Thread-safety: per thread (the registry is thread_local).
//
// Example:
//   if (PoolLocal* l = find_pool_local(id)) return l;
//   register_pool_local(id, core, core->claim());
#ifndef ZEROLAB_SRC_MEM_POOL_REGISTRY_HPP_
#define ZEROLAB_SRC_MEM_POOL_REGISTRY_HPP_

#include <cstdint>
#include <memory>

#include "zerolab/pool.hpp"

namespace zerolab::internal {

// This thread's slot in the pool with this id, or null (a scan of the thread's list).
PoolLocal* find_pool_local(std::uint64_t id) noexcept;
// Remembers (id, slot) for this thread; core->thread_exit(slot) runs when it
// exits, if the pool still exists.
void register_pool_local(std::uint64_t id, std::weak_ptr<PoolCore> core, PoolLocal* local);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_POOL_REGISTRY_HPP_
