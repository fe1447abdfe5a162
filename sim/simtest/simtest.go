// Package simtest has the helpers the simulated devices' tests share: a
// recorder of completions with their virtual times, and request builders.
// It is imported only by tests, as net/http/httptest is.
package simtest

import (
	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
)

// A Completion is one request a device completed: when, and with what error.
type Completion struct {
	Rq  *blkq.Request
	At  blkq.Time // virtual time of the completion, ns
	Err error
}

// Record attaches a recorder to d and returns the completions it sees, in
// order, timed by l.
func Record(l *sim.Loop, d blkq.Device) *[]Completion {
	var got []Completion
	d.Attach(func(rq *blkq.Request, err error) {
		got = append(got, Completion{rq, l.Now(), err})
	})
	return &got
}

// Read returns a read request of n sectors at sector.
func Read(sector uint64, n uint32) *blkq.Request {
	return &blkq.Request{Op: blkq.OpRead, Sector: sector, Sectors: n}
}
