// lab/child_process.hpp — run a program the lab did not write (a compiled
// Go peer, one of lab/probes/) to completion and keep its output: the facts
// that must look at a fresh process, as the seeds ran their programs.
//
// Thread-safety: run_child starts a child and waits for it; safe from any
// thread.
//
// Example:
//   ChildRun r = run_child({"/path/heap_dirty"});
//   if (r.exit_status == 0) parse(r.output);
#ifndef ZEROLAB_LAB_CHILD_PROCESS_HPP_
#define ZEROLAB_LAB_CHILD_PROCESS_HPP_

#include <string>
#include <vector>

namespace zerolab::lab {

struct ChildRun {
  int exit_status = 0;  // the exit code, or 128 + the signal that ended it
  std::string output;   // stdout and stderr, interleaved
};

// Runs argv[0] (a path, not searched) with argv, this process's environment
// and, when path_prefix is not empty, path_prefix first on PATH. Throws
// std::runtime_error naming the program when it cannot be started.
// REQUIRES: argv not empty.
ChildRun run_child(const std::vector<std::string>& argv, const std::string& path_prefix = "");

// How run_program starts a child: the lower layer of run_child, for callers
// that want the raw wait status and the start error as a value.
struct ChildSetup {
  std::string workdir;                 // empty: this process's directory
  std::vector<std::string> extra_env;  // "KEY=value", added or replacing KEY
};

struct ProgramRun {
  bool started = false;  // false: error says why
  int wait_status = 0;   // as waitpid gives it
  std::string output;    // stdout and stderr, interleaved
  std::string error;     // why it could not start ("cannot run PATH: ...")
};

// Runs argv[0] (a path, not searched) to completion: stdin from /dev/null,
// stdout and stderr into one pipe kept whole, the environment this
// process's with setup.extra_env over it, in setup.workdir.
// REQUIRES: argv not empty.
ProgramRun run_program(const std::vector<std::string>& argv, const ChildSetup& setup);

// Everything fd gives until end of file or a read error (EINTR is retried):
// a child's output pipe. Does not close fd.
std::string read_to_end(int fd);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_CHILD_PROCESS_HPP_
