// lab/report.hpp — the lab's human-readable output: per experiment a claims
// table (the seed's figure and this machine's side by side, with the
// verdict), the summary line, and report.md with the same tables in
// Markdown plus the machine description.
//
// Thread-safety: pure functions.
//
// Example:
//   std::fputs(claims_table_text(outcome).c_str(), stdout);
//   std::fputs((summary_line(tally(outcomes)) + "\n").c_str(), stdout);
#ifndef ZEROLAB_LAB_REPORT_HPP_
#define ZEROLAB_LAB_REPORT_HPP_

#include <string>
#include <utility>
#include <vector>

#include "lab/framework/machine_info.hpp"
#include "lab/framework/outcome.hpp"

namespace zerolab::lab {

// "replicates", or "replicates (provisional)".
std::string verdict_text(const SideOutcome& side);

// The size against the seed's figure: "size larger than the seed's
// 5.08x", "size as the seed's 2.00x", ...; "" when the side has none.
std::string size_text(const SideOutcome& side);

// verdict_text with the size and the detail: "replicates (p=0.000 n=10)",
// "not comparable (<why>)".
std::string verdict_cell(const SideOutcome& side);

// The seed's figure, or "—" when it gives none.
std::string seed_text(const Claim& claim);

// This machine's figure, "—" when there is none, or "error: <why>" for a
// claim that could not be judged.
std::string here_cell(const SideOutcome& side);

// The claim as the table shows it: "[project's own] ..." for the
// project's claims.
std::string claim_text(const Claim& claim);

// The claims table's columns: claim, seed, Go here, C++ here,
// verdict (Go here), verdict (C++); and one claim's cells.
const std::vector<std::string>& claim_columns();
std::vector<std::string> claim_row(const ClaimOutcome& claim);

// The distinct result names, and the distinct units, in first-seen order.
std::vector<std::string> benchmark_names(const ExperimentOutcome& outcome);
std::vector<std::string> result_units(const ExperimentOutcome& outcome);

// "16.4µs ± 2%": the median of one benchmark's unit with benchstat's
// interval; "" when it has no such results.
std::string median_cell(const ExperimentOutcome& outcome, const std::string& name,
                        const std::string& unit);

// The C++ ↔ Go benchmark pairs of an experiment: its go_pairs, then each
// claim's (slower, go.slower), (faster, go.faster), (benchmark, go.benchmark).
std::vector<std::pair<std::string, std::string>> go_pairs(const ExperimentOutcome& outcome);

// "0.85x [0.80, 0.90] (BenchmarkGoName)": the Hodges-Lehmann ratio of the
// C++ benchmark's ns/op to its Go pair's; "" when it has no pair or samples.
std::string cpp_over_go_cell(const ExperimentOutcome& outcome, const std::string& cpp_name);

// The experiment's heading, seed reference, note and aligned claims table.
std::string claims_table_text(const ExperimentOutcome& outcome);

// The experiment's remaining differences from the seed, one line each after
// `indent`: "differences from the seed (C++):" then "  - ..." lines, and
// the same for its Go peer ("Go here (Go 1.19):"). Shown by the claims
// table and `zerolab lab --list`.
std::string differences_text(const Experiment& e, const std::string& indent);

// "7 seed claims — Go here: 3 replicate, 0 contradict, 1 inconclusive;
// facts: 3 hold, 0 do not hold — C++: ..." ("; 1 error", "; 2 not
// comparable", "; 1 not run" when there are any), and a second line for
// the project's own claims when there are any.
std::string summary_line(const Tally& t);

struct BaselineComparison;  // lab/baseline.hpp

struct ReportContext {
  std::string started;  // UTC, "2026-12-02T21:34:04Z"
  std::string command;  // the command line that ran
  bool provisional = false;
  int count = 0;
  std::string benchtime;
  // With --baseline: the comparison with it, shown in a section of its own
  // (baseline_markdown in report.md). Null: no baseline.
  const BaselineComparison* baseline = nullptr;
};

// report.md: machine, settings, summary, then per experiment its claims
// table and a table of every benchmark's medians.
std::string report_markdown(const std::vector<ExperimentOutcome>& outcomes,
                            const MachineInfo& machine, const ReportContext& context);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_REPORT_HPP_
