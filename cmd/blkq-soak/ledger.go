package main

import (
	"fmt"
	"sync"

	"github.com/blkq-dev/blkq"
)

// The ledger: exactly-once accounting of every bio and request, from the
// queue's event stream, whoever submitted them (the cache's reads,
// read-ahead and write-back, the soak's own bios).
//
// A bio enters at Q and is live until it ends. It ends with a request's C
// (every bio the request carries), or without a request: a read-ahead bio
// dropped under request pressure (the queue emits nothing for the drop,
// but its Q is then followed by no M, F or G for it: a read-ahead bio never
// sleeps, so the event right after its Q is its M, F or G if it was not
// dropped), or a sleeper taken back when its Submit's context ended (the
// submitter reports it: forget). A Q for a live bio, an M, F, G or S for a
// bio not waiting for a request, or a C carrying a bio not in a request is
// a duplicate; a bio still live when the queue is idle at the end is lost.
// Requests are counted the same way from D to C.
//
// A bio larger than the queue's limits is split: each piece split off has
// an X, the last piece none; each piece (its Parent is the bio) then goes
// on as a bio of its own, and the bio ends when its last piece ends.
//
// A request in a flush sequence (flush.go) may end off the device: a C
// of no sectors for a request never issued (an fsync's, after the flush
// request the queue sent, a request of no bios), or after its data's C
// (a FUA write's, after its postflush). That C ends the bios still live.

type bioState uint8

const (
	waiting   bioState = iota + 1 // Q seen; no request yet
	sleeping                      // S seen
	inRequest                     // M, F or G seen: carried by a request
	split                         // X seen: its pieces are live in its place
)

type ledger struct {
	mu     sync.Mutex
	live   map[*blkq.Bio]bioState
	pieces map[*blkq.Bio]int // a split bio's pieces still live
	issued map[*blkq.Request]bool

	flushWaiting []*blkq.Bio                   // flush bios with a request, waiting for a flush request
	flushServing map[*blkq.Request][]*blkq.Bio // the flush bios a flush request in flight serves

	queued, completed, dropped, forgotten, notQueued int64
	rqIssued, rqCompleted                            int64
	seqEnded                                         int64 // requests that ended off the device without an earlier C
	duplicates                                       int64
	problems                                         []string // the first few, described
}

func newLedger() *ledger {
	return &ledger{live: map[*blkq.Bio]bioState{}, pieces: map[*blkq.Bio]int{}, issued: map[*blkq.Request]bool{}}
}

const maxProblems = 20

func (l *ledger) problem(format string, args ...any) {
	if len(l.problems) < maxProblems {
		l.problems = append(l.problems, fmt.Sprintf(format, args...))
	}
}

func (l *ledger) dup(format string, args ...any) {
	l.duplicates++
	l.problem(format, args...)
}

