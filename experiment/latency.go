package experiment

// The wake-up latency benchmark (blkq latency): a cyclictest-like probe.
// A goroutine asks to wake every Interval and records how late it wakes,
// while a dbench-like load (writers dirtying pages through the buffer
// cache, in real time, on a scratch file) keeps the request layer busy.
// The 2004 preemption thread's lesson: latency is set by the longest
// stretch of work that cannot yield, so the result gives the probe's
// wake-up latency and the layer's own longest lock hold side by side.
//
// Lock holds are timed on the wall clock and on the holder thread's CPU
// clock (package lockstat). Neither is the code's alone on a shared
// virtual machine: the OS deschedules holders (wall) and the hypervisor
// steals CPU time that the guest still charges to the running thread
// (CPU) or charges it kernel work done on the thread's time. So a control
// lock, taken and released by a goroutine of its own under the same load,
// about as often as the layer's locks, around a section of a few
// nanoseconds of work, is timed the same way: what it shows is the
// machine's floor, and the layer's locks are to be read against it.
//
// Unlike the other experiments it runs in real time on a real file: it
// measures the machine, so its figures are not deterministic.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/bcache"
	"github.com/blkq-dev/blkq/engine"
	"github.com/blkq-dev/blkq/lockstat"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/sim"
	"golang.org/x/sys/unix"
)

// MaxLatencyWriters bounds LatencyOptions.Writers, so that memory is
// bounded whatever is asked: 100,000 writers take about 320 MB; 100
// million took every byte of the machine before the first sample. dbench,
// whose load the writers imitate, runs tens to hundreds of clients.
const MaxLatencyWriters = 100_000

// latencyWriterGate is how many writers may be inside the buffer cache at
// once.
const latencyWriterGate = 256

// latencyFileSize is the scratch file's size, bytes.
const latencyFileSize = 256 << 20

// LatencyOptions configure the latency benchmark.
type LatencyOptions struct {
	// Duration is how long to measure; positive.
	Duration time.Duration
	// Interval is the probe's period (1 ms: 1 kHz, as cyclictest -i
	// 1000); at least ProbeResolution and shorter than Duration.
	Interval time.Duration
	// Writers is the number of dbench-like writer goroutines (0: no
	// load), at most MaxLatencyWriters.
	Writers int
	// Dir is where the scratch file goes.
	Dir string
	// CPUHold also times lock holds on the holder thread's CPU clock (2
	// system calls per hold).
	CPUHold bool
	// Stop, when closed, ends the measurement early.
	Stop <-chan struct{}
	// Scratch, if set, is called with the scratch file's path before the
	// file is made, so that a caller can remove it should the process end
	// before Latency returns (Latency removes it itself).
	Scratch func(path string)
}

// An OptionError is an option out of its range: Name (as a lowercase
// word: "interval"), the value given and what is wanted.
type OptionError struct {
	Name, Value, Want string
}

func (e *OptionError) Error() string { return fmt.Sprintf("%s=%s: %s", e.Name, e.Value, e.Want) }

// Check returns an *OptionError for the first option out of its range.
func (o LatencyOptions) Check() error {
	bad := func(name string, v any, want string, a ...any) error {
		return &OptionError{Name: name, Value: fmt.Sprint(v), Want: fmt.Sprintf(want, a...)}
	}
	switch res := ProbeResolution(); {
	case o.Duration <= 0:
		return bad("duration", o.Duration, "want a positive duration")
	case o.Writers < 0:
		return bad("writers", o.Writers, "want 0 or more")
	case o.Writers > MaxLatencyWriters:
		return bad("writers", o.Writers, "at most %d (each writer is a goroutine: about 3 KiB each)", MaxLatencyWriters)
	case o.Interval < res:
		return bad("interval", o.Interval, "below the probe's resolution of %v (its clock's, and the µs cyclictest's -i counts)", res)
	case o.Interval >= o.Duration:
		return bad("interval", o.Interval, "want it shorter than the duration, %v", o.Duration)
	}
	return nil
}

