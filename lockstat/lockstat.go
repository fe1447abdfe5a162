// Package lockstat times how long a lock is held: on the wall clock and,
// optionally, on the CPU.
//
// The 2004 preemption thread's measure of a lock is the longest stretch of
// work done under it, because the holder cannot yield. In the kernel a
// spinlock holder is not preempted, so wall time under the lock is work
// time. In user space the OS may deschedule the holder at any instruction:
// on a shared two-core machine a hold of 1 µs of work now and then lasts a
// few milliseconds of wall time, and that says nothing about the code. So a
// Timer records both: the wall-clock hold (what other goroutines waited
// behind) and, when asked, the holder thread's CPU time during the hold
// (CLOCK_THREAD_CPUTIME_ID; the goroutine is pinned to its thread for the
// hold so that the two readings are of one thread). The CPU hold is the
// work done under the lock; the difference is time the holder was not
// running. Reading the thread clock is a system call, twice per hold, so it
// is off unless asked for (New(true)); and the CPU window brackets the wall
// window and one of those calls, so on holds of a microsecond or two the
// CPU figures come out above the wall ones.
package lockstat

import (
	"runtime"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"
)

// Timer times the holds of one lock. Acquired and Released must be called
// by the holder, with the lock held; Stats may be called at any time.
type Timer struct {
	cpu bool

	from    time.Time // guarded by the timed lock
	cpuFrom int64     // ns of thread CPU time at Acquired

	mu                sync.Mutex // guards the histograms
	wall              *hdrhistogram.Histogram
	oncpu             *hdrhistogram.Histogram
	longWall, longCPU int64
	cpuErrs           int64 // holds whose thread clock could not be read
}

// New returns a Timer; with cpu it also records the on-CPU hold time.
func New(cpu bool) *Timer {
	t := &Timer{cpu: cpu, wall: newHist()}
	if cpu {
		t.oncpu = newHist()
	}
	return t
}

// newHist covers 1 ns to 10 s at 3 significant digits.
func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, 10e9, 3) }

// Acquired starts timing a hold; call it right after taking the lock.
func (t *Timer) Acquired() {
	if t.cpu {
		runtime.LockOSThread()
		t.cpuFrom = threadCPU()
	}
	t.from = time.Now()
}

// Released ends the hold; call it right before releasing the lock.
func (t *Timer) Released() {
	d := time.Since(t.from)
	var c int64 = -1
	if t.cpu {
		if now := threadCPU(); now >= 0 && t.cpuFrom >= 0 {
			c = now - t.cpuFrom
		}
		runtime.UnlockOSThread()
	}
	t.mu.Lock()
	t.wall.RecordValue(max(int64(d), 1))
	if d > LongHold {
		t.longWall++
	}
	if t.cpu {
		if c >= 0 {
			t.oncpu.RecordValue(max(c, 1))
			if c > int64(LongHold) {
				t.longCPU++
			}
		} else {
			t.cpuErrs++
		}
	}
	t.mu.Unlock()
}

// threadCPU returns the calling thread's CPU time in ns, or -1.
func threadCPU() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return -1
	}
	return ts.Nano()
}

// LongHold is the hold time above which Stats counts a hold as long: the
// 100 µs that the 2004 preemption discussion treated as the bound for
// code that cannot yield.
const LongHold = 100 * time.Microsecond

// Stats are a lock's hold times.
type Stats struct {
	Holds   int64         // holds timed
	WallMax time.Duration // longest hold, wall clock
	WallP99 time.Duration
	// WallLong and CPULong count holds longer than LongHold.
	WallLong, CPULong int64
	// CPUMax and CPUP99 are the holder's CPU time during a hold (0 unless
	// the Timer records it): the work done under the lock.
	CPUMax time.Duration
	CPUP99 time.Duration
	CPU    bool // the CPU fields are measured
	// CPUUnread counts holds whose thread clock could not be read.
	CPUUnread int64
}

// Stats returns the holds so far.
func (t *Timer) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := Stats{Holds: t.wall.TotalCount(), WallMax: time.Duration(t.wall.Max()), WallP99: time.Duration(t.wall.ValueAtQuantile(99)),
		WallLong: t.longWall, CPULong: t.longCPU}
	if t.cpu {
		s.CPU = true
		s.CPUMax = time.Duration(t.oncpu.Max())
		s.CPUP99 = time.Duration(t.oncpu.ValueAtQuantile(99))
		s.CPUUnread = t.cpuErrs
	}
	return s
}

// Reset forgets the holds so far.
func (t *Timer) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.wall.Reset()
	t.longWall, t.longCPU = 0, 0
	if t.oncpu != nil {
		t.oncpu.Reset()
	}
}
