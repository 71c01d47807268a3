// Building and running a Go peer (go_peer.hpp).
#include "lab/framework/go_peer.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "lab/framework/child_process.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::lab {
namespace {

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The first line of text, without its newline.
std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// The last non-empty line of text (a compiler's or a panic's message).
std::string last_lines(const std::string& text, int count) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  std::string out;
  const std::size_t from = lines.size() > static_cast<std::size_t>(count)
                               ? lines.size() - static_cast<std::size_t>(count)
                               : 0;
  for (std::size_t i = from; i < lines.size(); ++i) out += (out.empty() ? "" : " | ") + lines[i];
  return out;
}

bool writable_dir(const std::string& dir) {
  return !dir.empty() && is_directory(dir) && ::access(dir.c_str(), W_OK | X_OK) == 0;
}

bool make_directories(const std::string& path) {
  std::string prefix;
  for (std::size_t pos = 0; pos <= path.size();) {
    std::size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    prefix = path.substr(0, slash);
    pos = slash + 1;
    if (prefix.empty()) continue;
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) return false;
  }
  return is_directory(path);
}

std::string status_text(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  return "ended abnormally";
}

bool succeeded(const ProgramRun& r) {
  return r.started && WIFEXITED(r.wait_status) && WEXITSTATUS(r.wait_status) == 0;
}

// "BenchmarkX-2" → "BenchmarkX" (Go's -GOMAXPROCS suffix).
std::string without_procs_suffix(const std::string& name) {
  const auto dash = name.rfind('-');
  if (dash == std::string::npos || dash + 1 == name.size()) return name;
  if (name.find_first_not_of("0123456789", dash + 1) != std::string::npos) return name;
  return name.substr(0, dash);
}

void collect_files(const std::string& root, const std::string& rel, std::vector<std::string>& out,
                   bool& ok) {
  DIR* d = ::opendir((root + rel).c_str());
  if (d == nullptr) {
    ok = false;
    return;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = rel + "/" + name;
    struct stat st {};
    if (::stat((root + path).c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      collect_files(root, path, out, ok);
    } else if (S_ISREG(st.st_mode)) {
      out.push_back(path);
    }
  }
  ::closedir(d);
}

void fnv(std::uint64_t& h, const char* data, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ULL;
  }
}

}  // namespace

std::string default_go_peers_dir() {
  return ZEROLAB_GO_PEERS_DIR;
}
std::string default_go_cache_dir() {
  return ZEROLAB_GO_PEER_CACHE;
}

GoToolchain find_go(const std::string& command) {
  GoToolchain go;
  if (command.find('/') != std::string::npos) {
    if (is_executable_file(command)) go.path = command;
  } else {
    const char* path_env = std::getenv("PATH");
    std::string path = path_env != nullptr ? path_env : "";
    std::size_t pos = 0;
    while (pos <= path.size()) {
      std::size_t colon = path.find(':', pos);
      if (colon == std::string::npos) colon = path.size();
      std::string dir = path.substr(pos, colon - pos);
      pos = colon + 1;
      if (dir.empty()) dir = ".";
      const std::string candidate = dir + "/" + command;
      if (is_executable_file(candidate)) {
        go.path = candidate;
        break;
      }
    }
  }
  if (go.path.empty()) {
    go.error = command.find('/') != std::string::npos ? command + " is not an executable file"
                                                      : "no " + command + " on PATH";
    return go;
  }
  const ProgramRun r = run_program({go.path, "version"}, {".", {"GOTOOLCHAIN=local"}});
  if (!succeeded(r)) {
    go.error = go.path + " version failed: " +
               (r.started ? status_text(r.wait_status) + ": " + last_lines(r.output, 2) : r.error);
    go.path.clear();
    return go;
  }
  go.version = first_line(r.output);
  return go;
}

