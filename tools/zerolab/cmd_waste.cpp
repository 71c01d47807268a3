// zerolab waste [flags] [--] PROGRAM [ARG...]: runs PROGRAM with the
// zerolab::waste preload library (src/waste/) and reports the memory work it
// did for nothing. The pieces: flags (cmd_waste_flags), program checks
// (cmd_waste_program), records (cmd_waste_collect), symbols
// (profile/symbolizer, with file, line and inlined frames read from the
// DWARF by profile/libdw), costs (cmd_waste_calibrate), the report
// (cmd_waste_report) and pprof profiles (cmd_waste_profile).
//
// Order of work: flags, the program, the preload and every output are
// checked first (one line, exit 2, nothing started); then the program runs
// with its stdin/stdout/stderr untouched, SIGINT/SIGTERM/SIGHUP/SIGQUIT sent
// to zerolab waste by kill(2) are forwarded to it (a terminal's ^C reaches
// both already) until it exits; then they are zerolab waste's own again
// and the report is written, even if the program failed, to stderr (or -o
// FILE): never to stdout, which is the program's output (`zerolab waste --
// prog > out` leaves `out` as prog wrote it).
// Exit status: the program's (a program killed by a signal: zerolab waste
// re-raises that signal, core dumps off), or 3 if a --fail-on threshold is
// reached by a program that succeeded, or 1 if the report cannot be written
// (a program that failed keeps its status). With stderr closed (2>&-) and no
// -o the report is discarded, as with 2>/dev/null: not a failure.
//
// Example:
//   zerolab waste -- ./server --port 8080
//   zerolab waste --format json -o waste.json --fail-on any=1M -- make test
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "command.hpp"
#include "files/atomic_file.hpp"
#include "profile/libdw/libdw_lines.hpp"
#include "waste/calibrate.hpp"
#include "waste/collect.hpp"
#include "waste/diff.hpp"
#include "waste/flags.hpp"
#include "waste/frame_filter.hpp"
#include "waste/processes.hpp"
#include "waste/profile.hpp"
#include "waste/program.hpp"
#include "waste/record_format.hpp"
#include "waste/report.hpp"

extern char** environ;

namespace zerolab::cli {
namespace {

using waste::kWasteUsage;
using waste::parse_waste_flags;
using waste::shown_arg;
using waste::WasteFlags;
using waste::WasteFormat;
using waste::WasteKind;

constexpr int kExitFailed = 1;
constexpr int kExitBadUsage = 2;
constexpr int kExitThreshold = 3;

int fail(int code, const std::string& message) {
  const std::string line = "zerolab waste: " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  return code;
}

// The report and the diff go to -o FILE, or without one to a standard
// stream, always through the project's one output writer
// (files/atomic_file.hpp): -o FILE is checked before any work and written
// once at the end (a new or regular file replaced through a temporary,
// keeping its mode; a link, a FIFO, a read-only file and "" refused).
bool check_output(const std::string& output, std::string& error) {
  if (output.empty() || internal::check_output_path(output, {}, error)) return true;
  error = "-o: " + error;
  return false;
}

// `stream` is the writer's name of the default: "/dev/stderr" for the
// report (stdout is the program's), "-" (stdout) for the diff.
bool write_output(const std::string& output, const char* stream, const std::string& text,
                  std::string& error) {
  if (internal::write_file_atomically(output.empty() ? stream : output, text, error)) return true;
  if (!output.empty()) error = "-o: " + error;
  return false;
}

// False when stderr is not open for writing: closed when zerolab started
// (main puts a read-only /dev/null in its place, so no other file takes
// descriptor 2) or opened for reading only.
bool stderr_writable() {
  const int mode = fcntl(STDERR_FILENO, F_GETFL);
  return mode >= 0 && (mode & O_ACCMODE) != O_RDONLY;
}

bool prepare_profile_dir(const std::string& dir, std::string& error) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) {
    if (mkdir(dir.c_str(), 0755) != 0) {
      error = "-profile " + shown_arg(dir) + ": " + std::strerror(errno);
      return false;
    }
    return true;
  }
  if (!S_ISDIR(st.st_mode)) {
    error = "-profile " + shown_arg(dir) + ": not a directory";
    return false;
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    error = "-profile " + shown_arg(dir) + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

// The program inherits the file size limit, and a record bigger than it
// would kill the program with SIGXFSZ (the preload then records nothing).
bool record_fits(std::string& error) {
  rlimit limit{};
  if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur >= sizeof(zerolab::waste::Record)) {
    return true;
  }
  error = "the file size limit (ulimit -f) is " + std::to_string(limit.rlim_cur) +
          " bytes, below the " + std::to_string(sizeof(zerolab::waste::Record)) +
          " bytes of the record each process writes";
  return false;
}

// A new directory for the records. In memory (/dev/shm) where there is one:
// each process maps its record shared and writes it on every counted event,
// and on a disk file system the page-cache faults and the file's creation
// and removal cost about a millisecond per process (bench/waste/overhead.sh).
// Else in $TMPDIR or /tmp. The name holds this process's id
// (zerolab-waste.<pid>.XXXXXX) for remove_orphaned_run_dirs.
bool make_run_dir(std::string& dir, std::string& error) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string fallback = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  for (const std::string& base : {std::string("/dev/shm"), fallback}) {
    dir = base + "/zerolab-waste." + std::to_string(getpid()) + ".XXXXXX";
    if (mkdtemp(dir.data()) != nullptr) return true;
  }
  error = "cannot create a directory for the records in " + dir + ": " + std::strerror(errno);
  return false;
}

