// A directory put in place in one step (lab/directory_swap.hpp).
#include "lab/framework/directory_swap.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "lab/framework/staging_cleanup.hpp"

namespace zerolab::lab {

std::string staging_directory_name(const std::string& target) {
  return target + "+tmp." + std::to_string(::getpid());
}

namespace {

// `dir` without trailing slashes ("/" stays "/").
std::string without_trailing_slashes(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace

std::string placed_path(const std::string& path, const std::string& from, const std::string& to) {
  const std::string dir = without_trailing_slashes(from);
  if (dir.empty() || path.compare(0, dir.size(), dir) != 0) return path;
  std::size_t rest = dir.size();
  // "out+tmp.42" is not inside "out".
  if (rest < path.size() && path[rest] != '/' && dir != "/") return path;
  while (rest < path.size() && path[rest] == '/') ++rest;
  std::string target = to.empty() ? "." : without_trailing_slashes(to);
  if (rest == path.size()) return target;
  return (target == "/" ? target : target + "/") + path.substr(rest);
}

std::string placed_in_text(std::string text, const std::string& from, const std::string& to) {
  const std::string dir = without_trailing_slashes(from);
  if (dir.empty()) return text;
  const std::string inside = dir == "/" ? dir : dir + "/";
  const std::string target = to.empty() ? "." : without_trailing_slashes(to);
  const std::string placed = target == "/" ? target : target + "/";
  // A path starts the text or follows a space, a quote or a bracket
  // ("/x/out/" in "/a/x/out/f" is not the directory "/x/out").
  const auto starts_path = [&](std::size_t at) {
    return at == 0 || std::string_view(" \t\"'`(=").find(text[at - 1]) != std::string_view::npos;
  };
  for (std::size_t at = text.find(inside); at != std::string::npos; at = text.find(inside, at)) {
    if (!starts_path(at)) {
      ++at;
      continue;
    }
    text.replace(at, inside.size(), placed);
    at += placed.size();
  }
  return text;
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

void sweep_stale_directories(const std::string& target) {
  const std::size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : target.substr(0, slash);
  const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    std::string digits;
    for (const char* kind : {"+tmp.", "+old."}) {
      const std::string prefix = base + kind;
      if (name.compare(0, prefix.size(), prefix) == 0) digits = name.substr(prefix.size());
    }
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const auto pid = static_cast<pid_t>(std::atol(digits.c_str()));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    remove_tree(dir + "/" + name);
  }
  ::closedir(d);
}

bool install_directory(const std::string& temp, const std::string& target, std::string& error) {
  if (::rename(temp.c_str(), target.c_str()) == 0) {
    keep_on_fatal_signal(temp);
    return true;
  }
  if (errno != EEXIST && errno != ENOTEMPTY) {
    error = "cannot rename " + temp + " to " + target + ": " + std::strerror(errno);
    return false;
  }
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
    // temp holds the old tree now: still removed by a signal, then here.
    remove_tree(temp);
    keep_on_fatal_signal(temp);
    return true;
  }
  if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
    error = "cannot replace " + target + ": " + std::strerror(errno);
    return false;
  }
  const std::string old = target + "+old." + std::to_string(::getpid());
  remove_tree(old);
  if (::rename(target.c_str(), old.c_str()) != 0) {
    error = "cannot move " + target + " aside to " + old + ": " + std::strerror(errno);
    return false;
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    error = "cannot rename " + temp + " to " + target + ": " + std::strerror(errno);
    ::rename(old.c_str(), target.c_str());
    return false;
  }
  keep_on_fatal_signal(temp);
  remove_tree(old);
  return true;
}

}  // namespace zerolab::lab
