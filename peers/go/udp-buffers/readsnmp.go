// Package readsnmp is seed 001's "cableshow: SNMP buffers" code — the five
// ways to hold a UDP connection's 64 KiB receive buffer (FixedBuffer,
// AlwaysAllocate, SharedSimplePool, SyncPoolAlwaysAlloc,
// SharedLargeFixedSmall) — run under Debian's Go 1.19 as the Go peer of the
// lab's `udp-buffers` experiment (lab/experiments/udp_buffers.cpp). The
// benchmarks, fakeUDPRead and reportHeapStats are in readsnmp_test.go.
//
// Adaptations Go 1.19 required (each one line):
//   - bytes.Clone (Go 1.20) is cloneBytes below (nil stays nil, as in 1.20);
//   - the seed's Read type, used but not shown, is func([]byte) (int, error).
//
// Example:
//
//	var sp SimplePool
//	p, err := SharedSimplePool(&sp, read)
package readsnmp

import (
	"sync"
)

// Read reads one packet into b.
type Read func(b []byte) (n int, err error)

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// FixedBuffer reads into the connection's own 64 KiB buffer.
func FixedBuffer(b *[0xFFFF]byte, read func(b []byte) (n int, err error)) ([]byte, error) {
	n, err := read(b[:])
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}

// AlwaysAllocate reads into a new 64 KiB buffer, then clones the packet.
func AlwaysAllocate(read func(b []byte) (n int, err error)) ([]byte, error) {
	b := make([]byte, 0xFFFF)
	n, err := read(b)
	if err != nil {
		return nil, err
	}
	return cloneBytes(b[:n]), nil
}

// SimplePool is the seed's mutex-and-slice stack of 64 KiB buffers.
type SimplePool struct {
	mux sync.Mutex
	a   []*[0xFFFF]byte
}

// Get pops a buffer, or makes one when the stack is empty.
func (sp *SimplePool) Get() *[0xFFFF]byte {
	sp.mux.Lock()
	defer sp.mux.Unlock()
	if len(sp.a) == 0 {
		return new([0xFFFF]byte)
	}
	i := len(sp.a) - 1
	buf := sp.a[i]
	sp.a = sp.a[:i]
	return buf
}

// Put pushes b back.
func (sp *SimplePool) Put(b *[0xFFFF]byte) { sp.mux.Lock(); sp.a = append(sp.a, b); sp.mux.Unlock() }

// SharedSimplePool reads into a SimplePool buffer, then clones the packet.
func SharedSimplePool(sp *SimplePool, read Read) ([]byte, error) {
	b := sp.Get()
	defer sp.Put(b)
	n, err := read(b[:])
	if err != nil {
		return nil, err
	}
	return cloneBytes(b[:n]), nil
}

// SyncPoolAlwaysAlloc reads into a sync.Pool buffer, then clones the packet.
func SyncPoolAlwaysAlloc(sp *sync.Pool, read Read) ([]byte, error) {
	b := sp.Get().(*[0xFFFF]byte)
	defer sp.Put(b)
	n, err := read(b[:])
	if err != nil {
		return nil, err
	}
	return cloneBytes(b[:n]), nil
}

// SharedLargeFixedSmall reads into a sync.Pool buffer, then copies a packet
// under 1 KiB into the connection's small buffer (a larger one is cloned).
func SharedLargeFixedSmall(sp *sync.Pool, small *[0x400]byte, read Read) ([]byte, error) {
	b := sp.Get().(*[0xFFFF]byte)
	defer sp.Put(b)
	n, err := read(b[:])
	if err != nil {
		return nil, err
	}
	if n < len(small) {
		_ = copy(small[:], b[:n])
		return small[:n], nil
	}
	return cloneBytes(b[:n]), nil
}
