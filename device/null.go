package device

import (
	"sync"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/internal/qlimits"
)

// poster is a clock that can run a function on its event loop at the
// current time: the simulator's sim.Loop.
type poster interface{ Post(f func()) }

// Null is a device that does nothing and completes every request without
// error (like Linux's null_blk): it measures the request layer's own cost.
//
// On a simulated clock (one with a Post method, such as *sim.Loop) each
// request completes on the loop at the time it was issued, in issue order.
// On any other clock one completer goroutine completes them, in issue
// order: Issue appends the request to a list and wakes the completer if
// the list was empty, and the completer takes the whole list each time it
// runs. Under load it thus completes a batch per wake-up (as null_blk's
// softirq completes what has accumulated), and an I/O costs no channel
// operation and no goroutine of its own, only its share of one wake-up.
type Null struct {
	capacity uint64
	depth    int
	complete func(*blkq.Request, error)

	// On a simulated clock.
	loop  poster
	fifo  []*blkq.Request // issued, completion posted, in issue order
	first int             // index of the oldest in fifo
	fire  func()          // n.fireNext, bound once

	// On a real clock.
	mu      sync.Mutex      // issued, closed, sends on signal
	issued  []*blkq.Request // issued, not yet taken by the completer
	closed  bool
	signal  chan struct{} // capacity 1: "issued is not empty"; closed by Close
	stopped chan struct{} // closed when the completer has exited
}

// NewNull returns a null device of capacity 512-byte sectors that accepts
// depth requests at once (depth < 1 counts as 1) and completes them on clk:
// through clk's Post method if it has one, otherwise on a goroutine of its
// own.
func NewNull(clk blkq.Clock, capacity uint64, depth int) *Null {
	n := &Null{capacity: capacity, depth: max(depth, 1)}
	if p, ok := clk.(poster); ok {
		n.loop = p
		n.fire = n.fireNext
		return n
	}
	n.signal = make(chan struct{}, 1)
	n.stopped = make(chan struct{})
	go n.completer()
	return n
}

// completer completes the issued requests, a batch at a time, until Close
// has closed the signal and the last batch is done. It keeps the array of
// its last batch for Issue to fill next.
func (n *Null) completer() {
	defer close(n.stopped)
	var spare []*blkq.Request
	for {
		_, open := <-n.signal
		n.mu.Lock()
		batch := n.issued
		n.issued = spare[:0]
		n.mu.Unlock()
		for i, rq := range batch {
			n.complete(rq, nil)
			batch[i] = nil
		}
		spare = batch
		if !open {
			return // closed: nothing is issued after Close
		}
	}
}

// Name returns "null".
func (n *Null) Name() string { return "null" }

// Capacity returns the device's size in 512-byte sectors.
func (n *Null) Capacity() uint64 { return n.capacity }

// Depth returns the number of requests the device accepts at once.
func (n *Null) Depth() int { return n.depth }

// Attach sets the function called for each completed request.
func (n *Null) Attach(complete func(rq *blkq.Request, err error)) { n.complete = complete }

// Issue accepts rq; it completes later, on the loop or the completer. On
// a real clock Issue never blocks.
func (n *Null) Issue(rq *blkq.Request) {
	if n.loop != nil {
		n.fifo = append(n.fifo, rq)
		n.loop.Post(n.fire)
		return
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		go n.complete(rq, ErrClosed)
		return
	}
	n.issued = append(n.issued, rq)
	if len(n.issued) == 1 {
		select {
		case n.signal <- struct{}{}:
		default: // a wake-up is pending: the completer will see rq
		}
	}
	n.mu.Unlock()
}

// fireNext completes the oldest request issued on a simulated clock. Posts
// run in the order they were made, so this is the request whose Issue
// posted this call.
func (n *Null) fireNext() {
	rq := n.fifo[n.first]
	n.fifo[n.first] = nil
	n.first++
	switch {
	case n.first == len(n.fifo):
		n.fifo, n.first = n.fifo[:0], 0
	case n.first >= 16 && n.first*2 >= len(n.fifo):
		// A steady stream never empties the queue: move the live part
		// down so the slice does not grow without bound.
		m := copy(n.fifo, n.fifo[n.first:])
		clear(n.fifo[m:])
		n.fifo, n.first = n.fifo[:m], 0
	}
	n.complete(rq, nil)
}

// Close stops the completer once the requests in flight have completed. On a
// simulated clock it does nothing: pending completions run with the loop.
// Requests issued after Close complete with ErrClosed.
func (n *Null) Close() error {
	if n.loop != nil {
		return nil
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	close(n.signal) // under mu: no Issue sends on it after this
	n.mu.Unlock()
	<-n.stopped
	return nil
}

// nullLimits are the null device's limits as /sys/block/<dev>/queue/
// shows them, after Linux's null_blk with its defaults: not rotational,
// 512-byte blocks, no write cache (write_cache "write through", so the
// queue ends a flush at once without sending it), no FUA. Unlike
// null_blk's default it takes discards, of any size.
var nullLimits = qlimits.Limits{Rotational: false, LogicalBlockSize: 512, PhysicalBlockSize: 512, MaxHWSectorsKB: 32767,
	MaxSegments: qlimits.DefaultMaxSegments, MaxSegmentSize: qlimits.DefaultMaxSegmentSize,
	MaxDiscardSegments: 1, DiscardMaxBytes: qlimits.MaxDiscardBytes, WriteCache: false, FUA: false}

// QueueLimit returns the device's limit name as /sys/block/<dev>/queue/name
// shows it (see nullLimits), for the request queue.
func (n *Null) QueueLimit(name string) (string, bool) { return nullLimits.Value(name) }
