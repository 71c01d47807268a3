// Fatal-signal reporting for the harness (signals.hpp).
#include "bench/signals.hpp"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace zerolab::internal::signals {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr std::size_t kNameCapacity = 512;

char g_name[kNameCapacity];
std::atomic<bool> g_has_name{false};
struct sigaction g_previous[sizeof kSignals / sizeof kSignals[0]];

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "signal";
  }
}

// Writes s to stderr from the fatal-signal handler, where only
// async-signal-safe calls may be made: write(2) on a C string, no stdio, no
// allocation (files/atomic_file.hpp's write_all makes no such promise). A
// failed write is given up: nothing could report it from here.
void write_to_stderr_signal_safe(const char* s) {
  std::size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}

void on_fatal_signal(int sig, siginfo_t* info, void*) {
  if (g_has_name.load(std::memory_order_acquire)) {
    write_to_stderr_signal_safe("zerolab: ");
    write_to_stderr_signal_safe(g_name);
    write_to_stderr_signal_safe(" died of signal ");
    write_to_stderr_signal_safe(signal_name(sig));
    write_to_stderr_signal_safe(" (");
    write_to_stderr_signal_safe(sigdescr_np(sig) != nullptr ? sigdescr_np(sig) : "?");
    write_to_stderr_signal_safe(")\n");
  }
  for (std::size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    if (kSignals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
  }
  // A fault raised by the kernel recurs when the instruction re-executes and
  // reaches the previous handler; a sent signal has to be raised again.
  if (info == nullptr || info->si_code <= 0) raise(sig);
}

}  // namespace

void install() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_sigaction = &on_fatal_signal;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    sigaction(kSignals[i], &action, &g_previous[i]);
  }
}

void set_current_benchmark(std::string_view name) {
  g_has_name.store(false, std::memory_order_release);
  const std::size_t n = name.size() < kNameCapacity - 1 ? name.size() : kNameCapacity - 1;
  std::memcpy(g_name, name.data(), n);
  g_name[n] = '\0';
  if (n > 0) g_has_name.store(true, std::memory_order_release);
}

}  // namespace zerolab::internal::signals
