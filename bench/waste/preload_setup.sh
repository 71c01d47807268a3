#!/usr/bin/env bash
# The zerolab::waste preload's set-up cost, two builds side by side: ROUNDS
# interleaved runs of PROGRAM (default /bin/true) under `env LD_PRELOAD=X
# ZEROLAB_WASTE_DIR=<fresh dir in /dev/shm>` for X = an empty shared
# library (built here: what any preloaded library costs), A and B, printed
# as the median CPU time (perf stat task-clock) of A and B over the empty
# library's, with the median page faults of each. What it measures is
# what a process image pays before and after its main() for the preload:
# loading it and its libraries, the record, the first samples. A
# benchmark, not a test.
#
# Example (A from an older build, B from this tree's):
#   bench/waste/preload_setup.sh /tmp/old/libzerolab_waste.so \
#     build/release/tools/zerolab/libzerolab_waste.so 80
set -euo pipefail
a=${1:?usage: preload_setup.sh A.so B.so ROUNDS [PROGRAM ARG...]}
b=${2:?usage: preload_setup.sh A.so B.so ROUNDS [PROGRAM ARG...]}
rounds=${3:?usage: preload_setup.sh A.so B.so ROUNDS [PROGRAM ARG...]}
shift 3
[[ $# -gt 0 ]] || set -- /bin/true
base=/tmp
[[ -d /dev/shm && -w /dev/shm ]] && base=/dev/shm  # where zerolab waste puts records
d=$(mktemp -d "$base/preload_setup.XXXXXX")
trap 'rm -rf "$d"' EXIT
echo 'void zerolab_bench_empty(void) {}' >"$d/empty.c"
cc -shared -fPIC -O2 -o "$d/empty.so" "$d/empty.c"
run() {  # "cpu_ms faults" of PROGRAM with $1 preloaded
  rm -rf "$d/rec"
  mkdir "$d/rec"
  perf stat -x, -e task-clock,page-faults -o "$d/stat" -- \
    env LD_PRELOAD="$1" ZEROLAB_WASTE_DIR="$d/rec" "${@:2}" >/dev/null 2>&1 </dev/null || true
  awk -F, '/task-clock/ {t = $1} /page-faults/ {f = $1} END {print t, f}' "$d/stat"
}
: >"$d/e"; : >"$d/a"; : >"$d/b"
for ((r = 0; r < rounds; r++)); do
  run "$d/empty.so" "$@" >>"$d/e"
  run "$a" "$@" >>"$d/a"
  run "$b" "$@" >>"$d/b"
done
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
e=$(cut -d' ' -f1 <"$d/e" | median)
ratio() { printf '%.3f' "$(echo "$(cut -d' ' -f1 <"$1" | median) / $e" | bc -l)"; }
faults() { cut -d' ' -f2 <"$1" | median; }
echo "$*: A $(ratio "$d/a")x B $(ratio "$d/b")x CPU over an empty preloaded library;" \
  "page faults: empty $(faults "$d/e"), A $(faults "$d/a"), B $(faults "$d/b")" \
  "(medians of $rounds interleaved rounds)"
