package blkq

// linus is the Linux 2.4 I/O scheduler, the "linus elevator" of
// drivers/block/elevator.c, tuned with elvtune.
//
// # The algorithm
//
// All requests, reads and writes, wait on one list in the order the device
// will get them; Dispatch takes the head. A new request is put in sector
// order on the elevator's sweep: the list ascends from its head, and where
// a sector is lower than the one before it the sweep has wrapped round to
// the start of the disk. Scanning from the tail towards the head, the new
// request goes after the first request p such that it lies between p and
// p's successor: p.Sector <= s < next.Sector on an ascending step, or
// s >= p.Sector || s < next.Sector at a wrap. If no such place exists it
// goes at the tail. Nothing is ever put in front of the head.
//
// Every request carries a passover budget (Request.elvSeq, 2.4's
// elevator_sequence), set when it is inserted: read_latency for a read,
// write_latency for anything else. Whenever newer I/O is put ahead of a
// queued request, that request pays:
//
//   - seek_cost for each new request inserted ahead of it (a "seeky"
//     insert), or 1 if the new request is sector-contiguous with a
//     neighbour where it lands (it costs the disk no seek: 2.4 charged a
//     merge it had to refuse for size at 1, too);
//   - 1 for each bio merged into a request ahead of it (the merge makes
//     that request longer, so everything behind it waits a little more).
//     A back merge into rq passes every request after rq; a front merge
//     also passes rq itself (the new sectors go before rq's own), so rq
//     pays 1 as well.
//
// A request whose budget is exhausted (<= 0) is a barrier: nothing may be
// put ahead of it any more. The insert scan stops at the first (tail-most)
// exhausted request, so a new request lands at the earliest right after it;
// AllowMerge refuses a merge into any request that has an exhausted request
// behind it, and a front merge into an exhausted request itself. A back
// merge into the tail request passes nobody and is always allowed.
//
// max_bomb_segments: a read that found no merge and, on its scan, saw only
// writes (no read is waiting where it could go) is promoted towards the
// head: walking from the head, each write counts 1 + sectors/64 "write
// units", and the read goes right after the write at which the count
// reaches max_bomb_segments, unless its sorted place is earlier already. So
// max_bomb_segments is the number of write units (roughly, writes) left in
// front of a new read when the queue holds only writes. 0 turns it off.
//
// Requests inserted at the head (flushes) go on a separate list served
// before the sorted one, as Linux's elevator core puts them on its dispatch
// list; they carry no budget and are not counted as passing anyone.
//
// # Why budgets bound starvation
//
// Every pass costs the passed request at least 1 and happens only while its
// budget is positive, so a request with budget B is passed at most B times,
// and at most (B-1)/seek_cost + 1 of those are seeky inserts. Once its
// budget is gone, no insert or merge may put anything ahead of it, so the
// requests in front of it only leave (from the head). A request therefore
// waits for at most the requests ahead of it when it was inserted, plus B
// passes, plus flushes. Merging two requests keeps the smaller budget, so a
// merged request is no more patient than either part.
//
// # Which 2.4
//
// The budgets, the seek cost and the barrier follow 2.4.20 and later (Jens
// Axboe's 2002 "elevator seek accounting fixes": merge cost 1, seek cost
// ELV_LINUS_SEEK_COST, a request after the insertion point pays for it).
// Merges stop at the barrier as in 2.4.32 and Andrea Arcangeli's -aa tree
// (seen in 2.4.20-aa1); 2.4.20 and the RHEL3 2.4.21 tree still merged past
// it, taking merges to be free. max_bomb_segments is Andrew Morton's
// read-latency code as in the 2.4.18 (oct-month), RHEL3 2.4.21 and 2.4.32
// trees, with 2.4.21's "saw no read" condition; 2.4.0 and the -aa tree had
// the tunable but did not apply it. Where blkq differs, and why:
//
//   - 2.4 never tested the in-between place right after the exhausted
//     request itself; blkq does, since a request put there passes only
//     requests behind the barrier.
//   - 2.4's in-between test was strict (p.Sector < s): a request at a
//     queued request's sector went to the tail. blkq puts it after the
//     requests of equal sector (p.Sector <= s).
//   - 2.4's max_bomb promotion passed writes without charging them and
//     ignored exhausted budgets. blkq charges them seek_cost like any
//     seeky insert and never promotes a read past a barrier, so the bound
//     above holds for every request.
//   - The RHEL3 read-latency patch also aged every request its merge scan
//     looked at by 1; vanilla 2.4.20+ and 2.4.32 did not, nor does blkq
//     (its merge lookups do not scan). 2.4's one-hit merge cache charged
//     nothing; blkq's elevator cannot tell which lookup found a merge and
//     charges every merge alike.
//
// Budgets are set at insert: changing read_latency or write_latency affects
// requests inserted afterwards, as elvtune's did.
//
// Like 2.4's, an insert, a merge and a front-merge lookup each walk the list
// (O(queued requests), at most 2 x nr_requests); dispatch is O(1).
//
// A queue made with Scheduler "linus" gets the stock 2.4.21 tunables.

