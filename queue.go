package blkq

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Config sets up a queue. The zero value of a field means Linux's default.
type Config struct {
	// Scheduler is the elevator's name: "none", "mq-deadline" (Linux 6.x),
	// "mq-deadline-noprio" (blkq's before it, one priority level) or "linus"
	// (the 2.4 elevator with its stock 2.4.21 tunables).
	// Default "mq-deadline": Linux's default for a device with one
	// hardware queue (elevator_get_default), as every blkq device is.
	Scheduler string
	// NrRequests is the request pool per direction (Linux default 128,
	// BLKDEV_MAX_RQ; minimum 4). Under Alloc "blk-mq" it is the one tag
	// set both directions share, and its default is blk-mq's: twice the
	// smaller of the device's queue depth and 128 with an elevator, the
	// queue depth (at most 2048) with none.
	NrRequests int
	// BatchRequests is batch_requests, the free count at which a release
	// wakes sleepers (default 0: nr_requests/4, as Linux 2.4.18; at most
	// nr_requests). Linux 2.4 split queue_nr_requests (128) in half
	// between reads and writes but set the batch from the whole, so a
	// 2.4.18 queue is NrRequests 64 with BatchRequests 32.
	BatchRequests int
	// Alloc names the request-allocation policy: "fair" (the default:
	// Linux 2.4.18's get_request after the 2002 starvation fix),
	// "legacy" (2.4.18-pre9, before it), "fair-nobatch" (fair, waking a
	// sleeper as soon as any request is freed) or "fair-wakeall" (fair
	// with wake-all) or "blk-mq" (Linux 6.x's tags: one set for both
	// directions, eight wait queues, wake_batch). docs/linux-block-layer.md
	// tells them apart.
	Alloc string
	// NoMerges is the nomerges tunable: 0 all merges, 1 one-hit cache
	// only, 2 none (Linux default 0).
	NoMerges int
	// MaxSectors is the largest request in sectors (Linux default 2560,
	// 1280 KiB: BLK_DEF_MAX_SECTORS).
	MaxSectors uint32
	// ReadAheadKB is read_ahead_kb (Linux default 128 KiB); the queue
	// only stores it for the layers above.
	ReadAheadKB int
	// PlugLimit is the request count at which a plug flushes (Linux 32,
	// BLK_MAX_REQUEST_COUNT).
	PlugLimit int
	// LockHook, if set, hears every hold of the queue lock (package
	// lockstat's Timer measures hold times with it). Default none: the
	// lock costs nothing extra.
	LockHook LockHook
}

// A LockHook hears every hold of a queue's lock: Acquired just after the
// lock is taken, Released just before it is let go, both on the holder's
// goroutine and under the lock, so they must not call into the queue.
type LockHook interface {
	Acquired()
	Released()
}

// check refuses the fields fill would otherwise accept or wrap.
func (c *Config) check() error {
	switch {
	case c.NoMerges < 0 || c.NoMerges > 2:
		return fmt.Errorf("blkq: nomerges %d: want 0, 1 or 2", c.NoMerges)
	case c.NrRequests < 0 || c.NrRequests > maxNrRequests:
		return fmt.Errorf("blkq: nr_requests %d: want 0 (the default, %d) or up to %d", c.NrRequests, defaultNrRequests, maxNrRequests)
	case c.BatchRequests < 0:
		return fmt.Errorf("blkq: batch_requests %d: want 0 (nr_requests/4) or more", c.BatchRequests)
	case c.MaxSectors != 0 && (c.MaxSectors < 2*pageKB || c.MaxSectors > 2*maxHWSectorsKB):
		return fmt.Errorf("blkq: max_sectors %d: want 0 (the default, %d) or %d..%d sectors", c.MaxSectors, defaultMaxSectors, 2*pageKB, 2*maxHWSectorsKB)
	case c.ReadAheadKB < 0 || int64(c.ReadAheadKB) > math.MaxUint32:
		return fmt.Errorf("blkq: read_ahead_kb %d: want 0 (the default, %d) up to %d", c.ReadAheadKB, defaultReadAhead, uint32(math.MaxUint32))
	case c.Alloc != "" && !slices.Contains(allocPolicyNames(), c.Alloc):
		return fmt.Errorf("blkq: unknown allocation policy %q (have %s)", c.Alloc, strings.Join(allocPolicyNames(), ", "))
	case c.PlugLimit < 0:
		return fmt.Errorf("blkq: plug limit %d: want 0 (the default, %d) or more", c.PlugLimit, defaultPlugLimit)
	}
	return nil
}

