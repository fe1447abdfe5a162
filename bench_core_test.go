package blkq_test

// The request layer's cost per I/O (issue 13): submit → complete on the
// null device for each scheduler and nomerges setting, in virtual time
// (the core alone) and through the blocking API on the real clock; the
// merge lookup with 10, 1,000 and the most requests a queue may hold;
// allocation with 1 to 1024 submitters; nr_requests from 4 to the
// maximum. Each reports ns/op (wall), cpu-ns/op (the process's user +
// system time, which a shared machine does not inflate) and allocs/op.
// README "Performance" says how to run and compare them.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/internal/cputime"
	"github.com/blkq-dev/blkq/sim"
)

var benchSchedulers = []string{"none", "mq-deadline", "linus"}

// BenchmarkSubmitCompleteVirtual: one task keeps 128 random 4 KiB reads
// outstanding against the null device in virtual time; an op is one bio
// submitted, dispatched and completed (blkq's core, no goroutines).
func BenchmarkSubmitCompleteVirtual(b *testing.B) {
	for _, sched := range benchSchedulers {
		for _, nm := range []int{0, 1, 2} {
			b.Run(fmt.Sprintf("%s/nomerges=%d", sched, nm), func(b *testing.B) {
				loop := sim.NewLoop()
				q := newBenchQueue(b, device.NewNull(loop, 1<<31, 32), loop, blkq.Config{Scheduler: sched, NoMerges: nm})
				rng := rand.New(rand.NewPCG(1, 2))
				task := blkq.NewTask(1, "bench")
				left := b.N
				var submit func(bio *blkq.Bio)
				submit = func(bio *blkq.Bio) {
					if left <= 0 {
						return
					}
					left--
					bio.Op, bio.Sector, bio.Sectors = blkq.OpRead, rng.Uint64N(1<<31-8)&^7, 8
					q.Enqueue(task, bio)
				}
				cpu := cputime.Start(b)
				for range 128 {
					bio := &blkq.Bio{}
					bio.EndIO = func(bio *blkq.Bio, err error) { submit(bio) }
					submit(bio)
				}
				loop.Run()
				cpu.Stop(b.N)
			})
		}
	}
}

// BenchmarkSubmitCompleteReal: blocking Submit on the real clock, 16
// goroutines each with one 4 KiB random read in flight on the null
// device (whose completions run on its own goroutines); an op is one
// Submit and its completion.
func BenchmarkSubmitCompleteReal(b *testing.B) {
	for _, sched := range benchSchedulers {
		for _, nm := range []int{0, 1, 2} {
			b.Run(fmt.Sprintf("%s/nomerges=%d", sched, nm), func(b *testing.B) {
				benchSubmitters(b, 16, blkq.Config{Scheduler: sched, NoMerges: nm})
			})
		}
	}
}

// BenchmarkSubmitters: mq-deadline with 1, 16, 256 and 1024 goroutines
// submitting at once through the blocking API: past nr_requests (128)
// they sleep in allocation, so this measures the cost of waiting and
// waking per I/O. The target is a cost flat within 25 % from 1 to 1024.
func BenchmarkSubmitters(b *testing.B) {
	for _, n := range []int{1, 16, 256, 1024} {
		b.Run(fmt.Sprintf("submitters=%d", n), func(b *testing.B) {
			benchSubmitters(b, n, blkq.Config{Scheduler: "mq-deadline"})
		})
	}
}

// BenchmarkNrRequests: 64 submitters on mq-deadline under nr_requests
// from 4 (Linux's least) to 2048 (its most).
func BenchmarkNrRequests(b *testing.B) {
	for _, nr := range []int{4, 32, 128, 512, 2048} {
		b.Run(fmt.Sprintf("nr_requests=%d", nr), func(b *testing.B) {
			benchSubmitters(b, 64, blkq.Config{Scheduler: "mq-deadline", NrRequests: nr})
		})
	}
}

// benchSubmitters runs b.N blocking random 4 KiB reads from n goroutines
// on a real-clock null device of depth 32.
func benchSubmitters(b *testing.B, n int, cfg blkq.Config) {
	clk := blkq.NewRealClock()
	q := newBenchQueue(b, device.NewNull(clk, 1<<31, 32), clk, cfg)
	var wg sync.WaitGroup
	per := b.N / n
	cpu := cputime.Start(b)
	for g := range n {
		count := per
		if g < b.N%n {
			count++
		}
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 7))
			ctx := blkq.WithTask(context.Background(), blkq.NewGoroutineTask("bench"))
			done := make(chan struct{}, 1)
			bio := &blkq.Bio{EndIO: func(*blkq.Bio, error) { done <- struct{}{} }}
			for range count {
				bio.Op, bio.Sector, bio.Sectors = blkq.OpRead, rng.Uint64N(1<<31-8)&^7, 8
				if err := q.Submit(ctx, bio); err != nil {
					b.Error(err)
					return
				}
				<-done
			}
		}(uint64(g))
	}
	wg.Wait()
	cpu.Stop(b.N)
}

