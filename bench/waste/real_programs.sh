#!/usr/bin/env bash
# zerolab waste's whole-command cost on real programs beside heaptrack's:
# per program, ROUNDS interleaved rounds of the program alone, under
# `zerolab waste -o FILE` (the fixed part included: start-up, the record,
# symbols, the report) and under `heaptrack -o FILE`, printed as the median
# CPU time (perf stat task-clock, children included) of each over the plain
# run's. The programs are the Debian ones of this machine (stripped, so no
# addr2line run unless debug files are installed); inputs are made in a
# temporary directory. A benchmark, not a test.
#
# Example (after a release build):
#   bench/waste/real_programs.sh build/release/tools/zerolab/zerolab 7
set -euo pipefail
zerolab=${1:?usage: real_programs.sh ZEROLAB_BINARY [ROUNDS]}
rounds=${2:-7}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Inputs: 8 MiB of text (the repository's sources, repeated), its tar, a JSON file.
while [[ $(stat -c %s "$work/text" 2>/dev/null || echo 0) -lt $((8 << 20)) ]]; do
  find "$repo/src" -name '*.cpp' -exec cat {} + >>"$work/text"
done
python3 -c 'import json; print(json.dumps([{"id": i, "name": "n%d" % i, "tags": ["a", "b"]} for i in range(60000)]))' >"$work/data.json"
printf '%s\n' 'import json' 's = json.dumps([{"id": i, "name": "n%d" % i} for i in range(100000)])' \
  'print(len(json.loads(s)))' >"$work/py"
cat >"$work/sql" <<'EOF'
create table t(x integer, y text);
with recursive c(i) as (select 1 union all select i + 1 from c limit 50000)
insert into t select i, printf('row %d', i) from c;
create index ty on t(y);
select count(*), sum(x) from t where y like 'row 1%';
EOF

# A C++ file to compile (g++ runs cc1plus and as: children followed) and a
# one-target CMake project to configure (cmake runs the compiler checks).
printf '%s\n' '#include <map>' '#include <string>' \
  'int main() { std::map<std::string, int> m; m["a"] = 1; return m.size() == 1 ? 0 : 1; }' \
  >"$work/unit.cpp"
mkdir -p "$work/project"
printf '%s\n' 'cmake_minimum_required(VERSION 3.20)' 'project(p CXX)' \
  'add_executable(p ../unit.cpp)' >"$work/project/CMakeLists.txt"

programs=(
  "git -C $repo log -p -n 300"
  "$(readlink -f /usr/bin/python3) $work/py"
  "sqlite3 :memory: .read\\ $work/sql"
  "gzip -c $work/text"
  "xz -c -0 $work/text"
  "jq length $work/data.json"
  "grep -c include $work/text"
  "tar -cf - -C $repo src"
  "g++ -O2 -c -o $work/unit.o $work/unit.cpp"
  "cmake -S $work/project -B $work/project/build"
)

cpu() {  # CPU milliseconds of "$@", output discarded; each cmake configures afresh
  rm -rf "$work/project/build"
  perf stat -x, -e task-clock -o "$work/stat" -- "$@" >/dev/null 2>&1 </dev/null || true
  awk -F, '/task-clock/ {print $1}' "$work/stat"
}
median() { sort -g "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for line in "${programs[@]}"; do
  eval "cmd=($line)"
  : >"$work/p"; : >"$work/w"; : >"$work/h"
  for ((r = 0; r < rounds; r++)); do
    cpu "${cmd[@]}" >>"$work/p"
    cpu "$zerolab" waste -o "$work/report.txt" -- "${cmd[@]}" >>"$work/w"
    cpu heaptrack -o "$work/ht" "${cmd[@]}" >>"$work/h"
    rm -f "$work"/ht*
  done
  p=$(median "$work/p")
  printf '%-28s plain %8.1f ms cpu | zerolab waste %.2fx | heaptrack %.2fx (medians of %d interleaved rounds)\n' \
    "${cmd[0]##*/} ${cmd[1]:0:14}" "$p" "$(echo "$(median "$work/w") / $p" | bc -l)" \
    "$(echo "$(median "$work/h") / $p" | bc -l)" "$rounds"
done