import (
	"fmt"
	"math"
	"strconv"
)

// linusName is the scheduler's name.
const linusName = "linus"

// The stock 2.4.21 tunables (include/linux/elevator.h in the RHEL3 2.4.21
// tree: ELEVATOR_LINUS and ELV_LINUS_SEEK_COST).
const (
	linusDefaultReadLatency     = 2048
	linusDefaultWriteLatency    = 8192
	linusDefaultMaxBombSegments = 6
	linusDefaultSeekCost        = 16
)

// sectorsPerBombUnit: a queued write counts 1 + sectors/64 write units
// against max_bomb_segments.
const sectorsPerBombUnit = 64

// maxTunable caps every tunable (2.4 kept them in ints).
const maxTunable = math.MaxInt32

// linusParams are the elevator's tunables, in elvtune's terms.
type linusParams struct {
	ReadLatency     int // passover budget of a read (elvtune -r)
	WriteLatency    int // passover budget of a write (elvtune -w)
	MaxBombSegments int // write units left ahead of a promoted read; 0 = off (elvtune -b)
	SeekCost        int // budget a seeky insert costs each request it passes (ELV_LINUS_SEEK_COST)
}

// linusStock2421 returns the tunables of a stock 2.4.21 kernel (as shipped in
// RHEL3): read 2048, write 8192, max_bomb_segments 6, seek cost 16.
func linusStock2421() linusParams {
	return linusParams{ReadLatency: linusDefaultReadLatency, WriteLatency: linusDefaultWriteLatency,
		MaxBombSegments: linusDefaultMaxBombSegments, SeekCost: linusDefaultSeekCost}
}

// linusTuned2003 returns the setting of Andrea Arcangeli's 2003 -aa patch from
// the "io stalls" thread: read 128, write 512, seek cost 1. That tree did
// not apply max_bomb_segments, so it is 0 (off).
func linusTuned2003() linusParams {
	return linusParams{ReadLatency: 128, WriteLatency: 512, MaxBombSegments: 0, SeekCost: 1}
}

// Validate reports whether p is usable: each tunable within its bounds
// in linusTunables (latencies and max_bomb_segments 0..MaxInt32, seek
// cost 1..MaxInt32).
func (p linusParams) Validate() error {
	l := &linus{p: p}
	for _, t := range linusTunables {
		if v, _ := strconv.ParseInt(t.get(l), 10, 64); v < t.lo || v > t.hi {
			return fmt.Errorf("linus: %s %d: want %d..%d", t.name, v, t.lo, t.hi)
		}
	}
	return nil
}

// Which list a request is on, kept in Request.elvIndex.
const (
	onNone   = iota
	onSorted // the sector-sorted list
	onFront  // the head-insert list, served first
)

// linus is the 2.4 linus elevator. Use newLinus; the queue calls its methods
// under its lock.
type linus struct {
	p      linusParams
	sorted rqList // dispatch order; head is next
	front  rqList // head inserts (flushes), served before sorted
}

// newLinus returns a linus elevator with tunables p. It panics if p is invalid
// (see linusParams.Validate).
func newLinus(p linusParams) *linus {
	if err := p.Validate(); err != nil {
		panic(err)
	}
	return &linus{p: p}
}

// linusParams returns the current tunables.
func (l *linus) linusParams() linusParams { return l.p }

// Name returns "linus".
func (l *linus) Name() string { return linusName }

// Len returns the number of requests held.
func (l *linus) Len() int { return l.sorted.Len() + l.front.Len() }