// LatencyBucket is one range of the wake-up latency histogram: Count
// samples were at least LoUs and less than HiUs µs late (HiUs 0: no
// upper bound).
type LatencyBucket struct {
	LoUs, HiUs int64
	Count      int
}

// latencyBounds are the histogram's upper bounds, µs.
var latencyBounds = []int64{10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}

// LatencyResult is what the latency benchmark measured.
type LatencyResult struct {
	// Lat is the probe's wake-up latency, ns (each sample at least 1).
	Lat *report.Latency
	// Histogram counts the samples in the ranges of latencyBounds, and
	// those beyond the last.
	Histogram []LatencyBucket
	// Written is the bytes the writers wrote through the buffer cache.
	Written int64
	// QueueLock, CacheLock and Control are the hold times of the request
	// queue's lock, the buffer cache's lock and the control lock.
	QueueLock, CacheLock, Control lockstat.Stats
}

// ProbeResolution is the shortest Interval: the resolution of the
// monotonic clock the probe sleeps on (clock_getres), and at least 1 µs,
// the unit of cyclictest's -i.
func ProbeResolution() time.Duration {
	res := time.Microsecond
	var ts unix.Timespec
	if unix.ClockGetres(unix.CLOCK_MONOTONIC, &ts) == nil {
		res = max(res, time.Duration(ts.Nano()))
	}
	return res
}