func (c *Config) fill() {
	if c.Scheduler == "" {
		c.Scheduler = defaultScheduler
	}
	if c.NrRequests == 0 {
		c.NrRequests = defaultNrRequests
	}
	c.NrRequests = max(c.NrRequests, minNrRequests)
	if c.Alloc == "" {
		c.Alloc = allocFair.name
	}
	if c.MaxSectors == 0 {
		c.MaxSectors = defaultMaxSectors
	}
	if c.ReadAheadKB == 0 {
		c.ReadAheadKB = defaultReadAhead
	}
	c.ReadAheadKB = c.ReadAheadKB / pageKB * pageKB
	if c.PlugLimit == 0 {
		c.PlugLimit = defaultPlugLimit
	}
}

// Errors a bio can end with.
var (
	// ErrReadAheadDropped ends a read-ahead bio that found the request
	// pool under pressure (Linux fails REQ_RAHEAD rather than sleep, with
	// BLK_STS_AGAIN). It wraps syscall.EAGAIN, so a trace records the
	// completion with errno 11.
	ErrReadAheadDropped error = &errnoError{"blkq: read-ahead dropped: no free request", syscall.EAGAIN}
	// ErrBeyondEnd ends a bio that reaches past the device's capacity.
	ErrBeyondEnd = errors.New("blkq: access beyond end of device")
	// ErrBadBio ends a malformed bio: an unknown op, a read, write or
	// discard of zero sectors, a flush of some, or a buffer whose length
	// is not Sectors × 512 bytes.
	ErrBadBio = errors.New("blkq: malformed bio")
	// errTaskAsleep ends a bio submitted by a task that is asleep (a
	// caller's bug: the task must wait for its Wake). It wraps EBUSY.
	errTaskAsleep error = &errnoError{"blkq: submit from a sleeping task", syscall.EBUSY}
	// errClosed ends a bio submitted after Close. It wraps ENODEV, as
	// Linux fails I/O to a queue being torn down (blk_queue_enter).
	errClosed error = &errnoError{"blkq: queue closed", syscall.ENODEV}
)

// errnoError is an error with its own message that wraps an errno.
type errnoError struct {
	msg   string
	errno syscall.Errno
}

func (e *errnoError) Error() string { return e.msg }
func (e *errnoError) Unwrap() error { return e.errno }

// A Queue is one device's request queue: merging, request allocation, the
// elevator, dispatch at the device's queue depth, and completion.
//
// All methods are safe for concurrent use. Internally one mutex guards the
// state; every walk under it is bounded (plug ≤ PlugLimit, merge lookups
// O(1) or O(log n)), and callbacks (EndIO, Task.Wake, timers) run after it
// is released.
type Queue struct {
	mu  sync.Mutex
	clk Clock
	dev Device
	cfg Config
	// inline is dev if it serves some requests on the issuing goroutine
	// (inlineDevice, device.go), else nil.
	inline inlineDevice

	alloc     allocator
	elv       elevator
	hooks     elvHooks  // elv's optional interfaces
	hash      mergeHash // back-merge hash, keyed by end sector (mergehash.go)
	lastMerge *Request  // one-hit cache
	inflight  int       // issued to the device
	tracers   []Tracer
	wants     []actionSet // what each tracer consumes (Tracer's Actions), by index
	wanted    actionSet   // what any tracer consumes: other events are not filled in
	ev        Event       // scratch event, reused under the lock
	closed    bool

	pending []deferred // callbacks to run after unlock; its array is reused
	wakebuf []*waiter
	hold    LockHook // Config.LockHook, or nil

	lim      limits     // the device's (limits.go)
	wcOff    bool       // write_cache written "write through"
	fq       flushQueue // flush sequencing (flush.go)
	dispatch rqList     // issued before the elevator's: the flush request (hctx->dispatch)

	// The time of this lock hold (now): read from clk at most once per
	// hold, on first use, or a submitter's (Bio.Start), and forgotten
	// when the lock is taken again. lastNow is the latest time a hold has
	// used, below which a submitter's is not taken.
	nowTime  Time
	nowValid bool
	lastNow  Time
}

