package blkq

// Merging: a bio that continues a queued request joins it instead of taking
// a request of its own. The candidates are tried cheapest first, as Linux's
// blk_mq_submit_bio and elv_merge try them:
//
//  1. the submitter's plug: the request it added last (plug.go);
//  2. the one-hit cache, last_merge: the request the previous merge hit;
//  3. the back-merge hash: requests keyed by their end sector, so a bio
//     starting where a request ends is found in O(1);
//  4. the elevator's sorted tree: a request starting where the bio ends
//     (a front merge).
//
// nomerges=1 stops after step 2 (and the plug); nomerges=2 skips merging.
// Of steps 2 to 4 the first candidate that may take the bio at the right
// end is the only one tried: if the bio does not fit it (max_sectors, the
// segments of split.go) the request is marked unmergeable, as Linux's
// req_set_nomerge marks it, and the bio gets a request of its own. After a
// bio merge the grown request may now touch its neighbour in the elevator;
// then the two requests become one and the second is freed.
//
// mq-deadline also merges requests as it is given them (insertMerge): a
// request flushed from a plug that continues a queued one joins it, and
// the grown one may then join the request before it, and so on. That is
// how the bios of a plug that alternate between two streams (reads and
// writes, each sequential) end up in two requests, though on the plug
// each could only merge with the request added just before it. Each such
// join is an M event for the request merged away, with no bio, as Linux
// 5.11 and later trace it.
//
// The linus elevator keeps the 2.4 rules (legacyMerger): 2.4 scanned its
// queue for a request the bio could join and passed over those too full
// for it, and had neither the hash nor request merges at insert. blkq's
// queue still finds its candidates through the hash, but for that
// elevator it takes the latest request of the bio's op there, passes over
// a request too full for the bio, and marks none unmergeable.
// mq-deadline-noprio, blkq's mq-deadline as it was before it followed
// Linux 6.x (kept for the experiments' published figures), merges by the
// same rules, as blkq did then, and not at insert.
//
// The hash is only filled while nomerges is 0 (with 1 or 2 nothing looks
// it up, and skipping the insert is part of what nomerges saves, as in the
// 2008 patch). Flipping nomerges under load must then never strand a
// request on the hash: removal checks onHash, not the current setting (the
// race Aaron Carroll pointed out in that thread).

const plugFlushBytes = 128 << 10 // BLK_PLUG_FLUSH_SIZE

// hashAdd puts a queued request on the back-merge hash.
func (q *Queue) hashAdd(rq *Request) {
	if q.cfg.NoMerges != 0 || !rq.mergeable() || rq.onHash {
		return
	}
	q.hash.add(rq)
	rq.onHash = true
}

// hashDel takes rq off the hash; call it before rq's end sector changes.
func (q *Queue) hashDel(rq *Request) {
	if !rq.onHash {
		return
	}
	q.hash.del(rq)
	rq.onHash = false
}

// hashFind returns the request the hash gives for a bio of op starting
// at sector: the one most recently hashed with that end sector, whatever
// its op, as Linux's elv_rqhash_find returns the first entry of its
// bucket with the key. If that one cannot take the bio (a write ending
// where a read ends too, hashed later), there is no back merge through
// the hash. Under the 2.4 rules (legacyMerges) it is the latest of op.
func (q *Queue) hashFind(sector uint64, op Op) *Request {
	if q.hooks.legacyMerges {
		return q.hash.find(sector, op)
	}
	return q.hash.first(sector)
}

// bioMergeOK reports whether b may join rq at all (blk_rq_merge_ok): both
// mergeable, the same op and priority. Whether it fits is fits' question,
// except under the 2.4 rules, where a request too full for b is no
// candidate (elevator_linus_merge went on to the next).
func (q *Queue) bioMergeOK(rq *Request, b *Bio) bool {
	ok := rq.mergeable() && b.mergeable() && rq.Op == b.Op && rq.Prio == b.Prio
	if ok && q.hooks.legacyMerges {
		_, ok = q.fitsWithin(rq, b)
	}
	return ok
}

// fits reports whether b fits into rq (ll_back_merge_fn and
// ll_front_merge_fn: the size limit of rq's op, then its segments), and
// how many segments rq then has. A bio that does not fit marks rq
// unmergeable from then on, as Linux's req_set_nomerge does: a request
// that has reached a limit takes nothing more. (Not under the 2.4 rules,
// where such a request was never a candidate: bioMergeOK.)
func (q *Queue) fits(rq *Request, b *Bio) (int, bool) {
	segs, ok := q.fitsWithin(rq, b)
	if !ok {
		q.setNoMerge(rq)
	}
	return segs, ok
}

