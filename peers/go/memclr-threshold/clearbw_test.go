package clearbw

import (
	"bytes"
	"fmt"
	"testing"
)

// The seed's clearbw sizes, in MiB.
var sizesMiB = []int{8, 16, 24, 31, 33, 40, 64}

var buf = func() []byte {
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = 1 // resident before any timing
	}
	return b
}()

func BenchmarkClear(b *testing.B) {
	for _, mib := range sizesMiB {
		n := mib << 20
		b.Run(fmt.Sprintf("size=%dMiB", mib), func(b *testing.B) {
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				Clear(buf[:n])
			}
		})
	}
}

func TestClear(t *testing.T) {
	b := bytes.Repeat([]byte{7}, 33<<20+5)
	Clear(b[3 : len(b)-1])
	if b[2] != 7 || b[len(b)-1] != 7 {
		t.Fatal("Clear wrote outside its slice")
	}
	for i := 3; i < len(b)-1; i++ {
		if b[i] != 0 {
			t.Fatalf("byte %d is %d after Clear", i, b[i])
		}
	}
}
