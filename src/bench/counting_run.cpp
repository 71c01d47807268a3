// The counting run's parent process (counting_run.hpp).
#include "bench/counting_run.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "bench/counting.hpp"
#include "bench/std_streams.hpp"
#include "files/atomic_file.hpp"
#include "files/whole_file.hpp"

extern char** environ;

namespace zerolab::internal {
namespace {

// The simulated caches: fixed, so miss counts do not follow the machine.
constexpr const char* kCacheOptions[] = {"--I1=32768,8,64", "--D1=32768,8,64",
                                         "--LL=8388608,16,64"};
constexpr std::size_t kMaxDumpBytes = std::size_t{1} << 30;

std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/bin:/bin";
  while (true) {
    const std::size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;  // not const: returned by move
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return "";
    rest.remove_prefix(colon + 1);
  }
}

std::string self_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<std::size_t>(n));
}

// The child's environment: the same every run, whatever the caller's.
std::vector<std::string> child_environment(const std::string& out_prefix) {
  std::vector<std::string> env = {"PATH=/usr/bin:/bin", "LC_ALL=C",
                                  std::string(counting::kChildMarker) + "=1",
                                  std::string(counting::kDumpPrefixVariable) + "=" + out_prefix};
  auto is_variable = [](std::string_view entry, const char* name) {
    return entry.substr(0, std::strlen(name) + 1) == std::string(name) + "=";
  };
  std::vector<std::string> kept;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const bool own = entry.substr(0, 8) == "ZEROLAB_" &&
                     !is_variable(entry, counting::kChildMarker) &&
                     !is_variable(entry, counting::kDumpPrefixVariable);
    if (own || entry.substr(0, 16) == "LD_LIBRARY_PATH=" ||
        entry.substr(0, 13) == "VALGRIND_LIB=") {
      kept.emplace_back(entry);
    }
  }
  std::sort(kept.begin(), kept.end());
  env.insert(env.end(), kept.begin(), kept.end());
  return env;
}

void remove_directory(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") unlink((dir + "/" + name).c_str());
    }
    closedir(d);
  }
  rmdir(dir.c_str());
}

// A result line: "Benchmark<name>\t<spaces><digits>...". Sets `name` and the
// offset just past the iteration count.
bool split_result_line(const std::string& line, std::string& name, std::size_t& after_count,
                       std::int64_t& iterations) {
  if (line.rfind("Benchmark", 0) != 0) return false;
  const std::size_t tab = line.find('\t');
  if (tab == std::string::npos) return false;
  std::size_t i = tab + 1;
  while (i < line.size() && line[i] == ' ') ++i;
  const std::size_t digits = i;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
  if (i == digits || (i < line.size() && line[i] != '\t')) return false;
  name = line.substr(0, tab);
  while (!name.empty() && name.back() == ' ') name.pop_back();
  iterations = std::strtoll(line.c_str() + digits, nullptr, 10);
  after_count = i;
  return true;
}

// Reads the child's dump files in order, as results ask for them.
class DumpReader {
 public:
  explicit DumpReader(std::string prefix) : prefix_(std::move(prefix)) {}

  // The two passes of `name`: the next pass-1 dump of that name and the
  // dump after it, skipped over any left by a benchmark that failed
  // between its passes.
  bool next_pair(const std::string& name, CallgrindDump& pass1, CallgrindDump& pass2,
                 std::string& error) {
    const std::string want1 = "Client Request: zerolab-bench pass 1 ";
    const std::string want2 = "Client Request: zerolab-bench pass 2 ";
    while (true) {
      if (!read(next_++, pass1, error)) return false;
      if (!has_name(pass1.trigger, want1, name)) continue;
      if (!read(next_++, pass2, error)) return false;
      if (has_name(pass2.trigger, want2, name)) return true;
      error = prefix_ + "." + std::to_string(next_ - 1) + ": expected the second pass of " + name +
              ", found \"" + pass2.trigger + "\"";
      return false;
    }
  }

 private:
  static bool has_name(const std::string& trigger, const std::string& want,
                       const std::string& name) {
    if (trigger.rfind(want, 0) != 0) return false;
    // "n <count> <name>"
    const std::size_t space = trigger.find(' ', want.size() + 2);
    return space != std::string::npos && trigger.substr(space + 1) == name;
  }