// fitsWithin reports whether b fits into rq, and rq's segments then.
func (q *Queue) fitsWithin(rq *Request, b *Bio) (int, bool) {
	segs, ok := q.segmentsOK(rq, b)
	return segs, ok && uint64(rq.Sectors)+uint64(b.Sectors) <= q.maxSectorsFor(rq.Op)
}

// setNoMerge makes rq unmergeable: off the hash and the one-hit cache.
func (q *Queue) setNoMerge(rq *Request) {
	rq.Flags |= FlagNoMerge
	q.hashDel(rq)
	if q.lastMerge == rq {
		q.lastMerge = nil
	}
}

// elvMerge tries the one-hit cache, the hash and the elevator's front
// merge for b, as Linux's elv_merge chooses a candidate: the first that
// may take b at the right end is the one tried, and if b does not fit it
// there is no other try.
func (q *Queue) elvMerge(b *Bio) bool {
	if rq := q.lastMerge; rq != nil && rq.state == rqQueued && q.bioMergeOK(rq, b) && q.allowMerge(rq, b) {
		if rq.end() == b.Sector {
			return q.backMerge(rq, b)
		}
		if b.end() == rq.Sector {
			return q.frontMerge(rq, b)
		}
	}
	if q.cfg.NoMerges == 1 {
		return false
	}
	if rq := q.hashFind(b.Sector, b.Op); rq != nil && q.bioMergeOK(rq, b) && q.allowMerge(rq, b) {
		return q.backMerge(rq, b)
	}
	if rq := q.elvFrontMerge(b.end(), b.Op, b.Prio); rq != nil && q.bioMergeOK(rq, b) && q.allowMerge(rq, b) {
		return q.frontMerge(rq, b)
	}
	return false
}

// appendBio adds b at rq's end; prependBio at its start. segs is rq's
// segment count with b.
func appendBio(rq *Request, b *Bio, segs int) {
	rq.biotail.next = b
	rq.biotail = b
	rq.Sectors += b.Sectors
	rq.NrBios++
	rq.segs = segs
}

func prependBio(rq *Request, b *Bio, segs int) {
	b.next = rq.bios
	rq.bios = b
	rq.Sector = b.Sector
	rq.Sectors += b.Sectors
	rq.NrBios++
	rq.segs = segs
}

// backMerge adds b at the end of the queued rq if it fits, then tries to
// join rq with the request that follows it.
func (q *Queue) backMerge(rq *Request, b *Bio) bool {
	segs, ok := q.fits(rq, b)
	if !ok {
		return false
	}
	q.hashDel(rq)
	appendBio(rq, b, segs)
	q.emit(q.trace(actBackMerge, b, rq))
	q.notifyMerged(rq, false)
	if next := q.latter(rq); next != nil && q.requestsMergeOK(rq, next) {
		q.mergeRequests(rq, next)
	}
	q.hashAdd(rq)
	q.lastMerge = rq
	return true
}

// frontMerge adds b at the start of the queued rq if it fits, then tries
// to join rq with the request before it.
func (q *Queue) frontMerge(rq *Request, b *Bio) bool {
	segs, ok := q.fits(rq, b)
	if !ok {
		return false
	}
	prependBio(rq, b, segs)
	q.emit(q.trace(actFrontMerge, b, rq))
	q.notifyMerged(rq, true)
	if prev := q.former(rq); prev != nil && q.requestsMergeOK(prev, rq) {
		q.hashDel(prev)
		q.mergeRequests(prev, rq)
		q.hashAdd(prev)
		rq = prev
	}
	q.lastMerge = rq
	return true
}

// requestsMergeOK reports whether next, which starts where rq ends, may
// be joined to rq (Linux's attempt_merge and ll_merge_requests_fn): both
// mergeable, the same op and priority, and the two together within the
// size and segment limits of their op. rq is queued; next is queued too,
// or is being inserted (insertMerge).
func (q *Queue) requestsMergeOK(rq, next *Request) bool {
	return rq.state == rqQueued && next.state != rqInFlight && rq.mergeable() && next.mergeable() &&
		rq.Op == next.Op && rq.Prio == next.Prio && rq.end() == next.Sector &&
		uint64(rq.Sectors)+uint64(next.Sectors) <= q.maxSectorsFor(rq.Op) &&
		rq.segs+next.segs <= q.maxSegmentsFor(rq.Op)
}

