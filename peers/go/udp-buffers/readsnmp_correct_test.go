package readsnmp

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

func reader(packet []byte) Read {
	return func(b []byte) (int, error) { return copy(b, packet), nil }
}

// Every strategy hands back the packet it read, whatever its size.
func TestEveryStrategyReturnsThePacket(t *testing.T) {
	var fixed [0xFFFF]byte
	var sp SimplePool
	pool := sync.Pool{New: func() any { return new([0xFFFF]byte) }}
	var small [0x400]byte
	for _, size := range []int{0xFF, 0x3FF, 0x400, 5000, 0xFFFF} {
		packet := bytes.Repeat([]byte{byte(size)}, size)
		read := reader(packet)
		got := map[string][]byte{}
		got["FixedBuffer"], _ = FixedBuffer(&fixed, read)
		got["AlwaysAllocate"], _ = AlwaysAllocate(read)
		got["SharedSimplePool"], _ = SharedSimplePool(&sp, read)
		got["SyncPoolAlwaysAlloc"], _ = SyncPoolAlwaysAlloc(&pool, read)
		got["SharedLargeFixedSmall"], _ = SharedLargeFixedSmall(&pool, &small, read)
		for name, p := range got {
			if !bytes.Equal(p, packet) {
				t.Errorf("%s, %d-byte packet: got %d bytes", name, size, len(p))
			}
		}
		// Under 1 KiB the packet lands in the connection's small buffer.
		p, _ := SharedLargeFixedSmall(&pool, &small, read)
		if inSmall := &p[0] == &small[0]; inSmall != (size < 0x400) {
			t.Errorf("SharedLargeFixedSmall, %d bytes: in the small buffer = %v", size, inSmall)
		}
	}
}

// SimplePool hands back the buffer it was given, and makes one when empty.
func TestSimplePoolReuses(t *testing.T) {
	var sp SimplePool
	a := sp.Get()
	sp.Put(a)
	if b := sp.Get(); b != a {
		t.Error("Get after Put did not return the same buffer")
	}
	if c := sp.Get(); c == a || c == nil {
		t.Error("Get on an empty pool did not make a new buffer")
	}
}

// The seed's latency quirk: every latency is exactly 1 ms.
func TestEveryLatencyIsOneMillisecond(t *testing.T) {
	for i, d := range buildLatencies(10_000) {
		if d != time.Millisecond {
			t.Fatalf("latency %d is %v, want 1ms (the seed's formula)", i, d)
		}
	}
	for i, p := range buildPackets(10_000) {
		if len(p) < 0xFF || len(p) > 0xFFFF {
			t.Fatalf("packet %d has %d bytes, outside [255, 65535]", i, len(p))
		}
	}
}
