#!/usr/bin/env bash
# oid-go-peer.sh — the C++ OID formatters and parsers (the lab's `oid`
# experiment) against the seed's Go ones (peers/go/oid) on this machine:
# issue 6's figure "the best C++ OID format <= 0.5x the time of Go's best".
#
# Runs ROUNDS interleaved rounds of `go test -bench . -benchmem -count 1` on
# peers/go/oid and `zerolab lab oid --count 1`; both sides use the same
# benchmark names (BenchmarkFormatOID/<variant>, BenchmarkParseOID/<variant>)
# and the same 1000 OIDs. Writes go.txt and cpp.txt (Go benchmark format; the
# Go names lose their -GOMAXPROCS suffix so the rows line up), prints
# `zerolab compare go=go.txt cpp=cpp.txt` (per variant: medians, C++ vs Go
# with p-values), then the best format of each side and their ratio, which
# `zerolab compare` also tests (best.go.txt, best.cpp.txt: each side's best
# variant renamed BenchmarkFormatOID/best).
#
# Without `go` on PATH it runs the C++ side alone and reports the ratio of
# the best C++ format to C++ StringTable instead.
#
# Go runs with its default GOMAXPROCS (as the seed's -24 runs did), so its
# garbage collector may use the second CPU; C++ is single-threaded. Set
# GOMAXPROCS=1 in the environment to pin Go to one.
#
# Exit status: 0 done, 1 a run failed, 2 bad usage.
#
# Example:
#   cmake --preset release && cmake --build --preset release
#   scripts/oid-go-peer.sh build/release               # 10 rounds
#   scripts/oid-go-peer.sh -n 6 -t 200ms -k /tmp/oid build/release
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/oid-go-peer.sh [options] BUILD_DIR
  -n ROUNDS     interleaved rounds, one run of each benchmark per side each
                (default 10)
  -t DURATION   time per run on both sides: go -benchtime, zerolab lab
                --benchtime (default 100ms; the lab caps oid runs at 100ms)
  -k DIR        keep the result files in DIR (default: a temporary
                directory, removed at the end)
  -h            show this help
BUILD_DIR holds tools/zerolab/zerolab (a release build).
EOF
}

