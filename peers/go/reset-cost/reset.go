// Package reset is seed 004's three functions from "Обнуление живой памяти"
// (zeroing live memory): resetStruct (a struct with pointers set to T{}),
// clearPtrs (a slice of pointers cleared) and clearBytes (a byte slice
// cleared), each //go:noinline, run under Debian's Go 1.19 as the Go peer
// of the lab's `reset-cost` experiment (lab/experiments/reset_cost.cpp).
//
// Adaptations Go 1.19 required (each one line):
//   - clear(s) (Go 1.21) is the range loop `for i := range s { s[i] = zero }`,
//     which the compiler turns into the same runtime call (memclrHasPointers
//     for pointers, memclrNoHeapPointers for bytes);
//   - resetStruct's write barrier is runtime.typedmemclr behind the
//     runtime.writeBarrier check in Go 1.19, where the seed's Go has
//     runtime.wbZero (same job: the barrier over the pointer words).
//
// Example:
//
//	var t T; resetStruct(&t)
package reset

// T is the seed's struct with pointers: 48 bytes on amd64.
type T struct {
	a *int
	b []byte
	c string
}

// resetStruct sets *p to the zero T (the seed's `*p = T{}`).
//
//go:noinline
func resetStruct(p *T) { *p = T{} }

// clearPtrs sets every element of s to nil (the seed's clear(s)).
//
//go:noinline
func clearPtrs(s []*int) {
	for i := range s {
		s[i] = nil
	}
}

// clearBytes sets every byte of s to 0 (the seed's clear(s)).
//
//go:noinline
func clearBytes(s []byte) {
	for i := range s {
		s[i] = 0
	}
}
