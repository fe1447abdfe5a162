package blkq

// Merging: a bio that continues a queued request joins it instead of taking
// a request of its own. The candidates are tried cheapest first, as Linux's
// elv_merge does:
//
//  1. the submitter's plug: the request it added last (plug.go);
//  2. the one-hit cache, last_merge: the request the previous merge hit;
//  3. the back-merge hash: requests keyed by their end sector, so a bio
//     starting where a request ends is found in O(1);
//  4. the elevator's sorted tree: a request starting where the bio ends
//     (a front merge).
//
// nomerges=1 stops after step 2 (and the plug); nomerges=2 skips merging.
// After a bio merge the grown request may now touch its neighbour in the
// elevator; then the two requests become one and the second is freed.
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
	key := rq.end()
	rq.hashNext = q.hash[key]
	q.hash[key] = rq
	rq.onHash = true
}

// hashDel takes rq off the hash; call it before rq's end sector changes.
func (q *Queue) hashDel(rq *Request) {
	if !rq.onHash {
		return
	}
	key := rq.end()
	p := q.hash[key]
	if p == rq {
		if rq.hashNext == nil {
			delete(q.hash, key)
		} else {
			q.hash[key] = rq.hashNext
		}
	} else {
		for p != nil && p.hashNext != rq {
			p = p.hashNext
		}
		if p != nil {
			p.hashNext = rq.hashNext
		}
	}
	rq.hashNext = nil
	rq.onHash = false
}

// hashFind returns a queued request of op ending at sector.
func (q *Queue) hashFind(sector uint64, op Op) *Request {
	for rq := q.hash[sector]; rq != nil; rq = rq.hashNext {
		if rq.Op == op {
			return rq
		}
	}
	return nil
}

// bioMergeOK reports whether b may join rq (either end), size, flags and
// priority permitting.
func (q *Queue) bioMergeOK(rq *Request, b *Bio) bool {
	return rq.mergeable() && rq.Op == b.Op && rq.Prio == b.Prio && rq.Sectors+b.Sectors <= q.cfg.MaxSectors
}

// elvMerge tries the one-hit cache, the hash and the elevator's front
// merge for b.
func (q *Queue) elvMerge(b *Bio) bool {
	if rq := q.lastMerge; rq != nil && rq.state == rqQueued && q.bioMergeOK(rq, b) && q.allowMerge(rq, b) {
		if rq.end() == b.Sector {
			q.backMerge(rq, b)
			return true
		}
		if b.end() == rq.Sector {
			q.frontMerge(rq, b)
			return true
		}
	}
	if q.cfg.NoMerges == 1 {
		return false
	}
	if rq := q.hashFind(b.Sector, b.Op); rq != nil && q.bioMergeOK(rq, b) && q.allowMerge(rq, b) {
		q.backMerge(rq, b)
		return true
	}
	if rq := q.elvFrontMerge(b.end(), b.Op, b.Prio); rq != nil && q.bioMergeOK(rq, b) && q.allowMerge(rq, b) {
		q.frontMerge(rq, b)
		return true
	}
	return false
}

// appendBio adds b at rq's end; prependBio at its start.
func appendBio(rq *Request, b *Bio) {
	rq.biotail.next = b
	rq.biotail = b
	rq.Sectors += b.Sectors
	rq.NrBios++
}

func prependBio(rq *Request, b *Bio) {
	b.next = rq.bios
	rq.bios = b
	rq.Sector = b.Sector
	rq.Sectors += b.Sectors
	rq.NrBios++
}

// backMerge adds b at the end of the queued rq, then tries to join rq with
// the request that follows it.
func (q *Queue) backMerge(rq *Request, b *Bio) {
	q.hashDel(rq)
	appendBio(rq, b)
	q.emit(q.trace(actBackMerge, b, rq))
	q.notifyMerged(rq, false)
	if next := q.latter(rq); next != nil && next.Sector == rq.end() && q.requestsMergeOK(rq, next) {
		q.mergeRequests(rq, next)
	}
	q.hashAdd(rq)
	q.lastMerge = rq
}

// frontMerge adds b at the start of the queued rq, then tries to join rq
// with the request before it.
func (q *Queue) frontMerge(rq *Request, b *Bio) {
	prependBio(rq, b)
	q.emit(q.trace(actFrontMerge, b, rq))
	q.notifyMerged(rq, true)
	if prev := q.former(rq); prev != nil && prev.end() == rq.Sector && q.requestsMergeOK(prev, rq) {
		q.hashDel(prev)
		q.mergeRequests(prev, rq)
		q.hashAdd(prev)
		rq = prev
	}
	q.lastMerge = rq
}

func (q *Queue) requestsMergeOK(rq, next *Request) bool {
	return rq.state == rqQueued && next.state == rqQueued && rq.mergeable() && next.mergeable() &&
		rq.Op == next.Op && rq.Prio == next.Prio && rq.Sectors+next.Sectors <= q.cfg.MaxSectors
}

// mergeRequests moves next's bios to the end of rq (rq.end() ==
// next.Sector; rq is off the hash) and frees next.
func (q *Queue) mergeRequests(rq, next *Request) {
	// Traced as Linux 5.11+ traces it (blk_add_trace_rq_merge): an M
	// describing the request merged away, with no bio; Rq is the one it
	// joins.
	e := q.trace(actBackMerge, nil, next)
	e.Rq = rq
	q.emit(e)
	q.hashDel(next)
	q.hooks.reqs.MergedRequests(rq, next)
	rq.biotail.next = next.bios
	rq.biotail = next.biotail
	rq.Sectors += next.Sectors
	rq.NrBios += next.NrBios
	if q.lastMerge == next {
		q.lastMerge = nil
	}
	q.freeRequest(next)
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