// ---- running the program ------------------------------------------------------

volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_pending_signal = 0;
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void forward_signal(int sig, siginfo_t* info, void*) {
  // A terminal's signal (SI_KERNEL) reached the program's process group too.
  if (info != nullptr && info->si_code > 0) return;
  if (g_child > 0) {
    kill(static_cast<pid_t>(g_child), sig);
  } else {
    g_pending_signal = sig;
  }
}

struct sigaction g_before_forwarding[std::size(kForwarded)];

void install_forwarding() {
  struct sigaction sa {};
  sa.sa_sigaction = &forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < std::size(kForwarded); ++i)
    sigaction(kForwarded[i], &sa, &g_before_forwarding[i]);
}

// Waits for the program to exit, then puts the dispositions back and only
// then reaps it: until it is reaped its pid stays its own (a zombie), so a
// signal forwarded meanwhile can reach no other process; once reaped, a
// SIGTERM/SIGINT/SIGHUP/SIGQUIT is zerolab waste's own again (by default it
// ends it, while it writes the report too). Returns the wait status or -1.
int wait_and_restore(pid_t pid, int& status) {
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0) {
    if (errno != EINTR) return -1;
  }
  sigset_t forwarded, before;
  sigemptyset(&forwarded);
  for (int sig : kForwarded) sigaddset(&forwarded, sig);
  sigprocmask(SIG_BLOCK, &forwarded, &before);
  for (std::size_t i = 0; i < std::size(kForwarded); ++i)
    sigaction(kForwarded[i], &g_before_forwarding[i], nullptr);
  g_child = 0;
  pid_t reaped;
  while ((reaped = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  const int saved = errno;
  // A signal that came in between is delivered now, with the old disposition.
  sigprocmask(SIG_SETMASK, &before, nullptr);
  errno = saved;
  return reaped < 0 ? -1 : 0;
}

void remove_run_dir(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") unlink((dir + "/" + name).c_str());
    }
    closedir(d);
  }
  rmdir(dir.c_str());
}

// A zerolab waste killed by SIGKILL leaves its record directory behind, and
// in /dev/shm that holds memory until reboot: the next run removes every
// such directory whose zerolab waste no longer exists.
void remove_orphaned_run_dirs() {
  const std::string shm = "/dev/shm";
  DIR* d = opendir(shm.c_str());
  if (d == nullptr) return;
  const std::string prefix = "zerolab-waste.";
  std::vector<std::string> orphans;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    if (pid <= 0 || *end != '.') continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours
    orphans.push_back(shm + "/" + name);
  }
  closedir(d);
  for (const std::string& dir : orphans) remove_run_dir(dir);
}

std::vector<std::string> child_environment(const WasteFlags& flags, const std::string& preload,
                                           const std::string& run_dir) {
  namespace rec = zerolab::waste;
  std::vector<std::string> env;
  std::string ld_preload = preload;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string v = *e;
    const std::string name = v.substr(0, v.find('='));
    if (name == "LD_PRELOAD") {
      const std::string rest = v.substr(name.size() + 1);
      if (!rest.empty()) ld_preload += ":" + rest;
      continue;
    }
    if (name == rec::kEnvDir || name == rec::kEnvSampleRate || name == rec::kEnvCheckRate ||
        name == rec::kEnvFollow) {
      continue;
    }
    env.push_back(v);
  }
  env.push_back("LD_PRELOAD=" + ld_preload);
  env.push_back(std::string(rec::kEnvDir) + "=" + run_dir);
  env.push_back(std::string(rec::kEnvSampleRate) + "=" + std::to_string(flags.sample_rate));
  env.push_back(std::string(rec::kEnvCheckRate) + "=" + std::to_string(flags.check_rate));
  env.push_back(std::string(rec::kEnvFollow) + "=" + (flags.follow ? "1" : "0"));
  return env;
}

