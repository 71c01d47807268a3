// The flags of `zerolab lab`, parsed and checked: -flag, --flag, -flag value
// and -flag=value, as the harness takes them (--fail-on-regression takes
// its PCT only as =PCT, as zerolab compare does). Experiment names are kept
// as given (the catalog check is cmd_lab's); every value is checked here,
// including baseline names and --fail-on-regression's need for --baseline,
// so a bad one is reported before anything runs or is written.
//
// Thread-safety: pure function.
//
// Example:
//   LabFlags f;
//   std::string error;
//   if (!parse_lab_flags(args, f, error)) { print "zerolab lab: " + error; exit 2; }
//   // f.count == 10, f.benchtime_text == "500ms" unless given
//   // "--baseline main --fail-on-regression=5%": f.baseline_name == "main", f.fail_percent == 5
#ifndef ZEROLAB_TOOLS_ZEROLAB_LAB_FLAGS_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_LAB_FLAGS_HPP_

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace zerolab::cli {

struct LabFlags {
  bool list = false;
  bool quick = false;
  bool full = false;  // --full: the Go peers beyond the default budget run too
  bool help = false;
  std::vector<std::string> experiments;
  int count = 10;                        // 1 with --quick
  std::string benchtime_text = "500ms";  // "20ms" with --quick
  std::chrono::nanoseconds benchtime{std::chrono::milliseconds(500)};
  std::int64_t iterations = 0;  // --benchtime Nx
  std::string out_dir;          // "" means the default
  std::string cpuprofile_dir;
  int cpuprofile_rate = 100;
  std::string memprofile_dir;
  std::uint64_t memprofile_rate = 512 * 1024;
  std::string save_name;      // --save NAME (checked: lab/baseline_name.hpp)
  std::string baseline_name;  // --baseline NAME
  std::string baseline_dir;   // --baseline-dir DIR; "" means $ZEROLAB_BASELINE_DIR or the default
  std::string store_url;      // --store URL; "" means the default store (checked by cmd_lab)
  bool no_store = false;      // --no-store
  std::vector<std::string> labels;  // --label k=v, repeatable (checked by cmd_lab)
  bool fail_on_regression = false;  // --fail-on-regression[=PCT]; needs --baseline
  double fail_percent = 0;          // PCT, >= 0 ("5" or "5%")
  bool go = true;                   // --go=on|off: run the seeds' Go code (peers/go) beside C++
  // --measure=time|instructions: with instructions, the counted claims'
  // C++ benchmarks also run under callgrind (lab/framework/counts.hpp).
  bool count_instructions = false;
};

// Returns false with `error` (one line, no prefix) on an unknown flag, a
// missing value or a bad value.
bool parse_lab_flags(std::span<char* const> args, LabFlags& flags, std::string& error);

}  // namespace zerolab::cli

#endif  // ZEROLAB_TOOLS_ZEROLAB_LAB_FLAGS_HPP_
