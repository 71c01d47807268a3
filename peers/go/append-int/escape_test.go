// Package escape is seed 001's appendix ("The following are the scraps of a
// segment on memory allocations and heap escapes", escape_test.go), run here
// under Debian's Go 1.19 as the Go peer of the lab's `append-int` experiment.
// The benchmark bodies are the seed's; the C++ port times the same names
// (lab/experiments/append_int.cpp).
//
// Adaptations Go 1.19 required (each one line):
//   - `for n := 0; b.Loop(); n++` is `for n := 0; n < b.N; n++` (b.Loop is Go 1.24);
//   - GiB, which the appendix uses without showing it, is defined as 1 << 30;
//   - the package is `escape` in module zerolab/peers/go/append-int;
//   - initbench also reports mallocs/op and malloc-B/op, allocs/op and B/op untruncated.
//
// Not the seed's (the lab's time budget): initbench hands out one 1 GiB slab
// made once per process, not a fresh slice per call (see slab).
//
// As in the seed, every benchmark starts from an empty 1 GiB slice made before the
// timer starts; `defer runtime.KeepAlive(p)` inside the loop keeps every p
// (and a defer record) alive until the benchmark function returns, so the
// live set grows by one small object per iteration.
//
// Example:
//
//	go test -run . -bench . -benchmem -benchtime 100ms
package escape

import (
	"log"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// GiB is the size of the destination slice every benchmark starts from.
const GiB = 1 << 30

func init() {
	log.Print(`// when benchmarking, it's important to measure the right thing.
// try and eliminate as many confounding factors as possible.
// for each benchmark, we'll allocate a big slab of memory up front before we start tracking.`)
}

// slab is every benchmark's destination: 1 GiB made, and every page of it
// written, once per process. The seed's initbench makes a fresh 1 GiB slice
// per call; Go then clears a reused span (and the kernel refaults the pages
// the scavenger had returned) before the timer starts, which cost this peer
// about a second of CPU per call (8 benchmarks x ~5 calls of the b.N ramp per
// run) and none of its timed time: either way the timed loop appends to
// resident pages.
var (
	slabOnce sync.Once
	slab     []byte
)

func initbench(b *testing.B, comment string) (buf []byte) {
	b.Logf("\n%s\n\t%s\n", b.Name(), strings.ReplaceAll(comment, "\n", "\n\t"))
	b.Helper()
	b.ReportAllocs()
	slabOnce.Do(func() {
		slab = make([]byte, GiB)
		for i := 0; i < len(slab); i += 4096 {
			slab[i] = 0 // a write: the page is faulted in now, not in a timed loop
		}
	})
	buf = slab[:0]
	b.ResetTimer()
	return buf
}

// exactAllocs starts counting mallocs and bytes allocated; the function it
// returns stops counting (defer it: `defer exactAllocs(b)()`), and the run
// then reports mallocs/op and malloc-B/op, Go's allocs/op and B/op
// untruncated (Go 1.19 prints both as integers, even when ReportMetric
// overrides them); the lab judges these. Counting stops when the benchmark
// function returns, before testing's Cleanup runs (which allocates); the
// timer is paused while it reads the counts, and stop stops it. Not the
// seed's; it only adds two metrics.
func exactAllocs(b *testing.B) (stop func()) {
	var before, after runtime.MemStats
	stopped := false
	b.Cleanup(func() {
		if stopped {
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N), "mallocs/op")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N), "malloc-B/op")
		}
	})
	b.StopTimer()
	runtime.ReadMemStats(&before)
	b.StartTimer()
	return func() {
		b.StopTimer()
		runtime.ReadMemStats(&after)
		stopped = true
	}
}

func BenchmarkAppendIntBaseline(b *testing.B) {
	dst := initbench(b, "// the reference: strconv.AppendInt straight into dst")
	defer exactAllocs(b)()
	for n := 0; n < b.N; n++ {
		dst = strconv.AppendInt(dst, int64(n), 10)
	}
}

func BenchmarkAppendBuf(b *testing.B) {
	dst := initbench(b, "// format into an intermediate buffer, then append it; the buffer does not escape")
	defer exactAllocs(b)()
	for n := 0; n < b.N; n++ {
		p := strconv.AppendInt(nil, int64(n), 10)
		dst = append(dst, p...)
	}
}

func BenchmarkAppendBufLeak(b *testing.B) {
	dst := initbench(b, "// the same, but every p is kept alive until the function returns")
	defer exactAllocs(b)()
	for n := 0; n < b.N; n++ {
		p := strconv.AppendInt(nil, int64(n), 10)
		dst = append(dst, p...)
		defer runtime.KeepAlive(p)
	}
	b.Log(`all versions of p are still 'alive', so the compiler had to allocate afresh for each.`)
}

func BenchmarkAppendPreAllocNoEscape(b *testing.B) {
	dst := initbench(b, "// the intermediate buffer made with capacity 10, not escaping")
	defer exactAllocs(b)()
	for n := 0; n < b.N; n++ {
		p := strconv.AppendInt(make([]byte, 0, 10), int64(n), 10)
		dst = append(dst, p...)
	}
}

func BenchmarkAppendPreAllocEscape(b *testing.B) {
	dst := initbench(b, "// the capacity-10 buffer, kept alive (escaping)")
	defer exactAllocs(b)()
	for n := 0; n < b.N; n++ {
		p := strconv.AppendInt(make([]byte, 0, 10), int64(n), 10)
		dst = append(dst, p...)
		defer runtime.KeepAlive(p)
	}
}

func BenchmarkAppendIntStrNoEscape(b *testing.B) {
	dst := initbench(b, "// a string temporary from strconv.Itoa, not escaping")
	defer exactAllocs(b)()
	for n := 0; n < b.N; n++ {
		s := strconv.Itoa(n)
		dst = append(dst, s...)
	}
}

func BenchmarkAppendIntStrEscape(b *testing.B) {
	dst := initbench(b, "// the string temporary, kept alive (escaping)")
	defer exactAllocs(b)()
	for n := 0; n < b.N; n++ {
		s := strconv.Itoa(n)
		dst = append(dst, s...)
		defer runtime.KeepAlive(s)
	}
}

func BenchmarkAppendIntNoInline(b *testing.B) {
	dst := initbench(b, "// strconv.AppendInt behind a call the compiler may not inline")
	defer exactAllocs(b)()
	for n := 0; n < b.N; n++ {
		dst = noinlineappend(dst, int64(n), 10)
	}
}

// noinlineappend is strconv.AppendInt behind a call that is not inlined.
//
//go:noinline
func noinlineappend(dst []byte, n int64, base int) []byte {
	return strconv.AppendInt(dst, n, base)
}
