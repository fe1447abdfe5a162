package engine

import (
	"sync"
	"time"

	"blkq"
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
	// Run runs until Stop.
	Run()
	// Stop makes Run return once the current callback is done.
	Stop()
}

// simExec is the executor of a simulated run.
type simExec struct {
	loop interface {
		blkq.Clock
		Run()
		Stop()
	}
}

func (s simExec) Now() blkq.Time { return s.loop.Now() }
func (s simExec) AfterFunc(d time.Duration, f func()) func() bool {
	return s.loop.AfterFunc(d, f)
}
func (s simExec) Do(f func()) { f() }
func (s simExec) Run()        { s.loop.Run() }
func (s simExec) Stop()       { s.loop.Stop() }

// realExec serializes callbacks from timers and device goroutines.
type realExec struct {
	clk  *blkq.RealClock
	ch   chan func()
	done chan struct{}
	once sync.Once
}

func newRealExec() *realExec {
	return &realExec{clk: blkq.NewRealClock(), ch: make(chan func(), 4096), done: make(chan struct{})}
}

func (r *realExec) Now() blkq.Time { return r.clk.Now() }

func (r *realExec) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, func() { r.Do(f) }).Stop
}

func (r *realExec) Do(f func()) {
	select {
	case r.ch <- f:
	case <-r.done:
	}
}

func (r *realExec) Run() {
	for {
		select {
		case f := <-r.ch:
			f()
		case <-r.done:
			return
		}
	}
}

// Post runs f on the executor later (the null device completes this way:
// never inside Issue, never from another goroutine).
func (r *realExec) Post(f func()) { r.Do(f) }

func (r *realExec) Stop() { r.once.Do(func() { close(r.done) }) }
