package blkq

// mq-deadline as Linux 6.x has it (block/mq-deadline.c, 6.10 to 6.18): the
// default I/O scheduler.
//
// Requests are kept per I/O priority level, RT, BE and IDLE (a bio's
// class: none and best-effort are BE), each level with a sector-sorted
// list and a FIFO per direction and its own dispatch position per
// direction. Each request's deadline is its insert time plus read_expire
// or write_expire.
//
// Dispatch takes, in this order:
//
//  1. the dispatch list (requests inserted at the head: requeues and the
//     data of a flush sequence);
//  2. an aged request: when requests of two or more levels are queued
//     (inserted and not yet completed, in flight included), a BE or IDLE
//     request inserted prio_aging_expire (10 s) ago or earlier, so that
//     RT cannot starve them for ever;
//  3. the highest level with work: RT, else BE, else IDLE. A lower level
//     is not served while a higher one has requests queued, even if all
//     of those are already at the device.
//
// Within a level the 2002 deadline rules hold: a batch of up to
// fifo_batch requests of one direction goes on in sector order from the
// start of the request dispatched last in that direction; between
// batches reads are preferred unless writes waited through writes_starved
// read batches; a batch starts at the FIFO's head if its deadline has
// passed or nothing lies beyond the position, else at the next request in
// sector order. The batch counter, the direction of the last batch and
// the starvation count are shared by the levels, as in Linux.
//
// async_depth (default nr_requests) limits how many tags anything but a
// read may take under blk-mq tag allocation; Linux 6.18 also sets the
// tags' min_shallow_depth to 1, which makes wake_batch 1 (alloc_blkmq.go).
// Under the 2.4 allocation policies there are no tags and it does nothing.
//
// Left out: zoned devices and the per-level statistics in debugfs.
// Insert-time merges (blk_mq_sched_try_insert_merge) are the queue's
// (merge.go's insertMerge), for this elevator only.

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Linux 6.x's defaults (block/mq-deadline.c).
const (
	ddDefaultPrioAgingExpire = 10 * time.Second // 10*HZ: lower levels go first after this long
)

// The I/O priority levels (enum dd_prio).
const (
	ddRT = iota
	ddBE
	ddIdle
	ddPrioCount
)

// ddLevel maps a bio's I/O priority to mq-deadline's level: class 1 (RT)
// to RT, 3 (IDLE) to IDLE, none (0) and best-effort (2) to BE
// (ioprio_class_to_prio).
func ddLevel(prio uint16) int {
	switch prio >> 13 {
	case 1:
		return ddRT
	case 3:
		return ddIdle
	}
	return ddBE
}

// ddLevelNames are the levels as State shows them.
var ddLevelNames = [ddPrioCount]string{"RT", "BE", "IDLE"}

// ddPerPrio is one priority level's requests (struct dd_per_prio).
type ddPerPrio struct {
	sorted    [2]sortList // by sector, ties in insertion order (sortlist.go)
	fifo      [2]rqList
	latestPos [2]uint64 // start of the request dispatched last, per direction
	inserted  int       // requests inserted at this level
	completed int       // of those, freed (completed or merged away)
}

// queued is dd_queued: inserted and not yet completed, in flight included.
func (p *ddPerPrio) queued() int { return p.inserted - p.completed }

// mqDeadline is the mq-deadline elevator. Use newMQDeadline; the queue
// calls its methods under its lock.
type mqDeadline struct {
	expire        [2]time.Duration // by direction
	writesStarved int
	fifoBatch     int
	frontMerges   bool
	prioAging     time.Duration
	asyncDepth    int

	dispatch rqList // inserted at the head: served first
	prio     [ddPrioCount]ddPerPrio

	lastDir  direction
	batching int // requests dispatched in the current batch
	starved  int // read batches started while writes waited
}

// newMQDeadline returns an mq-deadline elevator with Linux's default
// tunables.
func newMQDeadline() *mqDeadline {
	return &mqDeadline{
		expire:        [2]time.Duration{deadlineDefaultReadExpire, deadlineDefaultWriteExpire},
		writesStarved: deadlineDefaultWritesStarved,
		fifoBatch:     deadlineDefaultFifoBatch,
		frontMerges:   deadlineDefaultFrontMerges,
		prioAging:     ddDefaultPrioAgingExpire,
		asyncDepth:    defaultNrRequests,
		lastDir:       dirWrite, // as dd_init_sched starts
	}
}

// Name returns "mq-deadline".
func (d *mqDeadline) Name() string { return "mq-deadline" }

