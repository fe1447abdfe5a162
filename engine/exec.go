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
type realExec struct {
	clk     blkq.Clock
	mu      sync.Mutex
	queue   []func()
	spare   []func()
	idle    []func()      // to run once the queue is empty (whenIdle)
	signal  chan struct{} // capacity 1: "the queue is not empty"
	done    chan struct{}
	stopped sync.Once
}

func newRealExec() *realExec {
	return &realExec{clk: blkq.NewRealClock(), signal: make(chan struct{}, 1), done: make(chan struct{})}
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

// whenIdle runs f on the executor once nothing is queued: every callback
// queued before it, and every callback those queue in turn, has run.
// Called on the executor.
func (r *realExec) whenIdle(f func()) {
	r.mu.Lock()
	r.idle = append(r.idle, f)
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

func (r *realExec) Do(f func()) {
	r.mu.Lock()
	r.queue = append(r.queue, f)
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

// Post runs f on the executor later (the null device completes this way:
// never inside Issue).
func (r *realExec) Post(f func()) { r.Do(f) }

func (r *realExec) Run() {
	for {
		select {
		case <-r.done:
			return
		case <-r.signal:
		}
		for {
			r.mu.Lock()
			batch := r.queue
			if len(batch) == 0 {
				if len(r.idle) == 0 {
					r.mu.Unlock()
					break
				}
				batch, r.idle = r.idle, nil
			} else {
				r.queue, r.spare = r.spare[:0], nil // spare's array now belongs to queue
			}
			r.mu.Unlock()
			for i, f := range batch {
				f()
				batch[i] = nil
				select {
				case <-r.done:
					return
				default:
				}
			}
			r.spare = batch
		}
	}
}

// drain runs, after Run has returned, the callbacks posted since: device
// completions that came in after the jobs ended (the buffer cache's last
// write-back), so that what they record is not lost.
func (r *realExec) drain() {
	for {
		r.mu.Lock()
		batch := r.queue
		r.queue = nil
		r.mu.Unlock()
		if len(batch) == 0 {
			return
		}
		for _, f := range batch {
			f()
		}
	}
}

func (r *realExec) Stop() { r.stopped.Do(func() { close(r.done) }) }
