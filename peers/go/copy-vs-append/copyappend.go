// Package copyappend is the Go peer of zerolab's `copy-vs-append` lab
// experiment (lab/experiments/copy_vs_append.cpp): seed 004, "Неожиданный
// случай" — a 1 MB copy into a new slice three ways:
//   - MakeThenCopy: make([]byte, n) then copy; the compiler fuses the pair
//     into runtime.makeslicecopy, which allocates without zeroing and
//     clears only the tail past the copy (none here);
//   - AppendNil: append([]byte(nil), src...); growslice also leaves the
//     overwritten part unzeroed;
//   - MakeCapThenAppend: make([]byte, 0, n) then append; makeslice zeroes
//     the whole capacity, append copies over it: each byte written twice.
//
// The functions are the seed's benchmark bodies; TestRuntimeCalls checks
// with `go tool objdump`, as the seed does, which runtime functions each
// calls.
//
// Adaptations Go 1.19 required: none to the code. The seed's n is not
// shown beyond "a buffer of a megabyte": n = 1 << 20 here, src filled with
// non-zero bytes (the seed does not show src's contents).
package copyappend

const n = 1 << 20

var (
	src = func() []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i%251 + 1)
		}
		return b
	}()
	sink []byte
)

//go:noinline
func MakeThenCopy() {
	dst := make([]byte, n)
	copy(dst, src)
	sink = dst
}

//go:noinline
func AppendNil() {
	sink = append([]byte(nil), src...)
}

//go:noinline
func MakeCapThenAppend() {
	dst := make([]byte, 0, n)
	dst = append(dst, src...)
	sink = dst
}