// latencyQueue is the request queue (through the engine's queue factory)
// and buffer cache the writers load, on a scratch file at path, and the
// timer of the queue lock's hold times.
func latencyQueue(path string, cpuHold bool) (*engine.Stack, *lockstat.Timer, *bcache.Cache, error) {
	queueHold := lockstat.New(cpuHold)
	st, err := engine.OpenQueue(engine.QueueSetup{Device: "file:" + path, Capacity: latencyFileSize,
		Config: blkq.Config{Scheduler: Scheduler, LockHook: queueHold}}, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	cache, err := bcache.New(st.Queue, bcache.Config{Pages: 8192, LockTiming: true, CPUHoldTime: cpuHold})
	if err != nil {
		st.Device.Close()
	}
	return st, queueHold, cache, err
}

// Latency runs the benchmark: writers load a buffer cache over a queue on
// a scratch file in o.Dir while the probe samples its wake-ups, for
// o.Duration or until o.Stop. The scratch file is removed before it
// returns.
func Latency(o LatencyOptions) (*LatencyResult, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	path := filepath.Join(o.Dir, fmt.Sprintf("blkq-latency-%d", os.Getpid()))
	if o.Scratch != nil {
		o.Scratch(path)
	}
	defer os.Remove(path)
	stack, queueHold, cache, err := latencyQueue(path, o.CPUHold)
	if err != nil {
		return nil, err
	}
	defer stack.Device.Close()
	l := &latencyRun{o: o, cache: cache, stop: make(chan struct{})}
	l.startWriters()
	control := lockstat.New(o.CPUHold)
	l.wg.Go(func() { l.controlLock(control) })
	res := &LatencyResult{Lat: report.NewLatency()}
	samples := l.probe(res.Lat)
	l.halt.Store(true)
	close(l.stop)
	st := cache.Stats() // the measurement's, before the final write-back
	closeErr := cache.Close()
	l.wg.Wait()
	if closeErr != nil {
		return nil, closeErr
	}
	res.Written = l.written.Load()
	res.QueueLock = queueHold.Stats()
	res.CacheLock, res.Control = st.Lock, control.Stats()
	res.Histogram = latencyHistogram(samples)
	return res, nil
}

// latencyRun is one run's writers and probe.
type latencyRun struct {
	o       LatencyOptions
	cache   *bcache.Cache
	stop    chan struct{} // closed when the measurement ends
	halt    atomic.Bool   // set then too: the writers look before each page
	wg      sync.WaitGroup
	written atomic.Int64
	rng     *sim.RNG // the writers' streams are split from it
}

// stopped reports whether o.Stop is closed.
func (l *latencyRun) stopped() bool {
	select {
	case <-l.o.Stop:
		return true
	default:
		return false
	}
}

// startWriters starts the writers. At most latencyWriterGate writers are
// inside the cache at once; the others wait their turn between bursts.
// With a hundred thousand writers queued on the cache's lock, ending the
// run (Close takes that lock) would wait for every one of them to write
// its page first: the gate keeps the queue short, as a machine's CPUs
// bound how many threads spin on a kernel spinlock. They all start
// together once spawned: spawning a hundred thousand among writers
// already running would take seconds.
func (l *latencyRun) startWriters() {
	begin := make(chan struct{})
	defer close(begin)
	gate := make(chan struct{}, latencyWriterGate)
	buf := make([]byte, 4096) // shared by the writers: WriteAt only reads it
	l.rng = sim.NewRNG(7)     // each writer draws from a stream split from it
	share := int64(latencyFileSize) / int64(max(l.o.Writers, 1))
	span := max(share/4096-32, 1)
	for w := range l.o.Writers {
		if l.stopped() {
			return
		}
		l.wg.Go(func() {
			rng := l.rng.Split(fmt.Sprint("writer ", w))
			base := int64(w) * share &^ 4095
			select {
			case <-begin:
			case <-l.stop:
				return
			}
			for {
				// Bursts of contiguous pages, then a short pause.
				select {
				case gate <- struct{}{}:
				case <-l.stop:
					return
				}
				page := rng.Int64N(span)
				for i := range int64(32) {
					if l.halt.Load() {
						break
					}
					if _, err := l.cache.WriteAt(buf, min(base+(page+i)*4096, latencyFileSize-4096)); err != nil {
						break
					}
					l.written.Add(4096)
				}
				<-gate
				if l.halt.Load() {
					return
				}
				time.Sleep(time.Duration(rng.IntN(500)) * time.Microsecond)
			}
		})
	}
}

// controlLock takes and releases a lock of its own around a few ns of
// work, about as often as the layer's locks are taken, until the end.
func (l *latencyRun) controlLock(control *lockstat.Timer) {
	var mu sync.Mutex
	x := uint64(1)
	for {
		select {
		case <-l.stop:
			return
		default:
		}
		for range 100 {
			mu.Lock()
			control.Acquired()
			x ^= x << 13 // the fixed section: a few ns of work
			x ^= x >> 7
			control.Released()
			mu.Unlock()
		}
		time.Sleep(200 * time.Microsecond)
		if x == 0 {
			return // never: keeps the section from being optimised away
		}
	}
}

// probe wakes every Interval until Duration has passed or Stop, records
// how late each wake-up was in lat and returns the samples, ns.
func (l *latencyRun) probe(lat *report.Latency) []int64 {
	var samples []int64
	next := time.Now().Add(l.o.Interval)
	end := time.Now().Add(l.o.Duration)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for time.Now().Before(end) && !l.stopped() {
		// No sample past the end; Stop interrupts the wait.
		timer.Reset(min(time.Until(next), time.Until(end)))
		select {
		case <-timer.C:
		case <-l.o.Stop:
		}
		if l.stopped() || time.Now().Before(next) {
			break
		}
		late := time.Since(next)
		lat.Record(max(int64(late), 1))
		samples = append(samples, int64(late))
		next = next.Add(l.o.Interval)
		if time.Since(next) > l.o.Interval {
			next = time.Now().Add(l.o.Interval) // fell a whole period behind: do not burst
		}
	}
	return samples
}

// latencyHistogram counts samples (ns) in the ranges of latencyBounds.
func latencyHistogram(samples []int64) []LatencyBucket {
	h := make([]LatencyBucket, len(latencyBounds)+1)
	lo := int64(0)
	for i, hi := range latencyBounds {
		h[i] = LatencyBucket{LoUs: lo, HiUs: hi}
		lo = hi
	}
	h[len(latencyBounds)].LoUs = lo
	for _, ns := range samples {
		i := sort.Search(len(latencyBounds), func(i int) bool { return ns < latencyBounds[i]*1000 })
		h[i].Count++
	}
	return h
}