func (l *linus) latency(op Op) int {
	if op == OpRead {
		return l.p.ReadLatency
	}
	return l.p.WriteLatency
}

// Insert adds rq: at the front for a head insert, otherwise in sweep order
// within the limits of the queued requests' budgets, with a fresh budget.
func (l *linus) Insert(rq *Request, atHead bool, _ Time) {
	if atHead {
		rq.elvIndex = onFront
		l.front.PushFront(rq)
		return
	}
	rq.elvIndex = onSorted
	rq.elvSeq = l.latency(rq.Op)
	after, barrier, sawRead := l.place(rq.Sector)
	if rq.Op == OpRead && l.p.MaxBombSegments > 0 && !sawRead {
		after = l.bomb(after, barrier)
	}
	if after != nil && after.elv.next != nil {
		// rq passes everything behind its place.
		next := after.elv.next
		cost := l.p.SeekCost
		if after.end() == rq.Sector || rq.end() == next.Sector {
			cost = 1
		}
		charge(next, cost)
	}
	if after == nil {
		l.sorted.PushBack(rq)
	} else {
		l.sorted.InsertAfter(rq, after)
	}
}

// place scans from the tail towards the head for rq's place in sweep order
// (sector s). It returns the request to insert after (nil: the tail), the
// tail-most request with an exhausted budget where the scan stopped (nil if
// none), and whether the scan saw a read.
func (l *linus) place(s uint64) (after, barrier *Request, sawRead bool) {
	for p := l.sorted.Back(); p != nil; p = p.elv.prev {
		if p.Op == OpRead {
			sawRead = true
		}
		if after == nil && inBetween(s, p) {
			after = p
		}
		if p.elvSeq <= 0 {
			return after, p, sawRead
		}
	}
	return after, nil, sawRead
}

// inBetween reports whether sector s belongs between p and its successor
// on the sweep.
func inBetween(s uint64, p *Request) bool {
	n := p.elv.next
	if n == nil {
		return false
	}
	if p.Sector <= n.Sector {
		return p.Sector <= s && s < n.Sector
	}
	return s >= p.Sector || s < n.Sector // the sweep wraps between p and n
}

// bomb returns where a read goes when max_bomb_segments promotes it: after
// the write, counted from the head, at which the write units reach
// max_bomb_segments, but not before its sorted place after (nil: the tail)
// would put it, and never ahead of barrier.
func (l *linus) bomb(after, barrier *Request) *Request {
	units := 0
	pastBarrier := barrier == nil
	for p := l.sorted.Front(); p != nil && p != after; p = p.elv.next {
		if p == barrier {
			pastBarrier = true
		}
		if p.Op == OpRead {
			continue
		}
		units += 1 + int(p.Sectors)/sectorsPerBombUnit
		if units >= l.p.MaxBombSegments {
			if !pastBarrier {
				return barrier
			}
			return p
		}
	}
	return after
}

// charge takes cost off the budget of p and every request after it.
func charge(p *Request, cost int) {
	for ; p != nil; p = p.elv.next {
		p.elvSeq -= cost
	}
}

// Dispatch removes and returns the next request: a head insert if any,
// else the head of the sorted list.
func (l *linus) Dispatch(Time) *Request {
	rq := l.front.Front()
	if rq == nil {
		rq = l.sorted.Front()
	}
	if rq != nil {
		l.remove(rq)
	}
	return rq
}

func (l *linus) remove(rq *Request) {
	switch rq.elvIndex {
	case onSorted:
		l.sorted.Remove(rq)
	case onFront:
		l.front.Remove(rq)
	default:
		panic(fmt.Sprintf("linus: request %v %d+%d is not queued here", rq.Op, rq.Sector, rq.Sectors))
	}
	rq.elvIndex = onNone
}

// FrontMerge returns the tail-most request of op starting at sector that
// a front merge may join. The scan stops at the barrier: a front merge
// into an exhausted request, or into one ahead of it, would pass it.
func (l *linus) FrontMerge(sector uint64, op Op) *Request {
	for p := l.sorted.Back(); p != nil; p = p.elv.prev {
		if p.elvSeq <= 0 {
			return nil
		}
		if p.Sector == sector && p.Op == op {
			return p
		}
	}
	return nil
}

