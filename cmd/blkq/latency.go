package main

import (
	"flag"
	"fmt"
	"io"
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

// cmdLatency runs "blkq latency": a cyclictest-like probe. A goroutine
// asks to wake every --interval and records how late it wakes, while a
// dbench-like load (writers dirtying pages through the buffer cache, in
// real time, on a scratch file) keeps the request layer busy. The 2004
// preemption thread's lesson: latency is set by the longest stretch of work
// that cannot yield, so the report gives the probe's wake-up latency and
// the layer's own longest lock hold side by side.
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
func cmdLatency(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("blkq latency", flag.ContinueOnError)
	fs.SetOutput(stderr)
	duration := fs.Duration("duration", 10*time.Second, "how long to measure")
	interval := fs.Duration("interval", time.Millisecond, "probe period (1 ms: 1 kHz, as cyclictest -i 1000)")
	writers := fs.Int("writers", 16, "dbench-like writer goroutines (0: no load)")
	dir := fs.String("dir", os.TempDir(), "where the scratch file goes")
	cpuHold := fs.Bool("cpu-hold", true, "also time lock holds on the holder thread's CPU clock (2 system calls per hold)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: blkq latency [flags]\n\nMeasures wake-up latency (cyclictest-like) while writers load the request layer.\n\nflags:")
		fs.PrintDefaults()
	}
	rest, ok, err := parseFlags(fs, args)
	if !ok {
		return err
	}
	if len(rest) != 0 {
		return usagef("latency: no arguments wanted, got %q (blkq latency -h lists the flags)", rest[0])
	}
	if *duration <= 0 || *writers < 0 {
		return usagef("--duration=%v, --writers=%d: want a positive duration and writers not negative", *duration, *writers)
	}
	if *writers > maxLatencyWriters {
		return usagef("--writers=%d: at most %d (each writer is a goroutine: about 3 KiB each)", *writers, maxLatencyWriters)
	}
	if res := probeResolution(); *interval < res {
		return usagef("--interval=%v: below the probe's resolution of %v (its clock's, and the µs cyclictest's -i counts)", *interval, res)
	}
	if *interval >= *duration {
		return usagef("--interval=%v: want it shorter than --duration=%v", *interval, *duration)
	}
	// Ctrl-C or SIGTERM ends the measurement early, from here on, so the
	// scratch file is always removed; a second one exits at once, and
	// removes it first (signal.go).
	in := notifyInterrupt(io.Discard) // no fio line: cyclictest prints none
	defer in.release()
	interrupted := in.Stop()
	path := filepath.Join(*dir, fmt.Sprintf("blkq-latency-%d", os.Getpid()))
	in.onExit(func() { os.Remove(path) })
	defer os.Remove(path)
	const fileSize = 256 << 20
	stack, err := engine.OpenQueue(engine.QueueSetup{Device: "file:" + path, Capacity: fileSize,
		Config: blkq.Config{LockHoldTiming: true, LockHoldCPU: *cpuHold}}, nil)
	if err != nil {
		return err
	}
	dev, q := stack.Device, stack.Queue
	defer dev.Close()
	cache, err := bcache.New(q, bcache.Config{Pages: 8192, CPUHoldTime: *cpuHold})
	if err != nil {
		return err
	}
	// At most writerGate writers are inside the cache at once; the others
	// wait their turn between bursts. With a hundred thousand writers
	// queued on the cache's lock, ending the run (Close takes that lock)
	// would wait for every one of them to write its page first: the gate
	// keeps the queue short, as a machine's CPUs bound how many threads
	// spin on a kernel spinlock. The writers look at halt before each
	// page, so that they stop within a page once the measurement ends.
	// They all start together once spawned: spawning a hundred thousand
	// among writers already running would take seconds.
	stop := make(chan struct{})
	begin := make(chan struct{})
	gate := make(chan struct{}, writerGate)
	var halt atomic.Bool
	var wg sync.WaitGroup
	var written atomic.Int64
	buf := make([]byte, 4096) // shared by the writers: WriteAt only reads it
	share := fileSize / int64(max(*writers, 1))
	writerRNG := sim.NewRNG(7) // each writer draws from a stream split from it
	span := max(share/4096-32, 1)
spawn:
	for w := range *writers {
		select {
		case <-interrupted:
			break spawn
		default:
		}
		wg.Go(func() {
			rng := writerRNG.Split(fmt.Sprint("writer ", w))
			base := int64(w) * share &^ 4095
			select {
			case <-begin:
			case <-stop:
				return
			}
			for {
				// Bursts of contiguous pages, then a short pause.
				select {
				case gate <- struct{}{}:
				case <-stop:
					return
				}
				page := rng.Int64N(span)
				for i := range int64(32) {
					if halt.Load() {
						break
					}
					if _, err := cache.WriteAt(buf, min(base+(page+i)*4096, fileSize-4096)); err != nil {
						break
					}
					written.Add(4096)
				}
				<-gate
				if halt.Load() {
					return
				}
				time.Sleep(time.Duration(rng.IntN(500)) * time.Microsecond)
			}
		})
	}
	close(begin)
	control := lockstat.New(*cpuHold)
	wg.Go(func() {
		var mu sync.Mutex
		x := uint64(1)
		for {
			select {
			case <-stop:
				return
			default:
			}
			for range 100 { // about as many holds per second as the layer's locks take
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
	})
	lat := report.NewLatency()
	var samples []int64 // ns late, for an exact histogram
	next := time.Now().Add(*interval)
	end := time.Now().Add(*duration)
	timer := time.NewTimer(0)
	defer timer.Stop()
	stopped := func() bool {
		select {
		case <-interrupted:
			return true
		default:
			return false
		}
	}
	for time.Now().Before(end) && !stopped() {
		wait := min(time.Until(next), time.Until(end)) // no sample past the end
		timer.Reset(wait)
		select { // interruptible, for Ctrl-C
		case <-timer.C:
		case <-interrupted:
		}
		if stopped() || time.Now().Before(next) {
			break
		}
		late := time.Since(next)
		lat.Record(max(int64(late), 1))
		samples = append(samples, int64(late))
		next = next.Add(*interval)
		if time.Since(next) > *interval {
			next = time.Now().Add(*interval) // fell a whole period behind: do not burst
		}
	}
	halt.Store(true)
	close(stop)
	st := cache.Stats() // the measurement's, before the final write-back
	closeErr := cache.Close()
	wg.Wait()
	if closeErr != nil {
		return closeErr
	}
	// Done with the scratch file: remove it before printing, so that a
	// reader that stops early (| head) does not leave it behind.
	dev.Close()
	os.Remove(path)
	us := func(ns int64) float64 { return float64(ns) / 1e3 }
	fmt.Fprintf(stdout, "blkq latency: %d samples at %v, %d writers, %.1f MB written through the buffer cache\n",
		lat.Count(), *interval, *writers, float64(written.Load())/1e6)
	fmt.Fprintf(stdout, "T: 0 I:%d C:%d Min:%8.0f Avg:%8.0f P99:%8.0f Max:%8.0f (µs of wake-up latency)\n",
		interval.Microseconds(), lat.Count(), us(lat.Min()), lat.Mean()/1e3, us(lat.Percentile(99)), us(lat.Max()))
	qs, _ := q.LockStats()
	fmt.Fprintf(stdout, "lock holds (µs)     %9s  %8s %8s %8s  %8s %8s %8s\n", "holds", "wall p99", "max", ">100µs", "CPU p99", "max", ">100µs")
	lockLine(stdout, "queue lock", qs)
	lockLine(stdout, "buffer cache lock", st.Lock)
	lockLine(stdout, "control", control.Stats())
	fmt.Fprintln(stdout, "histogram of wake-up latency (µs: samples in each range):")
	bounds := []int64{10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000} // µs
	counts := make([]int, len(bounds)+1)
	for _, ns := range samples {
		i := sort.Search(len(bounds), func(i int) bool { return ns < bounds[i]*1000 })
		counts[i]++
	}
	lo := int64(0)
	for i, hi := range bounds {
		fmt.Fprintf(stdout, "  %5d-%-5d: %d\n", lo, hi, counts[i])
		lo = hi
	}
	fmt.Fprintf(stdout, "  >= %-8d: %d\n", lo, counts[len(bounds)])
	return nil
}

// maxLatencyWriters bounds --writers, so that memory is bounded whatever
// the flag says: 100,000 writers take about 320 MB; 100 million took
// every byte of the machine before the first sample. dbench, whose load
// the writers imitate, runs tens to hundreds of clients.
const maxLatencyWriters = 100_000

// writerGate is how many of blkq latency's writers may be inside the
// buffer cache at once.
const writerGate = 256

// lockLine prints one lock's hold times.
func lockLine(w io.Writer, name string, s lockstat.Stats) {
	us := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Nanoseconds())/1e3) }
	fmt.Fprintf(w, "%-19s %9d  %8s %8s %8d", name, s.Holds, us(s.WallP99), us(s.WallMax), s.WallLong)
	if s.CPU {
		fmt.Fprintf(w, "  %8s %8s %8d", us(s.CPUP99), us(s.CPUMax), s.CPULong)
	}
	fmt.Fprintln(w)
}

// probeResolution is the shortest --interval: the resolution of the
// monotonic clock the probe sleeps on (clock_getres), and at least 1 µs,
// the unit of cyclictest's -i and of the report's I: field.
func probeResolution() time.Duration {
	res := time.Microsecond
	var ts unix.Timespec
	if unix.ClockGetres(unix.CLOCK_MONOTONIC, &ts) == nil {
		res = max(res, time.Duration(ts.Nano()))
	}
	return res
}
