package blkq

// Package deadline is the mq-deadline I/O scheduler: requests sorted by
// sector per direction, each also on a per-direction FIFO with a deadline.
//
// Dispatch serves batches of up to fifo_batch requests of one direction in
// ascending sector order, starting from where the last batch of that
// direction ended. Between batches it picks a direction — reads, unless
// writes are waiting and reads have already been preferred writes_starved
// times — and starts the batch at the FIFO's head if that request's
// deadline has passed (or nothing lies beyond the last position), else at
// the next request in sector order. Deadlines are checked only between
// batches, so a batch is never cut short. Flushes go to a dispatch list
// served before everything else.
//
// Linux's mq-deadline also has I/O priority levels and prio aging; blkq
// has one level (every request is best-effort), so those are left out.
//
// Import this package for its effect: it registers "mq-deadline".

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Linux defaults (block/mq-deadline.c).
const (
	deadlineDefaultReadExpire    = 500 * time.Millisecond  // HZ/2
	deadlineDefaultWriteExpire   = 5000 * time.Millisecond // 5*HZ
	deadlineDefaultWritesStarved = 2                       // read batches before writes must go
	deadlineDefaultFifoBatch     = 16                      // requests per batch
	deadlineDefaultFrontMerges   = true
)

// deadline is the mq-deadline elevator. Use New; the queue calls its
// methods under its lock.
type deadline struct {
	name          string
	expire        [2]time.Duration // by Dir
	writesStarved int
	fifoBatch     int
	frontMerges   bool

	sorted   [2][]*Request // by sector, ties in insertion order
	fifo     [2]rqList
	dispatch rqList // flushes and requeues, served first

	batching  int // requests dispatched in the current batch
	starved   int // read batches started while writes waited
	lastDir   Dir
	latestPos [2]uint64 // end of the last request dispatched, per direction
}

// New returns an mq-deadline elevator with Linux's default tunables.
func newDeadline(name string) *deadline {
	return &deadline{
		name:          name,
		expire:        [2]time.Duration{deadlineDefaultReadExpire, deadlineDefaultWriteExpire},
		writesStarved: deadlineDefaultWritesStarved,
		fifoBatch:     deadlineDefaultFifoBatch,
		frontMerges:   deadlineDefaultFrontMerges,
		lastDir:       DirWrite, // as Linux starts: the first dispatch looks for a write batch to continue
	}
}

// Name returns "mq-deadline".
func (d *deadline) Name() string { return d.name }

// Len returns the number of requests held.
func (d *deadline) Len() int { return d.fifo[0].Len() + d.fifo[1].Len() + d.dispatch.Len() }

// Insert adds rq with deadline now + read_expire or write_expire.
func (d *deadline) Insert(rq *Request, atHead bool, now Time) {
	if atHead {
		d.dispatch.PushFront(rq)
		return
	}
	dir := rq.Op.Dir()
	rq.fifoTime = now + Time(d.expire[dir])
	d.sortAdd(rq)
	d.fifo[dir].PushBack(rq)
}

// search returns the index of the first request in s with Sector >= sector.
func deadlineSearch(s []*Request, sector uint64) int {
	return sort.Search(len(s), func(i int) bool { return s[i].Sector >= sector })
}

func (d *deadline) sortAdd(rq *Request) {
	s := d.sorted[rq.Op.Dir()]
	i := deadlineSearch(s, rq.Sector+1) // after any equal sectors
	s = append(s, nil)
	copy(s[i+1:], s[i:])
	s[i] = rq
	d.sorted[rq.Op.Dir()] = s
}

// sortIndex returns rq's index in its sorted slice.
func (d *deadline) sortIndex(rq *Request) int {
	s := d.sorted[rq.Op.Dir()]
	for i := deadlineSearch(s, rq.Sector); i < len(s); i++ {
		if s[i] == rq {
			return i
		}
	}
	panic(fmt.Sprintf("mq-deadline: request %d+%d not in sort list", rq.Sector, rq.Sectors))
}

