package engine

import (
	"strconv"

	"github.com/blkq-dev/blkq"
)

// Read-ahead for buffered sequential readers (direct=0, rw=read) on
// simulated devices, the part of the page cache that the 2002 tiobench
// runs depended on: the reader asks for one block at a time, synchronously;
// the cache keeps a window of read_ahead_kb ahead of it in flight as
// read-ahead bios (REQ_RAHEAD), in chunks of half the window, so most reads
// find their block already read or on its way. A read-ahead bio that finds
// the request pool under pressure fails at once (see alloc.go); the block
// is then read synchronously when the reader gets there.
//
// What is read stays "cached" only until the reader has passed it; there is
// no reuse and no write-back yet (issue 4's buffer cache).

type span struct{ lo, hi int64 } // device bytes [lo, hi)

type readahead struct {
	j        *job
	window   int64 // read_ahead_kb in bytes
	lo, hi   int64 // the reader's region on the device
	next     int64 // where the next read-ahead bio starts
	cached   []span
	flight   []*raBio
	inflight int
	// bios, for the exactly-once check
	submitted, ended int64
}

// raBio is one read-ahead bio and the reads waiting for it.
type raBio struct {
	bio     blkq.Bio
	ra      *readahead
	span    span
	waiters []*ioUnit
}

// newReadahead returns the read-ahead state for j, or nil if j is not a
// buffered single-file sequential reader on a simulated device.
func newReadahead(j *job) *readahead {
	if j.spec.Direct || j.r.data != nil || !j.r.simulated || j.gen.random || j.gen.mixed || j.gen.only != blkq.OpRead || len(j.gen.files) != 1 || j.spec.RWModifier != 0 {
		return nil
	}
	kb, _ := j.r.q.Attr("read_ahead_kb")
	n, _ := strconv.Atoi(kb)
	if n <= 0 {
		return nil
	}
	f := j.gen.files[0]
	return &readahead{j: j, window: int64(n) << 10, lo: f.base, hi: f.base + f.size, next: f.base}
}

// read serves u from what read-ahead brought in or has in flight and
// reports whether it did; if not, the caller reads u's block itself.
func (ra *readahead) read(u *ioUnit) bool {
	lo := int64(u.bio.Sector) << blkq.SectorShift
	s := span{lo, lo + u.bio.Bytes()}
	defer ra.topUp(s.hi)
	if ra.covered(s) {
		j := ra.j
		j.r.exec.AfterFunc(j.copyDone(&u.bio), func() { j.done(u, nil) })
		return true
	}
	for _, rb := range ra.flight {
		if rb.span.lo <= s.lo && s.hi <= rb.span.hi {
			rb.waiters = append(rb.waiters, u)
			return true
		}
	}
	if s.hi > ra.next {
		ra.next = s.hi // the reader fetches this block itself
	}
	return false
}

func (ra *readahead) covered(s span) bool {
	for _, c := range ra.cached {
		if c.lo <= s.lo && s.hi <= c.hi {
			return true
		}
	}
	return false
}

// topUp keeps a window of read-ahead in flight past pos, wrapping at the
// region's end as the reader does.
func (ra *readahead) topUp(pos int64) {
	j := ra.j
	if j.main.asleep || j.state.stopping() {
		return
	}
	if ra.next >= ra.hi {
		if pos < ra.hi {
			return // the reader has not wrapped yet
		}
		ra.next = ra.lo
	}
	ra.prune(pos)
	chunk := max(ra.window/2, blkq.SectorSize)
	for ra.next < min(pos+ra.window, ra.hi) && ra.next-pos <= ra.window-chunk/2 {
		n := min(chunk, ra.hi-ra.next)
		if ra.covered(span{ra.next, ra.next + n}) {
			ra.next += n // still cached from the reader's last pass (a file within the window)
			continue
		}
		rb := &raBio{ra: ra, span: span{ra.next, ra.next + n}}
		rb.bio = blkq.Bio{Op: blkq.OpRead, Flags: blkq.FlagReadAhead, Sector: uint64(ra.next) >> blkq.SectorShift,
			Sectors: uint32(n >> blkq.SectorShift), Private: rb, EndIO: raEndIO}
		ra.next += n
		ra.flight = append(ra.flight, rb)
		ra.inflight++
		ra.submitted++
		j.r.q.Enqueue(j.main.task, &rb.bio) // read-ahead never sleeps: it fails instead
	}
}

// prune forgets cached data the reader has passed.
func (ra *readahead) prune(pos int64) {
	k := 0
	for _, c := range ra.cached {
		if c.hi > pos-ra.window {
			ra.cached[k] = c
			k++
		}
	}
	ra.cached = ra.cached[:k]
}

func raEndIO(b *blkq.Bio, err error) {
	rb := b.Private.(*raBio)
	rb.ra.done(rb, err)
}

// done handles a completed (or dropped) read-ahead bio.
func (ra *readahead) done(rb *raBio, err error) {
	ra.inflight--
	ra.ended++
	for i, f := range ra.flight {
		if f == rb {
			ra.flight = append(ra.flight[:i], ra.flight[i+1:]...)
			break
		}
	}
	if err == nil && !ra.covered(rb.span) {
		ra.cached = append(ra.cached, rb.span)
	}
	j := ra.j
	for _, u := range rb.waiters {
		// A reader waiting on a dropped read-ahead cannot happen (a drop
		// is immediate), but a device error reaches it.
		j.done(u, err)
	}
	if len(rb.waiters) == 0 {
		j.maybeFinish()
	}
}
