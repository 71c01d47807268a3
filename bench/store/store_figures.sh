#!/usr/bin/env bash
# The results store's figures (docs in /work/notes/store.md): ingest of a
# lab-sized run and of a 20,000-line file into SQLite and PostgreSQL (COPY),
# each against its peer, `zerolab compare` reading the same file; and
# `zerolab history` over 1,000 runs x 100 benchmarks on SQLite. Each timing
# is the median of REPS runs, interleaved. Needs a release build and, for
# PostgreSQL, scripts/pg-test-server.sh (started and stopped here).
#
# Example:
#   bench/store/store_figures.sh build/release/tools/zerolab/zerolab
set -euo pipefail
zl=$(realpath "$1")
reps=${REPS:-7}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/zerolab-store-figures.XXXXXX)
pg=/tmp/zerolab-pg-figures
trap '"$root/scripts/pg-test-server.sh" stop $pg >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$root/scripts/pg-test-server.sh" start $pg >/dev/null
pgurl="postgresql:///zerolab?host=$pg&user=zerolab"

# A file of n result lines under a lab-like config.
make_file() {  # n path seed
  awk -v n="$1" -v s="$3" 'BEGIN {
    print "goos: linux"; print "goarch: amd64"; print "cpu: figures"; print "pkg: zerolab/lab/figures"
    for (i = 0; i < n; i++) printf "BenchmarkFig/case=%d-2\t%d\t%.4g ns/op\t%d B/op\t%d allocs/op\n", i % 500, 1000 + i, 100 + (i * 7 + s) % 97 + s * 0.001, 64, 1
  }' > "$2"
}

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# ms of one command
ms() { local t0 t1; t0=$(now); "$@" >/dev/null 2>&1; t1=$(now); echo $(( (t1 - t0) / 1000000 )); }

for n in 2000 20000; do
  for r in $(seq 1 "$reps"); do
    make_file "$n" "$work/f$n.$r.txt" "$r"
  done
  : > "$work/cmp"; : > "$work/sq"; : > "$work/pg"
  for r in $(seq 1 "$reps"); do
    f="$work/f$n.$r.txt"
    ms "$zl" compare "$f" >> "$work/cmp"
    ms "$zl" store add --store "sqlite:$work/s$n.db" "$f" >> "$work/sq"
    ms "$zl" store add --store "$pgurl" "$f" >> "$work/pg"
  done
  c=$(median < "$work/cmp"); s=$(median < "$work/sq"); p=$(median < "$work/pg")
  echo "ingest $n lines: compare (reading) ${c} ms, store add SQLite ${s} ms ($(awk -v a="$s" -v b="$c" 'BEGIN{printf "%.2f", a/b}')x), PostgreSQL ${p} ms ($(awk -v a="$p" -v b="$c" 'BEGIN{printf "%.2f", a/b}')x)"
done

# History: 1,000 runs x 100 benchmarks (one ns/op sample each), a step at run 600.
mkdir -p "$work/h"
for r in $(seq 1 1000); do
  awk -v r="$r" 'BEGIN { print "goos: linux"; print "cpu: figures"
    for (b = 0; b < 100; b++) printf "BenchmarkH%d-2\t1000\t%.4g ns/op\n", b, (r > 600 && b == 7 ? 130 : 100) + (r * 31 + b * 17) % 11 }' > "$work/h/$r.txt"
done
t0=$(now)
(cd "$work/h" && "$zl" store add --store "sqlite:$work/h.db" $(ls | sort -n) >/dev/null)
t1=$(now)
echo "history data: 1000 files x 100 results added in $(( (t1 - t0) / 1000000 )) ms"
: > "$work/hist"; : > "$work/list"
for r in $(seq 1 "$reps"); do
  ms "$zl" history --store "sqlite:$work/h.db" >> "$work/hist"
  ms "$zl" store list --store "sqlite:$work/h.db" >> "$work/list"
done
h=$(median < "$work/hist"); l=$(median < "$work/list")
echo "history over 1000 runs x 100 benchmarks (SQLite): ${h} ms; store list of the same runs: ${l} ms ($(awk -v a="$h" -v b="$l" 'BEGIN{printf "%.1f", a/b}')x)"
"$zl" history --store "sqlite:$work/h.db" | grep -A1 "^H7 " | head -2
