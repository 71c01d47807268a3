// Package chunkbw is the Go peer of zerolab's `chunked-zero` lab experiment
// (lab/experiments/chunked_zero.cpp): seed 004, "Как устроен сам memclr",
// the chunkbw table — one resident 256 MB buffer cleared in chunks of 256 KB
// to 256 MB, one memclrNoHeapPointers call per chunk, as
// memclrNoHeapPointersChunked (runtime/malloc.go, 256 KiB chunks) does for
// mallocgc's large objects. Chunks below 32 MiB never reach memclr's
// non-temporal path.
//
// Adaptations Go 1.19 required:
//   - no clear builtin before Go 1.21: ClearChunked clears each chunk with
//     the range loop the compiler turns into memclrNoHeapPointers.
//   - the seed shows chunkbw's output, not its code: ClearChunked is the
//     loop its text describes (memclr per chunk); the runtime's loop also
//     tests getg().preempt between chunks, which user code cannot read —
//     here the goroutine is preempted asynchronously as any loop is.
//   - RuntimeChunked calls runtime.memclrNoHeapPointersChunked itself
//     (//go:linkname, allowed in Go 1.19; empty.s permits the bodyless
//     declaration): the routine mallocgcLarge uses, whose chunk is 256 KiB.
package chunkbw

import "unsafe"

// ClearChunked zeroes b in pieces of chunk bytes, one memclr per piece.
func ClearChunked(b []byte, chunk int) {
	for off := 0; off < len(b); off += chunk {
		end := off + chunk
		if end > len(b) {
			end = len(b)
		}
		c := b[off:end]
		for i := range c {
			c[i] = 0
		}
	}
}

//go:linkname memclrNoHeapPointersChunked runtime.memclrNoHeapPointersChunked
func memclrNoHeapPointersChunked(size uintptr, x unsafe.Pointer)

// RuntimeChunked zeroes b with the runtime's own chunked memclr.
func RuntimeChunked(b []byte) {
	if len(b) > 0 {
		memclrNoHeapPointersChunked(uintptr(len(b)), unsafe.Pointer(&b[0]))
	}
}
