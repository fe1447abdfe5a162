package ssd

import (
	"fmt"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
)

// Device is the simulated SSD as a blkq.Device on a sim.Loop. It holds up
// to Depth requests at once and serves them all concurrently: when a
// request arrives, the Model schedules its page operations on the dies and
// channels behind those already scheduled, and its completion is scheduled
// on the loop for the time the Model gives. Requests therefore complete
// out of order whenever their dies and channels allow; requests that
// complete at the same time do so in arrival order.
//
// If more than Depth requests are issued (the queue never does that), the
// extra ones wait in arrival order and enter the Model, one at a time, as
// earlier ones complete. A request that reaches beyond the capacity
// completes with an error at once, without entering the Model.
//
// A Device must be used on its loop's goroutine, as the queue does.
type Device struct {
	loop     *sim.Loop
	m        *Model
	complete func(*blkq.Request, error)
	waiting  []*blkq.Request // issued beyond Depth, in arrival order
	pend     []pending       // in the Model: min-heap on (at, seq)
	seq      uint64
	finish   func() // d.done, bound once so scheduling allocates nothing
}

// A pending request is one in the Model, with its completion time.
type pending struct {
	at  blkq.Time
	seq uint64 // issue order, the tie-break
	rq  *blkq.Request
}

// New returns the SSD p describes, on loop. Zero fields of p take their
// defaults; New panics if p is invalid (check with p.Validate first when p
// comes from a user).
func New(loop *sim.Loop, p Params) *Device {
	m, err := NewModel(p)
	if err != nil {
		panic(err)
	}
	d := &Device{loop: loop, m: m}
	d.finish = d.done
	return d
}

// Name returns "sim:ssd".
func (d *Device) Name() string { return "sim:ssd" }

// Capacity returns the drive's size in 512-byte sectors.
func (d *Device) Capacity() uint64 { return d.m.p.Capacity }

// Depth returns the number of requests the drive accepts at once.
func (d *Device) Depth() int { return d.m.p.Depth }

// Model returns the drive's timeline, for inspection: calling Service on
// it would book dies and channels for a request the Device never
// completes.
func (d *Device) Model() *Model { return d.m }

// InFlight returns the number of requests in service (in the Model, not
// yet completed).
func (d *Device) InFlight() int { return len(d.pend) }

// Attach sets the function the drive calls, on the loop, when a request
// completes.
func (d *Device) Attach(complete func(rq *blkq.Request, err error)) { d.complete = complete }

// Issue accepts rq. Its completion is scheduled on the loop, never called
// from inside Issue.
func (d *Device) Issue(rq *blkq.Request) {
	if err := d.check(rq); err != nil {
		d.loop.Post(func() { d.complete(rq, err) })
		return
	}
	if len(d.pend) < d.m.p.Depth {
		d.start(rq)
		return
	}
	d.waiting = append(d.waiting, rq)
}

// Close does nothing: requests in flight complete as the loop runs on.
func (d *Device) Close() error { return nil }

// check returns an error if rq reaches beyond the drive.
func (d *Device) check(rq *blkq.Request) error {
	if rq.Op == blkq.OpFlush {
		return nil
	}
	c := d.m.p.Capacity
	if rq.Sector >= c || uint64(rq.Sectors) > c-rq.Sector {
		return fmt.Errorf("%s: %s of %d sectors at sector %d reaches beyond the capacity of %d sectors",
			d.Name(), rq.Op, rq.Sectors, rq.Sector, c)
	}
	return nil
}

// start puts rq on the Model's timeline now and schedules its completion.
func (d *Device) start(rq *blkq.Request) {
	at := d.m.Service(d.loop.Now(), rq.Op, rq.Sector, rq.Sectors)
	d.seq++
	d.push(pending{at: at, seq: d.seq, rq: rq})
	d.loop.ScheduleAt(at, d.finish)
}

// done completes the earliest request in service. Each start schedules
// one done at its request's completion time, so the loop runs the dones at
// exactly the times in the heap, in order: the one running now is for the
// heap's minimum. A request waiting beyond Depth takes the freed place
// before the completion callback runs, so that requests issued from the
// callback come after it.
func (d *Device) done() {
	p := d.pop()
	if len(d.waiting) > 0 {
		rq := d.waiting[0]
		copy(d.waiting, d.waiting[1:])
		d.waiting[len(d.waiting)-1] = nil
		d.waiting = d.waiting[:len(d.waiting)-1]
		d.start(rq)
	}
	d.complete(p.rq, nil)
}

func (a *pending) less(b *pending) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

func (d *Device) push(p pending) {
	h := append(d.pend, p)
	i := len(h) - 1
	for i > 0 {
		j := (i - 1) / 2
		if !h[i].less(&h[j]) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
	d.pend = h
}

func (d *Device) pop() pending {
	h := d.pend
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = pending{}
	h = h[:n]
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r].less(&h[c]) {
			c = r
		}
		if !h[c].less(&h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	d.pend = h
	return top
}
