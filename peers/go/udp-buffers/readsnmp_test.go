package readsnmp

// The seed's benchmarks (BenchmarkFixedLargeBuffer .. BenchmarkSimplePool),
// its packet and latency tables, fakeUDPRead and reportHeapStats. Each
// benchmark runs conns x GOMAXPROCS goroutines (b.SetParallelism(conns));
// every read sleeps in fakeUDPRead while it holds its 64 KiB buffer, so the
// pools grow to about as many buffers as there are goroutines waiting.
//
// The seed's latency quirk, kept: buildLatencies divides an exponential
// sample by 5 ms in nanoseconds (rand.ExpFloat64() / 5e6, a few
// nanoseconds at most, truncated to 0) and then clamps it to at least 1 ms,
// so every read sleeps exactly 1 ms, not "1 to 50 ms" as the comment says.
//
// Adaptations Go 1.19 required (each one line):
//   - math/rand/v2's rand.IntN is math/rand's rand.Intn;
//   - the min and max builtins (Go 1.21) are minInt/maxInt and
//     minDuration/maxDuration;
//   - the GC is switched off during each run as the seed's reportHeapStats
//     does, but with a 3 GiB soft memory limit (debug.SetMemoryLimit, unless
//     GOMEMLIMIT is set) so AlwaysAllocate cannot take the shared machine's
//     memory; the seed's own hot_mib (350 MiB after 694106 64 KiB
//     allocations) shows its GC ran too;
//   - reportHeapStats also reports mallocs/op and malloc-B/op: the mallocs
//     and bytes from its "before" to its "hot" reading over b.N, Go's
//     allocs/op and B/op untruncated (Go 1.19 prints integers); not the
//     seed's, two metrics added.
// The lab runs conns 100, 1000 and 10000 (-bench '.*/^0*(100|1000|10000)$');
// 100000 and SimplePool's 1000000 are the seed's too but need more memory
// than this shared machine has (the seed's AlwaysAllocate/100000 crashed).

import (
	"fmt"
	"io"
	"math/rand"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func init() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(3 << 30)
	}
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}
func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
func minDuration(a, b time.Duration) time.Duration {
	if a < b {
		return a
	}
	return b
}
func maxDuration(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}

var (
	packets   [][]byte        = buildPackets(100_000)
	latencies []time.Duration = buildLatencies(100_000)
)

// buildPackets: sizes normal around 400 B (sd 200), clamped to [0xFF, 0xFFFF].
func buildPackets(n int) [][]byte {
	packets := make([][]byte, n)
	for i := range packets {
		const mean, stddev = 400, 200
		size := int(rand.NormFloat64()*stddev + mean)
		size = maxInt(0xFF, minInt(0xFFFF, size))
		b := make([]byte, size)
		b[rand.Intn(size)] = byte(rand.Intn(256))
		packets[i] = b
	}
	return packets
}

// buildLatencies is the seed's, quirk included: every latency is 1 ms.
func buildLatencies(n int) []time.Duration {
	latencies := make([]time.Duration, n)
	for i := range latencies {
		d := time.Duration(rand.ExpFloat64() / float64(5*time.Millisecond))
		d = maxDuration(time.Millisecond, d)
		d = minDuration(time.Second, d)
		latencies[i] = d
	}
	return latencies
}

// fakeUDPRead sleeps the packet's latency, then copies the packet into b.
func fakeUDPRead(b []byte) (n int, err error) {
	i := rand.Intn(len(packets))
	delay, packet := latencies[i], packets[i]
	time.Sleep(delay)
	n = copy(b, packet)
	if n < len(packet) {
		return n, io.ErrShortBuffer
	}
	return n, nil
}

