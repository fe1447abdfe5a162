package blkq

// mq-deadline-noprio: blkq's mq-deadline before it followed Linux 6.x
// (sched_deadline.go), kept under its own name for the experiments, whose
// results were measured with it: requests sorted by sector per direction,
// each also on a per-direction FIFO with a deadline, and nothing else.
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
// Where it differs from Linux 6.x's mq-deadline: one priority level
// (every request is best-effort: no RT/IDLE lists, no prio_aging_expire,
// no async_depth), and a batch goes on from the end of the request
// dispatched last, where Linux goes on from its start.

import (
	"math"
	"strconv"
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

// deadline is the mq-deadline-noprio elevator. Use newDeadline; the queue
// calls its methods under its lock.
type deadline struct {
	name          string
	expire        [2]time.Duration // by direction
	writesStarved int
	fifoBatch     int
	frontMerges   bool

	sorted   [2]sortList // by sector, ties in insertion order (sortlist.go)
	fifo     [2]rqList
	dispatch rqList // flushes and requeues, served first

	batching  int // requests dispatched in the current batch
	starved   int // read batches started while writes waited
	lastDir   direction
	latestPos [2]uint64 // end of the last request dispatched, per direction
}

// newDeadline returns an mq-deadline-noprio elevator with Linux's default
// tunables.
func newDeadline(name string) *deadline {
	return &deadline{
		name:          name,
		expire:        [2]time.Duration{deadlineDefaultReadExpire, deadlineDefaultWriteExpire},
		writesStarved: deadlineDefaultWritesStarved,
		fifoBatch:     deadlineDefaultFifoBatch,
		frontMerges:   deadlineDefaultFrontMerges,
		lastDir:       dirWrite, // as Linux starts: the first dispatch looks for a write batch to continue
	}
}

// Name returns the name it was made with: "mq-deadline-noprio".
func (d *deadline) Name() string { return d.name }

// Len returns the number of requests held.
func (d *deadline) Len() int { return d.fifo[0].Len() + d.fifo[1].Len() + d.dispatch.Len() }

// Insert adds rq with deadline now + read_expire or write_expire.
func (d *deadline) Insert(rq *Request, atHead bool, now Time) {
	if atHead {
		d.dispatch.PushFront(rq)
		return
	}
	dir := rq.Op.dir()
	rq.fifoTime = now + Time(d.expire[dir])
	d.sortAdd(rq)
	d.fifo[dir].PushBack(rq)
}

func (d *deadline) sortAdd(rq *Request) { d.sorted[rq.Op.dir()].add(rq) }

func (d *deadline) sortDel(rq *Request) { d.sorted[rq.Op.dir()].del(rq) }

func (d *deadline) remove(rq *Request) {
	d.sortDel(rq)
	d.fifo[rq.Op.dir()].Remove(rq)
}

// fromPos returns the first request of dir at or after sector pos.
func (d *deadline) fromPos(dir direction, pos uint64) *Request {
	return d.sorted[dir].fromPos(pos)
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
	reads, writes := d.fifo[dirRead].Len() > 0, d.fifo[dirWrite].Len() > 0
	var dir direction
	switch {
	case reads:
		dir = dirRead
		if writes {
			starved := d.starved
			d.starved++
			if starved >= d.writesStarved {
				dir = dirWrite
				d.starved = 0
			}
		}
	case writes:
		dir = dirWrite
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
	dir := rq.Op.dir()
	d.batching++
	d.lastDir = dir
	d.latestPos[dir] = rq.end()
	d.remove(rq)
	return rq
}

// FrontMerge returns a request of op starting at sector, if front_merges
// is on.
func (d *deadline) FrontMerge(sector uint64, op Op) *Request {
	if !d.frontMerges {
		return nil
	}
	return d.sorted[op.dir()].frontOf(sector, op)
}

// Former returns the request before rq in sector order.
func (d *deadline) Former(rq *Request) *Request {
	before, _ := d.sorted[rq.Op.dir()].neighbours(rq)
	return before
}

// Latter returns the request after rq in sector order.
func (d *deadline) Latter(rq *Request) *Request {
	_, after := d.sorted[rq.Op.dir()].neighbours(rq)
	return after
}

// AllowMerge allows every merge the queue's rules allow.
func (d *deadline) AllowMerge(*Request, *Bio) bool { return true }

// Merged re-sorts rq after a front merge moved its start.
func (d *deadline) Merged(rq *Request, front bool) {
	if !front {
		return
	}
	// The start moved down: back into sector order, after the
	// requests of its new sector.
	d.sorted[rq.Op.dir()].moved(rq)
}

// MergedRequests forgets next, merged into rq; rq inherits next's deadline
// and FIFO place if next would expire first.
func (d *deadline) MergedRequests(rq, next *Request) {
	dir := rq.Op.dir()
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

// deadlineTunables are mq-deadline's files in queue/iosched/. Written
// values are parsed as a 32-bit int (kstrtoint: a sign is allowed, else
// EINVAL, ERANGE if it does not fit) and clamped to the bounds, as
// mq-deadline's STORE_INT and STORE_JIFFIES do; expiries are in ms, as
// sysfs shows them.
var deadlineTunables = []tunable[*deadline]{
	{tunableInfo: tunableInfo{name: "read_expire", unit: "ms", lo: 0, hi: math.MaxInt32,
		def: "500", source: "Linux default HZ/2 (block/mq-deadline.c)", doc: "a read's deadline after its insert"},
		get:   func(d *deadline) string { return strconv.FormatInt(d.expire[dirRead].Milliseconds(), 10) },
		parse: parseInt32Clamped,
		set:   func(d *deadline, n int64) error { d.expire[dirRead] = time.Duration(n) * time.Millisecond; return nil }},
	{tunableInfo: tunableInfo{name: "write_expire", unit: "ms", lo: 0, hi: math.MaxInt32,
		def: "5000", source: "Linux default 5*HZ (block/mq-deadline.c)", doc: "a write's deadline after its insert"},
		get:   func(d *deadline) string { return strconv.FormatInt(d.expire[dirWrite].Milliseconds(), 10) },
		parse: parseInt32Clamped,
		set:   func(d *deadline, n int64) error { d.expire[dirWrite] = time.Duration(n) * time.Millisecond; return nil }},
	{tunableInfo: tunableInfo{name: "writes_starved", unit: "read batches", lo: math.MinInt32, hi: math.MaxInt32,
		def: "2", source: "Linux default 2 (block/mq-deadline.c)", doc: "read batches started while writes wait before a write batch must go"},
		get:   func(d *deadline) string { return strconv.Itoa(d.writesStarved) },
		parse: parseInt32Clamped,
		set:   func(d *deadline, n int64) error { d.writesStarved = int(n); return nil }},
	{tunableInfo: tunableInfo{name: "fifo_batch", unit: "requests", lo: 0, hi: math.MaxInt32,
		def: "16", source: "Linux default 16 (block/mq-deadline.c)", doc: "requests per batch of one direction in sector order"},
		get:   func(d *deadline) string { return strconv.Itoa(d.fifoBatch) },
		parse: parseInt32Clamped,
		set:   func(d *deadline, n int64) error { d.fifoBatch = int(n); return nil }},
	{tunableInfo: tunableInfo{name: "front_merges", unit: "0 or 1", lo: 0, hi: 1,
		def: "1", source: "Linux default 1 (block/mq-deadline.c)", doc: "whether a bio may merge at the front of a queued request"},
		get: func(d *deadline) string {
			if d.frontMerges {
				return "1"
			}
			return "0"
		},
		parse: parseInt32Clamped,
		set:   func(d *deadline, n int64) error { d.frontMerges = n > 0; return nil }},
}

// Attrs lists the tunables (queue/iosched/ in sysfs).
func (d *deadline) Attrs() []string { return tunableNames(deadlineTunables) }

// Attr reads a tunable.
func (d *deadline) Attr(name string) (string, error) { return readTunable(deadlineTunables, d, name) }

// SetAttr writes a tunable (see deadlineTunables); a refused write changes
// nothing.
func (d *deadline) SetAttr(name, value string) error {
	return writeTunable(deadlineTunables, d, name, value)
}