func (d *deadline) sortDel(rq *Request) {
	dir := rq.Op.Dir()
	i := d.sortIndex(rq)
	s := d.sorted[dir]
	copy(s[i:], s[i+1:])
	s[len(s)-1] = nil
	d.sorted[dir] = s[:len(s)-1]
}

func (d *deadline) remove(rq *Request) {
	d.sortDel(rq)
	d.fifo[rq.Op.Dir()].Remove(rq)
}

// fromPos returns the first request of dir at or after sector pos.
func (d *deadline) fromPos(dir Dir, pos uint64) *Request {
	s := d.sorted[dir]
	if i := deadlineSearch(s, pos); i < len(s) {
		return s[i]
	}
	return nil
}

// Dispatch removes and returns the next request to issue.
func (d *deadline) Dispatch(now Time) *Request {
	if rq := d.dispatch.Front(); rq != nil {
		d.dispatch.Remove(rq)
		return rq
	}
	// Continue the current batch in sector order.
	if d.batching < d.fifoBatch {
		if rq := d.fromPos(d.lastDir, d.latestPos[d.lastDir]); rq != nil {
			return d.take(rq)
		}
	}
	// Start a new batch: choose a direction.
	reads, writes := d.fifo[DirRead].Len() > 0, d.fifo[DirWrite].Len() > 0
	var dir Dir
	switch {
	case reads:
		dir = DirRead
		if writes {
			starved := d.starved
			d.starved++
			if starved >= d.writesStarved {
				dir = DirWrite
				d.starved = 0
			}
		}
	case writes:
		dir = DirWrite
		d.starved = 0
	default:
		return nil
	}
	rq := d.fromPos(dir, d.latestPos[dir])
	if head := d.fifo[dir].Front(); rq == nil || now >= head.fifoTime {
		rq = head
	}
	d.batching = 0
	return d.take(rq)
}

func (d *deadline) take(rq *Request) *Request {
	dir := rq.Op.Dir()
	d.batching++
	d.lastDir = dir
	d.latestPos[dir] = rq.End()
	d.remove(rq)
	return rq
}

// FrontMerge returns a request of op starting at sector, if front_merges
// is on.
func (d *deadline) FrontMerge(sector uint64, op Op) *Request {
	if !d.frontMerges {
		return nil
	}
	s := d.sorted[op.Dir()]
	for i := deadlineSearch(s, sector); i < len(s) && s[i].Sector == sector; i++ {
		if s[i].Op == op {
			return s[i]
		}
	}
	return nil
}

// Former returns the request before rq in sector order.
func (d *deadline) Former(rq *Request) *Request {
	if i := d.sortIndex(rq); i > 0 {
		return d.sorted[rq.Op.Dir()][i-1]
	}
	return nil
}

// Latter returns the request after rq in sector order.
func (d *deadline) Latter(rq *Request) *Request {
	s := d.sorted[rq.Op.Dir()]
	if i := d.sortIndex(rq); i+1 < len(s) {
		return s[i+1]
	}
	return nil
}

// AllowMerge allows every merge the queue's rules allow.
func (d *deadline) AllowMerge(*Request, *Bio) bool { return true }

// Merged re-sorts rq after a front merge moved its start.
func (d *deadline) Merged(rq *Request, front bool) {
	if !front {
		return
	}
	// The start moved down; restore sector order by bubbling rq left.
	s := d.sorted[rq.Op.Dir()]
	i := d.sortIndexMoved(rq)
	for i > 0 && s[i-1].Sector > rq.Sector {
		s[i-1], s[i] = s[i], s[i-1]
		i--
	}
}