// Len returns the number of requests held.
func (d *mqDeadline) Len() int {
	n := d.dispatch.Len()
	for i := range d.prio {
		n += d.prio[i].fifo[0].Len() + d.prio[i].fifo[1].Len()
	}
	return n
}

// Insert adds rq: at the head to the dispatch list, else to its level's
// sort list and FIFO with deadline now + read_expire or write_expire. A
// request is counted as inserted at its level once, however often it is
// inserted (rq->elv.priv[0] in Linux).
func (d *mqDeadline) Insert(rq *Request, atHead bool, now Time) {
	lvl := ddLevel(rq.Prio)
	if rq.dd != d {
		rq.dd = d
		d.prio[lvl].inserted++
	}
	rq.elvIndex = lvl
	if atHead {
		d.dispatch.PushFront(rq)
		rq.fifoTime = now
		return
	}
	dir := rq.Op.dir()
	p := &d.prio[lvl]
	rq.fifoTime = now + Time(d.expire[dir])
	p.sorted[dir].add(rq)
	p.fifo[dir].PushBack(rq)
}

// Finished counts rq as completed at its level (dd_finish_request): the
// queue calls it when rq is freed, after completing or merging into
// another. A request this elevator never inserted is not counted.
func (d *mqDeadline) Finished(rq *Request) {
	if rq.dd == d {
		d.prio[rq.elvIndex].completed++
		rq.dd = nil
	}
}

// remove takes rq off its level's sort list and FIFO.
func (d *mqDeadline) remove(rq *Request) {
	p := &d.prio[rq.elvIndex]
	dir := rq.Op.dir()
	p.sorted[dir].del(rq)
	p.fifo[dir].Remove(rq)
}

// fromPos returns level p's first request of dir at or after sector pos
// (deadline_from_pos).
func (p *ddPerPrio) fromPos(dir direction, pos uint64) *Request {
	return p.sorted[dir].fromPos(pos)
}

// Dispatch removes and returns the next request to issue
// (dd_dispatch_request).
func (d *mqDeadline) Dispatch(now Time) *Request {
	if rq := d.dispatch.Front(); rq != nil {
		d.dispatch.Remove(rq)
		d.start(rq)
		return rq
	}
	if rq := d.dispatchAged(now); rq != nil {
		return rq
	}
	for lvl := range d.prio {
		rq := d.dispatchLevel(lvl, now, now)
		if rq != nil || d.prio[lvl].queued() > 0 {
			return rq
		}
	}
	return nil
}

// dispatchAged returns a BE or IDLE request inserted prio_aging_expire
// ago or earlier, if requests of at least two levels are queued
// (dd_dispatch_prio_aged_requests).
func (d *mqDeadline) dispatchAged(now Time) *Request {
	busy := 0
	for i := range d.prio {
		if d.prio[i].queued() > 0 {
			busy++
		}
	}
	if busy < 2 {
		return nil
	}
	for lvl := ddBE; lvl < ddPrioCount; lvl++ {
		if rq := d.dispatchLevel(lvl, now, now-Time(d.prioAging)); rq != nil {
			return rq
		}
	}
	return nil
}

// dispatchLevel picks level lvl's next request by the deadline rules and
// takes it, unless it was inserted after latestStart
// (__dd_dispatch_request). What it decides on the way (a new batch, its
// direction, the starvation count) stands even when the request it picks
// is too young, as in Linux.
func (d *mqDeadline) dispatchLevel(lvl int, now, latestStart Time) *Request {
	p := &d.prio[lvl]
	rq := p.fromPos(d.lastDir, p.latestPos[d.lastDir])
	if rq == nil || d.batching >= d.fifoBatch {
		var dir direction
		switch {
		case p.fifo[dirRead].Len() > 0:
			dir = dirRead
			if p.fifo[dirWrite].Len() > 0 {
				starved := d.starved
				d.starved++
				if starved >= d.writesStarved {
					dir = dirWrite
					d.starved = 0
				}
			}
		case p.fifo[dirWrite].Len() > 0:
			dir = dirWrite
			d.starved = 0
		default:
			return nil
		}
		rq = p.fromPos(dir, p.latestPos[dir])
		if head := p.fifo[dir].Front(); rq == nil || now >= head.fifoTime {
			rq = head
		}
		d.lastDir = dir
		d.batching = 0
	}
	if start := rq.fifoTime - Time(d.expire[rq.Op.dir()]); start > latestStart {
		return nil
	}
	d.batching++
	d.remove(rq)
	d.start(rq)
	return rq
}

