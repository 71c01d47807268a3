#!/usr/bin/env bash
# zerolab waste's whole-command cost on short programs (the budget:
# 1.5x on an allocation-heavy program, 1.1x on one that allocates little):
# ROUNDS alternating runs of `PROGRAM` and `zerolab waste -o FILE -- PROGRAM`,
# reported as the ratio of the median wall times and of the median CPU
# times (user + system, children included, from getrusage via perf stat's
# task-clock; wall time includes perf stat's own start-up for both). The fixed part (the CLI's start-up, calibration, symbols,
# the report) is included. A benchmark, not a test.
#
# Example (after a release build):
#   bench/waste/overhead.sh build/release/tools/zerolab/zerolab 20
#   bench/waste/overhead.sh build/release/tools/zerolab/zerolab 20 -- python3 -c 'print(1)'
# With ZEROLAB_BENCH_OLD=/path/to/an/older/zerolab (its libzerolab_waste.so
# beside it), a fourth arm runs that build's `zerolab waste` in the same
# rounds: before and after, in one run.
set -euo pipefail
zerolab=${1:?usage: overhead.sh ZEROLAB_BINARY [ROUNDS] [-- PROGRAM ARGS...]}
rounds=${2:-20}
shift $(($# >= 2 ? 2 : 1))
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
programs=()
if [[ ${1:-} == -- ]]; then
  shift
  printf '%q ' "$@" >"$work/cmd0"
  programs=("$work/cmd0")
else
  for p in alloc_heavy alloc_light; do
    g++ -O2 -g -o "$work/$p" "$here/$p.cpp"
    printf '%q' "$work/$p" >"$work/cmd_$p"
    programs+=("$work/cmd_$p")
  done
fi

measure() {  # "wall_ms cpu_ms" of "$@", output discarded
  local start end cpu
  start=$EPOCHREALTIME
  perf stat -x, -e task-clock -o "$work/stat" -- "$@" >/dev/null 2>&1 </dev/null || true
  end=$EPOCHREALTIME
  cpu=$(awk -F, '/task-clock/ {print $1}' "$work/stat")
  echo "$(echo "($end - $start) * 1000" | bc -l) $cpu"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# A third arm prices the stacks: the same command with the preload keeping
# only $short_frames frames (ZEROLAB_WASTE_MAX_FRAMES; its own frames are the
# first 3 or 4 of them) instead of its 40, interleaved with the other two.
short_frames=${ZEROLAB_BENCH_SHORT_FRAMES:-6}
old=${ZEROLAB_BENCH_OLD:-}
for cmdfile in "${programs[@]}"; do
  eval "cmd=($(cat "$cmdfile"))"
  : >"$work/pw"; : >"$work/pc"; : >"$work/ww"; : >"$work/wc"; : >"$work/sw"; : >"$work/sc"; : >"$work/oc"
  for ((r = 0; r < rounds; r++)); do
    read -r w c <<<"$(measure "${cmd[@]}")"; echo "$w" >>"$work/pw"; echo "$c" >>"$work/pc"
    read -r w c <<<"$(measure "$zerolab" waste -o "$work/report.txt" -- "${cmd[@]}")"
    echo "$w" >>"$work/ww"; echo "$c" >>"$work/wc"
    read -r w c <<<"$(ZEROLAB_WASTE_MAX_FRAMES=$short_frames measure "$zerolab" waste -o "$work/report.txt" -- "${cmd[@]}")"
    echo "$w" >>"$work/sw"; echo "$c" >>"$work/sc"
    if [[ -n $old ]]; then
      read -r w c <<<"$(measure "$old" waste -o "$work/report.txt" -- "${cmd[@]}")"
      echo "$c" >>"$work/oc"
    fi
  done
  pw=$(median <"$work/pw"); pc=$(median <"$work/pc"); ww=$(median <"$work/ww"); wc=$(median <"$work/wc")
  sw=$(median <"$work/sw"); sc=$(median <"$work/sc")
  printf '%-40s plain %8.1f ms wall %8.1f ms cpu | zerolab waste %8.1f ms wall %8.1f ms cpu | ratio wall %.2fx cpu %.2fx (medians of %d alternating runs)\n' \
    "$(basename "${cmd[0]}") ${cmd[*]:1}" "$pw" "$pc" "$ww" "$wc" "$(echo "$ww / $pw" | bc -l)" "$(echo "$wc / $pc" | bc -l)" "$rounds"
  printf '%-40s stacks: 40 frames against %d, cpu %.3fx wall %.3fx; waste with %d-frame stacks against plain, cpu %.2fx\n' \
    "" "$short_frames" "$(echo "$wc / $sc" | bc -l)" "$(echo "$ww / $sw" | bc -l)" "$short_frames" "$(echo "$sc / $pc" | bc -l)"
  if [[ -n $old ]]; then
    oc=$(median <"$work/oc")
    printf '%-40s older build (%s): cpu %.2fx against plain; this build against it %.3fx\n' \
      "" "$old" "$(echo "$oc / $pc" | bc -l)" "$(echo "$wc / $oc" | bc -l)"
  fi
done