// sortIndexMoved finds rq after its sector decreased (it still sits where
// its old sector put it, so search linearly from where the new one would).
func (d *deadline) sortIndexMoved(rq *Request) int {
	s := d.sorted[rq.Op.Dir()]
	for i := deadlineSearch(s, rq.Sector); i < len(s); i++ {
		if s[i] == rq {
			return i
		}
	}
	for i := range s {
		if s[i] == rq {
			return i
		}
	}
	panic("mq-deadline: merged request not in sort list")
}

// MergedRequests forgets next, merged into rq; rq inherits next's deadline
// and FIFO place if next would expire first.
func (d *deadline) MergedRequests(rq, next *Request) {
	dir := rq.Op.Dir()
	if next.fifoTime < rq.fifoTime {
		// Move rq to next's place in the FIFO.
		d.fifo[dir].Remove(rq)
		d.fifo[dir].InsertBefore(rq, next)
		rq.fifoTime = next.fifoTime
	}
	d.remove(next)
}

// Drain removes every request: the dispatch list, then reads and writes in
// FIFO order.
func (d *deadline) Drain() []*Request {
	var out []*Request
	for rq := d.dispatch.Front(); rq != nil; rq = d.dispatch.Front() {
		d.dispatch.Remove(rq)
		out = append(out, rq)
	}
	for dir := range d.fifo {
		for rq := d.fifo[dir].Front(); rq != nil; rq = d.fifo[dir].Front() {
			d.remove(rq)
			out = append(out, rq)
		}
	}
	return out
}

// Attrs lists the tunables (queue/iosched/ in sysfs).
func (d *deadline) Attrs() []string {
	return []string{"read_expire", "write_expire", "writes_starved", "fifo_batch", "front_merges"}
}

// Attr reads a tunable; expiries are in ms, as sysfs shows them.
func (d *deadline) Attr(name string) (string, error) {
	switch name {
	case "read_expire":
		return strconv.FormatInt(d.expire[DirRead].Milliseconds(), 10), nil
	case "write_expire":
		return strconv.FormatInt(d.expire[DirWrite].Milliseconds(), 10), nil
	case "writes_starved":
		return strconv.Itoa(d.writesStarved), nil
	case "fifo_batch":
		return strconv.Itoa(d.fifoBatch), nil
	case "front_merges":
		if d.frontMerges {
			return "1", nil
		}
		return "0", nil
	}
	return "", ErrNoAttr
}

// SetAttr writes a tunable as mq-deadline's sysfs store does: the value is
// a decimal int (32 bits, kstrtoint: a sign is allowed), else the write
// fails with EINVAL, or ERANGE if it does not fit; then it is clamped to
// the tunable's bounds: read_expire and write_expire (ms) 0..2147483647,
// fifo_batch 0..2147483647, writes_starved any int, front_merges 0..1. A
// refused write changes nothing.
func (d *deadline) SetAttr(name, value string) error {
	lo, hi, ok := deadlineBounds(name)
	if !ok {
		return ErrNoAttr
	}
	v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 32)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%w (want an int: %d..%d)", syscall.ERANGE, math.MinInt32, math.MaxInt32)
		}
		return fmt.Errorf("%w (want a decimal integer)", syscall.EINVAL)
	}
	n := int(min(max(v, lo), hi))
	switch name {
	case "read_expire":
		d.expire[DirRead] = time.Duration(n) * time.Millisecond
	case "write_expire":
		d.expire[DirWrite] = time.Duration(n) * time.Millisecond
	case "writes_starved":
		d.writesStarved = n
	case "fifo_batch":
		d.fifoBatch = n
	case "front_merges":
		d.frontMerges = n > 0
	}
	return nil
}

// bounds returns the range a written value is clamped to (mq-deadline's
// STORE_INT and STORE_JIFFIES bounds).
func deadlineBounds(name string) (lo, hi int64, ok bool) {
	switch name {
	case "read_expire", "write_expire", "fifo_batch":
		return 0, math.MaxInt32, true
	case "writes_starved":
		return math.MinInt32, math.MaxInt32, true
	case "front_merges":
		return 0, 1, true
	}
	return 0, 0, false
}