// Runs the program; returns its wait status (or -1 with `error`).
int run_program(const std::string& path, const WasteFlags& flags, const std::string& preload,
                const std::string& run_dir, std::string& error) {
  std::vector<std::string> env = child_environment(flags, preload, run_dir);
  std::vector<char*> envp;
  envp.reserve(env.size() + 1);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = flags.program;
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  install_forwarding();
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, path.c_str(), nullptr, nullptr, argv.data(), envp.data());
  if (rc != 0) {
    for (std::size_t i = 0; i < std::size(kForwarded); ++i)
      sigaction(kForwarded[i], &g_before_forwarding[i], nullptr);
    error = "starting " + path + ": " + std::strerror(rc);
    return -1;
  }
  g_child = pid;
  if (g_pending_signal != 0) kill(pid, g_pending_signal);
  int status = 0;
  if (wait_and_restore(pid, status) != 0) {
    error = "waiting for " + path + ": " + std::strerror(errno);
    return -1;
  }
  return status;
}

// A report file read whole: false with a one-line `error`.
bool read_whole_file(const std::string& path, const char* flag, std::string& text,
                     std::string& error) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    error = std::string(flag) + shown_arg(path) + ": is a directory";
    return false;
  }
  if (fd < 0) {
    error = std::string(flag) + shown_arg(path) + ": " + std::strerror(errno);
    return false;
  }
  text.clear();
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = std::string(flag) + shown_arg(path) + ": " + std::strerror(errno);
      close(fd);
      return false;
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  close(fd);
  return true;
}

// A --format json report read and checked (diff.hpp).
bool read_summary(const std::string& path, const char* flag, waste::WasteSummary& out,
                  std::string& error) {
  std::string text;
  return read_whole_file(path, flag, text, error) &&
         waste::read_report_json(text, std::string(flag) + shown_arg(path), out, error);
}

