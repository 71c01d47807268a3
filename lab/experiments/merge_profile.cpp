// The merge experiment's profile fact (merge_profile.hpp).
#include "lab/experiments/merge_profile.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "lab/framework/child_process.hpp"

namespace zerolab::lab {
namespace {

std::string percent_text(double p) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", p);
  return text;
}

}  // namespace

bool parse_memclr_profile(const std::string& output, MemclrProfile& out, std::string& error) {
  const std::size_t at = output.find("memclr-share ");
  if (at == std::string::npos) {
    error = "TestProfileShowsMemclr logged no memclr-share line";
    return false;
  }
  const std::size_t end = output.find('\n', at);
  std::istringstream fields(output.substr(at, end == std::string::npos ? end : end - at));
  std::string word;
  fields >> word;  // memclr-share
  int seen = 0;
  while (fields >> word) {
    const std::size_t eq = word.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = word.substr(0, eq);
    const std::string value = word.substr(eq + 1);
    if (key == "zero" || key == "nozero") {
      char* stop = nullptr;
      const double v = std::strtod(value.c_str(), &stop);
      if (value.empty() || *stop != '\0' || v < 0 || v > 100) {
        error = "memclr-share: " + key + "=" + value + " is not a percentage";
        return false;
      }
      (key == "zero" ? out.zero_percent : out.nozero_percent) = v;
      ++seen;
    } else if (key == "zero-samples") {
      out.zero_samples = value;
      ++seen;
    } else if (key == "nozero-samples") {
      out.nozero_samples = value;
      ++seen;
    } else if (key == "nozero-callers") {
      out.nozero_callers = value;
      ++seen;
    }
  }
  if (seen != 5) {
    error = "memclr-share: want zero, nozero, zero-samples, nozero-samples and nozero-callers";
    return false;
  }
  return true;
}

FactResult judge_memclr_profile(const MemclrProfile& p) {
  FactResult r;
  r.holds = p.zero_percent >= kSignificantPercent && p.nozero_percent < kGraphNodePercent;
  r.observed = "memclrNoHeapPointers: " + percent_text(p.zero_percent) +
               " of plain make's samples (" + p.zero_samples + "), " +
               percent_text(p.nozero_percent) + " of the modified make's (" + p.nozero_samples +
               ")";
  if (p.nozero_callers != "none") r.observed += ", called there by " + p.nozero_callers;
  return r;
}

FactResult observe_memclr_profile(const GoPeerBinary& peer) {
  const auto slash = peer.go.rfind('/');
  const ChildRun run = run_child({peer.path, "-test.run=^TestProfileShowsMemclr$", "-test.v"},
                                 slash == std::string::npos ? "" : peer.go.substr(0, slash));
  MemclrProfile p;
  std::string error;
  if (run.exit_status != 0 || !parse_memclr_profile(run.output, p, error)) {
    return {false, "TestProfileShowsMemclr " +
                       (run.exit_status != 0 ? "exited with " + std::to_string(run.exit_status) +
                                                   ": " + run.output.substr(0, 300)
                                             : error)};
  }
  return judge_memclr_profile(p);
}

}  // namespace zerolab::lab