// start records rq's start as its level's position in its direction
// (dd_start_request). A flush (sector 0, no data) moves nothing.
func (d *mqDeadline) start(rq *Request) {
	if rq.Op != OpFlush {
		d.prio[rq.elvIndex].latestPos[rq.Op.dir()] = rq.Sector
	}
}

// FrontMergePrio returns a request of op starting at sector at the level
// of the bio's priority, if front_merges is on (dd_request_merge).
func (d *mqDeadline) FrontMergePrio(sector uint64, op Op, prio uint16) *Request {
	if !d.frontMerges {
		return nil
	}
	return d.prio[ddLevel(prio)].sorted[op.dir()].frontOf(sector, op)
}

// FrontMerge is FrontMergePrio at the best-effort level (the queue uses
// FrontMergePrio).
func (d *mqDeadline) FrontMerge(sector uint64, op Op) *Request {
	return d.FrontMergePrio(sector, op, 0)
}

// Former returns the request before rq in its level's sector order.
func (d *mqDeadline) Former(rq *Request) *Request {
	before, _ := d.prio[rq.elvIndex].sorted[rq.Op.dir()].neighbours(rq)
	return before
}

// Latter returns the request after rq in its level's sector order.
func (d *mqDeadline) Latter(rq *Request) *Request {
	_, after := d.prio[rq.elvIndex].sorted[rq.Op.dir()].neighbours(rq)
	return after
}

// AllowMerge allows every merge the queue's rules allow.
func (d *mqDeadline) AllowMerge(*Request, *Bio) bool { return true }

// Merged re-sorts rq after a front merge moved its start
// (dd_request_merged).
func (d *mqDeadline) Merged(rq *Request, front bool) {
	if !front {
		return
	}
	p := &d.prio[rq.elvIndex]
	dir := rq.Op.dir()
	p.sorted[dir].moved(rq)
}

// MergedRequests forgets next, merged into rq; rq takes next's deadline
// and FIFO place if next would expire first (dd_merged_requests).
func (d *mqDeadline) MergedRequests(rq, next *Request) {
	if next.fifoTime < rq.fifoTime {
		fifo := &d.prio[rq.elvIndex].fifo[rq.Op.dir()]
		fifo.Remove(rq)
		d.prio[next.elvIndex].fifo[next.Op.dir()].InsertBefore(rq, next)
		rq.fifoTime = next.fifoTime
	}
	d.remove(next)
}

// Drain removes every request: the dispatch list, then each level's
// reads and writes in FIFO order, RT first.
func (d *mqDeadline) Drain() []*Request {
	var out []*Request
	for rq := d.dispatch.Front(); rq != nil; rq = d.dispatch.Front() {
		d.dispatch.Remove(rq)
		out = append(out, rq)
	}
	for lvl := range d.prio {
		for dir := range d.prio[lvl].fifo {
			f := &d.prio[lvl].fifo[dir]
			for rq := f.Front(); rq != nil; rq = f.Front() {
				d.remove(rq)
				out = append(out, rq)
			}
		}
	}
	return out
}

// DepthUpdated resets async_depth to the tag set's depth, as
// dd_depth_updated does whenever nr_requests changes.
func (d *mqDeadline) DepthUpdated(nr int) { d.asyncDepth = nr }

// AsyncDepth is async_depth: the tags anything but a read may use.
func (d *mqDeadline) AsyncDepth() int { return d.asyncDepth }

// MinShallowDepth is 1, as Linux 6.18's mq-deadline sets it.
func (d *mqDeadline) MinShallowDepth() int { return 1 }

// State describes the elevator as Linux's debugfs does, in part: per
// level the requests queued (inserted, not completed) and in the sort
// lists, and the batch state.
func (d *mqDeadline) State() string {
	s := "dispatch=" + strconv.Itoa(d.dispatch.Len())
	for lvl := range d.prio {
		p := &d.prio[lvl]
		s += fmt.Sprintf(" %s:queued=%d,reads=%d,writes=%d", ddLevelNames[lvl], p.queued(), p.fifo[dirRead].Len(), p.fifo[dirWrite].Len())
	}
	return s + fmt.Sprintf(" batching=%d starved=%d last_dir=%v", d.batching, d.starved, d.lastDir)
}

