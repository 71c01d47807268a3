// `zerolab lab`'s output and profile directories (lab_output_dir.hpp).
#include "lab_output_dir.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "lab/framework/directory_swap.hpp"
#include "lab/framework/staging_cleanup.hpp"
#include "text/quote.hpp"

namespace zerolab::cli {
namespace {

// The first line of every report.md the lab writes (lab/framework/report.cpp).
constexpr const char* kReportTitle = "# zerolab lab report";

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Whether `path` can be made a directory by make_directories: every existing
// prefix is a directory (through symlinks), and the deepest existing one
// takes new entries (or, when path exists, takes files).
bool check_directory_path(const std::string& path, std::string& error) {
  std::string deepest = path[0] == '/' ? "/" : ".";
  bool exists = true;
  for (std::size_t pos = 0; pos <= path.size() && exists;) {
    std::size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    const std::string prefix = path.substr(0, slash);
    pos = slash + 1;
    if (prefix.empty()) continue;
    struct stat st {};
    if (::stat(prefix.c_str(), &st) != 0) {
      if (errno != ENOENT) {
        error = "cannot use directory " + path + ": " + prefix + ": " + std::strerror(errno);
        return false;
      }
      exists = false;
    } else if (!S_ISDIR(st.st_mode)) {
      error = "cannot use directory " + path + ": " + prefix + " is not a directory";
      return false;
    } else {
      deepest = prefix;
    }
  }
  if (::access(deepest.c_str(), W_OK | X_OK) != 0) {
    error = (exists ? "cannot write to directory " + path
                    : "cannot create directory " + path + " in " + deepest) +
            ": " + std::strerror(errno);
    return false;
  }
  return true;
}

// mkdir -p; false with `error` naming the prefix that failed.
bool make_directories(const std::string& path, std::string& error) {
  for (std::size_t pos = 0; pos <= path.size();) {
    std::size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    const std::string prefix = path.substr(0, slash);
    pos = slash + 1;
    if (prefix.empty() || ::mkdir(prefix.c_str(), 0777) == 0 || errno == EEXIST) continue;
    error = "cannot create directory " + prefix + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool ends_with(const std::string& name, const std::string& tail) {
  return name.size() > tail.size() &&
         name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
}

// The names in `dir` (not . and ..), each with whether it is a directory;
// false when it cannot be read.
bool list_directory(const std::string& dir, std::vector<std::pair<std::string, bool>>& entries) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") entries.emplace_back(name, is_directory(dir + "/" + name));
  }
  ::closedir(d);
  std::sort(entries.begin(), entries.end());
  return true;
}

// Whether an entry of a lab report directory is something the lab writes:
// report.md/.html, results (*.txt), profiles (*.prof), the --baseline
// files (baseline/) and a profile directory inside -o (only *.prof).
bool lab_output_entry(const std::string& dir, const std::string& name, bool directory) {
  if (!directory) {
    return name == "report.md" || name == "report.html" || ends_with(name, ".txt") ||
           ends_with(name, ".prof");
  }
  if (name == "baseline") return true;
  std::vector<std::pair<std::string, bool>> inside;
  if (!list_directory(dir + "/" + name, inside)) return false;
  return std::all_of(inside.begin(), inside.end(),
                     [](const auto& e) { return !e.second && ends_with(e.first, ".prof"); });
}

// "" when -o's existing directory `dir` may be replaced (empty, or a
// previous lab report), else why not (without the "flag -o: " prefix).
std::string replace_problem(const std::string& given, const std::string& dir) {
  std::vector<std::pair<std::string, bool>> entries;
  if (!list_directory(dir, entries))
    return "cannot read directory " + given + ": " + std::strerror(errno);
  if (entries.empty()) return "";
  const std::string refused =
      given + " is not empty and not a previous zerolab lab report, so it is not replaced";
  for (const auto& [name, directory] : entries) {
    if (!lab_output_entry(dir, name, directory)) {
      return refused + " (it holds " + internal::quote_text(name) +
             "); choose a new or empty directory";
    }
  }
  std::ifstream report(dir + "/report.md");
  std::string first;
  if (!std::getline(report, first) || first != kReportTitle) {
    return refused +
           " (its report.md is missing or not the lab's); choose a new or empty directory";
  }
  return "";
}

// The path a directory swap works on: `dir` itself, or its real path when
// it is a symlink or ends in "." or ".." (a swap would move the link or fail).
std::string swap_target(const std::string& dir) {
  const std::string last = dir.substr(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/') + 1);
  struct stat st {};
  const bool link = ::lstat(dir.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
  if (!link && last != "." && last != ".." && dir != "/") return dir;
  std::error_code ec;
  const std::string real = std::filesystem::weakly_canonical(dir, ec).string();
  return ec || real.empty() ? dir : real;
}

// `path` with symlinks of its existing part resolved and the rest normalized.
std::string comparable(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p =
      std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// A profile directory inside the output directory moves into the staging
// directory with it; others stay as given.
std::string staged(const std::string& profile_dir, const LabOutput& o) {
  if (profile_dir.empty()) return profile_dir;
  const std::string prof = comparable(profile_dir);
  const std::string placed = lab::placed_path(prof, comparable(o.target), o.staging);
  return placed != prof ? placed : profile_dir;  // unchanged: not inside -o's directory
}

}  // namespace

bool prepare_lab_output(const std::string& out_dir, const std::string& cpuprofile_dir,
                        const std::string& memprofile_dir, LabOutput& output, std::string& error) {
  // Every check before anything is created.
  for (const auto& [flag, dir] :
       {std::pair<const char*, const std::string*>{"cpuprofile", &cpuprofile_dir},
        {"memprofile", &memprofile_dir},
        {"o", &out_dir}}) {
    if (!dir->empty() && !check_directory_path(*dir, error)) {
      error = "flag -" + std::string(flag) + ": " + error;
      return false;
    }
  }
  output.target = swap_target(out_dir);
  const std::size_t slash = output.target.rfind('/');
  const std::string parent = slash == std::string::npos ? "" : output.target.substr(0, slash);
  if (is_directory(output.target)) {
    error = replace_problem(out_dir, output.target);
    // The run is staged beside the directory it replaces.
    const std::string beside = parent.empty() ? (slash == 0 ? "/" : ".") : parent;
    if (error.empty() && ::access(beside.c_str(), W_OK | X_OK) != 0) {
      error = "cannot replace directory " + out_dir + ": its parent " + beside +
              " takes no new entries (" + std::strerror(errno) + ")";
    }
    if (!error.empty()) {
      error = "flag -o: " + error;
      return false;
    }
  }
  output.staging = lab::staging_directory_name(output.target);
  output.cpuprofile_dir = staged(cpuprofile_dir, output);
  output.memprofile_dir = staged(memprofile_dir, output);

  if (!parent.empty() && !make_directories(parent, error)) {
    error = "flag -o: " + error;
    return false;
  }
  lab::sweep_stale_directories(output.target);  // runs into this directory that were killed
  lab::remove_tree(output.staging);
  if (::mkdir(output.staging.c_str(), 0777) != 0) {
    error = "flag -o: cannot create directory " + output.staging + ": " + std::strerror(errno);
    return false;
  }
  // Interrupted (^C, kill, the file size limit), the run leaves no staging behind.
  lab::remove_on_fatal_signal(output.staging);
  for (const auto& [flag, dir] :
       {std::pair<const char*, const std::string*>{"cpuprofile", &output.cpuprofile_dir},
        {"memprofile", &output.memprofile_dir}}) {
    if (!dir->empty() && !make_directories(*dir, error)) {
      error = "flag -" + std::string(flag) + ": " + error;
      lab::remove_tree(output.staging);
      return false;
    }
  }
  return true;
}

}  // namespace zerolab::cli