// The report for --baseline: the run's report with what changed since the
// baseline after it (text, markdown) or in it as "baseline" (JSON).
std::string with_baseline(const std::string& report_text, const waste::Report& report,
                          const waste::WasteSummary& baseline, WasteFormat format,
                          waste::WasteDiff& diff) {
  const std::string json_text = waste::render_report(report, WasteFormat::kJson);
  waste::WasteSummary now;
  std::string error;
  waste::read_report_json(json_text, "this run", now, error);  // its own output: always reads
  diff = waste::diff_reports(baseline, now);
  if (format == WasteFormat::kJson) {
    auto j = nlohmann::ordered_json::parse(json_text);
    j["baseline"] = nlohmann::ordered_json::parse(waste::render_diff(diff, WasteFormat::kJson));
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  return report_text + "\n" + waste::render_diff(diff, format);
}

// zerolab waste diff [flags] OLD.json NEW.json
int run_waste_diff(std::span<char* const> args) {
  waste::WasteDiffFlags flags;
  std::string error;
  if (!waste::parse_waste_diff_flags(args, flags, error)) return fail(kExitBadUsage, error);
  if (flags.help) {
    std::fputs(waste::kWasteDiffUsage, stdout);
    return 0;
  }
  waste::WasteSummary old_run;
  waste::WasteSummary new_run;
  if (!read_summary(flags.old_path, "", old_run, error) ||
      !read_summary(flags.new_path, "", new_run, error)) {
    return fail(kExitBadUsage, error);
  }
  if (!check_output(flags.output, error)) return fail(kExitBadUsage, error);
  const waste::WasteDiff diff = waste::diff_reports(old_run, new_run);
  const std::string text = waste::render_diff(diff, flags.format);
  signal(SIGPIPE, SIG_IGN);
  if (!write_output(flags.output, "-", text, error)) return fail(kExitFailed, error);
  if (const std::string reached = waste::diff_threshold(diff, flags.fail_on); !reached.empty())
    return fail(kExitThreshold, "-fail-on " + reached);
  return 0;
}

int run_waste(std::span<char* const> args) {
  if (!args.empty() && std::strcmp(args[0], "diff") == 0) return run_waste_diff(args.subspan(1));
  WasteFlags flags;
  std::string error;
  if (!parse_waste_flags(args, flags, error)) return fail(kExitBadUsage, error);
  if (flags.help) {
    std::fputs(kWasteUsage, stdout);
    return 0;
  }
  waste::FrameFilter skip;
  if (!waste::FrameFilter::parse(flags.skip_frames, skip, error)) return fail(kExitBadUsage, error);
  if (!flags.baseline.empty() && flags.format == WasteFormat::kHtml) {
    return fail(kExitBadUsage,
                "-baseline with -format html: the page has no diff view (use text, json or "
                "markdown)");
  }
  waste::WasteSummary baseline;
  if (!flags.baseline.empty() && !read_summary(flags.baseline, "-baseline ", baseline, error))
    return fail(kExitBadUsage, error);
  std::string path;
  if (!waste::find_program(flags.program[0], path, error) || !waste::check_program(path, error)) {
    return fail(kExitBadUsage, error);
  }
  std::string preload;
  if (!waste::find_preload(preload, error)) return fail(kExitBadUsage, error);
  if (!record_fits(error)) return fail(kExitBadUsage, error);
  if (!check_output(flags.output, error)) return fail(kExitBadUsage, error);
  if (!flags.profile_dir.empty() && !prepare_profile_dir(flags.profile_dir, error)) {
    return fail(kExitBadUsage, error);
  }
  remove_orphaned_run_dirs();
  std::string run_dir;
  if (!make_run_dir(run_dir, error)) return fail(kExitFailed, error);

  const auto start = std::chrono::steady_clock::now();
  const int status = run_program(path, flags, preload, run_dir, error);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status < 0) {
    remove_run_dir(run_dir);
    return fail(kExitFailed, error);
  }
  // From here on a closed stderr pipe must not kill the report's error handling.
  signal(SIGPIPE, SIG_IGN);

  waste::RunFacts run;
  run.program = flags.program;
  run.wall_seconds = wall;
  run.sample_rate = flags.sample_rate;
  run.check_rate = flags.check_rate;
  if (WIFSIGNALED(status)) {
    run.signal = WTERMSIG(status);
    run.exit_status = 128 + run.signal;
  } else {
    run.exit_status = WEXITSTATUS(status);
  }
  waste::Symbolizer symbols;
  waste::Collected collected;
  std::vector<waste::Collected> per_image;
  const bool collected_ok = waste::collect_records(run_dir, symbols, collected, error, &per_image);
  remove_run_dir(run_dir);
  if (!collected_ok) return fail(kExitFailed, error);
  // Runtime libraries get file and line only for the profiles, and names
  // only where a site has no frame outside them.
  for (const waste::SiteRecord& s : collected.sites) {
    const bool all_runtime = std::all_of(s.stack.begin(), s.stack.end(), [&](int id) {
      return waste::runtime_module(symbols.get(id).module);
    });
    if (all_runtime && !s.stack.empty()) symbols.want_name(s.stack.front());
  }
  // File, line and inlined frames from the DWARF, read in this process.
  internal::profile::LibdwResolver lines;
  symbols.resolve(!flags.profile_dir.empty(), lines);
  waste::Calibration calibration;
  auto found = [&](WasteKind kind) {
    const waste::KindTotals& t = collected.totals[static_cast<int>(kind)];
    return t.bytes > 0 || t.calls > 0;
  };
  waste::CalibrationNeeds needs;
  needs.zeroing = found(WasteKind::kZeroedFreshPages) || found(WasteKind::kZeroedZeros);
  needs.faults = found(WasteKind::kZeroedFreshPages);
  needs.malloc_free =
      found(WasteKind::kTemporaryAllocations) || found(WasteKind::kTemporaryInFrame);
  needs.large_block = found(WasteKind::kOversizedBuffers);
  needs.copying = found(WasteKind::kUserSpaceCopies);
  calibration = waste::machine_calibration(needs, flags.recalibrate);
  waste::Report report = waste::build_report(collected, symbols, calibration, run, skip);
  report.per_process = waste::process_rows(per_image, symbols, calibration, run, skip);
  std::string text = waste::render_report(report, flags.format);
  waste::WasteDiff diff;
  if (!flags.baseline.empty()) text = with_baseline(text, report, baseline, flags.format, diff);

  int code = run.exit_status;
  bool written = true;
  if (flags.output.empty() && !stderr_writable()) {
    // Started with stderr closed (2>&-): the report is discarded, as
    // 2>/dev/null would discard it, and nothing is there to say so.
  } else if (!write_output(flags.output, "/dev/stderr", text, error)) {
    written = false;
    fail(kExitFailed, error);
  }
  if (!flags.profile_dir.empty() &&
      !waste::write_profiles(flags.profile_dir, report, collected, symbols, error)) {
    written = false;
    fail(kExitFailed, error);
  }
  if (run.signal != 0) {
    std::fflush(nullptr);
    rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(run.signal, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, run.signal);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    raise(run.signal);
    return code;  // a signal whose default is not to terminate
  }
  if (code != 0) return code;
  if (!written) return kExitFailed;
  if (const std::string reached = flags.baseline.empty()
                                      ? waste::failed_threshold(report, flags.fail_on)
                                      : waste::diff_threshold(diff, flags.fail_on);
      !reached.empty()) {
    return fail(kExitThreshold, "-fail-on " + reached);
  }
  return 0;
}

const CommandRegistration kWaste{"waste", "run a program and report the memory work it wastes",
                                 &run_waste};

}  // namespace
}  // namespace zerolab::cli
