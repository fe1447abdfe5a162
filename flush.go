package blkq

import "time"

// Flush and FUA sequencing, as Linux 6.x's block/blk-flush.c does it.
//
// A write may ask for the device's volatile write cache to be flushed
// before it (FlagPreflush; with no data, an OpFlush bio is exactly that:
// an fsync's "FWS") and for its own data to be durable when it completes
// (FlagFUA). What the queue does depends on the device (limits.go):
//
//   - No write cache (write_cache "write through"): the flags mean
//     nothing. They are dropped from the bio as it is submitted, so the
//     write is an ordinary, mergeable one; a flush with no data ends at
//     once, before it is even queued (no Q, nothing at the device), as
//     submit_bio_noacct ends it.
//   - A write cache: the request is decomposed into up to three steps,
//     preflush, data, postflush. The preflush is needed for FlagPreflush;
//     the data if there is any; the postflush for FlagFUA on a device
//     without FUA (with FUA the data step carries the flag down). The
//     request goes through its steps in order, and its bios end when the
//     last is done.
//
// A request whose only step is its data is an ordinary request. One with
// data and a postflush goes its ordinary way (plug, elevator) to the
// device first. One with a preflush waits for a flush. A request in a
// sequence is never merged; its PREFLUSH flag is cleared, FUA too unless
// the device has FUA, and it is marked sync (REQ_SYNC), as Linux adjusts
// the request it hands to the driver.
//
// The flushes themselves are one flush request the queue owns (borrowing
// the tag of a waiting request, as Linux's flush_rq does, so it takes
// nothing from the pool), served before anything in the elevator:
//
//  1. one flush at a time: requests that want a flush while one runs wait
//     for the next, and all waiting when it is issued share it;
//  2. a flush waits while the data of a request that will want a
//     postflush is in flight, so that it can serve that postflush too,
//     unless the first waiting request has waited FLUSH_PENDING_TIMEOUT
//     (5 s);
//  3. when the flush completes, each request that waited for it goes on:
//     after a preflush its data is inserted at the head of the elevator
//     (an I), or, with no data, it is done; after a postflush it is done.
//
// The trace follows Linux 6.18 as its ftrace blk tracer shows it on a
// loop device (testdata/ktrace's fsync32 trace, and an O_DSYNC write on
// this machine): an fsync is "Q FWS", "G FWS", the flush request's "D FN"
// and "C FN", then a C of no bytes for the fsync's own request, an empty
// write ("C WS 0 [0]"), which gets no I or D. A data request shows I, D
// and C for its data step and, when a postflush followed, a C of no
// bytes at the end ("C WS 8 [0]"). /sys/block/<dev>/stat counts as
// Linux does (checked there): an fsync is one write of no sectors and
// one flush; a FUA write with a postflush one write and one flush.
// Linux issues the flush request from a kworker, later; blkq issues it
// at once, in the same instant, with no task.

// The steps of a sequence (REQ_FSEQ_*), as bits of Request.flushSeq: a
// step's bit set means done (or not needed).
const (
	fseqPreflush  = 1 << iota // flush the cache before the data
	fseqData                  // the request's own data
	fseqPostflush             // flush the cache after the data
	fseqAll       = fseqPreflush | fseqData | fseqPostflush
)

// flushPendingTimeout is FLUSH_PENDING_TIMEOUT (5*HZ): how long a waiting
// flush defers to data in flight.
const flushPendingTimeout = 5 * time.Second

// flushQueue is the queue's flush machinery (struct blk_flush_queue).
type flushQueue struct {
	rq           Request // the flush request, when running
	running      bool    // rq is at the device (or about to be)
	pending      rqList  // waiting for the next flush
	inFlush      rqList  // waiting for the flush that runs now
	pendingSince Time    // when the first of pending began to wait
	dataInFlight int     // requests whose data is on its way and a postflush due
}

// flushPolicy returns the steps rq needs (blk_flush_policy).
func (q *Queue) flushPolicy(rq *Request) uint8 {
	var p uint8
	if rq.Sectors > 0 {
		p |= fseqData
	}
	if q.writeCache() {
		if rq.Op == OpFlush || rq.Flags&FlagPreflush != 0 {
			p |= fseqPreflush
		}
		if rq.Flags&FlagFUA != 0 && !q.fua() {
			p |= fseqPostflush
		}
	}
	return p
}

// isFlushBio reports whether b asks for a preflush or FUA: a flush, or a
// write with either flag (op_is_flush). Reads and discards with the
// flags are served as they are, unmergeable.
func isFlushBio(b *Bio) bool {
	return b.Op == OpFlush || b.Op == OpWrite && b.Flags&(FlagPreflush|FlagFUA) != 0
}

// flushBioOnSubmit applies the write-through rule to a flush bio being
// submitted: the flags are dropped, and a bio with no data ends at once.
// It reports whether b was ended. Called by submitLocked before the Q.
func (q *Queue) flushBioOnSubmit(b *Bio) bool {
	if !isFlushBio(b) || q.writeCache() {
		return false
	}
	b.Flags &^= FlagPreflush | FlagFUA
	if b.Op == OpFlush {
		q.endBio(b, nil)
		return true
	}
	return false
}

