// Package needzero is the Go peer of zerolab's `needzero` lab experiment
// (lab/experiments/needzero.cpp): seed 004, "Проверяем needzero на
// практике" — the seed's program, which makes seven 256 MB zeroed slices
// and times each make: the first two come from fresh arenas (span.needzero
// == 0, no memclr), the other five each follow `keep = nil; runtime.GC()`
// and reuse the freed span, which mallocgcLarge must clear.
//
// Adaptations Go 1.19 required: none to Program, which is the seed's main
// with its Printf replaced by a callback (the test and the benchmark need
// the durations, not the text). The seed's program must start in a fresh
// process — the first allocations are fresh only once per process — so
// the benchmark and the test run it in a child process (the test binary
// itself, with ZEROLAB_NEEDZERO_CHILD=1), one child per run.
package needzero

import (
	"runtime"
	"time"
)

const size = 256 << 20

var keep []byte

// alloc is the seed's alloc: one timed make of size bytes.
func alloc(step int, report func(step int, d time.Duration)) {
	t := time.Now()
	keep = make([]byte, size)
	report(step, time.Since(t))
}

// Program is the seed's main: two allocations, then five times release the
// previous slice, collect, and allocate again.
func Program(report func(step int, d time.Duration)) {
	alloc(1, report)
	alloc(2, report)
	for i := 3; i <= 7; i++ {
		keep = nil
		runtime.GC()
		alloc(i, report)
	}
}

// Kept is the slice of the last allocation, for the test.
func Kept() []byte { return keep }