  bool read(int index, CallgrindDump& dump, std::string& error) {
    const std::string path = prefix_ + "." + std::to_string(index);
    std::string text;
    if (!read_whole_file(path, kMaxDumpBytes, text, error)) return false;
    if (!parse_callgrind_dump(text, dump, error)) {
      error = path + ": " + error;
      return false;
    }
    return true;
  }

  std::string prefix_;
  int next_ = 1;

 public:
  // The loops dumped before `name`'s end marker, as (iterations, dump).
  bool next_group(const std::string& name,
                  std::vector<std::pair<std::int64_t, CallgrindDump>>& loops, std::string& error) {
    const std::string loop = "Client Request: zerolab-gbench loop n ";
    const std::string end = "Client Request: zerolab-gbench end " + name;
    loops.clear();
    while (true) {
      CallgrindDump dump;
      if (!read(next_++, dump, error)) return false;
      if (dump.trigger == end) return true;
      if (dump.trigger.rfind(loop, 0) == 0) {
        loops.emplace_back(std::strtoll(dump.trigger.c_str() + loop.size(), nullptr, 10),
                           std::move(dump));
      } else if (dump.trigger.rfind("Client Request: zerolab-gbench end ", 0) == 0) {
        loops.clear();  // a benchmark that printed no result line
      }
    }
  }
};

std::string format_metrics(const std::vector<benchfmt::Metric>& metrics) {
  std::string out;
  for (const benchfmt::Metric& m : metrics) {
    out += '\t';
    benchfmt::append_pretty(out, m.value, m.unit);
  }
  return out;
}

std::string tail_of_file(const std::string& path, std::size_t max_bytes) {
  std::string text, error;
  if (!read_whole_file(path, std::size_t{1} << 24, text, error)) return "";
  if (text.size() > max_bytes) text = text.substr(text.size() - max_bytes);
  return text;
}

}  // namespace

std::vector<benchfmt::Metric> counts_per_op(const CallgrindDump& pass1, const CallgrindDump& pass2,
                                            std::int64_t iterations) {
  const double n = static_cast<double>(std::max<std::int64_t>(iterations, 1));
  auto diff = [&](std::initializer_list<const char*> events) {
    double total = 0;
    for (const char* e : events) {
      total += static_cast<double>(pass2.event(e)) - static_cast<double>(pass1.event(e));
    }
    return total;
  };
  const double ir = diff({"Ir"});
  // A pass's first iterations can miss more than the other pass's did (the
  // caches hold what came before each); without steady misses per op the
  // difference goes below zero, which is read as none.
  const double l1 = std::max(diff({"I1mr", "D1mr", "D1mw"}), 0.0);
  const double ll = std::max(diff({"ILmr", "DLmr", "DLmw"}), 0.0);
  const double cycles = ir + 10 * (l1 - ll) + 100 * ll;
  return {{ir / n, kCountUnits[0]},
          {l1 / n, kCountUnits[1]},
          {ll / n, kCountUnits[2]},
          {cycles / n, kCountUnits[3]}};
}

bool counts_from_loops(const std::vector<std::pair<std::int64_t, CallgrindDump>>& loops,
                       std::vector<benchfmt::Metric>& out, std::string& error) {
  const std::pair<std::int64_t, CallgrindDump>* longest = nullptr;
  for (const auto& loop : loops) {
    if (longest == nullptr || loop.first > longest->first) longest = &loop;
  }
  const std::pair<std::int64_t, CallgrindDump>* shorter = nullptr;
  for (const auto& loop : loops) {
    if (longest != nullptr && loop.first < longest->first &&
        (shorter == nullptr || loop.first > shorter->first)) {
      shorter = &loop;
    }
  }
  if (shorter == nullptr) {
    error = "every loop ran " + (longest != nullptr ? std::to_string(longest->first) : "no") +
            " iterations; the counts need two loop lengths (raise --benchmark_min_time)";
    return false;
  }
  out = counts_per_op(shorter->second, longest->second, longest->first - shorter->first);
  return true;
}