// Former returns the request just ahead of rq on the list if it has rq's
// op: the candidate for joining rq after a front merge.
func (l *linus) Former(rq *Request) *Request {
	if rq.elvIndex != onSorted {
		return nil
	}
	if p := rq.elv.prev; p != nil && p.Op == rq.Op {
		return p
	}
	return nil
}

// Latter returns the request just behind rq on the list if it has rq's op:
// the candidate for joining rq after a back merge.
func (l *linus) Latter(rq *Request) *Request {
	if rq.elvIndex != onSorted {
		return nil
	}
	if n := rq.elv.next; n != nil && n.Op == rq.Op {
		return n
	}
	return nil
}

// AllowMerge refuses a merge of b into rq that would pass an exhausted
// request: any merge into a request with an exhausted one behind it, and a
// front merge into an exhausted request.
func (l *linus) AllowMerge(rq *Request, b *Bio) bool {
	if rq.elvIndex != onSorted {
		return false
	}
	if b.end() == rq.Sector && rq.elvSeq <= 0 {
		return false
	}
	for p := rq.elv.next; p != nil; p = p.elv.next {
		if p.elvSeq <= 0 {
			return false
		}
	}
	return true
}

// Merged charges a bio merge: 1 to every request behind rq, and to rq
// itself after a front merge. rq keeps its place on the list.
func (l *linus) Merged(rq *Request, front bool) {
	if rq.elvIndex != onSorted {
		return
	}
	if front {
		rq.elvSeq--
	}
	charge(rq.elv.next, 1)
}

// MergedRequests forgets next, merged into rq; rq keeps the smaller of the
// two budgets (2.4's elevator_linus_merge_req).
func (l *linus) MergedRequests(rq, next *Request) {
	if next.elvSeq < rq.elvSeq {
		rq.elvSeq = next.elvSeq
	}
	l.remove(next)
}

// Drain removes every request: head inserts, then the sorted list, in
// dispatch order.
func (l *linus) Drain() []*Request {
	out := make([]*Request, 0, l.Len())
	for rq := l.Dispatch(0); rq != nil; rq = l.Dispatch(0) {
		out = append(out, rq)
	}
	return out
}

// linusTunables are the elevator's files in queue/iosched/, named as
// elvtune's fields. A written value is a decimal int (32 bits: ERANGE
// beyond, EINVAL if not a number); one out of bounds is refused with
// EINVAL, as elvtune's ioctl refused negative values (a seek cost of 0
// would let seeky inserts pass a request for ever). New latencies apply to
// requests inserted from then on, as elvtune's did.
var linusTunables = []tunable[*linus]{
	linusTunable("read_latency", 0, linusDefaultReadLatency, "passover budget of a read (elvtune -r)",
		func(p *linusParams) *int { return &p.ReadLatency }),
	linusTunable("write_latency", 0, linusDefaultWriteLatency, "passover budget of a write (elvtune -w)",
		func(p *linusParams) *int { return &p.WriteLatency }),
	linusTunable("max_bomb_segments", 0, linusDefaultMaxBombSegments, "write units left ahead of a promoted read; 0 turns it off (elvtune -b)",
		func(p *linusParams) *int { return &p.MaxBombSegments }),
	linusTunable("seek_cost", 1, linusDefaultSeekCost, "budget a seeky insert costs each request it passes (ELV_LINUS_SEEK_COST)",
		func(p *linusParams) *int { return &p.SeekCost }),
}

func linusTunable(name string, lo int64, def int, doc string, field func(*linusParams) *int) tunable[*linus] {
	return tunable[*linus]{
		tunableInfo: tunableInfo{name: name, unit: "passes", lo: lo, hi: maxTunable, def: strconv.Itoa(def),
			source: "Linux 2.4.21 default " + strconv.Itoa(def) + " (include/linux/elevator.h, RHEL3)", doc: doc},
		get:   func(l *linus) string { return strconv.Itoa(*field(&l.p)) },
		parse: parseInt32Bounded,
		set:   func(l *linus, n int64) error { *field(&l.p) = int(n); return nil },
	}
}

// Attrs lists the tunables.
func (l *linus) Attrs() []string { return tunableNames(linusTunables) }

// Attr reads a tunable.
func (l *linus) Attr(name string) (string, error) { return readTunable(linusTunables, l, name) }

// SetAttr writes a tunable (see linusTunables); a refused write changes
// nothing.
func (l *linus) SetAttr(name, value string) error { return writeTunable(linusTunables, l, name, value) }
