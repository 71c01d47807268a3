#!/bin/sh
# zero_fill's first call beside its second, before and after a change: runs
# two builds of bench/rigs/zero_first_call interleaved, one fresh process
# per sample, SAMPLES samples per size, and prints per build and size the
# median first/second ratio and the median first and second call.
#
# Example:
#   bench/zero_first_call.sh /tmp/zfc_before /tmp/zfc_after 30
#   build           size     first/second  first_ns  second_ns  source
#   /tmp/zfc_before 4096     5702.3        ...
set -eu
if [ $# -lt 2 ]; then
  echo "usage: bench/zero_first_call.sh BINARY_A BINARY_B [SAMPLES]" >&2
  exit 2
fi
a=$1
b=$2
samples=${3:-30}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for size in 4096 1048576 4194304; do
  i=0
  while [ "$i" -lt "$samples" ]; do
    for bin in "$a" "$b"; do
      printf '%s %s\n' "$bin" "$("$bin" "$size")" >>"$out"
    done
    i=$((i + 1))
  done
done
printf '%-28s %-8s %12s %10s %10s %s\n' build size first/second first_ns second_ns source
for bin in "$a" "$b"; do
  for size in 4096 1048576 4194304; do
    grep "^$bin size=$size " "$out" | sed 's/[a-z_]*=//g' | awk -v bin="$bin" -v size="$size" '
      { r[NR] = $3 / ($4 > 0 ? $4 : 1); f[NR] = $3; s[NR] = $4; src = $5 }
      function median(x, n,   i, j, t) {
        for (i = 2; i <= n; i++) { t = x[i]; for (j = i - 1; j > 0 && x[j] > t; j--) x[j + 1] = x[j]; x[j + 1] = t }
        return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
      }
      END { printf "%-28s %-8s %12.1f %10d %10d %s\n", bin, size, median(r, NR), median(f, NR), median(s, NR), src }'
  done
done
