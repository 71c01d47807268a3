// Running a program to completion with its output kept (child_process.hpp).
#include "lab/framework/child_process.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace zerolab::lab {

std::string read_to_end(int fd) {
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return text;
    }
  }
}

ChildRun run_child(const std::vector<std::string>& argv, const std::string& path_prefix) {
  int out[2];
  if (::pipe(out) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, out[1], 2);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addclose(&actions, out[1]);
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (path_prefix.empty() || std::strncmp(*e, "PATH=", 5) != 0) env.emplace_back(*e);
  }
  if (!path_prefix.empty()) {
    const char* path = std::getenv("PATH");
    env.push_back("PATH=" + path_prefix + ":" + (path != nullptr ? path : "/usr/bin:/bin"));
  }
  std::vector<char*> envp;
  envp.reserve(env.size() + 1);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  argp.reserve(args.size() + 1);
  for (auto& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (err != 0) {
    ::close(out[0]);
    throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(err));
  }
  ChildRun run;
  run.output = read_to_end(out[0]);
  ::close(out[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

}  // namespace zerolab::lab
