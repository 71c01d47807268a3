// Package clearbw is the Go peer of zerolab's `memclr-threshold` lab
// experiment (lab/experiments/memclr_threshold.cpp): seed 004, "Как устроен
// сам memclr", the clearbw table — clear on resident buffers of 8, 16, 24,
// 31, 33, 40 and 64 MB around memclrNoHeapPointers' 32 MiB (0x2000000)
// switch from REP STOSQ (ERMS) or AVX2 stores to MOVNTDQ.
//
// Adaptations Go 1.19 required:
//   - the clear builtin arrived in Go 1.21; Clear uses the range loop that
//     the compiler has turned into a call of memclrNoHeapPointers since
//     Go 1.5, the same routine clear calls for a []byte.
//   - the seed shows clearbw's output, not its code: BenchmarkClear is the
//     smallest program that measures the same thing (one resident 64 MiB
//     buffer, written once before timing; each op clears its first `size`
//     bytes; b.SetBytes gives the seed's throughput column).
//   - "МБ" in the seed is taken as MiB: the threshold it discusses is
//     0x2000000 bytes = 32 MiB, between its 31 and 33 rows.
//
// Go 1.19's runtime/memclr_amd64.s has the seed's three paths (checked in
// /usr/lib/go-1.19/src/runtime/memclr_amd64.s): REP STOSQ from 2 KiB with
// ERMS, AVX2 stores otherwise, VMOVNTDQ from 0x2000000 bytes.
package clearbw

// Clear zeroes b through memclrNoHeapPointers.
func Clear(b []byte) {
	for i := range b {
		b[i] = 0
	}
}
