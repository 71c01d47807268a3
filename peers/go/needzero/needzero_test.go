package needzero

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"
)

const childEnv = "ZEROLAB_NEEDZERO_CHILD"

// TestNeedZeroChild is the child process: it runs Program, prints one line
// per step and checks that every slice it made reads as zero.
func TestNeedZeroChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("runs only as the child process of TestNeedZeroProgram and BenchmarkNeedZero")
	}
	zero := true
	Program(func(step int, d time.Duration) {
		fmt.Printf("needzero step=%d ns=%d\n", step, d.Nanoseconds())
		for i := 0; i < len(keep); i += 4096 {
			zero = zero && keep[i] == 0
		}
	})
	if !zero {
		t.Fatal("a zeroed make returned non-zero bytes")
	}
}

// runProgram runs Program in a fresh child process and returns the seven
// durations.
func runProgram(tb testing.TB) []time.Duration {
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestNeedZeroChild$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("child: %v\n%s", err, out)
	}
	var steps []time.Duration
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var step int
		var ns int64
		if n, _ := fmt.Sscanf(sc.Text(), "needzero step=%d ns=%d", &step, &ns); n == 2 {
			if step != len(steps)+1 {
				tb.Fatalf("child printed step %d after %d steps:\n%s", step, len(steps), out)
			}
			steps = append(steps, time.Duration(ns))
		}
	}
	if len(steps) != 7 {
		tb.Fatalf("child printed %d steps, want 7:\n%s", len(steps), out)
	}
	return steps
}

func TestNeedZeroProgram(t *testing.T) {
	steps := runProgram(t)
	for i, d := range steps {
		if d <= 0 {
			t.Fatalf("step %d took %v", i+1, d)
		}
	}
	t.Logf("steps: %v", steps)
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// runs holds the child runs made so far in this process. Only the first
// sub-benchmark (fresh) starts children; the other two read the rows of
// the same runs (op i uses run i mod len(runs)), as the seed's one program
// prints every row: a round costs one child, and a sub-benchmark whose
// ops are cheap reads cannot start more when the framework raises b.N.
var runs [][]time.Duration

func run(b *testing.B, i int, start bool) []time.Duration {
	if start {
		for len(runs) <= i {
			runs = append(runs, runProgram(b))
		}
	} else if len(runs) == 0 {
		runs = append(runs, runProgram(b))
	}
	return runs[i%len(runs)]
}

// BenchmarkNeedZero: one child run of the seed's program per op; each
// sub-benchmark reports one of its rows as alloc-ns/op (the make alone, as
// the seed timed it): fresh (step 1), reused-first (step 3, the first make
// after a GC) and reused-steady (the median of steps 4..7). ns/op is
// meaningless here (fresh's is the child process, the others' a read).
func BenchmarkNeedZero(b *testing.B) {
	rows := []struct {
		name string
		pick func([]time.Duration) time.Duration
	}{
		{"fresh", func(s []time.Duration) time.Duration { return s[0] }},
		{"reused-first", func(s []time.Duration) time.Duration { return s[2] }},
		{"reused-steady", func(s []time.Duration) time.Duration { return median(s[3:]) }},
	}
	for k, r := range rows {
		pick, start := r.pick, k == 0
		b.Run(r.name, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				total += pick(run(b, i, start))
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "alloc-ns/op")
		})
	}
}
