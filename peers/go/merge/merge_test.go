package merge

import (
	"bytes"
	"testing"
)

// The seed's inputs and result ring (main_test.go).
var (
	x = make([]byte, 10000)
	y = make([]byte, 20000)
	z = make([]byte, 50000)

	r [128][]byte

	zbuf = make([]byte, 10000+20000+50000)
)

func Benchmark_MergeSlicesZero(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r[i&127] = MergeSlicesZero(x, y, z)
	}
}

// Benchmark_MergeSlicesNoZero: stock Go 1.19's mallocgc(needzero=false)
// standing in for the seed's patched makesliceNoZero (see merge.go).
func Benchmark_MergeSlicesNoZero(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r[i&127] = MergeSlicesNoZero(x, y, z)
	}
}

// Benchmark_Zero80000: the original post's standalone zeroing of a slice
// of the merged size, subtracted from the merge in its method.
func Benchmark_Zero80000(b *testing.B) {
	b.SetBytes(int64(len(zbuf)))
	for i := 0; i < b.N; i++ {
		Zero(zbuf)
	}
}

// Benchmark_MergeSlicesNoZeroThenZero80000: the unzeroed merge plus the
// standalone zeroing, what the post's subtraction takes the zeroing merge
// to cost.
func Benchmark_MergeSlicesNoZeroThenZero80000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r[i&127] = MergeSlicesNoZero(x, y, z)
		Zero(zbuf)
	}
}

func parts() [][]byte {
	a := bytes.Repeat([]byte{1}, 10000)
	c := bytes.Repeat([]byte{2}, 20000)
	d := bytes.Repeat([]byte{3}, 50000)
	return [][]byte{a, c, d}
}

func TestMergeSlices(t *testing.T) {
	p := parts()
	want := append(append(append([]byte{}, p[0]...), p[1]...), p[2]...)
	for name, merge := range map[string]func(...[]byte) []byte{
		"Zero": MergeSlicesZero, "NoZero": MergeSlicesNoZero,
	} {
		// Dirty the heap first so a NoZero slice that skipped a copy would show it.
		for i := 0; i < 64; i++ {
			junk := make([]byte, 80000)
			for j := range junk {
				junk[j] = 0xEE
			}
			r[i&127] = junk
		}
		got := merge(p...)
		if len(got) != 80000 || cap(got) != 80000 {
			t.Fatalf("%s: len %d cap %d, want 80000 and 80000", name, len(got), cap(got))
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: merged bytes differ from x|y|z", name)
		}
	}
}

func TestZero(t *testing.T) {
	b := bytes.Repeat([]byte{9}, 80000)
	Zero(b)
	if !bytes.Equal(b, make([]byte, 80000)) {
		t.Fatal("Zero left non-zero bytes")
	}
}
