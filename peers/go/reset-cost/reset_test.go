package reset

import (
	"runtime"
	"sync/atomic"
	"testing"
	"unsafe"
)

// The seed's practical note: resetting an object with pointers before it
// goes back to a pool costs more than clearing a byte slice of the same
// size, and the difference shows during a garbage collection (when the
// write barrier is on). Each benchmark times the reset alone of an object
// that is already empty, heap-allocated and kept (as a pooled object is):
//   ResetEmpty/resetStruct  *p = T{}           (48 B, 3 pointer words)
//   ResetEmpty/clearPtrs    clear of 6 *int    (48 B, 6 pointer words)
//   ResetEmpty/clearBytes   clear of 48 bytes  (no pointers)
// and the same under GC/..., where a second goroutine runs runtime.GC()
// back to back so that the barrier is on for much of the time.

var (
	sinkT     = new(T)
	sinkPtrs  = make([]*int, unsafe.Sizeof(T{})/unsafe.Sizeof(uintptr(0)))
	sinkBytes = make([]byte, unsafe.Sizeof(T{}))
)

// underGC runs runtime.GC() in a loop on another goroutine until the
// returned stop is called.
func underGC() (stop func()) {
	var done atomic.Bool
	finished := make(chan struct{})
	go func() {
		for !done.Load() {
			runtime.GC()
		}
		close(finished)
	}()
	return func() { done.Store(true); <-finished }
}

func benchResets(b *testing.B, prefix string, gc bool) {
	cases := []struct {
		name string
		f    func()
	}{
		{"resetStruct", func() { resetStruct(sinkT) }},
		{"clearPtrs", func() { clearPtrs(sinkPtrs) }},
		{"clearBytes", func() { clearBytes(sinkBytes) }},
	}
	for _, c := range cases {
		f := c.f
		b.Run(prefix+c.name, func(b *testing.B) {
			b.ReportAllocs()
			if gc {
				stop := underGC()
				defer stop()
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f()
			}
		})
	}
}

func BenchmarkResetCost(b *testing.B) {
	benchResets(b, "ResetEmpty/", false)
	benchResets(b, "GC/ResetEmpty/", true)
}

func TestResetsZeroEverything(t *testing.T) {
	x := 7
	v := T{a: &x, b: []byte("abc"), c: "def"}
	resetStruct(&v)
	if v.a != nil || v.b != nil || v.c != "" {
		t.Errorf("resetStruct left %+v", v)
	}
	ptrs := []*int{&x, &x, &x}
	clearPtrs(ptrs)
	for i, p := range ptrs {
		if p != nil {
			t.Errorf("clearPtrs: element %d is not nil", i)
		}
	}
	bytes := []byte{1, 2, 3, 4}
	clearBytes(bytes)
	for i, c := range bytes {
		if c != 0 {
			t.Errorf("clearBytes: byte %d is %d", i, c)
		}
	}
	if unsafe.Sizeof(T{}) != 48 || len(sinkPtrs)*8 != 48 || len(sinkBytes) != 48 {
		t.Errorf("sizes: T %d, ptrs %d B, bytes %d B; want 48 each", unsafe.Sizeof(T{}), len(sinkPtrs)*8, len(sinkBytes))
	}
}

func TestUnderGCStops(t *testing.T) {
	before := gcCount()
	stop := underGC()
	for gcCount() < before+2 {
		runtime.Gosched()
	}
	stop()
}

func gcCount() uint32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.NumGC
}
