// Package bss is the Go side of zerolab's `zero-cost` lab experiment
// (lab/experiments/zero_cost.cpp): seed 004, "Глобальные переменные: секция
// .bss" — a program with `var buf [64 << 20]byte` is barely larger than an
// empty one (the seed: 121 bytes; the array sits in .noptrbss, NOBITS, and
// the RW LOAD segment's MemSiz grows by 0x4000000 while FileSiz does not),
// whereas `var buf = [4 << 20]byte{0: 1, 1: 2, 2: 3}` costs 4 MB of file.
// The rest of zero-cost is the seed's C programs, whose C++ runs are the
// replication.
//
// Programs holds the seed's three programs; TestBSS builds each with
// `go build` and reads the results with debug/elf.
//
// Adaptations Go 1.19 required: none to the programs (the seed's Go
// 1.24.10 binaries differ in size; only the differences are compared).
package bss

// Programs are the seed's bin_empty, bin_zeroed and bin_static sources.
var Programs = map[string]string{
	"empty":  "package main\n\nfunc main() {}\n",
	"zeroed": "package main\n\n// 64 MB of zeros.\nvar buf [64 << 20]byte\n\nfunc main() { println(buf[0]) }\n",
	"static": "package main\n\nvar buf = [4 << 20]byte{0: 1, 1: 2, 2: 3}\n\nfunc main() { println(buf[0]) }\n",
}
