package ssd

import (
	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/internal/qlimits"
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
	sim.Device // the shell: Name, Capacity, Depth, Attach, Issue, Close
	m          *Model
	waiting    []*blkq.Request // issued beyond Depth, in arrival order
	pend       []pending       // in the Model: min-heap on (at, seq)
	seq        uint64
	finish     func() // d.done, bound once so scheduling allocates nothing
}

// A pending request is one in the Model, with its completion time.
type pending struct {
	at  blkq.Time
	seq uint64 // issue order, the tie-break
	rq  *blkq.Request
}

// New returns the SSD p describes, on loop, named "sim:ssd". Zero fields
// of p take their defaults; New panics if p is invalid (check with
// p.Validate first when p comes from a user).
func New(loop *sim.Loop, p Params) *Device {
	m, err := NewModel(p)
	if err != nil {
		panic(err)
	}
	d := &Device{m: m}
	d.Init(loop, "sim:ssd", m.p.Capacity, m.p.Depth, d.accept)
	d.finish = d.done
	return d
}

// Model returns the drive's timeline, for inspection: calling Service on
// it would book dies and channels for a request the Device never
// completes.
func (d *Device) Model() *Model { return d.m }

// InFlight returns the number of requests in service (in the Model, not
// yet completed).
func (d *Device) InFlight() int { return len(d.pend) }

// accept puts rq into the Model, or behind the others beyond Depth.
func (d *Device) accept(rq *blkq.Request) {
	if len(d.pend) < d.m.p.Depth {
		d.start(rq)
		return
	}
	d.waiting = append(d.waiting, rq)
}

// start puts rq on the Model's timeline now and schedules its completion.
func (d *Device) start(rq *blkq.Request) {
	at := d.m.Service(d.Loop().Now(), rq.Op, rq.Sector, rq.Sectors)
	d.seq++
	d.push(pending{at: at, seq: d.seq, rq: rq})
	d.Loop().ScheduleAt(at, d.finish)
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
	d.Complete(p.rq, nil)
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

// queueLimits are the drive's limits as Linux shows them in
// /sys/block/<dev>/queue/ for an NVMe SSD: not rotational, 512-byte
// blocks (the model writes any whole sector without read-modify-write),
// Linux's segment defaults, the NVMe driver's discard limits (256 ranges
// of a Dataset Management command, UINT_MAX sectors), a volatile write
// cache (write_cache "write back"; the model keeps no dirty data, so a
// flush costs only its command) and FUA, as NVMe has. max_hw_sectors_kb
// is blkq's 32767; an NVMe drive's comes from its MDTS, often 128 to
// 2048 KiB.
var queueLimits = qlimits.Limits{Rotational: false, LogicalBlockSize: 512, PhysicalBlockSize: 512, MaxHWSectorsKB: 32767,
	MaxSegments: qlimits.DefaultMaxSegments, MaxSegmentSize: qlimits.DefaultMaxSegmentSize,
	MaxDiscardSegments: 256, DiscardMaxBytes: 0xffffffff << 9, WriteCache: true, FUA: true}

// QueueLimit returns the drive's limit name as /sys/block/<dev>/queue/name
// shows it (see queueLimits), for the request queue.
func (d *Device) QueueLimit(name string) (string, bool) { return queueLimits.Value(name) }