// reportHeapStats is the seed's: GC off for the run, heap before, hot (at
// the end, before a GC) and cold (after one), and what was reclaimed and
// leaked, in MiB.
func reportHeapStats(b *testing.B, keepalive ...any) {
	b.Helper()
	var stats runtime.MemStats
	heap := func(label string) float64 {
		const MiB = 1024 * 1024
		runtime.ReadMemStats(&stats)
		x := float64(stats.HeapAlloc) / MiB
		b.ReportMetric(x, label+"_mib")
		return x
	}
	for _, v := range keepalive {
		switch v := reflect.TypeOf(v); v.Kind() {
		case reflect.Interface, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func, reflect.Ptr, reflect.String:
		default:
			panic(fmt.Errorf("reportHeapStats: passed a value type (%s, a %s) to keep alive", v, v.Kind()))
		}
	}
	debug.SetGCPercent(-1)
	runtime.GC()
	before := heap("before")
	beforeMallocs, beforeBytes := stats.Mallocs, stats.TotalAlloc
	b.Cleanup(func() {
		b.Helper()
		hot := heap("hot")
		b.ReportMetric(float64(stats.Mallocs-beforeMallocs)/float64(b.N), "mallocs/op")
		b.ReportMetric(float64(stats.TotalAlloc-beforeBytes)/float64(b.N), "malloc-B/op")
		debug.SetGCPercent(100)
		runtime.GC()
		cold := heap("cold")
		b.ReportMetric(cold-hot, "reclaimed_mib")
		b.ReportMetric(cold-before, "leaked_mib")
		for _, v := range keepalive {
			runtime.KeepAlive(v)
		}
	})
}

func BenchmarkFixedLargeBuffer(b *testing.B) {
	for conns := 100; conns <= 100_000; conns *= 10 {
		b.Run(fmt.Sprintf("%010d", conns), func(b *testing.B) {
			b.SetParallelism(conns)
			buf := make([][0xFFFF]byte, conns)
			var i atomic.Int64
			i.Store(-1)
			b.ResetTimer()
			reportHeapStats(b, &buf)
			b.RunParallel(func(p *testing.PB) {
				b := &buf[i.Add(1)%int64(len(buf))]
				for p.Next() {
					FixedBuffer(b, fakeUDPRead)
				}
			})
		})
	}
}

func BenchmarkAlwaysAllocate(b *testing.B) {
	for conns := 100; conns <= 10_000; conns *= 10 {
		b.Run(fmt.Sprint(conns), func(b *testing.B) {
			reportHeapStats(b)
			b.SetParallelism(conns)
			b.ResetTimer()
			b.RunParallel(func(p *testing.PB) {
				for p.Next() {
					AlwaysAllocate(fakeUDPRead)
				}
			})
		})
	}
}

func BenchmarkSyncPoolAlwaysAlloc(b *testing.B) {
	for conns := 100; conns <= 100_000; conns *= 10 {
		b.Run(fmt.Sprint(conns), func(b *testing.B) {
			b.SetParallelism(conns)
			pool := sync.Pool{New: func() any { return new([0xFFFF]byte) }}
			reportHeapStats(b, &pool)
			b.RunParallel(func(p *testing.PB) {
				for p.Next() {
					SyncPoolAlwaysAlloc(&pool, fakeUDPRead)
				}
			})
		})
	}
}

func BenchmarkSyncPoolFixedSmall(b *testing.B) {
	for conns := 100; conns <= 100_000; conns *= 10 {
		b.Run(fmt.Sprint(conns), func(b *testing.B) {
			b.SetParallelism(conns)
			pool := sync.Pool{New: func() any { return new([0xFFFF]byte) }}
			small := make([][0x400]byte, conns)
			var i atomic.Int64
			i.Store(-1)
			reportHeapStats(b, &pool, &small)
			b.RunParallel(func(p *testing.PB) {
				smallbuf := &small[i.Add(1)%int64(len(small))]
				for p.Next() {
					SharedLargeFixedSmall(&pool, smallbuf, fakeUDPRead)
				}
			})
		})
	}
}

func BenchmarkSimplePool(b *testing.B) {
	for conns := 100; conns <= 1_000_000; conns *= 10 {
		b.Run(fmt.Sprint(conns), func(b *testing.B) {
			b.SetParallelism(conns)
			var sp SimplePool
			reportHeapStats(b, &sp)
			b.RunParallel(func(p *testing.PB) {
				for p.Next() {
					SharedSimplePool(&sp, fakeUDPRead)
				}
			})
		})
	}
}
