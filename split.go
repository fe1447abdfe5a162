package blkq

import (
	"sync"
	"sync/atomic"
)

// Splitting: a bio larger than the queue's limits is cut into pieces, as
// Linux's bio_split_to_limits cuts it on entry to blk_mq_submit_bio. The
// limits are those of /sys/block/<dev>/queue:
//
//   - a read or write carries at most max_sectors_kb, and at most
//     max_segments segments of at most max_segment_size bytes each;
//   - a discard carries at most discard_max_bytes.
//
// The front piece is split off (an X event: the piece's range, and in the
// blktrace record the sector the rest starts at), marked unmergeable
// (REQ_NOMERGE, as Linux marks a split), and goes through allocation like
// any bio; then the rest is cut again, until what is left fits. That last
// piece is an ordinary bio and may merge. The caller's bio is never
// changed: the pieces are the queue's own bios, and the caller's EndIO
// runs once, when every piece has ended, with the first error of any.
//
// Segments. A request's size in Linux is bounded twice: by sectors, and by
// the scatter-gather list its memory needs, one entry (segment) per
// physically contiguous run of at most max_segment_size bytes. blkq's bios
// have no pages, so it counts a bio's memory as contiguous: a read or write
// bio of n bytes is ceil(n / max_segment_size) segments, the fewest Linux
// could count. Bios are not joined across their boundaries (Linux's
// ll_new_hw_segment adds each merged bio's segments), so 4 KiB bios stop
// merging at max_segments of them (512 KiB by default). A discard is one
// segment whatever its size; with max_discard_segments 1 (Linux's default)
// a discard request stays one range and a bio merging into it adds none,
// but two discard requests can no longer join (Linux's
// ll_merge_requests_fn counts one for each); with more, each merged bio is
// a segment of its own. Linux can also merge discards that are not
// adjacent into one request of several ranges; blkq's requests are one
// contiguous range, so it merges only adjacent ones.

// A bio may say how its memory lies (Bio.Runs): then its segments are
// those of its runs, and a read or write is split where its
// max_segments-th segment ends if that comes before max_sectors_kb, as
// Linux's bio_split_rw counts a bio's segments bvec by bvec. A replay of
// a kernel trace sets runs from the kernel's own splits
// (engine/replaysplit.go), since no trace records a buffer's pages.

// runsFit reports whether b's Runs are whole runs summing to its size.
func runsFit(b *Bio) bool {
	if b.Op != OpRead && b.Op != OpWrite {
		return true // ignored
	}
	var sum uint64
	for _, r := range b.Runs {
		if r == 0 {
			return false
		}
		sum += uint64(r)
	}
	return sum == uint64(b.Sectors)
}

// runSegments is the number of segments a run of n sectors is.
func (q *Queue) runSegments(n uint32) int {
	size := uint64(q.lim.maxSegmentSize >> SectorShift)
	return int((uint64(n) + size - 1) / size)
}

// runsLimit is how many sectors of b's runs the first max_segments
// segments cover: all of b if they are fewer.
func (q *Queue) runsLimit(b *Bio) uint64 {
	left := q.lim.maxSegments
	var at uint64
	for _, r := range b.Runs {
		n := q.runSegments(r)
		if n > left {
			return at + uint64(left)*uint64(q.lim.maxSegmentSize>>SectorShift)
		}
		left -= n
		at += uint64(r)
	}
	return at
}

// maxIOSectors is the largest read or write request, in sectors: the
// smaller of max_sectors and max_segments whole segments.
func (q *Queue) maxIOSectors() uint32 {
	segs := uint64(q.lim.maxSegments) * uint64(q.lim.maxSegmentSize>>SectorShift)
	return uint32(min(uint64(q.cfg.MaxSectors), segs))
}

// maxSectorsFor is the largest request of op, in sectors.
func (q *Queue) maxSectorsFor(op Op) uint64 {
	if op == OpDiscard {
		return q.lim.discardMaxBytes >> SectorShift
	}
	return uint64(q.cfg.MaxSectors)
}

// bioSegments is the number of segments b adds to a request: one per
// max_segment_size of a read or write, one for a discard, none for a
// flush.
func (q *Queue) bioSegments(b *Bio) int {
	switch b.Op {
	case OpRead, OpWrite:
		if b.Runs != nil {
			n := 0
			for _, r := range b.Runs {
				n += q.runSegments(r)
			}
			return n
		}
		size := uint64(q.lim.maxSegmentSize)
		return int((uint64(b.Sectors)<<SectorShift + size - 1) / size)
	case OpDiscard:
		return 1
	}
	return 0
}

// segmentsOK reports whether b may join rq as far as segments go, and
// how many rq then has.
func (q *Queue) segmentsOK(rq *Request, b *Bio) (int, bool) {
	if rq.Op == OpDiscard {
		if q.lim.maxDiscardSegments <= 1 {
			return rq.segs, true // one range, however many bios
		}
		return rq.segs + 1, rq.segs < q.lim.maxDiscardSegments
	}
	n := rq.segs + q.bioSegments(b)
	return n, n <= q.lim.maxSegments
}

// maxSegmentsFor is the most segments a request of op may carry.
func (q *Queue) maxSegmentsFor(op Op) int {
	if op == OpDiscard {
		return q.lim.maxDiscardSegments
	}
	return q.lim.maxSegments
}