// insertFlush takes rq, just allocated for a flush bio, into the flush
// machinery, and reports whether it did; if not, rq goes its ordinary way
// (blk_insert_flush). Called by startRequest after the G.
func (q *Queue) insertFlush(rq *Request) bool {
	p := q.flushPolicy(rq)
	if rq.Op == OpFlush {
		// A flush bio's request is an empty write with a preflush, as
		// Linux's is (REQ_OP_WRITE|REQ_PREFLUSH): what it shows and is
		// counted as when it ends.
		rq.Op = OpWrite
	}
	rq.Flags &^= FlagPreflush
	if !q.fua() {
		rq.Flags &^= FlagFUA
	}
	rq.Flags |= FlagSync
	switch p {
	case 0:
		// Nothing to do (the cache went away while it waited for a
		// request): done.
		q.endRequest(rq, nil)
		return true
	case fseqData:
		return false
	case fseqData | fseqPostflush:
		rq.inFlush, rq.flushSeq = true, fseqPreflush
		q.fq.dataInFlight++
		return false
	}
	rq.inFlush, rq.flushSeq = true, fseqAll&^p
	q.flushWait(rq)
	q.kickFlush()
	return true
}

// flushWait puts rq on the list waiting for the next flush.
func (q *Queue) flushWait(rq *Request) {
	rq.state = rqFlush
	if q.fq.pending.Len() == 0 {
		q.fq.pendingSince = q.now()
	}
	q.fq.pending.PushBack(rq)
}

// kickFlush issues the flush request if one is due (blk_kick_flush): no
// flush running, some request waiting, and no postflush data in flight
// unless the first has waited FLUSH_PENDING_TIMEOUT. The caller runs the
// queue.
func (q *Queue) kickFlush() {
	fq := &q.fq
	if fq.running || fq.pending.Len() == 0 {
		return
	}
	if fq.dataInFlight > 0 && q.now() < fq.pendingSince+Time(flushPendingTimeout) {
		return
	}
	for rq := fq.pending.Front(); rq != nil; rq = fq.pending.Front() {
		fq.pending.Remove(rq)
		fq.inFlush.PushBack(rq)
	}
	fq.running = true
	fq.rq = Request{Op: OpFlush, Flags: FlagPreflush, Alloc: q.now(), state: rqQueued}
	q.dispatch.PushBack(&fq.rq)
}

// flushDone is the flush request's completion (flush_end_io): each
// request that waited for it goes on to its next step. Called by
// complete, which traced the C and runs the queue after.
func (q *Queue) flushDone(err error) {
	fq := &q.fq
	fq.running = false
	fq.rq.state = rqFree
	for rq := fq.inFlush.Front(); rq != nil; rq = fq.inFlush.Front() {
		fq.inFlush.Remove(rq)
		if err != nil {
			q.endRequest(rq, err)
			continue
		}
		if rq.flushSeq&fseqPreflush == 0 {
			rq.flushSeq |= fseqPreflush
		} else {
			rq.flushSeq |= fseqPostflush
		}
		q.flushNext(rq)
	}
	q.kickFlush()
}

// flushNext sends rq, a step of its sequence done, to its next step: its
// data, inserted at the head of the elevator; a flush; or its end.
func (q *Queue) flushNext(rq *Request) {
	switch {
	case rq.flushSeq&fseqData == 0:
		if rq.flushSeq&fseqPostflush == 0 {
			q.fq.dataInFlight++
		}
		q.insertAt(rq, true)
	case rq.flushSeq&fseqPostflush == 0:
		q.flushWait(rq)
	default:
		q.endRequest(rq, nil)
	}
}

// flushDataDone is the completion of a request's data step when a
// postflush is due (mq_flush_data_end_io), and reports whether it took
// the request: on success it waits for a flush; on error it ends as any
// request would. Called by complete after the C.
func (q *Queue) flushDataDone(rq *Request, err error) bool {
	if !rq.inFlush || rq.flushSeq&fseqPostflush != 0 {
		return false
	}
	q.fq.dataInFlight--
	if err != nil {
		return false
	}
	rq.flushSeq |= fseqData
	q.flushWait(rq)
	q.kickFlush()
	return true
}

// endRequest ends rq, a request that finished its sequence off the
// device: a C of no sectors (Linux completes the request a second time,
// for none of its bytes: "C WS 0 [0]" after an fsync's flush, "C WS 8
// [0]" after a FUA write's postflush, as this machine's 6.18 traces
// them), then every bio with err, and frees it.
func (q *Queue) endRequest(rq *Request, err error) {
	e := q.trace(actComplete, nil, rq)
	e.Sectors, e.Err = 0, err
	q.emit(e)
	for b := rq.bios; b != nil; {
		next := b.next
		q.endBio(b, err)
		b = next
	}
	q.freeRequest(rq)
}

// flushIdle reports whether the flush machinery holds nothing.
func (q *Queue) flushIdle() bool {
	return !q.fq.running && q.fq.pending.Len() == 0 && q.fq.inFlush.Len() == 0 && q.fq.dataInFlight == 0
}
