// lab/go_test_fact.hpp — a Go-side fact (Claim::go_fact) that is one test
// of the seed's Go peer: the lab's compiled peer (`go test -c`) is run with
// -test.run '^Name$' -test.v, and the fact holds when that test ran and
// passed; what it saw is its t.Log/t.Error lines. Used where the seed's
// claim is about Go's build (stack-zero's objdump, copy-vs-append's runtime
// calls, zero-cost's .bss).
//
// Thread-safety: go_test_fact starts a child process and waits for it; safe
// from any thread.
//
// Example:
//   claim.go_fact(go_test("TestBSS"));
#ifndef ZEROLAB_LAB_GO_TEST_FACT_HPP_
#define ZEROLAB_LAB_GO_TEST_FACT_HPP_

#include <functional>
#include <string>

#include "lab/framework/experiment.hpp"

namespace zerolab::lab {

// Runs `peer.path -test.run ^test$ -test.v` (with peer.go's directory first
// on PATH, for tests that call `go tool`), then go_test_result. Throws
// std::runtime_error when the binary cannot be started.
FactResult go_test_fact(const GoPeerBinary& peer, const std::string& test);

// The Go-side fact that is the peer's test `test`, for Claim::go_fact.
std::function<FactResult(const GoPeerBinary&)> go_test(std::string test);

// The verdict from a finished run: holds when the exit status is 0 and the
// output has "--- PASS: test"; a skip, a failure or no such test does not
// hold. observed: the test's log lines joined with "; " (at most 400
// characters), prefixed by what went wrong when it did not pass.
FactResult go_test_result(int exit_status, const std::string& output, const std::string& test);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_GO_TEST_FACT_HPP_