// mqDeadlineTunables are mq-deadline's files in queue/iosched/, in
// Linux's order. Written values are parsed as a 32-bit int (kstrtoint)
// and clamped to the bounds, as Linux's STORE_INT and STORE_JIFFIES do;
// times are in ms, as sysfs shows them.
var mqDeadlineTunables = []tunable[*mqDeadline]{
	{tunableInfo: tunableInfo{name: "read_expire", unit: "ms", lo: 0, hi: math.MaxInt32,
		def: "500", source: "Linux default HZ/2 (block/mq-deadline.c)", doc: "a read's deadline after its insert"},
		get:   func(d *mqDeadline) string { return strconv.FormatInt(d.expire[dirRead].Milliseconds(), 10) },
		parse: parseInt32Clamped,
		set: func(d *mqDeadline, n int64) error {
			d.expire[dirRead] = time.Duration(n) * time.Millisecond
			return nil
		}},
	{tunableInfo: tunableInfo{name: "write_expire", unit: "ms", lo: 0, hi: math.MaxInt32,
		def: "5000", source: "Linux default 5*HZ (block/mq-deadline.c)", doc: "a write's deadline after its insert"},
		get:   func(d *mqDeadline) string { return strconv.FormatInt(d.expire[dirWrite].Milliseconds(), 10) },
		parse: parseInt32Clamped,
		set: func(d *mqDeadline, n int64) error {
			d.expire[dirWrite] = time.Duration(n) * time.Millisecond
			return nil
		}},
	{tunableInfo: tunableInfo{name: "writes_starved", unit: "read batches", lo: math.MinInt32, hi: math.MaxInt32,
		def: "2", source: "Linux default 2 (block/mq-deadline.c)", doc: "read batches started while writes wait before a write batch must go"},
		get:   func(d *mqDeadline) string { return strconv.Itoa(d.writesStarved) },
		parse: parseInt32Clamped,
		set:   func(d *mqDeadline, n int64) error { d.writesStarved = int(n); return nil }},
	{tunableInfo: tunableInfo{name: "front_merges", unit: "0 or 1", lo: 0, hi: 1,
		def: "1", source: "Linux default 1 (block/mq-deadline.c)", doc: "whether a bio may merge at the front of a queued request"},
		get: func(d *mqDeadline) string {
			if d.frontMerges {
				return "1"
			}
			return "0"
		},
		parse: parseInt32Clamped,
		set:   func(d *mqDeadline, n int64) error { d.frontMerges = n > 0; return nil }},
	{tunableInfo: tunableInfo{name: "async_depth", unit: "tags", lo: 1, hi: math.MaxInt32,
		def: strconv.Itoa(defaultNrRequests), source: "Linux 6.18: nr_requests, reset when it changes (dd_depth_updated)",
		doc: "tags anything but a read may take under alloc blk-mq (the lowest ones); no effect under the 2.4 policies"},
		get:   func(d *mqDeadline) string { return strconv.Itoa(d.asyncDepth) },
		parse: parseInt32Clamped,
		set:   func(d *mqDeadline, n int64) error { d.asyncDepth = int(n); return nil }},
	{tunableInfo: tunableInfo{name: "fifo_batch", unit: "requests", lo: 0, hi: math.MaxInt32,
		def: "16", source: "Linux default 16 (block/mq-deadline.c)", doc: "requests per batch of one direction in sector order"},
		get:   func(d *mqDeadline) string { return strconv.Itoa(d.fifoBatch) },
		parse: parseInt32Clamped,
		set:   func(d *mqDeadline, n int64) error { d.fifoBatch = int(n); return nil }},
	{tunableInfo: tunableInfo{name: "prio_aging_expire", unit: "ms", lo: 0, hi: math.MaxInt32,
		def: "10000", source: "Linux default 10*HZ (block/mq-deadline.c)", doc: "how long a BE or IDLE request may wait while a higher level has work"},
		get:   func(d *mqDeadline) string { return strconv.FormatInt(d.prioAging.Milliseconds(), 10) },
		parse: parseInt32Clamped,
		set:   func(d *mqDeadline, n int64) error { d.prioAging = time.Duration(n) * time.Millisecond; return nil }},
}

// Attrs lists the tunables (queue/iosched/ in sysfs).
func (d *mqDeadline) Attrs() []string { return tunableNames(mqDeadlineTunables) }

// Attr reads a tunable.
func (d *mqDeadline) Attr(name string) (string, error) {
	return readTunable(mqDeadlineTunables, d, name)
}

// SetAttr writes a tunable (see mqDeadlineTunables); a refused write
// changes nothing.
func (d *mqDeadline) SetAttr(name, value string) error {
	return writeTunable(mqDeadlineTunables, d, name, value)
}