namespace {

// The counting child being waited for, and the signal that asked this
// process to stop (SIGINT, SIGTERM): the handler passes it on to the child
// and the parent, once the child is gone and its files removed, dies of it.
volatile sig_atomic_t g_child_pid = 0;
volatile sig_atomic_t g_stop_signal = 0;

void on_stop_signal(int sig) {
  const int saved = errno;
  // A second signal does not wait for valgrind to finish its exit.
  if (g_stop_signal != 0 && g_child_pid > 0) kill(static_cast<pid_t>(g_child_pid), SIGKILL);
  g_stop_signal = sig;
  if (g_child_pid > 0) kill(static_cast<pid_t>(g_child_pid), sig);
  errno = saved;
}

struct StopSignals {
  struct sigaction previous[2];
  static constexpr int kSignals[2] = {SIGINT, SIGTERM};
  StopSignals() {
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_handler = &on_stop_signal;
    sigemptyset(&action.sa_mask);
    g_stop_signal = 0;
    for (int i = 0; i < 2; ++i) sigaction(kSignals[i], &action, &previous[i]);
  }
  ~StopSignals() {
    g_child_pid = 0;
    for (int i = 0; i < 2; ++i) sigaction(kSignals[i], &previous[i], nullptr);
  }
};

// After the child is gone: dies of the stop signal, if one came.
void die_of_stop_signal() {
  if (g_stop_signal == 0) return;
  const int sig = g_stop_signal;
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

bool start_counting_child(const std::vector<std::string>& args, CountingChild& child,
                          std::string& error) {
  if (!counting::built_with_callgrind()) {
    error =
        "this build cannot count: it was built without valgrind/callgrind.h (install valgrind "
        "and rebuild) or with a sanitizer, whose programs valgrind cannot run";
    return false;
  }
  const std::string valgrind = find_in_path("valgrind");
  if (valgrind.empty()) {
    error =
        "valgrind not found in PATH (it runs the benchmarks under callgrind; Debian: apt "
        "install valgrind)";
    return false;
  }
  const std::string self = self_path();
  if (self.empty()) {
    error = std::string("cannot read /proc/self/exe: ") + std::strerror(errno);
    return false;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_template =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/zerolab-count.XXXXXX";
  if (mkdtemp(dir_template.data()) == nullptr) {
    error = "cannot create " + dir_template + ": " + std::strerror(errno);
    return false;
  }
  child.dir = dir_template;
  child.out_prefix = child.dir + "/callgrind.out";
  child.log_path = child.dir + "/valgrind.log";

  std::vector<std::string> argv_s = {valgrind,
                                     "--tool=callgrind",
                                     "--log-file=" + child.log_path,
                                     "--collect-atstart=no",
                                     "--cache-sim=yes",
                                     "--dump-line=no",
                                     "--callgrind-out-file=" + child.out_prefix};
  for (const char* c : kCacheOptions) argv_s.emplace_back(c);
  argv_s.push_back(self);
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  const std::vector<std::string> env = child_environment(child.out_prefix);
  std::vector<char*> argv_c, env_c;
  for (std::string& a : argv_s) argv_c.push_back(a.data());
  argv_c.push_back(nullptr);
  for (const std::string& e : env) env_c.push_back(const_cast<char*>(e.c_str()));
  env_c.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    remove_directory(child.dir);
    return false;
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    remove_directory(child.dir);
    return false;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    const int persona = personality(0xffffffff);
    if (persona == -1 ||
        personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE) == -1) {
      const char* why = std::strerror(errno);
      (void)!write(STDERR_FILENO, "warning: address-space randomization stays on: ", 47);
      (void)!write(STDERR_FILENO, why, std::strlen(why));
      (void)!write(STDERR_FILENO, "\n", 1);
    }
    execve(valgrind.c_str(), argv_c.data(), env_c.data());
    const char* why = std::strerror(errno);
    (void)!write(STDERR_FILENO, "cannot run valgrind: ", 21);
    (void)!write(STDERR_FILENO, why, std::strlen(why));
    (void)!write(STDERR_FILENO, "\n", 1);
    _exit(127);
  }
  close(fds[1]);
  child.pid = pid;
  child.out_fd = fds[0];
  g_child_pid = pid;
  // A stop signal that came before the child existed is passed on now.
  if (g_stop_signal != 0) kill(pid, static_cast<int>(g_stop_signal));
  return true;
}

int finish_counting_child(CountingChild& child, std::string& error) {
  if (child.out_fd >= 0) close(child.out_fd);
  child.out_fd = -1;
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child_pid = 0;
  int code = 1;
  if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1)) {
    code = WEXITSTATUS(status);
  } else if (g_stop_signal == 0) {
    error = std::string("the run under callgrind ") +
            (WIFEXITED(status) ? "exited with " : "died of signal ") +
            std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status)) +
            "; valgrind's log:\n" + tail_of_file(child.log_path, 4000);
  }
  remove_directory(child.dir);
  return code;
}