// Trace runs under the queue lock, in event order.
func (l *ledger) Trace(e *blkq.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.Bio != nil && e.Action != 'Q' {
		l.piece(e.Bio, e.Action == 'X')
	}
	switch e.Action {
	case 'Q':
		if s, ok := l.live[e.Bio]; ok {
			l.dup("Q of %v %d+%d while it is live (state %d)", e.Op, e.Sector, e.Sectors, s)
			return
		}
		l.live[e.Bio] = waiting
		l.queued++
	case 'M', 'F', 'G':
		if e.Bio == nil {
			return // a request merged into another: its bios stay in a request
		}
		if s := l.live[e.Bio]; s != waiting && s != sleeping {
			l.dup("%v for %v %d+%d in state %d", e.Action, e.Op, e.Sector, e.Sectors, s)
			return
		}
		l.live[e.Bio] = inRequest
	case 'S':
		if s := l.live[e.Bio]; s != waiting && s != sleeping {
			l.dup("S for %v %d+%d in state %d", e.Op, e.Sector, e.Sectors, s)
			return
		}
		l.live[e.Bio] = sleeping
	case 'D':
		if l.issued[e.Rq] {
			l.dup("D of request %v %d+%d already in flight", e.Op, e.Sector, e.Sectors)
			return
		}
		l.issued[e.Rq] = true
		l.rqIssued++
	case 'C':
		if e.Rq == nil {
			l.dropRA(e.Bio) // a read-ahead dropped at once: it never had a request
			return
		}
		if !l.issued[e.Rq] && e.Sectors == 0 {
			// The end of a flush sequence, off the device: an fsync's
			// request, whose bio is live, or a request whose data's C
			// ended its bios already.
			ended := false
			e.Rq.Bios(func(b *blkq.Bio) {
				if l.live[b] == inRequest {
					if l.end(b) {
						l.completed++
					}
					ended = true
				}
			})
			if ended {
				l.seqEnded++
			}
			return
		}
		if !l.issued[e.Rq] {
			l.dup("C of request %v %d+%d not in flight", e.Op, e.Sector, e.Sectors)
			return
		}
		delete(l.issued, e.Rq)
		l.rqCompleted++
		e.Rq.Bios(func(b *blkq.Bio) {
			if l.live[b] != inRequest {
				l.dup("C carries %v %d+%d in state %d", b.Op, b.Sector, b.Sectors, l.live[b])
				return
			}
			if l.end(b) {
				l.completed++
			}
		})
	}
}

// piece enters a piece of a split bio at its first event: its X, or, for
// the last piece, its M, F, G or S.
func (l *ledger) piece(b *blkq.Bio, x bool) {
	p := b.Parent
	if p == nil {
		return
	}
	if _, ok := l.live[b]; ok {
		if x {
			l.dup("X of piece %d+%d that is live", b.Sector, b.Sectors)
		}
		return
	}
	if s := l.live[p]; s != waiting && s != sleeping && s != split {
		l.dup("piece %d+%d of %v %d+%d in state %d", b.Sector, b.Sectors, p.Op, p.Sector, p.Sectors, s)
		return
	}
	l.live[p] = split
	l.pieces[p]++
	l.live[b] = waiting
}

// end ends b, and its parent with its last piece. It reports whether a
// submitted bio ended (b, or its parent).
func (l *ledger) end(b *blkq.Bio) bool {
	delete(l.live, b)
	p := b.Parent
	if p == nil {
		return true
	}
	if l.pieces[p]--; l.pieces[p] > 0 {
		return false
	}
	delete(l.pieces, p)
	delete(l.live, p)
	return true
}

func (l *ledger) dropRA(b *blkq.Bio) {
	if l.live[b] != waiting {
		l.dup("read-ahead %d+%d ended without a request in state %d", b.Sector, b.Sectors, l.live[b])
		return
	}
	if l.end(b) {
		l.dropped++
	}
}

// forget ends a bio that ended with its Submit's context error: taken
// back from a sleep (it must have slept and never got a request), or
// refused before it reached the queue (never seen).
func (l *ledger) forget(b *blkq.Bio) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s, ok := l.live[b]; {
	case !ok:
		l.notQueued++
	case s == sleeping:
		delete(l.live, b)
		l.forgotten++
	case s == split:
		// Its first piece slept and was taken back with it.
		for x := range l.live {
			if x.Parent == b {
				delete(l.live, x)
			}
		}
		delete(l.pieces, b)
		delete(l.live, b)
		l.forgotten++
	default:
		l.dup("cancelled %v %d+%d in state %d (only a sleeper can be taken back)", b.Op, b.Sector, b.Sectors, s)
	}
}

// settle is called with the queue idle: every bio still live is lost.
func (l *ledger) settle() (lost int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for b, s := range l.live {
		l.problem("lost: %v %d+%d (flags %v) in state %d", b.Op, b.Sector, b.Sectors, b.Flags, s)
	}
	if n := len(l.issued); n > 0 {
		l.problem("%d requests issued and never completed", n)
	}
	return int64(len(l.live) + len(l.issued))
}
