// The one link between benchmark timers and the profilers: while a
// benchmark's timer runs, the running CPU and memory profiles sample; while
// it is stopped (calibration, setup between stop_timer and start_timer, the
// harness's own bookkeeping), they do not.
//
// Thread-safety: called by the benchmark thread; the profilers' gates are
// atomic.
//
// Example (what B::start_timer and B::stop_timer do):
//   zerolab::internal::profile::set_timer_running(true);
//   ...timed code...
//   zerolab::internal::profile::set_timer_running(false);
#ifndef ZEROLAB_SRC_PROFILE_PROFILE_GATE_HPP_
#define ZEROLAB_SRC_PROFILE_PROFILE_GATE_HPP_

namespace zerolab::internal::profile {

// Opens (on) or closes the sampling gate of every running profile; with no
// profile running it costs two relaxed loads.
void set_timer_running(bool on) noexcept;

}  // namespace zerolab::internal::profile

#endif  // ZEROLAB_SRC_PROFILE_PROFILE_GATE_HPP_