std::string source_hash(const std::string& dir, const std::string& salt) {
  std::vector<std::string> files;
  bool ok = true;
  collect_files(dir, "", files, ok);
  if (!ok) return "";
  std::sort(files.begin(), files.end());
  std::uint64_t h = 14695981039346656037ULL;
  fnv(h, salt.data(), salt.size() + 1);
  for (const auto& f : files) {
    fnv(h, f.c_str(), f.size() + 1);
    std::ifstream in(dir + f, std::ios::binary);
    if (!in) return "";
    char buf[8192];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
      fnv(h, buf, static_cast<std::size_t>(in.gcount()));
    }
    const char end = 0;
    fnv(h, &end, 1);
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

GoPeerBuild build_go_peer(const GoToolchain& go, const std::string& peers_dir,
                          const std::string& dir, const std::string& cache_dir) {
  GoPeerBuild b;
  const std::string source = peers_dir + "/" + dir;
  if (go.path.empty()) {
    b.error = go.error.empty() ? "no go" : go.error;
    return b;
  }
  if (!is_directory(source)) {
    b.error = "no Go peer directory " + source;
    return b;
  }
  const std::string hash = source_hash(source, go.version);
  if (hash.empty()) {
    b.error = "cannot read the Go peer's sources in " + source;
    return b;
  }
  if (!make_directories(cache_dir) || !writable_dir(cache_dir)) {
    b.error = "cannot use the Go peer cache " + cache_dir + ": " + std::strerror(errno);
    return b;
  }
  b.binary = cache_dir + "/" + dir + "-" + hash + ".test";
  if (is_executable_file(b.binary)) {
    b.ok = true;
    b.cached = true;
    return b;
  }
  const std::string temp = b.binary + ".tmp." + std::to_string(::getpid());
  std::vector<std::string> env = {"GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=", "GO111MODULE=on"};
  // Go's own build cache: the default unless it cannot be written.
  const ProgramRun cache = run_program({go.path, "env", "GOCACHE"}, {source, env});
  const std::string gocache = succeeded(cache) ? first_line(cache.output) : "";
  if (gocache.empty() || gocache == "off" ||
      (!writable_dir(gocache) && !make_directories(gocache))) {
    env.push_back("GOCACHE=" + cache_dir + "/gocache");
    env.push_back("GOPATH=" + cache_dir + "/gopath");
  }
  const auto start = std::chrono::steady_clock::now();
  const ProgramRun r = run_program({go.path, "test", "-c", "-o", temp, "."}, {source, env});
  b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!succeeded(r) || !is_executable_file(temp)) {
    ::unlink(temp.c_str());
    b.error = "go test -c in " + source + " failed: " +
              (r.started ? status_text(r.wait_status) + ": " + last_lines(r.output, 3) : r.error);
    return b;
  }
  if (::rename(temp.c_str(), b.binary.c_str()) != 0) {
    b.error = "cannot move the Go peer binary to " + b.binary + ": " + std::strerror(errno);
    ::unlink(temp.c_str());
    return b;
  }
  b.ok = true;
  return b;
}

void read_go_output(const std::string& text, GoPeerRun& run) {
  stat::StringSource source(text);
  stat::GoReader reader(source, "go peer");
  while (reader.next()) {
    if (reader.kind() != stat::RecordKind::kResult) continue;
    const stat::BenchRecord& rec = reader.result();
    benchfmt::Result r;
    r.name = without_procs_suffix(rec.result.name);
    r.iterations = rec.result.iterations;
    for (std::size_t i = 0; i < rec.result.metrics.size(); ++i) {
      const bool tidied = i < rec.original.size() && !rec.original[i].unit.empty();
      r.metrics.push_back(tidied ? rec.original[i] : rec.result.metrics[i]);
    }
    run.results.push_back(std::move(r));
  }
  if (!reader.error().empty()) run.failures.push_back({"go peer", reader.error()});
  // A Go peer's output is Go's text: its failures exist only as the
  // "--- FAIL" blocks, read by the one reader of them.
  for (const auto& block : benchfmt::read_message_blocks(text)) {
    if (block.kind != benchfmt::BlockKind::kFail) continue;
    std::string message;
    for (const auto& line : block.lines) {
      const std::size_t start = line.find_first_not_of(' ');
      if (start != std::string::npos) message += (message.empty() ? "" : "; ") + line.substr(start);
    }
    run.failures.push_back(
        {without_procs_suffix(block.name), message.empty() ? "failed" : message});
  }
}

GoPeerRun run_go_peer(const std::string& binary, const std::string& workdir,
                      const std::vector<std::string>& args) {
  GoPeerRun run;
  std::vector<std::string> argv = {binary};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProgramRun r = run_program(argv, {workdir, {"GOTOOLCHAIN=local", "GOPROXY=off"}});
  run.output = r.output;
  if (!r.started) {
    run.failures.push_back({"go peer", r.error});
    return run;
  }
  read_go_output(r.output, run);
  if (!succeeded(r)) {
    run.failures.push_back(
        {"go peer", status_text(r.wait_status) + ": " + last_lines(r.output, 3)});
  }
  return run;
}

}  // namespace zerolab::lab
