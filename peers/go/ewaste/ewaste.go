// Package ewaste holds the seed's main.wasteCPU (seed 001, "pprof: example:
// profiling gitlab.com/efronlicht/ewaste") as its two pprof listings show
// it: with ctx.Done() called in the select of every pass of its SPIN loop,
// and with the channel taken once before the loop ("optimized" ewaste).
//
// The only change: the SPIN loop runs at most `spins` passes (the seed's
// runs until ctx is cancelled), so a benchmark op is one pass. A pass is
// the same work every time: the trial division starts at the last prime
// found, 23, and 23 % 23 == 0 sends it back to SPIN after eight divisions,
// so the list never grows (the seed's function wastes CPU by design).
package ewaste

import (
	"context"
	"math"
)

// WasteCPU is the first listing: `case <-ctx.Done():` in every pass.
func WasteCPU(ctx context.Context, spins int) []int {
	primes := append(make([]int, 0, 4096), 2, 3, 5, 7, 11, 13, 17, 19, 23)
SPIN:
	for s := 0; s < spins; s++ {
		select {
		case <-ctx.Done(): // runtime.chanrecv(context.(*cancelCtx).Done)
			return primes
		default:
			for i := primes[len(primes)-1]; i < math.MaxInt32; i += 2 {
				for _, p := range primes[1:] {
					if i%p == 0 { // not prime
						continue SPIN
					}
				}
				primes = append(primes, i)
			}
		}
	}
	return primes
}

// WasteCPUHoisted is the second listing: `done := ctx.Done()` before the
// loop, `case <-done:` in every pass.
func WasteCPUHoisted(ctx context.Context, spins int) []int {
	primes := append(make([]int, 0, 4096), 2, 3, 5, 7, 11, 13, 17, 19, 23)
	done := ctx.Done()
SPIN:
	for s := 0; s < spins; s++ {
		select {
		case <-done:
			return primes
		default:
			for i := primes[len(primes)-1]; i < math.MaxInt32; i += 2 {
				for _, p := range primes[1:] {
					if i%p == 0 { // not prime
						continue SPIN
					}
				}
				primes = append(primes, i)
			}
		}
	}
	return primes
}
