package stackzero

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var out byte

func BenchmarkStackZero(b *testing.B) {
	for _, c := range []struct {
		name string
		fn   func() byte
	}{{"64B_MOVUPS", buf64}, {"1KB_DUFFZERO", buf1024}, {"8KB_REPSTOSQ", buf8192}} {
		fn := c.fn
		b.Run(c.name, func(b *testing.B) {
			var s byte
			for i := 0; i < b.N; i++ {
				s += fn()
			}
			out = s
		})
	}
}

func TestFramesAreZero(t *testing.T) {
	for name, fn := range map[string]func() byte{"buf8": buf8, "buf64": buf64, "buf1024": buf1024, "buf8192": buf8192} {
		if v := fn(); v != 0 {
			t.Fatalf("%s read %d from its zeroed array", name, v)
		}
	}
}

// binary is a test binary of this package with its symbols: this one when
// it was built by `go test -c`, else (`go test` strips its binaries) one
// built now with `go test -c` into a temporary directory.
func binary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("os.Executable: %v", err)
	}
	if exec.Command("go", "tool", "objdump", "-s", `stack-zero\.buf8$`, exe).Run() == nil {
		return exe
	}
	exe = filepath.Join(t.TempDir(), "stackzero.test")
	if got, err := exec.Command("go", "test", "-c", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, got)
	}
	return exe
}

// disassembly is `go tool objdump -s 'stack-zero\.NAME$'` of exe.
func disassembly(t *testing.T, exe, name string) string {
	t.Helper()
	got, err := exec.Command("go", "tool", "objdump", "-s", `stack-zero\.`+name+`$`, exe).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool objdump -s %s: %v\n%s", name, err, got)
	}
	if !strings.Contains(string(got), "TEXT zerolab/peers/go/stack-zero."+name+"(SB)") {
		t.Fatalf("go tool objdump found no function %s:\n%s", name, got)
	}
	return string(got)
}

// TestZeroingInstructions: the seed's four strategies, in this Go's code.
func TestZeroingInstructions(t *testing.T) {
	checks := []struct {
		fn, what string
		re       *regexp.Regexp
		count    int
	}{
		{"buf8", "one MOVQ $0x0 store", regexp.MustCompile(`MOVQ \$0x0, 0x[0-9a-f]+\(SP\)`), 1},
		{"buf64", "four MOVUPS X15 stores", regexp.MustCompile(`MOVUPS X15, 0x[0-9a-f]+\(SP\)`), 4},
		{"buf1024", "a call of runtime.duffzero", regexp.MustCompile(`CALL runtime\.duffzero\(SB\)`), 1},
		{"buf8192", "REP STOSQ", regexp.MustCompile(`REP; STOSQ`), 1},
	}
	exe := binary(t)
	for _, c := range checks {
		text := disassembly(t, exe, c.fn)
		if n := len(c.re.FindAllString(text, -1)); n != c.count {
			t.Errorf("%s: want %s, found %d matches of %q in:\n%s", c.fn, c.what, n, c.re, text)
		} else {
			t.Logf("%s: %s", c.fn, c.what)
		}
	}
	if text := disassembly(t, exe, "buf8192"); !strings.Contains(text, "MOVL $0x400, CX") {
		t.Errorf("buf8192: want 0x400 repetitions (8192 bytes) in CX:\n%s", text)
	}
	// The checks can fail: each strategy's pattern is absent from the
	// function of the next size up.
	for i := 0; i+1 < len(checks); i++ {
		text := disassembly(t, exe, checks[i+1].fn)
		if n := len(checks[i].re.FindAllString(text, -1)); n == checks[i].count {
			t.Errorf("%s also matches %s's pattern %q: the check cannot tell them apart", checks[i+1].fn, checks[i].fn, checks[i].re)
		}
	}
}
