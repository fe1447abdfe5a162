package blkq

import (
	"math/rand/v2"
	"time"
)

// The schedulers' queue tests run on the core's test clock (package sim
// imports blkq, so it cannot be used here), with sim.Loop's three calls.
type simLoop struct{ testClock }

func newSimLoop() *simLoop                            { return &simLoop{} }
func (l *simLoop) Schedule(d time.Duration, f func()) { l.AfterFunc(d, f) }
func (l *simLoop) Post(f func())                      { l.AfterFunc(0, f) }
func (l *simLoop) Run()                               { l.run() }

// newTestRNG is a seeded, deterministic random stream.
func newTestRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// nullDevice completes every request at once (on the next loop turn),
// depth at a time, in issue order.
type nullDevice struct {
	loop     *simLoop
	capacity uint64
	depth    int
	complete func(*Request, error)
}

func newNullDevice(loop *simLoop, capacity uint64, depth int) *nullDevice {
	return &nullDevice{loop: loop, capacity: capacity, depth: depth}
}

func (d *nullDevice) Name() string                   { return "null" }
func (d *nullDevice) Capacity() uint64               { return d.capacity }
func (d *nullDevice) Depth() int                     { return d.depth }
func (d *nullDevice) Attach(c func(*Request, error)) { d.complete = c }
func (d *nullDevice) Close() error                   { return nil }
func (d *nullDevice) Issue(rq *Request)              { d.loop.Post(func() { d.complete(rq, nil) }) }
