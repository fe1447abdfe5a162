// Package traced is a simulated device that serves each request in the
// time a block trace recorded for it: sim:trace, for replaying a blkparse
// or ftrace trace against the device the kernel had.
//
// A replay's merges depend on back-pressure: a bio merges with a request
// only while that request waits in the elevator, and how long requests
// wait depends on how soon the device completes the ones before them. A
// model of some other device (sim:ssd programs a page in 750 µs; the loop
// device on tmpfs the kernel traces ran on completes a 4 KiB write in
// about 40 µs) makes requests wait where the kernel's did not. This device
// has no model of its own: each request takes the D to C time the trace
// recorded for the kernel's request of the same op, start and size, the
// first one not yet used (so a trace that reads a block twice gives each
// read its own time). A request the kernel never issued (blkq merged
// differently) takes the median time of the kernel's requests of its op
// and size, else of its op, else of all, else none.
//
// Requests are served concurrently, up to Depth at once (128 by default:
// the loop driver's hw_queue_depth), each completing after its own time;
// ties complete in issue order. More than Depth (the queue never issues
// that many) wait in order for a slot.
package traced

import (
	"slices"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
)

// DefaultDepth is the device's queue depth: Linux's loop driver's
// hw_queue_depth default, 128 (drivers/block/loop.c).
const DefaultDepth = 128

// Times are the service times of a trace's requests: for each request
// the kernel issued (D) and completed (C), its op, start, size and the
// time between the two. Add them in the order of the D events; then give
// them to one Device, which uses each once.
type Times struct {
	exact  map[key][]time.Duration // by request, in trace order
	bySize map[sizeKey][]time.Duration
	byOp   map[blkq.Op][]time.Duration
	all    []time.Duration
	sorted bool
}

type key struct {
	op      blkq.Op
	sector  uint64
	sectors uint32
}

type sizeKey struct {
	op      blkq.Op
	sectors uint32
}

// NewTimes returns an empty set of service times.
func NewTimes() *Times {
	return &Times{exact: map[key][]time.Duration{}, bySize: map[sizeKey][]time.Duration{}, byOp: map[blkq.Op][]time.Duration{}}
}

// Add records that the kernel served a request of op on sectors
// [sector, sector+sectors) in d (a flush has no sectors). A negative d
// counts as 0.
func (t *Times) Add(op blkq.Op, sector uint64, sectors uint32, d time.Duration) {
	d = max(d, 0)
	k := key{op, sector, sectors}
	t.exact[k] = append(t.exact[k], d)
	sk := sizeKey{op, sectors}
	t.bySize[sk] = append(t.bySize[sk], d)
	t.byOp[op] = append(t.byOp[op], d)
	t.all = append(t.all, d)
	t.sorted = false
}

// Len is the number of requests recorded.
func (t *Times) Len() int { return len(t.all) }

// take returns the service time of rq and uses up the recorded one it
// matches, if any.
func (t *Times) take(rq *blkq.Request) time.Duration {
	k := key{rq.Op, rq.Sector, rq.Sectors}
	if rq.Op == blkq.OpFlush {
		k.sector, k.sectors = 0, 0
	}
	if ds := t.exact[k]; len(ds) > 0 {
		t.exact[k] = ds[1:]
		return ds[0]
	}
	if !t.sorted {
		for _, ds := range t.bySize {
			slices.Sort(ds)
		}
		for _, ds := range t.byOp {
			slices.Sort(ds)
		}
		slices.Sort(t.all)
		t.sorted = true
	}
	for _, ds := range [][]time.Duration{t.bySize[sizeKey{k.op, k.sectors}], t.byOp[k.op], t.all} {
		if len(ds) > 0 {
			return ds[len(ds)/2]
		}
	}
	return 0
}

// Params describe the device.
type Params struct {
	// Capacity is its size in 512-byte sectors (required).
	Capacity uint64
	// Depth is the requests it serves at once (default DefaultDepth).
	Depth int
	// Times are the recorded service times (required).
	Times *Times
}

// Device is the device, on a sim.Loop. Use it on the loop's goroutine,
// as the queue does.
type Device struct {
	sim.Device
	times   *Times
	depth   int
	busy    int
	waiting []*blkq.Request // issued beyond Depth, in order
}

// New returns the device p describes, named "sim:trace", on loop.
func New(loop *sim.Loop, p Params) *Device {
	if p.Depth <= 0 {
		p.Depth = DefaultDepth
	}
	if p.Times == nil {
		p.Times = NewTimes()
	}
	d := &Device{times: p.Times, depth: p.Depth}
	d.Init(loop, "sim:trace", p.Capacity, p.Depth, d.accept)
	return d
}

func (d *Device) accept(rq *blkq.Request) {
	if d.busy >= d.depth {
		d.waiting = append(d.waiting, rq)
		return
	}
	d.start(rq)
}

func (d *Device) start(rq *blkq.Request) {
	d.busy++
	d.Loop().Schedule(d.times.take(rq), func() {
		d.busy--
		if len(d.waiting) > 0 {
			next := d.waiting[0]
			d.waiting[0] = nil
			d.waiting = d.waiting[1:]
			d.start(next)
		}
		d.Complete(rq, nil)
	})
}
