package device

import (
	"sync"
	"sync/atomic"

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
//
// On any other clock a request completes on the goroutine that issued it,
// once that goroutine has let go of the queue lock, as null_blk's
// completion runs on the CPU that submitted (its default, softirq mode,
// raises the softirq there): Issue appends the request to a list, and the
// queue's call of RunInline after the hold (blkq's device.go) completes
// what the list holds. A synchronous submitter waits for its I/O anyway,
// so completing it on its own goroutine costs it nothing and saves the
// hand-off to a device goroutine and the wake-up back, which cost more
// than the request layer's work. One goroutine completes at a time (the
// drainer), in issue order: a RunInline that finds another at work leaves
// its requests to it, and a completion that issues the next request (a
// completion dispatches what waits in the elevator) appends it for the
// drainer's next round instead of completing it nested inside the first.
// A drainer takes at most inlineRounds lists before it hands what is left
// to the completer goroutine, so that a submitter is not kept completing
// other goroutines' I/O for ever while they keep issuing.
//
// Until the first call of RunInline (a Null behind a wrapper that does
// not pass the method on) the completer goroutine completes everything,
// woken by Issue when the list was empty, a batch per wake-up.
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
	mu       sync.Mutex      // issued, closed, busy, spare; sends on signal
	idle     *sync.Cond      // on mu: busy went false (Close waits for the drainer)
	issued   []*blkq.Request // issued, not yet taken by a drainer
	spare    []*blkq.Request // the last batch's array, for issued to reuse
	busy     bool            // a goroutine is completing a batch (the drainer)
	draining atomic.Bool     // busy, for RunInline's check without mu
	closed   bool
	inline   atomic.Bool   // RunInline has been called: the queue calls it after each hold
	nIssued  atomic.Int32  // len(issued), for RunInline's check without mu
	signal   chan struct{} // capacity 1: "issued is not empty"; closed by Close
	stopped  chan struct{} // closed when the completer has exited
}

// inlineRounds is the most lists one RunInline completes before it hands
// the rest to the completer goroutine: a bound on the other goroutines'
// I/O a submitter completes before its own call returns (blkq's choice;
// NAPI's poll has a budget for the same reason).
const inlineRounds = 8

// NewNull returns a null device of capacity 512-byte sectors that accepts
// depth requests at once (depth < 1 counts as 1) and completes them on clk:
// through clk's Post method if it has one, otherwise on the goroutine that
// issued them (see Null).
func NewNull(clk blkq.Clock, capacity uint64, depth int) *Null {
	n := &Null{capacity: capacity, depth: max(depth, 1)}
	if p, ok := clk.(poster); ok {
		n.loop = p
		n.fire = n.fireNext
		return n
	}
	n.idle = sync.NewCond(&n.mu)
	n.signal = make(chan struct{}, 1)
	n.stopped = make(chan struct{})
	go n.completer()
	return n
}

// completer completes what Issue signals it for (before the first
// RunInline) and what a drainer hands it, until Close has closed the
// signal; then it waits for any drainer and completes what is left.
func (n *Null) completer() {
	defer close(n.stopped)
	for {
		_, open := <-n.signal
		n.drain(0, !open)
		if !open {
			return // closed: nothing is issued after Close
		}
	}
}

// RunInline completes the requests issued so far, unless another
// goroutine is completing (it will take them): the optional device
// method the queue calls after each hold of its lock, with no lock held
// (blkq's device.go).
func (n *Null) RunInline() {
	if n.loop != nil {
		return
	}
	if !n.inline.Load() {
		n.inline.Store(true)
	}
	if n.nIssued.Load() == 0 || n.draining.Load() {
		return // nothing to do, or the drainer will do it
	}
	n.drain(inlineRounds, false)
}

// drain completes the issued requests a list at a time, as the one
// drainer: it returns at once if another goroutine is one, unless wait,
// when it waits for that one to finish first (Close). With rounds > 0 it
// takes at most that many lists and signals the completer for the rest.
func (n *Null) drain(rounds int, wait bool) {
	n.mu.Lock()
	for n.busy {
		if !wait {
			n.mu.Unlock()
			return
		}
		n.idle.Wait()
	}
	n.busy = true
	n.draining.Store(true)
	for round := 0; len(n.issued) > 0; round++ {
		if rounds > 0 && round == rounds && !n.closed {
			// (Once closed, the completer waits for this drainer and
			// the signal is closed: the drainer finishes the list.)
			select {
			case n.signal <- struct{}{}:
			default: // a wake-up is pending
			}
			break // the rest is the completer's
		}
		batch := n.issued
		n.issued, n.spare = n.spare[:0], nil
		n.nIssued.Store(0)
		n.mu.Unlock()
		for i, rq := range batch {
			n.complete(rq, nil)
			batch[i] = nil
		}
		n.mu.Lock()
		if n.spare == nil {
			n.spare = batch[:0]
		}
	}
	n.busy = false
	n.draining.Store(false)
	if n.closed {
		n.idle.Broadcast()
	}
	n.mu.Unlock()
}

// Name returns "null".
func (n *Null) Name() string { return "null" }

// Capacity returns the device's size in 512-byte sectors.
func (n *Null) Capacity() uint64 { return n.capacity }

// Depth returns the number of requests the device accepts at once.
func (n *Null) Depth() int { return n.depth }

// Attach sets the function called for each completed request.
func (n *Null) Attach(complete func(rq *blkq.Request, err error)) { n.complete = complete }

// Issue accepts rq; it completes later, on the loop, in RunInline or on
// the completer. On a real clock Issue never blocks.
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
	n.nIssued.Store(int32(len(n.issued)))
	if len(n.issued) == 1 && !n.inline.Load() {
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
