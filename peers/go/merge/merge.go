// Package merge is the Go peer of zerolab's `merge` lab experiment
// (lab/experiments/merge.cpp): seed 000 ("MergeSlice benchmarks",
// main_test.go) run here with Debian's Go 1.19.
//
// The seed merges x, y, z (10000, 20000 and 50000 zero bytes) into one new
// 80000-byte slice: MergeSlicesZero with make([]byte, 0, n) (makeslice,
// which zeroes), MergeSlicesNoZero with makesliceNoZero, a function the seed
// adds to a patched runtime (go1.17beta1) and reaches by //go:linkname.
//
// Adaptations Go 1.19 required:
//   - stock Go has no runtime.makesliceNoZero. The seed's patched function is
//     makeslice's bounds checks followed by mallocgc(mem, et, false); stock
//     Go 1.19 lets a package reach runtime.mallocgc itself by //go:linkname
//     (the linker's restriction on such pulls came in Go 1.23), so
//     makeNoZero here calls mallocgc(cap, byte type, needzero=false)
//     directly: the patch's allocation without its overflow checks (the
//     sizes here cannot overflow). A bodyless declaration needs an assembly
//     file in the package: empty.s.
//   - the seed's package is `main` in a _test.go file; here the functions
//     live in package merge so that the correctness test can call them.
//   - the slice is built with unsafe.Slice (Go 1.17) instead of the seed's
//     write through *reflect.SliceHeader, which go vet flags as a misuse.
//
// The original post's method ("subtract the two numbers") is Zero80000:
// zeroing an 80000-byte slice alone, with Go's memclr idiom (Go 1.19 has
// no clear builtin).
package merge

import "unsafe"

var byteType unsafe.Pointer

func init() {
	var x interface{} = byte(0)
	byteType = *(*unsafe.Pointer)(unsafe.Pointer(&x))
}

//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

// makeNoZero is the seed's makeNoZero over stock mallocgc: a []byte of
// length len and capacity cap whose bytes are whatever the heap held.
func makeNoZero(len, cap int) []byte {
	data := mallocgc(uintptr(cap), byteType, false)
	return unsafe.Slice((*byte)(data), cap)[:len]
}

// MergeSlicesZero is the seed's function: make(0, n), then append each part.
func MergeSlicesZero(data ...[]byte) []byte {
	n := 0
	for _, s := range data {
		n += len(s)
	}
	r := make([]byte, 0, n)
	for _, s := range data {
		r = append(r, s...)
	}
	return r
}

// MergeSlicesNoZero is the seed's function with makeNoZero.
func MergeSlicesNoZero(data ...[]byte) []byte {
	n := 0
	for _, s := range data {
		n += len(s)
	}
	r := makeNoZero(0, n)
	for _, s := range data {
		r = append(r, s...)
	}
	return r
}

// Zero clears b with the idiom the compiler turns into memclrNoHeapPointers.
func Zero(b []byte) {
	for i := range b {
		b[i] = 0
	}
}
