// Where `zerolab lab` writes, settled before anything runs: the -o
// directory and the --cpuprofile / --memprofile directories are all checked
// before any of them is created, so a bad one (exit 2) leaves nothing behind.
//
// -o DIR is never written in place. The run writes into a sibling staging
// directory, DIR+tmp.<pid>, which replaces DIR in one step at the end
// (lab/directory_swap.hpp): until then DIR is as it was, and a run that is
// killed leaves DIR untouched (its staging directory is removed by the next
// run into DIR). DIR may be
//   - missing or an empty directory;
//   - a previous lab report: report.md from `zerolab lab` and nothing but what
//     the lab writes (report.md, report.html, *.txt, *.prof, baseline/, and
//     folders of *.prof only), all of which the new run replaces (no stale
//     results of experiments not run this time);
//   - anything else is refused, naming what is in it.
// A profile directory that is DIR or inside it is staged with the run, so the
// profiles end up in the new DIR (-o DIR --memprofile DIR keeps both).
//
// Thread-safety: touches the file system; one call per process.
//
// Example:
//   LabOutput o;
//   std::string error;
//   if (!prepare_lab_output("results/today", "", "results/today", o, error)) { fail(error); exit 2;
//   }
//   // o.staging == "results/today+tmp.4242", o.memprofile_dir == "results/today+tmp.4242"
//   settings.out_dir = o.staging; settings.final_dir = o.target;
#ifndef ZEROLAB_TOOLS_ZEROLAB_LAB_OUTPUT_DIR_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_LAB_OUTPUT_DIR_HPP_

#include <string>

namespace zerolab::cli {

struct LabOutput {
  std::string target;   // -o's directory (its real path when given as a symlink, "." or "..")
  std::string staging;  // where the run writes: target+tmp.<pid>, created
  std::string cpuprofile_dir;  // as the run uses them: moved into staging when inside target;
  std::string memprofile_dir;  // "" when not given
};

// Checks the three directories, then creates the staging directory (and
// target's missing parents) and the profile directories. Returns false with
// `error` ("flag -o: ...", naming the flag) and nothing created on a path
// through a file, an unwritable directory, or an -o that may not be replaced
// (and, rarely, when creating fails after the checks passed).
bool prepare_lab_output(const std::string& out_dir, const std::string& cpuprofile_dir,
                        const std::string& memprofile_dir, LabOutput& output, std::string& error);

}  // namespace zerolab::cli

#endif  // ZEROLAB_TOOLS_ZEROLAB_LAB_OUTPUT_DIR_HPP_
