// The profilers' sampling gate (profile_gate.hpp).
#include "profile/profile_gate.hpp"

#include "profile/cpu_profiler.hpp"
#include "profile/mem_profiler.hpp"

namespace zerolab::internal::profile {

void set_timer_running(bool on) noexcept {
  CpuProfiler::set_sampling(on);
  MemProfiler::set_sampling(on);
}

}  // namespace zerolab::internal::profile
