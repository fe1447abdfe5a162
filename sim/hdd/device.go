package hdd

import (
	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/internal/qlimits"
	"github.com/blkq-dev/blkq/sim"
)

// Device is the simulated disk as a blkq.Device on a sim.Loop. It serves
// one request at a time (it has one head): with Depth 1 in arrival order;
// with Depth > 1 (NCQ) it picks, each time the head is free, the held
// request with the shortest positioning time (seek + rotational wait) from
// where the head is now, the earliest arrival among equals. The NCQ choice
// has no aging: as on real disks, a request far from a busy area can wait
// long.
//
// Every request costs the Model's service time (Model.Service): reads and
// writes the command overhead and either the media or the read-ahead
// buffer; flushes and discards only the command overhead (there is no
// write cache to flush), and they leave the head where it is. At Depth 1
// all wait their turn. A request that reaches beyond the capacity
// completes with an error at once.
//
// A Device must be used on its loop's goroutine, as the queue does.
type Device struct {
	sim.Device // the shell: Name, Capacity, Depth, Attach, Issue, Close
	m          *Model
	held       []*blkq.Request // issued, not yet in service, in arrival order
	cur        *blkq.Request   // in service (busy), or completing
	busy       bool
	st         State  // head and buffer as cur leaves them
	finish     func() // d.done, bound once so scheduling allocates nothing
}

// New returns the disk p describes, on loop, named "sim:hdd". Zero fields
// of p take their defaults; New panics if p is invalid (check with
// p.Validate first when p comes from a user).
func New(loop *sim.Loop, p Params) *Device {
	m, err := NewModel(p)
	if err != nil {
		panic(err)
	}
	d := &Device{m: m}
	d.Init(loop, "sim:hdd", m.p.Capacity, m.p.Depth, d.accept)
	d.finish = d.done
	return d
}

// Model returns the disk's mechanics.
func (d *Device) Model() *Model { return d.m }

// Head returns the cylinder the head is on, or will be on when the request
// in service completes; a read-ahead running after it moves the head on
// (see State).
func (d *Device) Head() uint64 { return d.st.Head }

// State returns the head and buffer as the last request to enter service
// leaves them (Model.Service's result for it).
func (d *Device) State() State { return d.st }

// accept holds rq for the head, starting it at once if the head is free.
func (d *Device) accept(rq *blkq.Request) {
	d.held = append(d.held, rq)
	if !d.busy {
		d.start()
	}
}

// start takes the next held request into service and schedules its end.
func (d *Device) start() {
	now := d.Loop().Now()
	i := 0
	if d.m.p.Depth > 1 {
		i = d.nearest(now)
	}
	rq := d.held[i]
	copy(d.held[i:], d.held[i+1:])
	d.held[len(d.held)-1] = nil
	d.held = d.held[:len(d.held)-1]

	d.busy = true
	d.cur = rq
	cost := d.m.serve(now, &d.st, rq.Op, rq.Sector, rq.Sectors)
	d.Loop().Schedule(cost.Total(), d.finish)
}

// nearest returns the index of the held request the head reaches first:
// the one with the least seek and rotational wait, which is none for a
// request the buffer serves or one without data.
func (d *Device) nearest(now blkq.Time) int {
	best, bestT := 0, int64(-1)
	pos := d.m.positioner(now, d.st)
	for i, rq := range d.held {
		t := int64(pos.wait(rq.Op, rq.Sector))
		if bestT < 0 || t < bestT {
			best, bestT = i, t
			if t == 0 {
				break
			}
		}
	}
	return best
}

// done completes the request in service and starts the next. Requests
// issued from inside the completion callback join the held ones first, so
// NCQ can choose among them.
func (d *Device) done() {
	rq := d.cur
	d.cur = nil
	d.Complete(rq, nil)
	d.busy = false
	if len(d.held) > 0 {
		d.start()
	}
}

// queueLimits are the disk's limits as Linux would show them in
// /sys/block/<dev>/queue/ for a 7200 rpm ATA disk: rotational, 512-byte
// sectors, LBA48's largest transfer (65535 sectors: max_hw_sectors_kb
// 32767), Linux's segment defaults, a volatile write cache (write_cache
// "write back", as desktop disks ship; the model keeps no dirty data in
// it, so a flush costs only its command) and no FUA (a disk of 2002 has
// no FUA command: the queue follows a FUA write with a flush). The model
// serves a discard as a command of no data, so discards are allowed.
var queueLimits = qlimits.Limits{Rotational: true, LogicalBlockSize: 512, PhysicalBlockSize: 512, MaxHWSectorsKB: 32767,
	MaxSegments: qlimits.DefaultMaxSegments, MaxSegmentSize: qlimits.DefaultMaxSegmentSize,
	MaxDiscardSegments: 1, DiscardMaxBytes: qlimits.MaxDiscardBytes, WriteCache: true, FUA: false}

// QueueLimit returns the disk's limit name as /sys/block/<dev>/queue/name
// shows it (see queueLimits), for the request queue.
func (d *Device) QueueLimit(name string) (string, bool) { return queueLimits.Value(name) }