// mergeRequests moves next's bios to the end of rq (rq.end() ==
// next.Sector; rq is off the hash) and frees next. next is queued in the
// elevator, which forgets it, or is a request being inserted, which the
// elevator never held.
func (q *Queue) mergeRequests(rq, next *Request) {
	// Traced as Linux 5.11+ traces it (blk_add_trace_rq_merge): an M
	// describing the request merged away, with no bio; Rq is the one it
	// joins.
	e := q.trace(actBackMerge, nil, next)
	e.Rq = rq
	q.emit(e)
	q.hashDel(next)
	if next.state == rqQueued {
		q.hooks.reqs.MergedRequests(rq, next)
	}
	rq.biotail.next = next.bios
	rq.biotail = next.biotail
	rq.Sectors += next.Sectors
	rq.NrBios += next.NrBios
	rq.segs += next.segs
	if q.lastMerge == next {
		q.lastMerge = nil
	}
	q.freeRequest(next)
}

// insertMerge tries to merge rq, about to be inserted, into a queued
// request, as mq-deadline does when it is given a request
// (dd_insert_request → elv_attempt_insert_merge): first into the one-hit
// cache's request, if rq continues it; else (nomerges 0) into the request
// the hash gives for rq's start, and then, as the grown request may now
// continue another, that one into the request the hash gives for its
// start, and so on. Each join is traced as an M for the request merged
// away. It reports whether rq was merged (and freed).
func (q *Queue) insertMerge(rq *Request) bool {
	if q.cfg.NoMerges == 2 || !q.hooks.insertMerges || q.hooks.reqs == nil {
		return false
	}
	if lm := q.lastMerge; lm != nil && q.requestsMergeOK(lm, rq) {
		q.joinInserted(lm, rq)
		return true
	}
	if q.cfg.NoMerges == 1 {
		return false
	}
	merged := false
	for {
		prev := q.hashFind(rq.Sector, rq.Op)
		if prev == nil || prev == rq || !q.requestsMergeOK(prev, rq) {
			return merged
		}
		q.joinInserted(prev, rq)
		merged = true
		rq = prev
	}
}

// legacyMerges marks the linus elevator as merging by the 2.4 rules, and
// mq-deadline-noprio (blkq's mq-deadline before it followed Linux 6.x,
// the experiments') by blkq's rules of then, which are the same.
func (e *linus) legacyMerges()    {}
func (d *deadline) legacyMerges() {}

// mergesOnInsert marks mq-deadline as merging the requests it is given
// (dd_insert_request tries blk_mq_sched_try_insert_merge first). The
// linus elevator (2.4 merged only bios), mq-deadline-noprio (blkq's
// before) and none do not.
func (d *mqDeadline) mergesOnInsert() {}

// joinInserted joins next to the queued rq (elv_merge_requests: rq's
// hash entry moves to its new end, and rq is the one-hit cache's).
func (q *Queue) joinInserted(rq, next *Request) {
	q.hashDel(rq)
	q.mergeRequests(rq, next)
	q.hashAdd(rq)
	q.lastMerge = rq
}

// The elevator's optional hooks, as the merge code asks them: an elevator
// without one allows every merge, finds no front merge and no neighbours.

func (q *Queue) allowMerge(rq *Request, b *Bio) bool {
	return q.hooks.allow == nil || q.hooks.allow.AllowMerge(rq, b)
}

func (q *Queue) elvFrontMerge(sector uint64, op Op, prio uint16) *Request {
	switch {
	case q.hooks.pfront != nil:
		return q.hooks.pfront.FrontMergePrio(sector, op, prio)
	case q.hooks.front == nil:
		return nil
	}
	return q.hooks.front.FrontMerge(sector, op)
}

func (q *Queue) notifyMerged(rq *Request, front bool) {
	if q.hooks.merged != nil {
		q.hooks.merged.Merged(rq, front)
	}
}

func (q *Queue) former(rq *Request) *Request {
	if q.hooks.reqs == nil {
		return nil
	}
	return q.hooks.reqs.Former(rq)
}

func (q *Queue) latter(rq *Request) *Request {
	if q.hooks.reqs == nil {
		return nil
	}
	return q.hooks.reqs.Latter(rq)
}
