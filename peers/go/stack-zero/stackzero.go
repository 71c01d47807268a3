// Package stackzero is the Go peer of zerolab's `stack-zero` lab experiment
// (lab/experiments/stack_zero.cpp): seed 004, "Четыре стратегии" (the
// functions buf8, buf64, buf1024, buf8192 and their disassembly) and
// "Сколько стоит кадр" (StackZero/64B_MOVUPS, 1KB_DUFFZERO, 8KB_REPSTOSQ).
//
// Each function declares a zeroed array and passes it to sink, which the
// compiler cannot inline, so the array lives in the frame and is zeroed
// on every call: MOVQ $0 (8 B), MOVUPS X15 stores (64 B), a call into
// runtime.duffzero (1 KiB), REP STOSQ (8 KiB) — checked by
// TestZeroingInstructions with `go tool objdump`, as the seed does.
//
// Adaptations Go 1.19 required:
//   - none to the functions: the seed's buf* are used as written. The seed
//     checked its rules in Go 1.24's _gen/AMD64.rules; Go 1.19's
//     cmd/compile/internal/ssa/gen/AMD64.rules has the same thresholds
//     (64 B, 1024 B) and X15 is the zero register since Go 1.17's regabi.
//   - the seed's benchmark code is not shown; its text says "each function
//     declares the buffer and reads two bytes from it": sink here reads the
//     first and the last byte (the seed's sink reads b[0] only).
package stackzero

//go:noinline
func sink(b []byte) byte { return b[0] + b[len(b)-1] }

//go:noinline
func buf8() byte { var b [8]byte; return sink(b[:]) }

//go:noinline
func buf64() byte { var b [64]byte; return sink(b[:]) }

//go:noinline
func buf1024() byte { var b [1024]byte; return sink(b[:]) }

//go:noinline
func buf8192() byte { var b [8192]byte; return sink(b[:]) }
