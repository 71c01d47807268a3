package merge

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The seed's pprof graphs, read as text: each merge benchmark runs for one
// second in a child process of this test binary with -test.cpuprofile, and
// `go tool pprof` reads the profile. The test reports, on one line, the
// share of the samples in runtime.memclrNoHeapPointers for each benchmark
// and who called it in the merge without zeroing:
//
//	memclr-share zero=31.82 nozero=1.67 zero-samples=880ms nozero-samples=3s nozero-callers=runtime.heapBits.initSpan,...
//
// The lab's merge claim judges those numbers (lab/experiments/merge.cpp);
// the test itself fails only when it cannot profile or read the profile.

// profile runs `bench` for one second under -test.cpuprofile and returns
// the profile's path.
func profile(t *testing.T, exe, bench string) string {
	prof := filepath.Join(t.TempDir(), bench+".prof")
	run := exec.Command(exe, "-test.run=^$", "-test.bench=^"+bench+"$", "-test.benchtime=1s",
		"-test.cpuprofile="+prof)
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("%s with -test.cpuprofile: %v\n%s", bench, err, out)
	}
	return prof
}

func pprof(t *testing.T, args ...string) string {
	out, err := exec.Command("go", append([]string{"tool", "pprof"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// memclrShare returns the percent of the profile's samples in
// runtime.memclrNoHeapPointers (cum: itself and below; 0 when it has none)
// and the profile's total ("880ms": 88 samples at pprof's 100 Hz).
func memclrShare(t *testing.T, exe, prof string) (percent float64, total string) {
	top := pprof(t, "-top", "-nodefraction=0", exe, prof)
	for _, line := range strings.Split(top, "\n") {
		if i := strings.Index(line, "Total samples = "); i >= 0 {
			total = strings.Fields(line[i+len("Total samples = "):])[0]
		}
		f := strings.Fields(line)
		// flat flat% sum% cum cum% name
		if len(f) == 6 && f[5] == "runtime.memclrNoHeapPointers" {
			if _, err := fmt.Sscanf(f[4], "%f%%", &percent); err != nil {
				t.Fatalf("cannot read cum%% %q in: %s", f[4], line)
			}
		}
	}
	if total == "" {
		t.Fatalf("go tool pprof -top printed no sample total:\n%s", top)
	}
	return percent, total
}

// callers: the functions that call runtime.memclrNoHeapPointers in the
// profile (`go tool pprof -peek`), comma-separated; "none" when no sample
// has it (`share` 0: pprof -peek then fails with "no matches found").
func callers(t *testing.T, exe, prof string, share float64) string {
	if share == 0 {
		return "none"
	}
	out := pprof(t, "-peek", "^runtime\\.memclrNoHeapPointers$", "-nodefraction=0", exe, prof)
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasSuffix(line, "| runtime.memclrNoHeapPointers") {
			break
		}
		if i := strings.Index(line, "|   "); i >= 0 {
			names = append(names, strings.TrimSpace(line[i+1:]))
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

func TestProfileShowsMemclr(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	zeroProf := profile(t, exe, "Benchmark_MergeSlicesZero")
	noZeroProf := profile(t, exe, "Benchmark_MergeSlicesNoZero")
	zero, zs := memclrShare(t, exe, zeroProf)
	noZero, ns := memclrShare(t, exe, noZeroProf)
	if zs == "0" || ns == "0" {
		t.Fatalf("a profile without samples: MergeSlicesZero %s, MergeSlicesNoZero %s", zs, ns)
	}
	t.Logf("memclr-share zero=%.2f nozero=%.2f zero-samples=%s nozero-samples=%s nozero-callers=%s",
		zero, noZero, zs, ns, callers(t, exe, noZeroProf, noZero))
}
