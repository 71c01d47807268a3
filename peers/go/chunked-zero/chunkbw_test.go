package chunkbw

import (
	"bytes"
	"fmt"
	"testing"
)

const size = 256 << 20

// The seed's chunk sizes, in KiB.
var chunksKiB = []int{256, 1024, 8192, 32768, 65536, 262144}

var buf = func() []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = 1 // resident before any timing
	}
	return b
}()

func chunkName(kib int) string {
	if kib >= 1024 {
		return fmt.Sprintf("chunk=%dMiB", kib>>10)
	}
	return fmt.Sprintf("chunk=%dKiB", kib)
}

func BenchmarkChunkedZero(b *testing.B) {
	for _, kib := range chunksKiB {
		chunk := kib << 10
		b.Run(chunkName(kib), func(b *testing.B) {
			b.SetBytes(size)
			for i := 0; i < b.N; i++ {
				ClearChunked(buf, chunk)
			}
		})
	}
	b.Run("runtime-chunked", func(b *testing.B) {
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			RuntimeChunked(buf)
		}
	})
}

func check(t *testing.T, name string, clear func([]byte)) {
	b := bytes.Repeat([]byte{5}, 3<<20+7)
	clear(b[1 : len(b)-1])
	if b[0] != 5 || b[len(b)-1] != 5 {
		t.Fatalf("%s wrote outside its slice", name)
	}
	if !bytes.Equal(b[1:len(b)-1], make([]byte, len(b)-2)) {
		t.Fatalf("%s left non-zero bytes", name)
	}
}

func TestClearChunked(t *testing.T) {
	for _, chunk := range []int{1, 4096, 256 << 10, 1 << 20, 64 << 20} {
		check(t, fmt.Sprintf("ClearChunked(chunk=%d)", chunk), func(b []byte) { ClearChunked(b, chunk) })
	}
	check(t, "RuntimeChunked", RuntimeChunked)
}
