// Running a program to completion with its output kept (child_process.hpp).
#include "lab/framework/child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <utility>

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

ProgramRun run_program(const std::vector<std::string>& argv, const ChildSetup& setup) {
  ProgramRun run;
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry = *e;
    const std::string_view key = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(
        setup.extra_env.begin(), setup.extra_env.end(),
        [&](const std::string& x) { return std::string_view(x).substr(0, x.find('=')) == key; });
    if (!replaced) env.emplace_back(entry);
  }
  env.insert(env.end(), setup.extra_env.begin(), setup.extra_env.end());
  std::vector<char*> envp;
  envp.reserve(env.size() + 1);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  argp.reserve(args.size() + 1);
  for (auto& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);

  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    run.error = std::string("pipe: ") + std::strerror(errno);
    return run;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, out[1], 2);
  if (!setup.workdir.empty()) posix_spawn_file_actions_addchdir_np(&actions, setup.workdir.c_str());
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (err != 0) {
    ::close(out[0]);
    run.error = "cannot run " + argv[0] + ": " + std::strerror(err);
    return run;
  }
  run.started = true;
  run.output = read_to_end(out[0]);
  ::close(out[0]);
  while (::waitpid(pid, &run.wait_status, 0) < 0 && errno == EINTR) {
  }
  return run;
}

ChildRun run_child(const std::vector<std::string>& argv, const std::string& path_prefix) {
  ChildSetup setup;
  if (!path_prefix.empty()) {
    const char* path = std::getenv("PATH");
    setup.extra_env.push_back("PATH=" + path_prefix + ":" +
                              (path != nullptr ? path : "/usr/bin:/bin"));
  }
  ProgramRun program = run_program(argv, setup);
  if (!program.started) throw std::runtime_error(program.error);
  ChildRun run;
  run.output = std::move(program.output);
  const int status = program.wait_status;
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

}  // namespace zerolab::lab
