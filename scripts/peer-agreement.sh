#!/usr/bin/env bash
# peer-agreement.sh — does zerolab measure what Google Benchmark measures?
#
# Runs the peer benchmarks of bench/peers alternately — zerolab (allocation
# hooks linked), Google Benchmark, zerolab without hooks, zerolab, GB, ... —
# RUNS times each, with the same minimum time and one thread, then prints per
# benchmark the median ns/op of each side, the spread of the runs (lowest and
# highest run relative to the median), the ratio zerolab/GB of the medians
# and whether it is within the tolerance (default 5%). Builds nothing: point
# it at a build directory that has bench/peers built.
#
# Exit status: 0 every row within tolerance, 3 some row outside it, 1 a run
# failed, 2 bad usage.
#
# Example:
#   cmake --preset release && cmake --build --preset release
#   scripts/peer-agreement.sh build/release                 # 10 runs each, 1s
#   scripts/peer-agreement.sh -n 5 -t 0.5 -c 1 -k /tmp/peers build/release
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/peer-agreement.sh [options] BUILD_DIR
  -n RUNS       runs of each binary, alternated (default 10)
  -t SECONDS    minimum time per benchmark on both sides (default 1):
                zerolab -benchtime <SECONDS>s, GB --benchmark_min_time=<SECONDS>
  -f REGEX      only benchmarks matching REGEX (both sides; default all)
  -c CPU        run every binary under `taskset -c CPU` (default: no pinning)
  -r PERCENT    tolerance on |ratio - 1| (default 5)
  -k DIR        keep the raw outputs in DIR (default: a temporary directory,
                removed at the end)
  -h            show this help
BUILD_DIR holds bench/peers/peer_zerolab and bench/peers/peer_gbench
(bench/peers/peer_zerolab_nohooks is used when present).
EOF
}

