// lab/staging_cleanup.hpp — a staging directory ("out+tmp.<pid>", see
// directory_swap.hpp) removed when the process is ended by SIGINT, SIGTERM,
// SIGHUP or SIGXFSZ while it exists: `zerolab lab -o DIR` interrupted
// mid-run leaves neither DIR changed nor its staging directory behind. The
// removal runs in the signal handler with async-signal-safe calls only
// (openat, getdents64, unlinkat), then the signal's previous disposition is
// put back and the signal raised again, so the process still ends by it
// (and another cleanup handler installed before, such as the output
// writer's, still runs). A SIGKILL leaves the directory; the next run's
// sweep_stale_directories removes it.
//
// install_directory (directory_swap.hpp) disarms it once the directory is
// in place.
//
// Thread-safety: arm and disarm from one thread; the handler reads the
// registration atomically.
//
// Example:
//   ::mkdir(temp.c_str(), 0777);
//   remove_on_fatal_signal(temp);  // removed if a signal ends us from now on
//   ... write into temp ...
//   install_directory(temp, target, error);  // disarmed: temp is target now
#ifndef ZEROLAB_LAB_STAGING_CLEANUP_HPP_
#define ZEROLAB_LAB_STAGING_CLEANUP_HPP_

#include <string>

namespace zerolab::lab {

// Arms the removal of dir (up to 4 directories at once; more are left to
// the next run's sweep).
void remove_on_fatal_signal(const std::string& dir);
// Disarms it when dir is the armed directory.
void keep_on_fatal_signal(const std::string& dir);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_STAGING_CLEANUP_HPP_