// splitSectors returns the size of the piece to split off b, in
// sectors, or 0 if b fits the queue's limits as it is. A read or write
// piece ends on a physical block boundary where it can
// (get_max_io_size), and every piece is whole logical blocks. A
// discard_max_bytes of 0 splits nothing.
func (q *Queue) splitSectors(b *Bio) uint32 {
	var limit uint64
	switch b.Op {
	case OpRead, OpWrite:
		limit = uint64(q.maxIOSectors())
		if b.Runs != nil {
			limit = min(uint64(q.cfg.MaxSectors), q.runsLimit(b))
		}
		if pbs := uint64(q.lim.physicalBlockSize >> SectorShift); pbs > 1 {
			start := b.Sector & (pbs - 1)
			if end := (start + limit) &^ (pbs - 1); end > start {
				limit = end - start
			}
		}
	case OpDiscard:
		limit = q.lim.discardMaxBytes >> SectorShift
	default:
		return 0
	}
	limit &^= uint64(q.lim.logicalBlockSize>>SectorShift) - 1
	if limit == 0 || uint64(b.Sectors) <= limit {
		return 0
	}
	return uint32(min(limit, uint64(b.Sectors)))
}

// A splitBio is a caller's bio the queue cut into pieces: it ends when
// the last piece has. Pieces end on whatever goroutine completes them,
// so the count is atomic.
type splitBio struct {
	whole  *Bio
	pieces int          // fronts split off so far (under the queue lock)
	left   atomic.Int32 // pieces made and not yet ended
	mu     sync.Mutex
	err    error // the first piece's error
}

// pieceDone is every piece's EndIO.
func pieceDone(p *Bio, err error) {
	s := p.Private.(*splitBio)
	if err != nil {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		s.mu.Unlock()
	}
	if s.left.Add(-1) > 0 {
		return
	}
	s.mu.Lock()
	err = s.err
	s.mu.Unlock()
	if w := s.whole; w.EndIO != nil {
		w.Ended = p.Ended // (the last piece to end)
		w.EndIO(w, err)
	}
}

// newRest returns the piece that stands for all of b, to be cut down.
func newRest(b *Bio) *Bio {
	s := &splitBio{whole: b}
	s.left.Store(1)
	return &Bio{Op: b.Op, Flags: b.Flags, Sector: b.Sector, Sectors: b.Sectors, Prio: b.Prio, Buf: b.Buf, Runs: b.Runs,
		EndIO: pieceDone, Private: s, Parent: b, Queued: b.Queued, task: b.task}
}

// splitFront cuts the first n sectors off rest (a piece from newRest)
// and returns them as a piece of their own, unmergeable.
func splitFront(rest *Bio, n uint32) *Bio {
	s := rest.Private.(*splitBio)
	s.pieces++
	s.left.Add(1)
	p := &Bio{Op: rest.Op, Flags: rest.Flags | FlagNoMerge, Sector: rest.Sector, Sectors: n, Prio: rest.Prio,
		EndIO: pieceDone, Private: s, Parent: s.whole, Queued: rest.Queued, task: rest.task}
	if rest.Buf != nil {
		k := int(n) << SectorShift
		p.Buf, rest.Buf = rest.Buf[:k:k], rest.Buf[k:]
	}
	if rest.Runs != nil {
		p.Runs, rest.Runs = cutRuns(rest.Runs, n)
	}
	rest.Sector += uint64(n)
	rest.Sectors -= n
	return p
}

// cutRuns splits runs after n sectors: the runs of the front and of the
// rest, a run that straddles the cut in part in each. Neither shares an
// element that differs from runs', which stays as it was.
func cutRuns(runs []uint32, n uint32) (front, rest []uint32) {
	for i, r := range runs {
		switch {
		case r < n:
			n -= r
		case r == n:
			return runs[: i+1 : i+1], runs[i+1:]
		default:
			front = append(append(make([]uint32, 0, i+1), runs[:i]...), n)
			rest = append(append(make([]uint32, 0, len(runs)-i), r-n), runs[i+1:]...)
			return front, rest
		}
	}
	return runs, nil
}

// submitSplit takes b through merging and allocation, cutting it first
// if it exceeds the limits. It reports false when the task sleeps for a
// request: the piece that could not get one waits with it, and what is
// left after that piece is kept on the task (Task.rest), to go on when
// the task resumes.
func (q *Queue) submitSplit(t *Task, b *Bio) bool {
	for {
		n := q.splitSectors(b)
		if n == 0 {
			return q.mergeOrGet(t, b)
		}
		if _, piece := b.Private.(*splitBio); !piece {
			b = newRest(b) // the caller's bio: the queue cuts a copy
		}
		front := splitFront(b, n)
		q.emit(q.trace(actSplit, front, nil))
		if !q.mergeOrGet(t, front) {
			t.rest = b
			return false
		}
	}
}

// firstPiece returns the caller's bio when b is the first piece split off
// it: while that piece waits for a request nothing of the bio is queued
// yet, so the whole may still be taken back (Queue.cancelWait).
func firstPiece(b *Bio) *Bio {
	if s, ok := b.Private.(*splitBio); ok && s.pieces == 1 && b.Flags&FlagNoMerge != 0 && b.Sector == s.whole.Sector {
		return s.whole
	}
	return nil
}
