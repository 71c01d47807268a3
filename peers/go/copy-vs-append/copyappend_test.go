package copyappend

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

func BenchmarkMakeThenCopy(b *testing.B) {
	for i := 0; i < b.N; i++ {
		MakeThenCopy()
	}
}

func BenchmarkAppendNil(b *testing.B) {
	for i := 0; i < b.N; i++ {
		AppendNil()
	}
}

func BenchmarkMakeCapThenAppend(b *testing.B) {
	for i := 0; i < b.N; i++ {
		MakeCapThenAppend()
	}
}

func TestCopies(t *testing.T) {
	for name, fn := range map[string]func(){"MakeThenCopy": MakeThenCopy, "AppendNil": AppendNil, "MakeCapThenAppend": MakeCapThenAppend} {
		sink = nil
		fn()
		if len(sink) != n || !bytes.Equal(sink, src) {
			t.Fatalf("%s: len %d, bytes equal to src: %v", name, len(sink), bytes.Equal(sink, src))
		}
	}
}

// runtimeCalls lists the runtime functions fn calls (morestack aside), from
// `go tool objdump` of a test binary with symbols.
func runtimeCalls(t *testing.T, exe, fn string) []string {
	t.Helper()
	out, err := exec.Command("go", "tool", "objdump", "-s", `copy-vs-append\.`+fn+`$`, exe).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool objdump -s %s: %v\n%s", fn, err, out)
	}
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`CALL (runtime\.\w+)`).FindAllStringSubmatch(string(out), -1) {
		if !strings.HasPrefix(m[1], "runtime.morestack") && m[1] != "runtime.gcWriteBarrier" {
			seen[m[1]] = true
		}
	}
	var calls []string
	for c := range seen {
		calls = append(calls, c)
	}
	sort.Strings(calls)
	return calls
}

// TestRuntimeCalls: the seed's objdump listing, in this Go's code.
func TestRuntimeCalls(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if exec.Command("go", "tool", "objdump", "-s", `copy-vs-append\.AppendNil$`, exe).Run() != nil {
		exe = filepath.Join(t.TempDir(), "copyappend.test") // `go test` strips its binary
		if out, err := exec.Command("go", "test", "-c", "-o", exe, ".").CombinedOutput(); err != nil {
			t.Fatalf("go test -c: %v\n%s", err, out)
		}
	}
	want := map[string]string{
		"MakeThenCopy":      "runtime.makeslicecopy",
		"AppendNil":         "runtime.growslice runtime.memmove", // not in the seed's listing
		"MakeCapThenAppend": "runtime.growslice runtime.makeslice runtime.memmove",
	}
	got := map[string]string{}
	for fn, w := range want {
		got[fn] = strings.Join(runtimeCalls(t, exe, fn), " ")
		if got[fn] != w {
			t.Errorf("%s calls %q, want %q (the seed's listing)", fn, got[fn], w)
		}
	}
	// The check can fail: no function's calls pass another's want (with
	// MakeThenCopy's listing put in MakeCapThenAppend's place, the fact
	// would be false).
	for fn := range want {
		for other, w := range want {
			if fn != other && got[fn] == w {
				t.Errorf("%s's calls %q also pass %s's check: it cannot tell them apart", fn, got[fn], other)
			}
		}
	}
}
