package lockstat

import (
	"sync"
	"testing"
	"time"
)

// TestSleepingHolderIsLongOnWallNotOnCPU: a holder that sleeps 5 ms under
// the lock is a long hold on the wall clock and a far shorter one on the
// CPU clock (under 1 ms: the machine may still charge the thread some
// kernel time); a holder that spins 2 ms is long on both.
func TestSleepingHolderIsLongOnWallNotOnCPU(t *testing.T) {
	var mu sync.Mutex
	tm := New(true)
	mu.Lock()
	tm.Acquired()
	time.Sleep(5 * time.Millisecond)
	tm.Released()
	mu.Unlock()
	s := tm.Stats()
	if s.Holds != 1 || s.WallLong != 1 || s.WallMax < 5*time.Millisecond {
		t.Fatalf("sleeping hold: %+v: want one long wall hold of >= 5 ms", s)
	}
	if !s.CPU || s.CPUMax >= time.Millisecond {
		t.Fatalf("sleeping hold: %+v: want a CPU hold under 1 ms", s)
	}

	tm.Reset()
	mu.Lock()
	tm.Acquired()
	for start := threadCPU(); threadCPU()-start < int64(2*time.Millisecond); {
	} // 2 ms of this thread's CPU, however long the wall clock says
	tm.Released()
	mu.Unlock()
	s = tm.Stats()
	if s.Holds != 1 || s.CPULong != 1 || s.CPUMax < time.Millisecond {
		t.Fatalf("spinning hold: %+v: want one long CPU hold", s)
	}
}

// TestWallOnly: without the CPU clock only the wall figures are kept.
func TestWallOnly(t *testing.T) {
	tm := New(false)
	for range 100 {
		tm.Acquired()
		tm.Released()
	}
	s := tm.Stats()
	if s.Holds != 100 || s.CPU || s.CPUMax != 0 || s.WallMax <= 0 {
		t.Fatalf("%+v", s)
	}
}
