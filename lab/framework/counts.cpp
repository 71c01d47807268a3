// The lab's counting run (counts.hpp).
#include "lab/framework/counts.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>

#include "bench/counting.hpp"
#include "bench/counting_run.hpp"
#include "zerolab/bench_run.hpp"

namespace zerolab::lab {
namespace {

const BenchmarkSpec* find_spec(const std::vector<const Experiment*>& experiments,
                               const std::string& name) {
  for (const Experiment* e : experiments) {
    for (const BenchmarkSpec& spec : e->benchmarks) {
      if (spec.name == name) return &spec;
    }
  }
  return nullptr;
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

double metric(const std::vector<benchfmt::Metric>& metrics, const char* unit) {
  for (const auto& m : metrics) {
    if (m.unit == unit) return m.value;
  }
  return 0;
}

// "2.06x instructions (1234 vs 600 instructions/op), 2.14x cycles (...)"
std::string pair_text(const ExperimentOutcome& o, const std::string& slower,
                      const std::string& faster) {
  const auto a = o.counts.find(slower);
  const auto b = o.counts.find(faster);
  for (const std::string* name : {&slower, &faster}) {
    if (o.counts.count(*name) != 0) continue;
    const auto why = o.count_failures.find(*name);
    return "no counts for " + *name + ": " +
           (why != o.count_failures.end() ? why->second : "not counted");
  }
  std::string out = slower + " / " + faster + ":";
  bool first = true;
  for (const char* unit : {"instructions/op", "cycles/op"}) {
    const double x = metric(a->second, unit);
    const double y = metric(b->second, unit);
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2fx", y > 0 ? x / y : 0.0);
    const std::string what = std::string(unit).substr(0, std::strlen(unit) - 3);
    out += std::string(first ? " " : ", ") + (y > 0 ? ratio : "n/a") + " " + what + " (" +
           number(x) + " vs " + number(y) + " " + unit + ")";
    first = false;
  }
  return out;
}

std::string single_text(const ExperimentOutcome& o, const std::string& name) {
  const auto it = o.counts.find(name);
  if (it == o.counts.end()) {
    const auto why = o.count_failures.find(name);
    return "no counts for " + name + ": " +
           (why != o.count_failures.end() ? why->second : "not counted");
  }
  std::string out = name + ":";
  bool first = true;
  for (const auto& m : it->second) {
    out += std::string(first ? " " : ", ") + number(m.value) + " " + m.unit;
    first = false;
  }
  return out;
}

std::string why_counts_do_not_answer(const Claim& c) {
  if (c.kind == ClaimKind::kFact) return "a fact checked directly, not a measurement";
  if (!c.cpp_not_comparable.empty()) return "the C++ port does not test it";
  if (c.unit == kAllocsPerOp || c.unit == kBytesPerOp) {
    return "it is about allocations, which the timed run already counts exactly";
  }
  return "it is about time here, and what an op's instructions cost in time (page faults, "
         "memory bandwidth, the kernel's work) is not in the count";
}

}  // namespace

std::vector<std::string> counted_benchmarks(const Experiment& e) {
  std::set<std::string> wanted;
  for (const Claim& c : e.claims) {
    if (!c.counts_answer) continue;
    for (const std::string* name : {&c.slower, &c.faster, &c.benchmark}) {
      if (!name->empty()) wanted.insert(*name);
    }
    for (const auto& [slower, faster] : c.more_rows) {
      wanted.insert(slower);
      wanted.insert(faster);
    }
  }
  std::vector<std::string> names;
  for (const BenchmarkSpec& spec : e.benchmarks) {
    if (wanted.count(spec.name) != 0) names.push_back(spec.name);
  }
  return names;
}

bool run_counting_child_if_asked(int argc, char** argv,
                                 const std::vector<const Experiment*>& experiments, int& code) {
  if (argc < 2 || std::strcmp(argv[1], kCountingChildArg) != 0 || !internal::counting::is_child()) {
    return false;
  }
  code = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string name = argv[i];
    const BenchmarkSpec* spec = find_spec(experiments, name);
    std::string line;
    if (spec == nullptr) {
      line = "fail " + name + "\tno such benchmark";
    } else {
      RunSettings rs;
      rs.count_instructions = true;
      // Two passes of at most the counting default: a benchmark's fixed
      // count (set for time or for total work) would take minutes here.
      rs.iterations =
          spec->iterations > 0
              ? std::min<std::int64_t>(spec->iterations, internal::kDefaultCountingIterations)
              : 0;
      rs.cpu = 1;
      const RunReport report = run_benchmark(spec->name, spec->function, rs);
      const benchfmt::Result* result = nullptr;
      for (const auto& r : report.results) {
        if (r.name == name) result = &r;
      }
      if (report.failed || result == nullptr) {
        std::string why;
        for (const auto& m : report.failure_messages) why += (why.empty() ? "" : "; ") + m;
        line = "fail " + name + "\t" + (why.empty() ? "no result" : why);
      } else {
        line = "count " + name;
        for (const char* unit : internal::kCountUnits) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "\t%.17g %s", metric(result->metrics, unit), unit);
          line += buf;
        }
      }
    }
    if (line.rfind("fail ", 0) == 0) code = 1;
    for (char& ch : line) {
      if (ch == '\n') ch = ' ';
    }
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
  return true;
}

