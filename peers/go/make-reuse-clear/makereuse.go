// Package makereuse is the Go peer of zerolab's `make-reuse-clear` lab
// experiment (lab/experiments/make_reuse_clear.cpp): seed 004, "Сколько это
// стоит в Go" — Make (a new zeroed slice each op: allocation plus zeroing),
// Reuse (one slice, nothing done: the loop's own cost) and ReuseClear (one
// slice cleared each op: zeroing alone), at 64B, 1KB, 16KB, 256KB, 4MB and
// 64MB.
//
// Adaptations Go 1.19 required:
//   - no clear builtin before Go 1.21: Clear is the range loop the compiler
//     turns into memclrNoHeapPointers, the routine clear calls for []byte.
//   - the seed shows the benchstat table, not the code: the three loops are
//     the ones its text describes; Make stores the slice to a package
//     variable so it escapes to the heap, as a benchmark's result must.
//   - the seed leaves ReuseClear at 4MB and 64MB out of its table (44%
//     spread); they are measured here all the same.
//   - sizes: the seed's "KB"/"MB" are taken as 1024 and 1<<20 bytes.
package makereuse

// Clear zeroes b through memclrNoHeapPointers.
func Clear(b []byte) {
	for i := range b {
		b[i] = 0
	}
}