bool run_self_counting(const std::vector<std::string>& args, std::string& out, std::string& error) {
  StopSignals stop;
  CountingChild child;
  if (!start_counting_child(args, child, error)) return false;
  char buf[65536];
  while (true) {
    const ssize_t n = read(child.out_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  const int code = finish_counting_child(child, error);
  die_of_stop_signal();
  if (!error.empty()) return false;
  if (code != 0) {
    error = "the run under callgrind failed (exit " + std::to_string(code) + ")";
    return false;
  }
  return true;
}

int run_counting_parent(const std::string& program, int argc, char** argv, const Options& options,
                        DumpProtocol protocol) {
  StopSignals stop;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  CountingChild child;
  std::string error;
  if (!start_counting_child(args, child, error)) {
    std::fprintf(stderr, "%s: -benchmeasure=instructions: %s\n", program.c_str(), error.c_str());
    return 2;
  }

  DumpReader dumps(child.out_prefix);
  std::string file_output;
  std::string pending;
  bool units_printed = false;
  auto emit = [&](const std::string& text) {
    write_stdout(text);
    if (!options.output_file.empty()) file_output += text;
  };
  auto handle_line = [&](const std::string& line) {
    std::string name;
    std::size_t after_count = 0;
    std::int64_t iterations = 0;
    if (!error.empty() || !split_result_line(line, name, after_count, iterations)) {
      emit(line);
      return;
    }
    std::vector<benchfmt::Metric> counts;
    if (protocol == DumpProtocol::kTwoPasses) {
      CallgrindDump pass1, pass2;
      if (!dumps.next_pair(name, pass1, pass2, error)) {
        emit(line);
        return;
      }
      counts = counts_per_op(pass1, pass2, iterations);
    } else {
      std::vector<std::pair<std::int64_t, CallgrindDump>> loops;
      if (!dumps.next_group(name, loops, error) || !counts_from_loops(loops, counts, error)) {
        if (error.find(name) == std::string::npos) error = name + ": " + error;
        emit(line);
        return;
      }
    }
    if (!units_printed) {
      units_printed = true;
      std::string units;
      for (const char* u : kCountUnits) units += "Unit " + std::string(u) + " assume=exact\n";
      emit(units);
    }
    emit(line.substr(0, after_count) + format_metrics(counts) + line.substr(after_count));
  };
  char buf[65536];
  while (true) {
    const ssize_t n = read(child.out_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (g_stop_signal != 0) continue;  // stopping: the child's last lines are not shown
    pending.append(buf, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      handle_line(pending.substr(start, nl + 1 - start));
    }
    pending.erase(0, start);
  }
  if (!pending.empty() && g_stop_signal == 0) handle_line(pending);

  std::string child_error;
  int code = finish_counting_child(child, child_error);
  if (g_stop_signal != 0) {
    std::fprintf(stderr,
                 "%s: -benchmeasure=instructions: stopped by signal %d; the run under callgrind "
                 "was stopped and its files removed\n",
                 program.c_str(), static_cast<int>(g_stop_signal));
    die_of_stop_signal();
  }
  if (!child_error.empty()) {
    std::fprintf(stderr, "%s: -benchmeasure=instructions: %s", program.c_str(),
                 child_error.c_str());
    code = 1;
  }
  if (!error.empty()) {
    std::fprintf(stderr, "%s: -benchmeasure=instructions: %s\n", program.c_str(), error.c_str());
    code = 1;
  }
  if (!options.output_file.empty() &&
      !write_file_atomically(options.output_file, file_output, error)) {
    std::fprintf(stderr, "%s: -o: %s\n", program.c_str(), error.c_str());
    return 1;
  }
  return code;
}

}  // namespace zerolab::internal
