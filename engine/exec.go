package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/blkq-dev/blkq"
)

// An executor runs the engine's callbacks one at a time: job state is
// touched only from it, so jobs need no locks. In simulation it is the
// event loop itself (completions already arrive on it); against a real
// file, device completions arrive on worker goroutines and are posted to
// a channel that Run drains.
type executor interface {
	blkq.Clock
	// Do runs f on the executor: at once in simulation, posted otherwise.
	Do(f func())
	// Post runs f on the executor after what is already due now: in
	// simulation after every event of this instant.
	Post(f func())
	// Run runs until Stop.
	Run()
	// Stop makes Run return once the current callback is done.
	Stop()
}

// simExec is the executor of a simulated run.
type simExec struct {
	loop interface {
		blkq.Clock
		Post(f func())
		Run()
		Stop()
	}
}

func (s simExec) Now() blkq.Time { return s.loop.Now() }
func (s simExec) AfterFunc(d time.Duration, f func()) func() bool {
	return s.loop.AfterFunc(d, f)
}
func (s simExec) Do(f func())   { f() }
func (s simExec) Post(f func()) { s.loop.Post(f) }
func (s simExec) Run()          { s.loop.Run() }
func (s simExec) Stop()         { s.loop.Stop() }

// realExec serializes callbacks from timers and device goroutines. Its
// queue is unbounded, so Do never blocks: a callback that itself posts
// (a bio failing at submit ends at once, on the executor) cannot deadlock
// the executor on its own queue.
//
// Callbacks come two ways. Do, from any goroutine (timers, a file's
// workers, the interrupt watcher), appends to queue under mu. Post, only
// from the executor's own goroutine (a job's reap, the null device's
// completion from inside Issue, which runs under the queue lock that only
// the executor takes on a null device), appends to local without a lock:
// a null-device run posts one callback per I/O, and a mutex, a channel
// send and the shared queue's bookkeeping for each were a tenth of its
// cost. Run takes what Do queued, then what was posted meanwhile, in
// turn, so a post runs after the callbacks already due when it was made,
// as it did when both shared one queue.
type realExec struct {
	clk     blkq.Clock
	mu      sync.Mutex
	queue   []func() // Do's, under mu
	spare   []func()
	queued  atomic.Bool   // queue may be non-empty: Run takes mu only then
	idle    []func()      // to run once nothing is queued or posted (whenIdle), under mu
	signal  chan struct{} // capacity 1: "the queue is not empty"
	done    chan struct{}
	halted  atomic.Bool // done is closed: Run checks it between callbacks without a channel operation
	stopped sync.Once

	local, localSpare []func() // Post's: the executor's goroutine only
}

// newRealExec returns an executor on clk (a real clock: the run's, which
// every executor of a run shares, so that their times compare).
func newRealExec(clk blkq.Clock) *realExec {
	return &realExec{clk: clk, signal: make(chan struct{}, 1), done: make(chan struct{})}
}

func (r *realExec) Now() blkq.Time { return r.clk.Now() }

// AfterFunc runs f on the executor after d. With d <= 0 it is Do, so
// that f keeps its place after what is already queued (a wake-up with no
// latency comes after the completion that caused it) rather than racing
// a timer goroutine.
func (r *realExec) AfterFunc(d time.Duration, f func()) func() bool {
	if d <= 0 {
		var stopped atomic.Bool
		r.Do(func() {
			if stopped.CompareAndSwap(false, true) {
				f()
			}
		})
		return func() bool { return stopped.CompareAndSwap(false, true) }
	}
	return time.AfterFunc(d, func() { r.Do(f) }).Stop
}

// whenIdle runs f on the executor once nothing is queued or posted:
// every callback queued before it, and every callback those queue in
// turn, has run. Called on the executor.
func (r *realExec) whenIdle(f func()) {
	r.mu.Lock()
	r.idle = append(r.idle, f)
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

// Do queues f. Only a callback that finds the queue empty signals: Run
// takes the whole queue under mu and looks at it again before it waits,
// so one added to a queue that is not empty is seen without a signal.
func (r *realExec) Do(f func()) {
	r.mu.Lock()
	r.queue = append(r.queue, f)
	first := len(r.queue) == 1
	r.queued.Store(true)
	r.mu.Unlock()
	if first {
		select {
		case r.signal <- struct{}{}:
		default:
		}
	}
}

// Post runs f on the executor later, after what is due now (the null
// device completes this way: never inside Issue). Call it only on the
// executor's goroutine: from a callback, or from the goroutine that runs
// Run or drain.
func (r *realExec) Post(f func()) { r.local = append(r.local, f) }

// take returns what Do queued, leaving the queue empty.
func (r *realExec) take() []func() {
	if !r.queued.Load() {
		return nil // (a Do under way stores queued and signals: Run sees it)
	}
	r.mu.Lock()
	batch := r.queue
	r.queue, r.spare = r.spare[:0], nil // spare's array now belongs to queue
	r.queued.Store(false)
	r.mu.Unlock()
	return batch
}

// runBatch runs batch, clears it and keeps its array for the next; false
// if Stop was called meanwhile.
func (r *realExec) runBatch(batch []func(), spare *[]func()) bool {
	for i, f := range batch {
		f()
		batch[i] = nil
		if r.halted.Load() {
			return false
		}
	}
	*spare = batch[:0]
	return true
}

func (r *realExec) Run() {
	for !r.halted.Load() {
		batch := r.take()
		if len(batch) > 0 && !r.runBatch(batch, &r.spare) {
			return
		}
		posted := r.local
		r.local, r.localSpare = r.localSpare[:0], nil
		if len(posted) > 0 && !r.runBatch(posted, &r.localSpare) {
			return
		}
		if r.localSpare == nil {
			r.localSpare = posted[:0]
		}
		if len(batch) > 0 || len(posted) > 0 {
			continue
		}
		if idle := r.takeIdle(); len(idle) > 0 {
			for _, f := range idle {
				f()
				if r.halted.Load() {
					return
				}
			}
			continue
		}
		// Nothing due: wait for a Do (only the executor posts, and it
		// is here).
		select {
		case <-r.done:
			return
		case <-r.signal:
		}
	}
}

// takeIdle returns the callbacks whenIdle holds if nothing was queued
// meanwhile (Run has just found nothing queued or posted).
func (r *realExec) takeIdle() []func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queue) > 0 || len(r.idle) == 0 {
		return nil
	}
	idle := r.idle
	r.idle = nil
	return idle
}

// drain runs, after Run has returned, the callbacks posted since: device
// completions that came in after the jobs ended (the buffer cache's last
// write-back), so that what they record is not lost.
func (r *realExec) drain() {
	for {
		r.mu.Lock()
		batch := r.queue
		r.queue = nil
		r.queued.Store(false)
		r.mu.Unlock()
		posted := r.local
		r.local = nil
		if len(batch) == 0 && len(posted) == 0 {
			return
		}
		for _, f := range batch {
			f()
		}
		for _, f := range posted {
			f()
		}
	}
}

func (r *realExec) Stop() {
	r.stopped.Do(func() {
		r.halted.Store(true)
		close(r.done)
	})
}
