#!/usr/bin/env bash
# What any malloc-interposing preload costs on PROGRAM, beside PRELOAD.so:
# ROUNDS interleaved runs of PROGRAM plain and under four preloaded
# libraries, printed as the median CPU time (perf stat task-clock) over
# plain. The three built here define malloc, free and memset and do no
# more than their names say:
#   forward      forwards to __libc_malloc, __libc_free and glibc's memset
#                (tail calls): the cost of the interposition itself;
#   before-call  three thread-local stores and a countdown in malloc before
#                a tail call into glibc (it cannot know the block's address);
#   after-call   the same stores after an ordinary call (the address known),
#                and free's compare with the last block: the least a preload
#                that tells temporaries by their address must do.
# A benchmark, not a test.
#
# Example:
#   g++ -O2 -g -o /tmp/alloc_heavy bench/waste/alloc_heavy.cpp
#   bench/waste/preload_floor.sh build/release/tools/zerolab/libzerolab_waste.so 60 /tmp/alloc_heavy
set -euo pipefail
preload=${1:?usage: preload_floor.sh PRELOAD.so ROUNDS PROGRAM [ARG...]}
rounds=${2:?usage: preload_floor.sh PRELOAD.so ROUNDS PROGRAM [ARG...]}
shift 2
base=/tmp
[[ -d /dev/shm && -w /dev/shm ]] && base=/dev/shm
d=$(mktemp -d "$base/preload_floor.XXXXXX")
trap 'rm -rf "$d"' EXIT

cat >"$d/common.h" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
extern void* __libc_malloc(size_t);
extern void __libc_free(void*);
typedef void* (*memset_fn)(void*, int, size_t);
static memset_fn real_memset;
__attribute__((constructor)) static void find_memset(void) {
  real_memset = (memset_fn)dlsym(RTLD_NEXT, "memset");
}
__attribute__((visibility("default"))) void* memset(void* p, int c, size_t n) {
  return real_memset(p, c, n);
}
struct state {
  uint64_t events;
  void* last;
  uint64_t size;
  int64_t countdown;
};
static __thread struct state t __attribute__((tls_model("initial-exec"))) = {0, 0, 0, INT64_MAX};
EOF
cat >"$d/forward.c" <<'EOF'
#include "common.h"
__attribute__((visibility("default"))) void* malloc(size_t n) { return __libc_malloc(n); }
__attribute__((visibility("default"))) void free(void* p) { __libc_free(p); }
EOF
cat >"$d/before.c" <<'EOF'
#include "common.h"
__attribute__((visibility("default"))) void* malloc(size_t n) {
  t.events++;
  t.size = n;
  t.countdown -= (int64_t)n;
  return __libc_malloc(n);
}
__attribute__((visibility("default"))) void free(void* p) {
  t.events++;
  if (p == t.last) t.last = 0;
  __libc_free(p);
}
EOF
cat >"$d/after.c" <<'EOF'
#include "common.h"
__attribute__((visibility("default"))) void* malloc(size_t n) {
  void* p = __libc_malloc(n);
  t.events++;
  t.last = p;
  t.size = n;
  t.countdown -= (int64_t)n;
  return p;
}
__attribute__((visibility("default"))) void free(void* p) {
  t.events++;
  if (p == t.last) t.last = 0;
  __libc_free(p);
}
EOF
for lib in forward before after; do
  cc -shared -fPIC -O2 -o "$d/$lib.so" "$d/$lib.c" -ldl
done

cpu() {  # CPU milliseconds of "$@"
  perf stat -x, -e task-clock -o "$d/stat" -- "$@" >/dev/null 2>&1 </dev/null || true
  awk -F, '/task-clock/ {print $1}' "$d/stat"
}
arms=(plain forward before after preload)
for a in "${arms[@]}"; do : >"$d/t_$a"; done
for ((r = 0; r < rounds; r++)); do
  cpu env "$@" >>"$d/t_plain"  # through env too, as the other arms
  for lib in forward before after; do cpu env LD_PRELOAD="$d/$lib.so" "$@" >>"$d/t_$lib"; done
  rm -rf "$d/rec"
  mkdir "$d/rec"
  cpu env LD_PRELOAD="$preload" ZEROLAB_WASTE_DIR="$d/rec" "$@" >>"$d/t_preload"
done
median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
p=$(median "$d/t_plain")
ratio() { printf '%.3f' "$(echo "$(median "$d/t_$1") / $p" | bc -l)"; }
echo "$*: forward $(ratio forward)x before-call $(ratio before)x after-call $(ratio after)x" \
  "$(basename "$preload") $(ratio preload)x (CPU over plain, medians of $rounds interleaved rounds)"
