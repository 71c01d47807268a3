// lab/experiments/reset_cost_calls.cpp — see reset_cost_calls.hpp.
#include "lab/experiments/reset_cost_calls.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <regex>
#include <string>

namespace zerolab::lab {
namespace {

// The shell-quoted form of s: 'it''s' style.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// The runtime.NAME symbols `go tool objdump -s 'reset-cost\.FN$'` shows, or
// an error.
std::set<std::string> runtime_calls(const GoPeerBinary& peer, const std::string& fn,
                                    std::string& error) {
  const std::string command = quoted(peer.go) + " tool objdump -s " +
                              quoted("reset-cost\\." + fn + "$") + " " + quoted(peer.path) +
                              " 2>&1";
  std::FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) {
    error = "cannot run go tool objdump";
    return {};
  }
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  const int status = ::pclose(p);
  if (status != 0 ||
      text.find("TEXT zerolab/peers/go/reset-cost." + fn + "(SB)") == std::string::npos) {
    error = "go tool objdump found no " + fn + " in " + peer.path;
    return {};
  }
  std::set<std::string> out;
  static const std::regex symbol("runtime\\.\\w+");
  for (std::sregex_iterator it(text.begin(), text.end(), symbol), end; it != end; ++it) {
    out.insert(it->str());
  }
  return out;
}

std::string joined(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& x : s) out += (out.empty() ? "" : " ") + x;
  return out.empty() ? "(none)" : out;
}

}  // namespace

ResetCalls observe_reset_calls(const GoPeerBinary& peer) {
  ResetCalls c;
  c.reset_struct = runtime_calls(peer, "resetStruct", c.error);
  if (c.error.empty()) c.clear_ptrs = runtime_calls(peer, "clearPtrs", c.error);
  if (c.error.empty()) c.clear_bytes = runtime_calls(peer, "clearBytes", c.error);
  return c;
}

FactResult check_reset_calls(const ResetCalls& c) {
  if (!c.error.empty()) return {false, c.error};
  const bool barrier = c.reset_struct.count("runtime.writeBarrier") > 0 &&
                       (c.reset_struct.count("runtime.wbZero") > 0 ||
                        c.reset_struct.count("runtime.typedmemclr") > 0);
  const bool ptrs = c.clear_ptrs.count("runtime.memclrHasPointers") > 0;
  const bool bytes = c.clear_bytes.count("runtime.memclrNoHeapPointers") > 0 &&
                     c.clear_bytes.count("runtime.writeBarrier") == 0;
  return {barrier && ptrs && bytes, "resetStruct: " + joined(c.reset_struct) +
                                        "; clearPtrs: " + joined(c.clear_ptrs) +
                                        "; clearBytes: " + joined(c.clear_bytes)};
}

}  // namespace zerolab::lab
