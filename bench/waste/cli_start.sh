#!/usr/bin/env bash
# The zerolab CLI's own cost, without its children: ROUNDS interleaved runs
# of `zerolab help` and `zerolab waste -o FILE -- /bin/true` for each given
# zerolab binary (before and after a change, in one run), printed as the
# median CPU time (perf stat --no-inherit task-clock: the CLI process alone,
# not the program it runs) and the median page faults. A benchmark, not a
# test.
#
# Example (a build of the older commit in OLD):
#   bench/waste/cli_start.sh 30 OLD/tools/zerolab/zerolab build/release/tools/zerolab/zerolab
set -euo pipefail
rounds=${1:?usage: cli_start.sh ROUNDS ZEROLAB [ZEROLAB...]}
shift
(($# > 0)) || { echo "usage: cli_start.sh ROUNDS ZEROLAB [ZEROLAB...]" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
arms=()
for z in "$@"; do
  arms+=("$z help" "$z waste -o $work/report.txt -- /bin/true")
done
for ((r = 0; r < rounds; r++)); do
  for i in "${!arms[@]}"; do
    # shellcheck disable=SC2086  # the arm is a command line
    perf stat --no-inherit -x, -e task-clock,page-faults -o "$work/stat" -- ${arms[$i]} \
      >/dev/null 2>&1 </dev/null || true
    awk -F, '/task-clock/ {t = $1} /page-faults/ {f = $1} END {print t, f}' "$work/stat" >>"$work/arm$i"
  done
done
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
for i in "${!arms[@]}"; do
  printf '%8.2f ms cpu %6.0f faults  %s\n' "$(cut -d' ' -f1 "$work/arm$i" | median)" \
    "$(cut -d' ' -f2 "$work/arm$i" | median)" "${arms[$i]/$work\//}"
done
echo "(medians of $rounds interleaved rounds; the CLI process alone, perf stat --no-inherit)"