rounds=10
benchtime=100ms
keep=''
while getopts 'n:t:k:h' opt; do
  case $opt in
    n) rounds=$OPTARG ;;
    t) benchtime=$OPTARG ;;
    k) keep=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { usage >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "oid-go-peer: -n wants a positive count" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
zerolab=$1/tools/zerolab/zerolab
[ -x "$zerolab" ] || { echo "oid-go-peer: no $zerolab (build the release preset first)" >&2; exit 2; }
zerolab=$(cd "$(dirname "$zerolab")" && pwd)/zerolab

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${keep:-$tmp}
mkdir -p "$out"
go_txt=$out/go.txt
cpp_txt=$out/cpp.txt
: >"$cpp_txt"

have_go=0
if command -v go >/dev/null 2>&1; then
  have_go=1
  : >"$go_txt"
  # No dependencies: nothing to download. A private cache when the default
  # one is not writable (read-only home, CI sandboxes).
  export GOPROXY=off GO111MODULE=on GOTOOLCHAIN=local
  gocache=$(go env GOCACHE 2>/dev/null || true)
  if [ -z "$gocache" ] || ! { mkdir -p "$gocache" && [ -w "$gocache" ]; } 2>/dev/null; then
    export GOCACHE=$tmp/gocache GOPATH=$tmp/gopath
  fi
  # Build and test once before timing anything.
  (cd "$here/peers/go/oid" && go vet . && go test -count 1 -run . .) >&2 ||
    { echo "oid-go-peer: the Go peer's tests failed" >&2; exit 1; }
  echo "oid-go-peer: $(go version)" >&2
else
  echo "oid-go-peer: no go on PATH: the C++ side only (ratio to C++ StringTable)" >&2
fi

for ((i = 1; i <= rounds; i++)); do
  echo "oid-go-peer: round $i/$rounds" >&2
  if [ $have_go -eq 1 ]; then
    (cd "$here/peers/go/oid" &&
      go test -run '^$' -bench . -benchmem -count 1 -benchtime "$benchtime" .) \
      >"$tmp/go.round" || { cat "$tmp/go.round" >&2; echo "oid-go-peer: go test failed" >&2; exit 1; }
    # BenchmarkFormatOID/Naive-2 -> BenchmarkFormatOID/Naive, as the C++ names.
    sed -E 's/^(Benchmark[^[:space:]]*)-[0-9]+([[:space:]])/\1\2/' "$tmp/go.round" >>"$go_txt"
  fi
  rm -rf "$tmp/lab"
  "$zerolab" lab --count 1 --benchtime "$benchtime" -o "$tmp/lab" oid >"$tmp/lab.log" 2>&1 ||
    { cat "$tmp/lab.log" >&2; echo "oid-go-peer: zerolab lab oid failed" >&2; exit 1; }
  cat "$tmp/lab/oid.txt" >>"$cpp_txt"
done

# The configuration keys of either file (goos, pkg, cpu, compiler, ...):
# ignored, so the two files' rows share one table.
files=("$cpp_txt")
[ $have_go -eq 1 ] && files+=("$go_txt")
keys=$(cat "${files[@]}" |
  sed -nE 's/^([a-z][a-zA-Z0-9_-]*):[[:space:]].*/\1/p' | sort -u | paste -sd, -)

# median NAME FILE: the median ns/op of benchmark NAME in FILE.
median() {
  awk -v n="$1" '$1 == n { for (i = 3; i < NF; i++) if ($(i + 1) == "ns/op") print $i }' "$2" |
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1;
      print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# best FILE: "variant median" of the fastest BenchmarkFormatOID/* in FILE.
best() {
  local v m
  for v in $(awk '$1 ~ /^BenchmarkFormatOID\// { sub(/^BenchmarkFormatOID\//, "", $1); print $1 }' "$1" | sort -u); do
    m=$(median "BenchmarkFormatOID/$v" "$1") && echo "$v $m"
  done | sort -g -k2 | head -n 1
}
# rename_best FILE VARIANT: VARIANT's rows as BenchmarkFormatOID/best.
rename_best() {
  grep -v '^Benchmark' "$1" | awk '!seen[$0]++'
  awk -v n="BenchmarkFormatOID/$2" '$1 == n { $1 = "BenchmarkFormatOID/best"; print }' "$1"
}

echo
if [ $have_go -eq 1 ]; then
  "$zerolab" compare -ignore "$keys" go="$go_txt" cpp="$cpp_txt"
  read -r go_best go_ns < <(best "$go_txt")
  read -r cpp_best cpp_ns < <(best "$cpp_txt")
  rename_best "$go_txt" "$go_best" >"$out/best.go.txt"
  rename_best "$cpp_txt" "$cpp_best" >"$out/best.cpp.txt"
  echo
  "$zerolab" compare -ignore "$keys" -filter '.unit:sec/op' go="$out/best.go.txt" cpp="$out/best.cpp.txt"
  echo
  awk -v gb="$go_best" -v gn="$go_ns" -v cb="$cpp_best" -v cn="$cpp_ns" 'BEGIN {
    printf "best Go format:  %s, median %s ns/op\n", gb, gn
    printf "best C++ format: %s, median %s ns/op\n", cb, cn
    printf "figure: best C++ / best Go = %.3fx (issue 6 target: <= 0.5x)\n", cn / gn }'
else
  "$zerolab" compare -ignore "$keys" cpp="$cpp_txt"
  read -r cpp_best cpp_ns < <(best "$cpp_txt")
  table_ns=$(median BenchmarkFormatOID/StringTable "$cpp_txt")
  echo
  awk -v cb="$cpp_best" -v cn="$cpp_ns" -v tn="$table_ns" 'BEGIN {
    printf "best C++ format: %s, median %s ns/op; C++ StringTable %s ns/op\n", cb, cn, tn
    printf "figure (no Go here): best C++ / C++ StringTable = %.3fx\n", cn / tn }'
fi
[ -n "$keep" ] && echo "results: $out" >&2
exit 0