runs=10
seconds=1
filter='.'
cpu=''
tolerance=5
keep=''
while getopts 'n:t:f:c:r:k:h' opt; do
  case "$opt" in
    n) runs="$OPTARG" ;;
    t) seconds="$OPTARG" ;;
    f) filter="$OPTARG" ;;
    c) cpu="$OPTARG" ;;
    r) tolerance="$OPTARG" ;;
    k) keep="$OPTARG" ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [[ $# -ne 1 ]]; then
  usage >&2
  exit 2
fi
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "peer-agreement: -n wants a positive integer, got '$runs'" >&2
  exit 2
fi
if ! [[ "$seconds" =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] || ! awk -v s="$seconds" 'BEGIN { exit !(s > 0) }'; then
  echo "peer-agreement: -t wants a positive number of seconds, got '$seconds'" >&2
  exit 2
fi
if ! [[ "$tolerance" =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]]; then
  echo "peer-agreement: -r wants a percentage, got '$tolerance'" >&2
  exit 2
fi

dir="$1/bench/peers"
zl="$dir/peer_zerolab"
zn="$dir/peer_zerolab_nohooks"
gb="$dir/peer_gbench"
for bin in "$zl" "$gb"; do
  if [[ ! -x "$bin" ]]; then
    echo "peer-agreement: $bin not found (build bench/peers; peer_gbench needs Google Benchmark)" >&2
    exit 1
  fi
done
have_nohooks=0
[[ -x "$zn" ]] && have_nohooks=1

pin=()
if [[ -n "$cpu" ]]; then
  command -v taskset >/dev/null || { echo "peer-agreement: -c needs taskset" >&2; exit 2; }
  pin=(taskset -c "$cpu")
fi

if [[ -n "$keep" ]]; then
  out="$keep"
  mkdir -p "$out"
  rm -f "$out"/zerolab.txt "$out"/nohooks.txt "$out"/gbench.txt "$out"/*.stderr
else
  out="$(mktemp -d "${TMPDIR:-/tmp}/peer-agreement.XXXXXX")"
  trap 'rm -rf "$out"' EXIT
fi

# run NAME CMD... — appends stdout to $out/NAME.txt, stderr to NAME.stderr.
run() {
  local name="$1"
  shift
  if ! "${pin[@]}" "$@" >>"$out/$name.txt" 2>>"$out/$name.stderr"; then
    echo "peer-agreement: run failed: $*" >&2
    tail -n 20 "$out/$name.stderr" >&2 || true
    exit 1
  fi
}

# The benchmarks both sides have, in zerolab's order (names without the
# Benchmark / BM_ prefix).
zl_names="$("$zl" -list "$filter" | sed -n 's/^Benchmark//p')"
gb_names="$("$gb" --benchmark_list_tests=true --benchmark_filter="$filter" 2>/dev/null |
             sed -n 's,^BM_\([^/]*\).*,\1,p')"
bench_names=()
for name in $zl_names; do
  if grep -qx -- "$name" <<<"$gb_names"; then bench_names+=("$name"); fi
done
if [[ ${#bench_names[@]} -eq 0 ]]; then
  echo "peer-agreement: no benchmark matching '$filter' on both sides" >&2
  exit 1
fi

zl_common=(-benchtime "${seconds}s" -count 1 -cpu 1)
gb_common=(--benchmark_min_time="$seconds" --benchmark_repetitions=1
           --benchmark_format=console --benchmark_color=false)

echo "peer-agreement: ${bench_names[*]}: $runs alternating runs each, min time ${seconds}s${cpu:+, taskset -c $cpu}"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
# One process per benchmark and side, so the runs of a benchmark on the sides
# are seconds apart; odd rounds run zerolab, GB, zerolab-nohooks, even rounds
# the reverse, so neither side always goes first.
for ((i = 1; i <= runs; ++i)); do
  printf '  round %d/%d\r' "$i" "$runs" >&2
  for name in "${bench_names[@]}"; do
    order=(zerolab gbench nohooks)
    ((i % 2 == 0)) && order=(nohooks gbench zerolab)
    for side in "${order[@]}"; do
      case "$side" in
        zerolab) run zerolab "$zl" -bench "^Benchmark$name\$" "${zl_common[@]}" ;;
        nohooks) [[ $have_nohooks -eq 0 ]] || run nohooks "$zn" -bench "^Benchmark$name\$" "${zl_common[@]}" -benchmem=false ;;
        gbench) run gbench "$gb" --benchmark_filter="^BM_$name(/|\$)" "${gb_common[@]}" ;;
      esac
    done
  done
done
printf '                    \r' >&2
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
[[ -n "$keep" ]] && echo "raw outputs: $out"

# Normalised "name ns" lines. zerolab (Go format): BenchmarkX[-N] ITERS V ns/op ...
parse_zerolab() {
  awk '$1 ~ /^Benchmark/ && $4 == "ns/op" {
         name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
         print name, $3 }' "$1"
}
# Google Benchmark console: BM_X[/real_time] TIME UNIT CPU UNIT ITERS. With
# cpu=1, prints the CPU time / real time ratio instead of the real time.
parse_gbench() {
  awk -v cpu="${2:-0}" '
    function scale(u) { return (u == "ns") ? 1 : (u == "us") ? 1e3 : (u == "ms") ? 1e6 : (u == "s") ? 1e9 : -1 }
    $1 ~ /^BM_/ && $2 ~ /^[0-9.eE+-]+$/ && $4 ~ /^[0-9.eE+-]+$/ {
      name = $1; sub(/^BM_/, "", name); sub(/\/real_time$/, "", name)
      real = $2 * scale($3); used = $4 * scale($5)
      if (scale($3) < 0 || scale($5) < 0 || real <= 0) next
      if (cpu) printf "%s %.6f\n", name, used / real
      else printf "%s %.6f\n", name, real }' "$1"
}

parse_zerolab "$out/zerolab.txt" >"$out/zerolab.parsed"
parse_gbench "$out/gbench.txt" >"$out/gbench.parsed"
parse_gbench "$out/gbench.txt" 1 >"$out/gbench.cpu"
if [[ $have_nohooks -eq 1 ]]; then parse_zerolab "$out/nohooks.txt" >"$out/nohooks.parsed"; fi

# values FILE NAME — NAME's values in FILE, one a line, in round order.
values() { awk -v n="$2" '$1 == n { print $2 }' "$1"; }
# summary — "median min max count" of the numbers on stdin.
summary() {
  sort -g | awk '{ v[NR] = $1 }
    END {
      if (NR == 0) { print "- - - 0"; exit }
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.6g %.6g %.6g %d\n", m, v[1], v[NR], NR }'
}
stats() { values "$1" "$2" | summary; }
# paired ZFILE GFILE NAME — median of the per-round ratios zerolab/GB (the
# runs of one round are seconds apart, so slow drifts of the machine cancel).
paired() {
  paste <(values "$1" "$3") <(values "$2" "$3") | awk 'NF == 2 && $2 > 0 { print $1 / $2 }' | summary
}

row() { printf '%-13s %-9s %14s %-16s %10s %-16s %6s  %-10s %s\n' "$@"; }
printf '\n'
row benchmark zerolab "zerolab ns/op" "(spread)" "GB ns/op" "(spread)" ratio "within ${tolerance}%?" "paired ratio (range)"
status=0
names="${bench_names[*]}"
if [[ -z "$names" ]]; then
  echo "peer-agreement: no Google Benchmark results parsed (see $out/gbench.txt)" >&2
  exit 1
fi
sides=(zerolab)
[[ $have_nohooks -eq 1 ]] && sides+=(nohooks)
for name in $names; do
  read -r g_med g_min g_max _ < <(stats "$out/gbench.parsed" "$name")
  for side in "${sides[@]}"; do
    read -r z_med z_min z_max z_n < <(stats "$out/$side.parsed" "$name")
    read -r p_med p_min p_max _ < <(paired "$out/$side.parsed" "$out/gbench.parsed" "$name")
    label=hooks
    [[ $side == nohooks ]] && label="no hooks"
    if [[ $z_n -eq 0 ]]; then
      row "$name" "$label" - "" "$g_med" "" - "missing" ""
      status=3
      continue
    fi
    row="$(awk -v zm="$z_med" -v zlo="$z_min" -v zhi="$z_max" -v pm="$p_med" -v plo="$p_min" -v phi="$p_max" \
               -v gm="$g_med" -v glo="$g_min" -v ghi="$g_max" -v tol="$tolerance" '
      function spread(m, lo, hi) { return sprintf("(%+.1f/%+.1f%%)", (lo / m - 1) * 100, (hi / m - 1) * 100) }
      BEGIN {
        r = zm / gm; d = r - 1; if (d < 0) d = -d
        printf "%.2f|%s|%.2f|%s|%.3f|%s|%.3f (%.3f-%.3f)\n", zm, spread(zm, zlo, zhi), gm, spread(gm, glo, ghi), r,
               (d * 100 <= tol) ? "yes" : "NO", pm, plo, phi }')"
    IFS='|' read -r zs zsp gs gsp ratio ok pr <<<"$row"
    row "$name" "$label" "$zs" "$zsp" "$gs" "$gsp" "$ratio" "$ok" "$pr"
    [[ $ok == yes ]] || status=3
  done
done
# How busy the machine was: Google Benchmark also reports CPU time; a
# CPU/real ratio well under 1 means the benchmark thread was often descheduled.
busy="$(for name in $names; do
  read -r c _ < <(stats "$out/gbench.cpu" "$name")
  printf ' %s %.2f' "$name" "$c"
done)"
printf '\nGB median CPU/real time per benchmark:%s (well under 1.00 = the thread was descheduled; re-run when quieter)\n' "$busy"
printf '(zerolab: hooks = peer_zerolab, allocation hooks interposed; no hooks = peer_zerolab_nohooks.\n'
printf ' GB ns/op is the real-time column. Spread: lowest and highest run vs the median; %s runs each.\n ratio: of the medians (the verdict); paired ratio: median (and range) of the per-round ratios.)\n' "$runs"
exit "$status"
