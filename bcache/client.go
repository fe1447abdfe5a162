package bcache

import (
	"sync"
	"sync/atomic"

	"github.com/blkq-dev/blkq"
)

// Clients and the steps of an operation.
//
// A Client is whoever asks the cache for work: a fio job, a goroutine of the
// blocking API, the flusher. Every bio the cache submits on a client's
// behalf (its read fills, its read-ahead, the write-back it is throttled
// into, its Sync's writes and flush) goes to the queue as the client's task,
// so it sleeps in request allocation like any submitter and the trace names
// the client's pid. A client submits in order: while one of its bios sleeps
// for a request, the bios after it wait behind it, as a process stops at
// its first sleep.

// A Client submits the cache's I/O for one submitter. Make one with
// NewClient; its methods are safe for concurrent use, but a client is meant
// to be used by one submitter at a time (its bios queue behind each other).
type Client struct {
	c    *Cache
	task *blkq.Task

	mu      sync.Mutex
	backlog []*blkq.Bio // bios not yet handed to the queue, in order
	queued  []func()    // called once the backlog has been handed over
	asleep  bool        // the first bio of the last push sleeps for a request
	pushing bool        // a goroutine is handing the backlog over
	early   bool        // woken while still pushing: go on instead of sleeping

	copyUntil blkq.Time // when the client's last copy ends; guarded by the cache lock
	ra        *raTable  // its read-ahead streams (nil: the cache's shared table); guarded by the cache lock
}

// NewClient returns a client whose bios run as task t, with read-ahead
// streams of its own (readahead.go). The cache sets t's
// Wake (a woken client goes on through Config.Schedule), so t must be a
// task of its own: give it the submitter's PID and Name for the trace.
func (c *Cache) NewClient(t *blkq.Task) *Client {
	cl := c.newClient(t)
	cl.ra = new(raTable)
	cl.ra.init()
	return cl
}

// newClient returns a client that shares the cache's read-ahead streams.
func (c *Cache) newClient(t *blkq.Task) *Client {
	cl := &Client{c: c, task: t}
	sched := c.sched
	t.Wake = func(resume func() bool) {
		sched(func() {
			if resume() {
				cl.resumed()
			}
		})
	}
	return cl
}

// submit queues bios behind the client's earlier ones and hands them to the
// queue under one plug; queued, if not nil, is called once they have all
// been handed over (at once, or after the client has slept for a request).
// Called without the cache lock.
func (cl *Client) submit(bios []*blkq.Bio, queued func()) {
	cl.mu.Lock()
	cl.backlog = append(cl.backlog, bios...)
	if queued != nil {
		cl.queued = append(cl.queued, queued)
	}
	cl.mu.Unlock()
	cl.push()
}

// push hands the backlog to the queue until it is empty or a bio sleeps.
func (cl *Client) push() {
	q := cl.c.q
	for {
		cl.mu.Lock()
		if cl.asleep || cl.pushing {
			cl.mu.Unlock()
			return
		}
		if len(cl.backlog) == 0 {
			fns := cl.queued
			cl.queued = nil
			cl.mu.Unlock()
			for _, f := range fns {
				f()
			}
			return
		}
		cl.pushing = true
		bios := cl.backlog
		cl.backlog = nil
		cl.mu.Unlock()

		q.Plug(cl.task)
		i, slept := 0, false
		for i < len(bios) {
			b := bios[i]
			i++
			if !q.Enqueue(cl.task, b) {
				slept = true // b is parked with the task; the queue takes it on resume
				break
			}
		}
		q.Finish(cl.task)

		cl.mu.Lock()
		cl.pushing = false
		cl.backlog = append(bios[i:len(bios):len(bios)], cl.backlog...)
		if slept {
			if cl.early {
				cl.early = false // the wake-up came while we pushed
			} else {
				cl.asleep = true
			}
		}
		cl.mu.Unlock()
	}
}

// resumed goes on once the client's sleeping bio got its request.
func (cl *Client) resumed() {
	cl.mu.Lock()
	if cl.pushing {
		cl.early = true
		cl.mu.Unlock()
		return
	}
	cl.asleep = false
	cl.mu.Unlock()
	cl.push()
}

// A loop runs the steps of one operation. An operation is a state machine
// whose step runs until it must wait; it then registers exactly one
// continuation (a buffer unlock, a bio's completion, a timer) that calls
// kick, and returns false. kick runs step again, on whatever goroutine
// calls it; a kick that comes while a step runs (from inside it, or from
// another goroutine) makes the running loop go round again instead of
// starting a second one, so continuations never nest and never run an
// operation twice at once.
type loop struct{ n atomic.Int32 }

// kick runs step until it returns false (it waits or it is done), and again
// for every kick that came meanwhile.
func (l *loop) kick(step func() bool) {
	if l.n.Add(1) != 1 {
		return // running: it goes round once more
	}
	for {
		for step() {
		}
		if l.n.Add(-1) == 0 {
			return
		}
	}
}
