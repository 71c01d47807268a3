#!/usr/bin/env bash
# zerolab waste's cost against heaptrack and valgrind's DHAT (the
# budget): wall time and CPU time (user + system, the tool's processes
# included) of each tool on the same program over a plain run, from
# interleaved rounds (plain, zerolab waste, heaptrack, DHAT, plain, ...), as
# the median ratio over the rounds. CPU time is the steadier figure on a
# shared machine. zerolab waste's figure includes its fixed costs after the
# program (calibration, symbols, the report). A benchmark, not a test.
#
# Example (after a release build):
#   bench/waste/cost.sh build/release/tools/zerolab/zerolab 5
set -euo pipefail
zerolab=${1:?usage: cost.sh ZEROLAB_BINARY [ROUNDS]}
rounds=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for p in alloc_heavy alloc_light; do
  g++ -O2 -g -o "$work/$p" "$here/$p.cpp"
done

seconds() {  # "wall cpu" seconds of "$@" (children included), output discarded
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >/dev/null 2>&1 || true
  awk '{printf "%s %.3f\n", $1, $2 + $3}' "$work/time"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for p in alloc_heavy alloc_light; do
  for f in waste heaptrack dhat; do : >"$work/$f.wall"; : >"$work/$f.cpu"; done
  for ((r = 0; r < rounds; r++)); do
    read -r pw pc <<<"$(seconds "$work/$p")"
    read -r ww wc <<<"$(seconds "$zerolab" waste -o "$work/report.txt" -- "$work/$p")"
    read -r hw hc <<<"$(seconds heaptrack -o "$work/ht" "$work/$p")"
    read -r dw dc <<<"$(seconds valgrind --tool=dhat --dhat-out-file="$work/dhat.out" "$work/$p")"
    read -r pw2 pc2 <<<"$(seconds "$work/$p")"
    bw=$(echo "scale=6; ($pw + $pw2) / 2" | bc)
    bc_=$(echo "scale=6; ($pc + $pc2) / 2" | bc)
    for f in waste:$ww:$wc heaptrack:$hw:$hc dhat:$dw:$dc; do
      IFS=: read -r name w c <<<"$f"
      echo "scale=3; $w / $bw" | bc >>"$work/$name.wall"
      echo "scale=3; $c / $bc_" | bc >>"$work/$name.cpu"
    done
    rm -f "$work"/ht*
  done
  printf '%-12s wall: zerolab waste %sx, heaptrack %sx, DHAT %sx; cpu: zerolab waste %sx, heaptrack %sx, DHAT %sx (medians of %d interleaved rounds)\n' \
    "$p" "$(median <"$work/waste.wall")" "$(median <"$work/heaptrack.wall")" "$(median <"$work/dhat.wall")" \
    "$(median <"$work/waste.cpu")" "$(median <"$work/heaptrack.cpu")" "$(median <"$work/dhat.cpu")" "$rounds"
done
