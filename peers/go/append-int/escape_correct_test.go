package escape

import (
	"strconv"
	"testing"
)

// TestEveryBodyAppendsTheCounter runs each benchmark body's loop step for
// n = 0..1999 and checks that dst ends up as the decimal counters, in order:
// what the C++ port (lab/experiments/append_int.cpp) appends too.
func TestEveryBodyAppendsTheCounter(t *testing.T) {
	want := []byte{}
	for n := 0; n < 2000; n++ {
		want = strconv.AppendInt(want, int64(n), 10)
	}
	bodies := map[string]func(dst []byte, n int) []byte{
		"Baseline": func(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) },
		"Buf":      func(dst []byte, n int) []byte { return append(dst, strconv.AppendInt(nil, int64(n), 10)...) },
		"PreAlloc": func(dst []byte, n int) []byte {
			return append(dst, strconv.AppendInt(make([]byte, 0, 10), int64(n), 10)...)
		},
		"IntStr":   func(dst []byte, n int) []byte { return append(dst, strconv.Itoa(n)...) },
		"NoInline": func(dst []byte, n int) []byte { return noinlineappend(dst, int64(n), 10) },
	}
	for name, body := range bodies {
		var dst []byte
		for n := 0; n < 2000; n++ {
			dst = body(dst, n)
		}
		if string(dst) != string(want) {
			t.Errorf("%s: got %d bytes, want %d (first difference matters)", name, len(dst), len(want))
		}
	}
	if got := string(noinlineappend([]byte("x"), -42, 10)); got != "x-42" {
		t.Errorf("noinlineappend(x, -42) = %q, want x-42", got)
	}
}

// TestInitbenchHandsOutOneEmptySlab checks the lab's one change to the
// seed's setup: every benchmark call starts from the same 1 GiB slab, empty,
// whatever the call before appended to it.
func TestInitbenchHandsOutOneEmptySlab(t *testing.T) {
	var got [][]byte
	testing.Benchmark(func(b *testing.B) {
		dst := initbench(b, "")
		got = append(got, dst)
		_ = append(dst, "written by the previous call"...)
	})
	if len(got) < 2 {
		t.Fatalf("testing.Benchmark called the function %d times, want at least 2", len(got))
	}
	for i, dst := range got {
		if len(dst) != 0 || cap(dst) != GiB {
			t.Errorf("call %d: len %d cap %d, want 0 and %d", i, len(dst), cap(dst), GiB)
		}
		if &dst[:1][0] != &got[0][:1][0] {
			t.Errorf("call %d got another slab than call 0", i)
		}
	}
}