// BenchmarkMergeLookup: a 4 KiB write that back-merges into one of N
// queued requests (10, 1,000, 2,000: near the 2,048 nr_requests allows)
// while the device serves nothing, so the cost is finding the request and
// merging into it. A request takes 319 merges before max_sectors_kb (1280)
// stops it; the queue is rebuilt, off the clock, before then. linus scans
// from the queue's tail and refuses a merge beyond its latency budget: the
// bio then takes a request of its own (the lookup still counts as the op,
// and refused/op says how often), which the next bio there merges into.
func BenchmarkMergeLookup(b *testing.B) {
	for _, sched := range benchSchedulers {
		for _, n := range []int{10, 1000, 2000} {
			b.Run(fmt.Sprintf("%s/queued=%d", sched, n), func(b *testing.B) {
				benchMergeLookup(b, sched, n)
			})
		}
	}
}

func benchMergeLookup(b *testing.B, sched string, n int) {
	const (
		gap        = 1 << 16 // sectors between requests: no two ever meet
		perRequest = 2560/8 - 1
		nrRequests = 2048
	)
	rng := rand.New(rand.NewPCG(3, 4))
	task := blkq.NewTask(1, "bench")
	var (
		q        *blkq.Queue
		dev      *heldDevice
		ends     []uint64 // each target's end sector; 0: full
		left     int      // merges before the queue is rebuilt
		spare    int      // free requests, for refused merges
		lookups  int      // M events, and refusals: every op must be one
		refusals int
	)
	rebuild := func() {
		if dev != nil {
			dev.release()
		}
		loop := sim.NewLoop()
		dev = &heldDevice{capacity: uint64(n+1) * gap}
		q = newBenchQueue(b, dev, loop, blkq.Config{Scheduler: sched, NrRequests: nrRequests})
		q.AddTracer(blkq.TracerFunc(func(e *blkq.Event) {
			if e.Action == 'M' {
				lookups++
			}
		}))
		// The device's one slot holds the first request; the others
		// wait in the scheduler.
		ends = ends[:0]
		for i := range n + 1 {
			q.Enqueue(task, &blkq.Bio{Op: blkq.OpWrite, Sector: uint64(i) * gap, Sectors: 8})
			ends = append(ends, uint64(i)*gap+8)
		}
		ends = ends[1:]
		left, spare = n*perRequest, nrRequests-n
		runtime.GC() // the old queue's garbage, off the clock
	}
	rebuild()
	bios := make([]blkq.Bio, 4096)
	cpu := cputime.Start(b)
	for i := 0; i < b.N; i++ {
		if left == 0 || spare == 0 {
			cpu.Pause()
			rebuild()
			cpu.Resume()
		}
		k := rng.IntN(n)
		for ends[k] == 0 {
			k = (k + 1) % n
		}
		bio := &bios[i%len(bios)]
		*bio = blkq.Bio{Op: blkq.OpWrite, Sector: ends[k], Sectors: 8}
		before := lookups
		q.Enqueue(task, bio)
		if lookups == before {
			refusals++
			lookups++
			spare--
		}
		ends[k] += 8
		if (ends[k]-uint64(k+1)*gap)/8 > perRequest {
			ends[k] = 0 // full (a refused bio's request is smaller: it stops early)
		}
		left--
	}
	cpu.Stop(b.N)
	b.ReportMetric(float64(refusals)/float64(b.N), "refused/op")
	if lookups != b.N {
		b.Fatalf("%d of %d bios merged or refused", lookups, b.N)
	}
	if sched != "linus" && refusals > 0 {
		b.Fatalf("%s refused %d merges", sched, refusals)
	}
}

// heldDevice serves one request and never completes it: requests queue
// in the scheduler for as long as a benchmark needs them there.
type heldDevice struct {
	capacity uint64
	complete func(*blkq.Request, error)
	held     []*blkq.Request
}

func (d *heldDevice) Name() string                               { return "held" }
func (d *heldDevice) Capacity() uint64                           { return d.capacity }
func (d *heldDevice) Depth() int                                 { return 1 }
func (d *heldDevice) Attach(complete func(*blkq.Request, error)) { d.complete = complete }
func (d *heldDevice) Issue(rq *blkq.Request)                     { d.held = append(d.held, rq) }
func (d *heldDevice) Close() error                               { return nil }
func (d *heldDevice) release()                                   { d.held = nil }

func newBenchQueue(b *testing.B, dev blkq.Device, clk blkq.Clock, cfg blkq.Config) *blkq.Queue {
	b.Helper()
	q, err := blkq.New(dev, clk, cfg)
	if err != nil {
		b.Fatal(err)
	}
	return q
}