// deferred is a callback to run outside the lock: a bio's end_io or a
// task's wake-up.
type deferred struct {
	bio *Bio
	err error
	w   *waiter
}

// New makes a queue in front of dev, driven by clk. A Config field out of
// the bounds SetAttr enforces for its tunable is an error naming it
// (nr_requests below 4 becomes 4, as Linux clamps it; read_ahead_kb is
// rounded down to whole pages). A nil dev or clk, or a device whose Depth
// is below 1 (the queue could never issue to it), is an error too.
func New(dev Device, clk Clock, cfg Config) (*Queue, error) {
	switch {
	case dev == nil:
		return nil, errors.New("blkq: New: nil Device")
	case clk == nil:
		return nil, errors.New("blkq: New: nil Clock (blkq.NewRealClock() for a real device)")
	case dev.Depth() < 1:
		return nil, fmt.Errorf("blkq: New: device %s has queue depth %d: want at least 1", dev.Name(), dev.Depth())
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	lim, err := readLimits(dev)
	if err != nil {
		return nil, err
	}
	if cfg.MaxSectors > uint32(2*lim.maxHWSectorsKB) {
		return nil, fmt.Errorf("blkq: max_sectors %d: the device %s takes at most %d (max_hw_sectors_kb %d)", cfg.MaxSectors, dev.Name(), 2*lim.maxHWSectorsKB, lim.maxHWSectorsKB)
	}
	if cfg.MaxSectors == 0 {
		cfg.MaxSectors = min(defaultMaxSectors, uint32(2*lim.maxHWSectorsKB))
	}
	nrDefault := cfg.NrRequests == 0
	cfg.fill()
	p, _ := allocPolicyByName(cfg.Alloc)
	switch {
	case p.tags && nrDefault:
		cfg.NrRequests = blkmqNrRequests(cfg.Scheduler, dev.Depth())
	case p.tags && cfg.Scheduler == "none" && cfg.NrRequests > dev.Depth():
		return nil, fmt.Errorf("blkq: nr_requests %d: blk-mq without a scheduler has the device's tags, at most its queue depth %d", cfg.NrRequests, dev.Depth())
	}
	elv, err := newElevator(cfg.Scheduler, clk)
	if err != nil {
		return nil, err
	}
	q := &Queue{clk: clk, dev: dev, cfg: cfg, elv: elv, hooks: hooksOf(elv), lim: lim}
	q.alloc.init(p, cfg.NrRequests, cfg.BatchRequests)
	q.depthUpdated()
	q.hold = cfg.LockHook
	q.inline, _ = dev.(inlineDevice)
	dev.Attach(q.complete)
	return q, nil
}

// Device returns the device the queue serves.
func (q *Queue) Device() Device { return q.dev }

// AddTracer adds a consumer of the event stream. A *DiskStats added here
// is read under the queue's lock from then on (see DiskStats); add it
// before any goroutine reads it.
func (q *Queue) AddTracer(t Tracer) {
	q.lock()
	w := allActions
	switch at := t.(type) {
	case *DiskStats:
		w = actionsOf(diskStatsActions)
	case actionTracer:
		w = actionsOf(at.Actions())
	}
	q.tracers = append(q.tracers, t)
	q.wants = append(q.wants, w)
	q.wanted |= w
	if a, ok := t.(queueAttacher); ok {
		a.attach(q)
	}
	q.release()
}

// queueAttacher is a tracer whose readers take the lock of the queue it
// traces.
type queueAttacher interface{ attach(q *Queue) }

// lock takes the queue lock (and tells the lock hook, if any).
func (q *Queue) lock() {
	q.mu.Lock()
	q.nowValid = false
	if q.hold != nil {
		q.hold.Acquired()
	}
}

// now returns the time of the current lock hold: the clock is read once,
// on first use, and every event, stamp and deadline of the hold shares
// that reading. A hold is short and bounded (no loop under the lock is
// unbounded), so on the real clock this costs at most that hold's length
// in precision and saves a clock read per event (a vDSO call, 60-90 ns on
// the virtual machines blkq is measured on); on the simulator's clock,
// which does not move within an event, it changes nothing. Call it only
// under the lock.
func (q *Queue) now() Time {
	if !q.nowValid {
		q.nowTime, q.nowValid = q.clk.Now(), true
		q.lastNow = max(q.lastNow, q.nowTime)
	}
	return q.nowTime
}

// startAt makes t the time of the current hold if the hold has no time
// yet and t is not before the latest time the queue has used (Bio.Start).
// Call it only under the lock.
func (q *Queue) startAt(t Time) {
	if t != 0 && !q.nowValid && t >= q.lastNow {
		q.nowTime, q.nowValid, q.lastNow = t, true, t
	}
}

// release releases the queue lock.
func (q *Queue) release() {
	if q.hold != nil {
		q.hold.Released()
	}
	q.mu.Unlock()
}

// unlock releases the lock and runs what was deferred under it: end_io
// callbacks first, then wake-ups, in the order they were queued; then an
// inlineDevice serves what the hold set aside for it.
//
// The callbacks are copied out of q.pending before the lock goes, so its
// array is reused by the next hold and an I/O allocates nothing here. A
// callback may itself take the lock (an EndIO submitting the next bio)
// while this loop runs; it fills q.pending anew, not the copy. Up to
// len(local) callbacks (every hold but a large completion's) are copied
// to the stack.
func (q *Queue) unlock() {
	if q.inline != nil {
		defer q.inline.RunInline()
	}
	n := len(q.pending)
	if n == 0 {
		q.release()
		return
	}
	var local [8]deferred
	var run []deferred
	if n <= len(local) {
		run = local[:n]
	} else {
		run = make([]deferred, n)
	}
	copy(run, q.pending)
	clear(q.pending) // no stale bio or waiter kept alive by the array
	q.pending = q.pending[:0]
	q.release()
	for i := range run {
		d := &run[i]
		if d.w != nil {
			q.wake(d.w)
		} else if d.bio.EndIO != nil {
			d.bio.EndIO(d.bio, d.err)
		}
	}
}

func (q *Queue) endBio(b *Bio, err error) {
	b.next = nil
	b.Ended = 0
	if q.nowValid {
		b.Ended = q.nowTime
	}
	q.pending = append(q.pending, deferred{bio: b, err: err})
}

// trace fills in the scratch event for action a, for emit to send to the
// tracers that consume it.
func (q *Queue) trace(a Action, b *Bio, rq *Request) *Event {
	// Field by field rather than *e = Event{...}: the scratch event is
	// reused, and a whole-struct store of its pointers costs a bulk write
	// barrier per event while the GC runs. With no tracer that consumes
	// a it is not filled in at all (callers may still set fields and emit
	// it to no one).
	e := &q.ev
	if !q.wanted.has(a) {
		e.Action = a // (emit looks at it, and sends the event nowhere)
		return e
	}
	e.Time, e.Action, e.Bio, e.Rq = q.now(), a, b, rq
	e.Depth, e.Wait, e.Err = 0, 0, nil
	var t *Task
	switch {
	case b != nil:
		e.Op, e.Flags, e.Sector, e.Sectors = b.Op, b.Flags, b.Sector, b.Sectors
		t = b.task
	case rq != nil:
		e.Op, e.Flags, e.Sector, e.Sectors = rq.Op, rq.Flags, rq.Sector, rq.Sectors
		t = rq.Task
	default:
		e.Op, e.Flags, e.Sector, e.Sectors = 0, 0, 0, 0
	}
	e.Task, e.PID = t, 0
	if t != nil {
		e.PID = t.PID
	}
	return e
}

func (q *Queue) emit(e *Event) {
	if !q.wanted.has(e.Action) {
		return
	}
	for i, t := range q.tracers {
		if q.wants[i].has(e.Action) {
			t.Trace(e)
		}
	}
}

// Enqueue queues bio b on behalf of task t, without blocking. It returns true if the task may
// go on submitting, false if the task is now asleep waiting for a request:
// then b is parked with t, and t.Wake will be called when t may run again.
// Either way b ends exactly once through b.EndIO.
func (q *Queue) Enqueue(t *Task, b *Bio) bool {
	q.lock()
	q.startAt(b.Start)
	ok := q.submitLocked(t, b)
	q.unlock()
	return ok
}

func (q *Queue) submitLocked(t *Task, b *Bio) bool {
	b.task, b.next = t, nil
	b.Queued = q.now()
	switch {
	case q.closed:
		q.endBio(b, errClosed)
		return true
	case t.waiting != nil:
		q.endBio(b, errTaskAsleep)
		return true
	case b.Op >= nrOps || (b.Sectors == 0) != (b.Op == OpFlush):
		q.endBio(b, fmt.Errorf("%w: %v of %d sectors at %d", ErrBadBio, b.Op, b.Sectors, b.Sector))
		return true
	case b.Buf != nil && len(b.Buf) != int(b.Sectors)<<SectorShift:
		q.endBio(b, fmt.Errorf("%w: %v of %d sectors at %d has a %d-byte buffer", ErrBadBio, b.Op, b.Sectors, b.Sector, len(b.Buf)))
		return true
	case b.Runs != nil && !runsFit(b):
		q.endBio(b, fmt.Errorf("%w: %v of %d sectors at %d has runs %v", ErrBadBio, b.Op, b.Sectors, b.Sector, b.Runs))
		return true
	case b.end() > q.dev.Capacity() || b.end() < b.Sector:
		q.endBio(b, fmt.Errorf("%w: %v sectors %d+%d, capacity %d", ErrBeyondEnd, b.Op, b.Sector, b.Sectors, q.dev.Capacity()))
		return true
	}
	if q.flushBioOnSubmit(b) {
		return true
	}
	q.emit(q.trace(actQueue, b, nil))
	return q.submitSplit(t, b)
}

// mergeOrGet merges b into a request, or gets it one (false: the task
// sleeps for it).
func (q *Queue) mergeOrGet(t *Task, b *Bio) bool {
	if q.cfg.NoMerges != 2 && b.mergeable() {
		if q.plugMerge(t, b) || q.elvMerge(b) {
			return true
		}
	}
	return q.getRequest(t, b)
}

// getRequest allocates a request for b or puts t to sleep.
func (q *Queue) getRequest(t *Task, b *Bio) bool {
	d := b.Op.dir()
	if b.Flags&FlagReadAhead != 0 && q.alloc.readAheadFails(d) {
		// Linux ends the bio with BLK_STS_AGAIN, which blktrace records
		// as its completion: a C with no request.
		e := q.trace(actComplete, b, nil)
		e.Err = ErrReadAheadDropped
		q.emit(e)
		q.endBio(b, ErrReadAheadDropped)
		return true
	}
	rq := q.alloc.take(d)
	if rq == nil && len(t.plug.rqs) > 0 {
		// Going to sleep flushes the task's plug (sleep), and Linux
		// tries again once it has: 2.4's get_request_wait unplugs the
		// device before it checks the free count, blk-mq's
		// blk_mq_get_tag joins the wait queue and tries again, so a
		// request freed by the flush (one mq-deadline merged away at
		// insert) is taken without sleeping.
		q.flushPlug(t)
		rq = q.alloc.take(d)
	}
	if rq == nil {
		q.sleep(t, q.newWaiter(t, b, d))
		return false
	}
	q.startRequest(t, b, rq, 0)
	return true
}

// newWaiter returns a waiter for bio b of task t in direction d: the
// task's last one when nothing can reach that one any more (Task.idle),
// else a new one with its resume function bound. A task that sleeps for
// every I/O (a blocking submitter past nr_requests) so allocates nothing
// per sleep.
func (q *Queue) newWaiter(t *Task, b *Bio, d direction) *waiter {
	w := t.idle
	if w != nil {
		t.idle = nil
		resume := w.resume
		*w = waiter{resume: resume}
	} else {
		w = &waiter{}
		w.resume = func() bool { return w.q.resume(w) }
	}
	w.q, w.task, w.bio, w.dir, w.sleptAt = q, t, b, d, q.now()
	return w
}

// sleep parks w on its wait queue. The task's plug is flushed first, as
// Linux does on schedule(): a sleeper must not hold requests back.
func (q *Queue) sleep(t *Task, w *waiter) {
	q.flushPlug(t)
	w.wake = t.Wake
	t.waiting = w
	q.alloc.enqueue(w)
	q.sleepAgain(w)
}

// sleepAgain records one more S for a waiter already on its queue.
func (q *Queue) sleepAgain(w *waiter) {
	w.woken = false
	q.emit(q.trace(actSleepRq, w.bio, nil))
}

// wake hands a woken waiter to its task (outside the lock), through the
// Wake the task had when it went to sleep (a task may set a new Wake for
// its next bio while a stale wake-up of a cancelled sleep is on its way).
func (q *Queue) wake(w *waiter) {
	if w.wake != nil {
		w.wake(w.resume)
	} else {
		w.resume()
	}
}

// cancelWait takes bio b of task t back from the wait queue, ending it
// with err, unless it was granted a request already; it reports whether
// it did. A wake-up given to the waiter and not yet used passes to the
// next sleeper, so that none is lost.
func (q *Queue) cancelWait(t *Task, b *Bio, err error) bool {
	q.lock()
	defer q.unlock()
	w := t.waiting
	if w == nil || w.granted {
		return false
	}
	if w.bio != b && (b == nil || firstPiece(w.bio) != b) {
		return false // a later piece of a split bio: the bio is queued in part
	}
	q.alloc.dequeue(w)
	t.waiting = nil
	t.rest = nil
	w.cancelled = true
	if w.woken {
		q.wakebuf = q.alloc.passOn(w, q.wakebuf[:0])
		q.queueWoken() // (w's resume is on its way: w stays its own)
	} else {
		t.idle = w
	}
	q.endBio(b, err)
	return true
}

// resume runs a woken task: it retries the allocation for its parked bio
// and reports whether the task got it (false: it sleeps again and will be
// woken again).
func (q *Queue) resume(w *waiter) bool {
	q.lock()
	defer q.unlock()
	if w.granted || w.cancelled {
		return w.granted
	}
	if !q.alloc.mayRetry(w.dir) {
		q.alloc.requeue(w)
		q.sleepAgain(w)
		return false
	}
	rq := q.alloc.take(w.dir)
	if rq == nil {
		q.alloc.requeue(w)
		q.sleepAgain(w)
		return false
	}
	t := w.task
	w.granted = true
	q.alloc.dequeue(w)
	t.waiting = nil
	t.idle = w // (this resume was its one wake-up: nothing else reaches it)
	wait := q.now() - w.sleptAt
	q.startRequest(t, w.bio, rq, wait)
	if rest := t.rest; rest != nil {
		// The rest of a split bio goes on; it may sleep again.
		t.rest = nil
		return q.submitSplit(t, rest)
	}
	return true
}

// startRequest turns the allocated rq into a request for bio b and sends
// it on: to the task's plug, or straight into the elevator.
func (q *Queue) startRequest(t *Task, b *Bio, rq *Request, wait Time) {
	now := q.now()
	*rq = Request{Op: b.Op, Flags: b.Flags, Sector: b.Sector, Sectors: b.Sectors, NrBios: 1, Prio: b.Prio,
		Task: t, Alloc: now, bios: b, biotail: b, tag: rq.tag, segs: q.bioSegments(b)}
	e := q.trace(actGetRq, b, rq)
	e.Wait = wait
	q.emit(e)
	if isFlushBio(b) && q.insertFlush(rq) {
		q.run()
		return
	}
	if t.plug.active > 0 && b.Op != OpFlush {
		q.addToPlug(t, rq)
		return
	}
	q.insert(rq)
	q.run()
}

// insert puts rq into the elevator (I) and the back-merge hash, unless
// the elevator merges it into a request it holds (insertMerge).
func (q *Queue) insert(rq *Request) {
	if q.insertMerge(rq) {
		return
	}
	q.insertAt(rq, rq.Op == OpFlush)
}

// insertAt puts rq into the elevator, at its head if atHead (the data of
// a flush sequence), and the back-merge hash.
func (q *Queue) insertAt(rq *Request, atHead bool) {
	rq.state = rqQueued
	rq.Insert = q.now()
	q.emit(q.trace(actInsert, nil, rq))
	q.elv.Insert(rq, atHead, rq.Insert)
	q.hashAdd(rq)
	if q.lastMerge == nil && rq.mergeable() {
		q.lastMerge = rq
	}
}

// run dispatches requests while the device has room.
func (q *Queue) run() {
	depth := q.dev.Depth()
	for q.inflight < depth {
		rq := q.dispatch.Front()
		if rq != nil {
			q.dispatch.Remove(rq)
		} else if q.elv.Len() == 0 {
			return // (no clock read for an empty elevator)
		} else if rq = q.elv.Dispatch(q.now()); rq == nil {
			return
		}
		q.hashDel(rq)
		if q.lastMerge == rq {
			q.lastMerge = nil
		}
		rq.state = rqInFlight
		rq.Issue = q.now()
		q.inflight++
		e := q.trace(actIssue, nil, rq)
		e.Depth = q.inflight
		q.emit(e)
		q.dev.Issue(rq)
	}
}

// complete is the device's completion callback: it ends every bio of rq,
// frees rq (waking sleepers) and dispatches more.
func (q *Queue) complete(rq *Request, err error) {
	q.lock()
	q.inflight--
	e := q.trace(actComplete, nil, rq)
	e.Err = err
	q.emit(e)
	if rq == &q.fq.rq {
		q.flushDone(err)
		q.run()
		q.unlock()
		return
	}
	if q.flushDataDone(rq, err) {
		q.run()
		q.unlock()
		return
	}
	for b := rq.bios; b != nil; {
		next := b.next
		q.endBio(b, err)
		b = next
	}
	q.freeRequest(rq)
	q.run()
	q.unlock()
}

// freeRequest returns rq to the pool and queues the wake-ups it causes.
func (q *Queue) freeRequest(rq *Request) {
	if q.hooks.finish != nil {
		q.hooks.finish.Finished(rq)
	}
	d := rq.Op.dir()
	q.wakebuf = q.alloc.put(rq, d, q.wakebuf[:0])
	q.queueWoken()
}

// queueWoken traces the wake-ups in wakebuf (W) and defers them until the
// lock is released.
func (q *Queue) queueWoken() {
	for _, w := range q.wakebuf {
		q.emit(q.trace(actWake, w.bio, nil))
		q.pending = append(q.pending, deferred{w: w})
	}
}
