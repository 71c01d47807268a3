// lab/go_peer.hpp — the seed's own Go code as a peer of a lab experiment:
// finds `go` on PATH, builds peers/go/<dir> once into a test binary
// (`go test -c`, cached under a name keyed by a hash of the peer's sources
// and the Go version, so an unchanged peer is never rebuilt), runs that
// binary's benchmarks once (-test.count=1) as a child process, and reads
// its output with the stat reader (zerolab/stat_reader.hpp) into results
// named as the Go benchmarks are, without the -GOMAXPROCS suffix, in the
// units Go printed (ns/op, B/op, allocs/op, custom units).
//
// The child gets GOTOOLCHAIN=local and GOPROXY=off (a peer uses the
// standard library only: nothing is downloaded); when the default GOCACHE
// is not writable, the build uses <cache_dir>/gocache.
//
// Thread-safety: functions are reentrant; a cache directory may be shared
// (a binary is built under a temporary name and renamed into place).
//
// Example:
//   GoToolchain go = find_go();                 // go.path == "" when none on PATH
//   GoPeerBuild b = build_go_peer(go, "/src/peers/go", "merge", "build/go-peers");
//   if (b.ok) {
//     GoPeerRun r = run_go_peer(b.binary, "/src/peers/go/merge",
//                               {"-test.run=^$", "-test.bench=.", "-test.benchtime=100ms",
//                                "-test.count=1", "-test.benchmem"});
//     // r.results[0].name == "BenchmarkMergeSlicesZero", metrics in ns/op, B/op, allocs/op
//   }
#ifndef ZEROLAB_LAB_GO_PEER_HPP_
#define ZEROLAB_LAB_GO_PEER_HPP_

#include <string>
#include <vector>

#include "lab/framework/benchmark_failure.hpp"
#include "zerolab/benchfmt.hpp"

namespace zerolab::lab {

struct GoToolchain {
  std::string path;     // absolute path of the go command; "" when none was found
  std::string version;  // `go version`'s line, "go version go1.19.8 linux/amd64"
  std::string error;    // why there is none: "no go on PATH", or go version's failure
};

// Looks for `command` ("go", or a path) on PATH and asks it its version.
GoToolchain find_go(const std::string& command = "go");

struct GoPeerBuild {
  bool ok = false;
  bool cached = false;  // the binary was already in the cache
  std::string binary;   // <cache_dir>/<dir>-<hash>.test
  std::string error;    // one line: what failed ("go test -c: ...: undefined: x")
  double seconds = 0;   // time the build took (0 when cached)
};

// Builds (or finds in cache_dir, which is created if missing) the test
// binary of peers_dir/dir.
GoPeerBuild build_go_peer(const GoToolchain& go, const std::string& peers_dir,
                          const std::string& dir, const std::string& cache_dir);

struct GoPeerRun {
  std::vector<benchfmt::Result> results;  // in output order, names without "-N"
  // One per benchmark the binary reported as failed, and one for "go peer"
  // when the binary itself failed (exit status, a signal, unreadable output).
  std::vector<BenchmarkFailure> failures;
  std::string output;  // everything the binary wrote (stdout and stderr)
};

// Runs `binary` with `args` in `workdir` and reads its results.
GoPeerRun run_go_peer(const std::string& binary, const std::string& workdir,
                      const std::vector<std::string>& args);

// Reads Go benchmark output (`go test -bench` / a test binary's) into
// `run`: results without the -N suffix in the printed units, and the
// failure blocks (benchfmt::read_message_blocks, the one reader of Go's
// "--- FAIL" text) as failures. Exposed for the tests and the fuzzer.
void read_go_output(const std::string& text, GoPeerRun& run);

// peers/go of the source tree this zerolab was built from, and the cache
// of peer binaries in its build tree (compile-time paths).
std::string default_go_peers_dir();
std::string default_go_cache_dir();

// A 64-bit FNV-1a hash, in hex, of every regular file under `dir` (paths
// and contents, in sorted order) and `salt`; "" when `dir` cannot be read.
std::string source_hash(const std::string& dir, const std::string& salt);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_GO_PEER_HPP_
