package makereuse

import (
	"bytes"
	"runtime"
	"testing"
)

var sizes = []struct {
	name string
	n    int
}{{"64B", 64}, {"1KB", 1 << 10}, {"16KB", 16 << 10}, {"256KB", 256 << 10}, {"4MB", 4 << 20}, {"64MB", 64 << 20}}

var sink []byte

func BenchmarkMake(b *testing.B) {
	for _, s := range sizes {
		n := s.n
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				sink = make([]byte, n)
			}
		})
	}
}

func BenchmarkReuse(b *testing.B) {
	for _, s := range sizes {
		buf := make([]byte, s.n)
		b.Run(s.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
			}
			runtime.KeepAlive(buf)
		})
	}
}

func BenchmarkReuseClear(b *testing.B) {
	for _, s := range sizes {
		buf := make([]byte, s.n)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			for i := 0; i < b.N; i++ {
				Clear(buf)
			}
		})
	}
}

func TestClear(t *testing.T) {
	for _, s := range sizes {
		b := bytes.Repeat([]byte{3}, s.n+2)
		Clear(b[1 : s.n+1])
		if b[0] != 3 || b[s.n+1] != 3 || !bytes.Equal(b[1:s.n+1], make([]byte, s.n)) {
			t.Fatalf("Clear of %s: wrong bytes", s.name)
		}
	}
}

func TestMakeIsZero(t *testing.T) {
	for i := 0; i < 8; i++ { // reused spans come back dirty; make must zero them
		d := make([]byte, 256<<10)
		for j := range d {
			d[j] = 0xFF
		}
		sink = d
		runtime.GC()
		if m := make([]byte, 256<<10); !bytes.Equal(m, make([]byte, 256<<10)) {
			t.Fatal("make returned non-zero bytes")
		}
	}
}
