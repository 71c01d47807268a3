// lab/experiments/reset_cost_calls.hpp — the `reset-cost` experiment's Go
// fact: which runtime functions the seed's resetStruct, clearPtrs and
// clearBytes call in the Go peer's compiled test binary (the seed's
// `go tool objdump -s 'main\.resetStruct$' | grep -oE "runtime\.\w+"`).
//
// observe_reset_calls() runs `go tool objdump` on the binary;
// check_reset_calls() decides, so a test can hand it a stand-in.
//
// Thread-safety: observe runs a child process; check is pure.
//
// Example:
//   ResetCalls calls = observe_reset_calls({"/tmp/reset-cost.test", "go"});
//   FactResult r = check_reset_calls(calls);  // holds in Go 1.19 and in the seed's Go
#ifndef ZEROLAB_LAB_EXPERIMENTS_RESET_COST_CALLS_HPP_
#define ZEROLAB_LAB_EXPERIMENTS_RESET_COST_CALLS_HPP_

#include <set>
#include <string>

#include "lab/framework/experiment.hpp"

namespace zerolab::lab {

struct ResetCalls {
  std::string error;                   // non-empty: objdump could not be run or found no function
  std::set<std::string> reset_struct;  // "runtime.typedmemclr", ...
  std::set<std::string> clear_ptrs;
  std::set<std::string> clear_bytes;
};

// The runtime.NAME symbols in each function of the peer's binary.
ResetCalls observe_reset_calls(const GoPeerBinary& peer);

// Holds when resetStruct goes through the write barrier (runtime.writeBarrier
// and runtime.wbZero, or Go 1.19's runtime.typedmemclr), clearPtrs through
// runtime.memclrHasPointers, and clearBytes is runtime.memclrNoHeapPointers
// with no barrier.
FactResult check_reset_calls(const ResetCalls& calls);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_EXPERIMENTS_RESET_COST_CALLS_HPP_
