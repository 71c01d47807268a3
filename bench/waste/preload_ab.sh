#!/usr/bin/env bash
# The zerolab::waste preload's own cost, two builds of it side by side and
# heaptrack beside them: ROUNDS interleaved runs of PROGRAM plain, with
# LD_PRELOAD=A, with LD_PRELOAD=B (each with a fresh ZEROLAB_WASTE_DIR) and
# under `heaptrack -o`, printed as the median CPU time (perf stat
# task-clock) of each over the plain run's. No CLI, no calibration, no
# report: only what the library adds to the program. A benchmark, not a test.
#
# Example (A from an older build, B from this tree's):
#   g++ -O2 -g -o /tmp/alloc_heavy bench/waste/alloc_heavy.cpp
#   bench/waste/preload_ab.sh /tmp/old/libzerolab_waste.so \
#     build/release/tools/zerolab/libzerolab_waste.so 15 /tmp/alloc_heavy
set -euo pipefail
a=${1:?usage: preload_ab.sh A.so B.so ROUNDS PROGRAM [ARG...]}
b=${2:?usage: preload_ab.sh A.so B.so ROUNDS PROGRAM [ARG...]}
rounds=${3:?usage: preload_ab.sh A.so B.so ROUNDS PROGRAM [ARG...]}
shift 3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cpu() {  # CPU milliseconds of "$@", output discarded
  perf stat -x, -e task-clock -o "$d/stat" -- "$@" >/dev/null 2>&1 </dev/null || true
  awk -F, '/task-clock/ {print $1}' "$d/stat"
}
: >"$d/p"; : >"$d/a"; : >"$d/b"; : >"$d/h"
for ((r = 0; r < rounds; r++)); do
  cpu env "$@" >>"$d/p"  # through env too, as the preloaded arms
  rm -rf "$d/ra" "$d/rb"; mkdir -p "$d/ra" "$d/rb"
  cpu env LD_PRELOAD="$a" ZEROLAB_WASTE_DIR="$d/ra" "$@" >>"$d/a"
  cpu env LD_PRELOAD="$b" ZEROLAB_WASTE_DIR="$d/rb" "$@" >>"$d/b"
  cpu heaptrack -o "$d/ht" "$@" >>"$d/h"
  rm -f "$d"/ht*
done
median() { sort -g "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
p=$(median "$d/p")
ratio() { printf '%.3f' "$(echo "$(median "$1") / $p" | bc -l)"; }
echo "$*: A $(ratio "$d/a")x B $(ratio "$d/b")x heaptrack $(ratio "$d/h")x" \
  "(CPU over plain, medians of $rounds interleaved rounds)"
