// lab/directory_swap.hpp — a directory written whole somewhere else and then
// put in place in one step, so a reader (or a process killed midway) sees
// the old tree or the new one, never a mix: `zerolab lab --save`'s baseline
// folders and `zerolab lab -o DIR`'s report. The temporary is a sibling,
// "<target>+tmp.<pid>" (no baseline name and no lab output name of the lab's
// own contains '+'), on the same file system so the rename cannot copy.
//
// Thread-safety: reentrant; one writer per target.
//
// Example:
//   const std::string temp = staging_directory_name("out/run");  // "out/run+tmp.4242"
//   sweep_stale_directories("out/run");  // earlier killed runs' temporaries
//   ::mkdir(temp.c_str(), 0777);  ... write files into temp ...
//   std::string error;
//   if (!install_directory(temp, "out/run", error)) fail(error);
//   placed_path(temp + "/baseline/main", temp, "out/run");  // "out/run/baseline/main"
//   placed_in_text(temp + "/a.txt: no results", temp, "out/run");  // "out/run/a.txt: no results"
#ifndef ZEROLAB_LAB_DIRECTORY_SWAP_HPP_
#define ZEROLAB_LAB_DIRECTORY_SWAP_HPP_

#include <string>

namespace zerolab::lab {

// "<target>+tmp.<pid of this process>".
std::string staging_directory_name(const std::string& target);

// Where `path` is once the directory `from` has moved to `to`: `to` for
// `from` itself, to/REST for from/REST, and `path` unchanged when it is not
// inside `from` ("out+tmp.42/x" is not inside "out"). Textual: spell `path`
// and `from` alike (both relative to one directory, or both absolute and
// normalized); trailing slashes of `from` and `to` are ignored, an empty
// `from` holds nothing and an empty `to` is ".". It maps the
// staging directory's paths to the target's, and the target's to the staging.
std::string placed_path(const std::string& path, const std::string& from, const std::string& to);
// `text` (a message) with every path inside `from` spelled as placed_path
// spells it: each "from/" becomes "to/". For messages that name files
// written in the staging directory, read after the run is in place.
std::string placed_in_text(std::string text, const std::string& from, const std::string& to);

// Removes a directory tree, ignoring errors (cleanup only).
void remove_tree(const std::string& path);

// Removes "<target>+tmp.<pid>" and "<target>+old.<pid>" trees left by
// processes that no longer exist.
void sweep_stale_directories(const std::string& target);

// Puts the complete directory `temp` at `target`: a plain rename when
// target is missing (or an empty directory), else an atomic exchange
// (renameat2) and removal of the old tree; where the file system cannot
// exchange, the old tree is first renamed aside to target+old.<pid>, so it is
// never lost. Returns false with `error` and `target` as it was.
bool install_directory(const std::string& temp, const std::string& target, std::string& error);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_DIRECTORY_SWAP_HPP_
