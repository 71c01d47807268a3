// One test of a compiled Go peer as a fact (go_test_fact.hpp).
#include "lab/framework/go_test_fact.hpp"

#include <utility>

#include "lab/framework/child_process.hpp"
#include "zerolab/benchfmt.hpp"

namespace zerolab::lab {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// "    file_test.go:88: text" → "text"; other lines → "".
std::string log_text(const std::string& line) {
  const std::string t = trim(line);
  const auto colon = t.find(".go:");
  if (colon == std::string::npos || line.empty() || (line[0] != ' ' && line[0] != '\t')) return "";
  const auto text = t.find(": ", colon);
  return text == std::string::npos ? "" : t.substr(text + 2);
}

// Whether `output` has a "--- KIND: test" line (the one reader of them).
bool has_block(const std::vector<benchfmt::MessageBlock>& blocks, benchfmt::BlockKind kind,
               const std::string& test) {
  for (const auto& b : blocks) {
    if (b.kind == kind && b.name == test) return true;
  }
  return false;
}

}  // namespace

FactResult go_test_result(int exit_status, const std::string& output, const std::string& test) {
  std::string logs;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string text = log_text(output.substr(start, end - start));
    if (!text.empty()) logs += (logs.empty() ? "" : "; ") + text;
    start = end + 1;
  }
  if (logs.size() > 400) logs = logs.substr(0, 397) + "...";
  FactResult r;
  const std::vector<benchfmt::MessageBlock> blocks = benchfmt::read_message_blocks(output);
  const bool passed = has_block(blocks, benchfmt::BlockKind::kPass, test);
  r.holds = exit_status == 0 && passed;
  std::string what;
  if (has_block(blocks, benchfmt::BlockKind::kSkip, test)) {
    what = test + " was skipped";
  } else if (has_block(blocks, benchfmt::BlockKind::kFail, test)) {
    what = test + " failed";
  } else if (!passed) {
    what = "no " + test + " ran (exit status " + std::to_string(exit_status) + ")";
  } else if (exit_status != 0) {
    what = test + " passed but the run exited with " + std::to_string(exit_status);
  }
  r.observed = what.empty() ? logs : what + (logs.empty() ? "" : ": " + logs);
  if (r.observed.empty()) r.observed = test + " passed";
  return r;
}

std::function<FactResult(const GoPeerBinary&)> go_test(std::string test) {
  return [test = std::move(test)](const GoPeerBinary& peer) { return go_test_fact(peer, test); };
}

FactResult go_test_fact(const GoPeerBinary& peer, const std::string& test) {
  const auto slash = peer.go.rfind('/');
  const ChildRun run = run_child({peer.path, "-test.run=^" + test + "$", "-test.v"},
                                 slash == std::string::npos ? "" : peer.go.substr(0, slash));
  return go_test_result(run.exit_status, run.output, test);
}

}  // namespace zerolab::lab