bool count_experiments(std::vector<ExperimentOutcome>& outcomes, std::FILE* err) {
  std::vector<std::string> args = {kCountingChildArg};
  for (const ExperimentOutcome& o : outcomes) {
    for (const std::string& name : counted_benchmarks(*o.experiment)) args.push_back(name);
  }
  for (ExperimentOutcome& o : outcomes) o.counted = true;
  if (args.size() == 1) return true;  // no claim that counts answer
  std::string out, error;
  const bool ran = internal::run_self_counting(args, out, error);
  std::map<std::string, std::vector<benchfmt::Metric>> counts;
  std::map<std::string, std::string> failures;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t nl = out.find('\n', start);
    if (nl == std::string::npos) nl = out.size();
    const std::string line = out.substr(start, nl - start);
    start = nl + 1;
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    if (line.rfind("fail ", 0) == 0) {
      failures[line.substr(5, tab - 5)] = line.substr(tab + 1);
      continue;
    }
    if (line.rfind("count ", 0) != 0) continue;
    std::vector<benchfmt::Metric> metrics;
    for (std::size_t at = tab; at != std::string::npos;) {
      const std::size_t next = line.find('\t', at + 1);
      const std::string field =
          line.substr(at + 1, next == std::string::npos ? next : next - at - 1);
      const std::size_t space = field.find(' ');
      if (space != std::string::npos) {
        metrics.push_back({std::strtod(field.c_str(), nullptr), field.substr(space + 1)});
      }
      at = next;
    }
    counts[line.substr(6, tab - 6)] = std::move(metrics);
  }
  bool ok = ran && failures.empty();
  if (!ran) std::fprintf(err, "zerolab lab: --measure=instructions: %s\n", error.c_str());
  for (ExperimentOutcome& o : outcomes) {
    for (const std::string& name : counted_benchmarks(*o.experiment)) {
      if (const auto it = counts.find(name); it != counts.end()) {
        o.counts[name] = it->second;
      } else if (const auto f = failures.find(name); f != failures.end()) {
        o.count_failures[name] = f->second;
        std::fprintf(err, "zerolab lab: --measure=instructions: %s: %s\n", name.c_str(),
                     f->second.c_str());
      } else {
        o.count_failures[name] = ran ? "not counted" : error;
      }
    }
    if (!ran && counts.empty()) o.counts_error = error;
  }
  return ok;
}

std::vector<std::string> counts_lines(const ExperimentOutcome& o) {
  std::vector<std::string> lines;
  if (!o.counted) return lines;
  for (const ClaimOutcome& co : o.claims) {
    const Claim& c = *co.claim;
    std::string text = c.statement + " — ";
    if (!c.counts_answer) {
      text += "counts do not answer it: " + why_counts_do_not_answer(c);
    } else if (!o.counts_error.empty()) {
      text += "not counted: " + o.counts_error;
    } else if (!c.benchmark.empty()) {
      text += single_text(o, c.benchmark);
    } else {
      text += pair_text(o, c.slower, c.faster);
      for (const auto& [slower, faster] : c.more_rows) text += "; " + pair_text(o, slower, faster);
    }
    lines.push_back(std::move(text));
  }
  return lines;
}

}  // namespace zerolab::lab
