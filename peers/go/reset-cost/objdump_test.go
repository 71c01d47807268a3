package reset

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// runtimeCalls is the set of runtime.NAME symbols `go tool objdump` shows in
// function fn of exe (the seed's `go tool objdump -s 'main\.fn$' | grep -oE
// "runtime\.\w+" | sort -u`).
func runtimeCalls(t *testing.T, exe, fn string) []string {
	t.Helper()
	got, err := exec.Command("go", "tool", "objdump", "-s", `reset-cost\.`+fn+`$`, exe).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool objdump -s %s: %v\n%s", fn, err, got)
	}
	if !strings.Contains(string(got), "TEXT zerolab/peers/go/reset-cost."+fn+"(SB)") {
		t.Fatalf("go tool objdump found no function %s:\n%s", fn, got)
	}
	set := map[string]bool{}
	for _, m := range regexp.MustCompile(`runtime\.\w+`).FindAllString(string(got), -1) {
		set[m] = true
	}
	var out []string
	for m := range set {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, want string) bool {
	for _, s := range list {
		if s == want {
			return true
		}
	}
	return false
}

// TestWhatEachResetCalls: the seed's objdump, in this Go. resetStruct goes
// through the write barrier (runtime.writeBarrier and, in Go 1.19,
// runtime.typedmemclr; runtime.wbZero in the seed's Go), clearPtrs through
// runtime.memclrHasPointers, and clearBytes is a plain
// runtime.memclrNoHeapPointers with no barrier.
func TestWhatEachResetCalls(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "reset.test")
	if got, err := exec.Command("go", "test", "-c", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, got)
	}
	defer os.Remove(exe)
	reset := runtimeCalls(t, exe, "resetStruct")
	if !contains(reset, "runtime.writeBarrier") ||
		!(contains(reset, "runtime.typedmemclr") || contains(reset, "runtime.wbZero")) {
		t.Errorf("resetStruct calls %v: want runtime.writeBarrier and typedmemclr or wbZero", reset)
	}
	if ptrs := runtimeCalls(t, exe, "clearPtrs"); !contains(ptrs, "runtime.memclrHasPointers") {
		t.Errorf("clearPtrs calls %v: want runtime.memclrHasPointers", ptrs)
	}
	bytes := runtimeCalls(t, exe, "clearBytes")
	if !contains(bytes, "runtime.memclrNoHeapPointers") || contains(bytes, "runtime.writeBarrier") {
		t.Errorf("clearBytes calls %v: want runtime.memclrNoHeapPointers and no barrier", bytes)
	}
	t.Logf("resetStruct %v", reset)
}
