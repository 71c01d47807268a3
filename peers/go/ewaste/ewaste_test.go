package ewaste

import (
	"context"
	"testing"
)

var sink []int

// One op is one pass of the SPIN loop, under a live context.WithCancel (the
// seed's ctx is a *cancelCtx: its profile shows context.(*cancelCtx).Done).
func BenchmarkWasteCPU(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ResetTimer()
	sink = WasteCPU(ctx, b.N)
}

func BenchmarkWasteCPUHoisted(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ResetTimer()
	sink = WasteCPUHoisted(ctx, b.N)
}

// Every pass is the same work: the list stays at the nine primes it starts
// with, whichever the variant and however many passes.
func TestAPassIsTheSameWorkEveryTime(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, spins := range []int{1, 1000} {
		if n := len(WasteCPU(ctx, spins)); n != 9 {
			t.Errorf("WasteCPU(%d passes): %d primes, want 9", spins, n)
		}
		if n := len(WasteCPUHoisted(ctx, spins)); n != 9 {
			t.Errorf("WasteCPUHoisted(%d passes): %d primes, want 9", spins, n)
		}
	}
	cancel()
	if n := len(WasteCPU(ctx, 1000)); n != 9 {
		t.Errorf("cancelled: %d primes, want 9", n)
	}
	if n := len(WasteCPUHoisted(ctx, 1000)); n != 9 {
		t.Errorf("cancelled: %d primes, want 9", n)
	}
}
