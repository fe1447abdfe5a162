package bcache

import (
	"math"

	"github.com/blkq-dev/blkq"
)

// Sync, Invalidate and Close.

// SyncResult describes one Sync, in pages.
type SyncResult struct {
	DirtyAtStart int // dirty buffers (of the file, for a file's Sync) when Sync was called
	Written      int // pages Sync wrote itself (at most DirtyAtStart)
	Waited       int // buffers it waited for (locked busy ones, writes in flight)
	Steps        int // walk steps
	Holds        int // cache lock holds of its walks
	MaxPerHold   int // most walk steps in one hold
}

// syncOp is one Sync.
type syncOp struct {
	c        *Cache
	cl       *Client
	file     *File
	gen      uint64
	errSince uint64
	budget   int
	r        SyncResult
	batch    []*buffer
	pending  *buffer    // a write in flight the io walk waits for
	lw       lockWaiter // a busy buffer the busy walk waits for
	walks    []*walk
	done     func(SyncResult, error)
}

// StartSync writes back, as cl, every buffer of f (of the whole cache if f
// is nil) that was dirty when it was called, waits for those writes and for
// the write-back of f's pages already in flight (all write-back in flight,
// for the whole cache), flushes the device and calls done. The error is a
// write-back error recorded since the last error a Sync returned before
// this one began, as the device reported it (errors.Is finds its errno,
// e.g. syscall.ENOSPC; errseq.go); otherwise the flush's.
//
// It terminates while others keep dirtying buffers: buffers dirtied after
// it started are left to the flusher, and it never writes more than twice
// the dirty count at call time (in fact at most that count).
func (c *Cache) StartSync(cl *Client, f *File, done func(SyncResult, error)) {
	s := &syncOp{c: c, cl: cl, file: f, done: done}
	c.lock()
	c.gen++
	s.gen = c.gen // buffers dirtied from now on carry gen; Sync owns those below it
	s.errSince = c.reportedSeq
	s.r.DirtyAtStart = c.nrDirty
	if f != nil {
		s.r.DirtyAtStart = f.nrDirty
	}
	s.budget = 2 * s.r.DirtyAtStart // Morton's nr_to_write cap; the generation test keeps below half of it
	c.st.Syncs++
	c.unlock()

	newWalk := func(src, aside *blist, visit func(*buffer) verdict, wait func(func()) bool) *walk {
		return &walk{src: src, aside: aside, lock: c.lock, unlock: c.unlock, before: c.stepHook,
			yield: c.needResched, visit: visit, between: gosched, wait: wait}
	}
	// 1. The dirty list: write unlocked buffers, move locked ones aside.
	s.walks = append(s.walks, newWalk(&c.dirty, &c.busy, func(b *buffer) verdict {
		if !s.owed(b) {
			return vKeep
		}
		if b.locked {
			c.st.MovedAside++
			return vAside
		}
		return s.take(b)
	}, s.flush))
	// 2. The busy list: wait for each owed buffer's lock, then write it.
	s.walks = append(s.walks, newWalk(&c.busy, nil, func(b *buffer) verdict {
		if !s.owed(b) {
			return vKeep
		}
		if b.locked {
			s.lw.pending = b
			return vWait
		}
		return s.take(b)
	}, s.waitBusy))
	// 3. The io list: wait for the writes in flight that Sync covers.
	s.walks = append(s.walks, newWalk(&c.io, nil, func(b *buffer) verdict {
		if f != nil && (b.file != f || b.gen >= s.gen) {
			return vKeep
		}
		s.pending = b
		return vWait
	}, s.waitIO))
	for i, w := range s.walks {
		if i+1 < len(s.walks) {
			w.then = s.walks[i+1].run
		} else {
			w.then = s.flushDevice
		}
	}
	s.walks[0].run()
}

// owed reports whether Sync must write b: dirty before it began, in its
// file.
func (s *syncOp) owed(b *buffer) bool {
	return b.dirty && b.gen < s.gen && (s.file == nil || b.file == s.file)
}

// take puts b, unlocked, under write-back in Sync's batch, unless the
// budget is spent. Called under the cache lock.
func (s *syncOp) take(b *buffer) verdict {
	if s.r.Written+len(s.batch) >= s.budget {
		return vStop
	}
	b.locked = true
	s.c.startWriteback(b)
	s.batch = append(s.batch, b)
	return vTake
}

// flush submits Sync's batch, suspending the walk until it is handed to
// the queue.
func (s *syncOp) flush(resume func()) bool {
	if len(s.batch) == 0 {
		return false
	}
	batch := s.batch
	s.batch = nil
	s.r.Written += len(batch)
	s.c.lock()
	s.c.count(srcSync, len(batch))
	s.c.unlock()
	s.c.submitWrites(s.cl, batch, srcSync, resume)
	return true
}

// waitBusy submits the batch (never wait on a buffer while holding
// unsubmitted ones), then waits for the lock of the busy buffer the walk
// stopped at and writes it.
func (s *syncOp) waitBusy(resume func()) bool {
	if s.flush(resume) {
		return true
	}
	c := s.c
	b, wait := s.lw.acquire(c, resume, &s.r.Waited)
	if wait {
		return true
	}
	if b != nil {
		c.lock()
		if b.hashed && s.owed(b) && s.r.Written < s.budget {
			c.startWriteback(b)
			s.batch = append(s.batch, b)
		} else {
			c.unlockBuffer(b)
		}
		c.unlock()
		if s.flush(resume) {
			return true
		}
	}
	return false
}

// waitIO waits for the write in flight the walk stopped at.
func (s *syncOp) waitIO(resume func()) bool {
	b := s.pending
	if b == nil {
		return false
	}
	s.pending = nil
	s.r.Waited++
	c := s.c
	c.lock()
	free := c.waitUnlocked(b, resume)
	c.unlock()
	return !free
}

// flushDevice ends the walks: it flushes the device, then reports.
func (s *syncOp) flushDevice() {
	for _, w := range s.walks {
		s.r.Steps += w.steps
		s.r.Holds += w.holds
		s.r.MaxPerHold = max(s.r.MaxPerHold, w.maxPerHold)
	}
	bio := &blkq.Bio{Op: blkq.OpFlush, Flags: blkq.FlagSync, EndIO: func(_ *blkq.Bio, ferr error) {
		c := s.c
		c.lock()
		c.st.WalkSteps += int64(s.r.Steps)
		c.st.WalkHolds += int64(s.r.Holds)
		err := c.takeWriteError(s.errSince)
		c.unlock()
		if err == nil {
			err = ferr
		}
		s.done(s.r, err)
	}}
	s.cl.submit([]*blkq.Bio{bio}, nil)
}

// InvalidateResult describes one Invalidate, in pages.
type InvalidateResult struct {
	PagesAtStart int // buffers cached when Invalidate was called
	Dropped      int // clean buffers dropped
	Waited       int // locked clean buffers waited for
	Steps        int // walk steps
	Holds        int // cache lock holds of its walks
	MaxPerHold   int // most walk steps in one hold
}

// lockWaiter takes the lock of a buffer a walk stopped at (vWait) for
// the walk's wait.
type lockWaiter struct {
	pending *buffer // the buffer the walk stopped at
	held    *buffer // its lock, handed to us
}

// acquire asks for the pending buffer's lock. It returns the buffer once
// its lock is the caller's; wait true if resume will be called first (then
// call acquire again); nil if nothing is pending. waited counts the waits.
func (w *lockWaiter) acquire(c *Cache, resume func(), waited *int) (b *buffer, wait bool) {
	if b := w.pending; b != nil {
		w.pending = nil
		*waited++
		c.lock()
		got := c.lockBuffer(b, resume)
		c.unlock()
		w.held = b
		if !got {
			return nil, true
		}
	}
	b, w.held = w.held, nil
	return b, false
}

// invOp is one Invalidate.
type invOp struct {
	c      *Cache
	r      InvalidateResult
	aside  blist
	lw     lockWaiter
	walks  [2]*walk
	lo, hi int64 // the pages it drops: [lo, hi]
	nowait bool  // leave locked buffers (a range's): do not wait for them
	done   func(InvalidateResult)
}

// StartInvalidate drops the clean buffers (invalidate_bdev, the second half
// of BLKFLSBUF; Sync first for the whole ioctl) and calls done. Unlocked
// clean buffers are dropped as its walk meets them; locked ones are moved
// to a list of its own, waited for once each (in FIFO order behind earlier
// waiters), and dropped if still clean. Dirty buffers and buffers under
// write-back are kept. It terminates while others keep reading and
// writing: it visits only the buffers present when it started.
func (c *Cache) StartInvalidate(done func(InvalidateResult)) {
	c.startInvalidate(&invOp{c: c, done: done, lo: 0, hi: math.MaxInt64})
}

// StartInvalidateRange drops the clean, unlocked buffers of the pages
// that bytes [off, off+n) touch and calls done: POSIX_FADV_DONTNEED over
// a file's range (fio's invalidate of a job's file), whose
// invalidate_mapping_pages leaves locked pages alone rather than wait for
// them. It walks every clean buffer, as StartInvalidate does, and keeps
// those outside the range and those locked.
func (c *Cache) StartInvalidateRange(off, n int64, done func(InvalidateResult)) {
	o := &invOp{c: c, done: done, lo: off / PageSize, hi: (off + max(n, 1) - 1) / PageSize, nowait: true}
	if off+n < off { // to the end
		o.hi = math.MaxInt64
	}
	c.startInvalidate(o)
}

func (c *Cache) startInvalidate(o *invOp) {
	o.aside.init()
	c.lock()
	o.r.PagesAtStart = c.nrPages
	c.cleanWalks++ // until walk 1 ends: evictOne moves nothing behind its end
	c.unlock()
	// 1. The clean list: drop unlocked buffers, move locked ones aside.
	o.walks[0] = &walk{src: &c.clean, aside: &o.aside, visit: func(b *buffer) verdict {
		if b.page < o.lo || b.page > o.hi || b.locked && o.nowait {
			return vKeep
		}
		if b.locked {
			c.st.MovedAside++
			return vAside
		}
		return o.drop(b)
	}, between: gosched}
	// 2. The locked ones: wait for each, drop it if still clean.
	o.walks[1] = &walk{src: &o.aside, visit: func(b *buffer) verdict {
		if b.locked {
			o.lw.pending = b
			return vWait
		}
		return o.drop(b)
	}, between: gosched, wait: o.waitLocked}
	for _, w := range o.walks {
		w.lock, w.unlock, w.before, w.yield = c.lock, c.unlock, c.stepHook, c.needResched
	}
	o.walks[0].then = func() {
		c.lock()
		c.cleanWalks--
		c.unlock()
		o.walks[1].run()
	}
	o.walks[1].then = o.finish
	o.walks[0].run()
}

func (o *invOp) drop(b *buffer) verdict {
	o.c.drop(b)
	o.c.st.Invalidated++
	o.r.Dropped++
	return vTake
}

// waitLocked waits for the lock of the buffer the walk stopped at and
// drops the buffer if it is still clean.
func (o *invOp) waitLocked(resume func()) bool {
	c := o.c
	b, wait := o.lw.acquire(c, resume, &o.r.Waited)
	if wait {
		return true
	}
	if b != nil {
		c.lock()
		if b.hashed && b.list == &o.aside {
			o.drop(b) // still clean: dirtying would have moved it to the dirty list
		}
		c.unlockBuffer(b)
		c.unlock()
	}
	return false
}

// finish puts back on the LRU, a chunk per hold, whatever is left on the
// private list (nothing, unless a visit kept it), and reports.
func (o *invOp) finish() {
	c := o.c
	for done := false; !done; {
		c.lock()
		for range WalkChunk {
			n := o.aside.front()
			if n == nil {
				done = true
				break
			}
			n.moveTo(&c.clean)
		}
		c.unlock()
	}
	for _, w := range o.walks {
		o.r.Steps += w.steps
		o.r.Holds += w.holds
		o.r.MaxPerHold = max(o.r.MaxPerHold, w.maxPerHold)
	}
	c.lock()
	c.st.WalkSteps += int64(o.r.Steps)
	c.st.WalkHolds += int64(o.r.Holds)
	c.unlock()
	o.done(o.r)
}

// StartClose stops the flusher, writes back every dirty buffer as cl (as
// the last close of a block device does), waits until no read-ahead,
// discard or write-back is in flight and calls done with Sync's error.
// Later reads, writes and discards fail with ErrClosed. Neither the queue
// nor the device is closed. A second close calls done(nil) at once.
func (c *Cache) StartClose(cl *Client, done func(error)) {
	c.lock()
	already := c.closed
	c.closed = true
	c.flusher.stopped = true
	c.unlock()
	if already {
		done(nil)
		return
	}
	c.StartSync(cl, nil, func(_ SyncResult, err error) {
		c.whenIdle(func() { done(err) })
	})
}

// StartQuiesce stops the flusher and calls done once no read-ahead,
// discard or write-back is in flight; dirty pages stay dirty. It is the
// end of a run that leaves dirty pages behind, as fio leaves them without
// end_fsync. Reads and writes still work; only throttled writers and Sync
// write back from then on.
func (c *Cache) StartQuiesce(done func()) {
	c.lock()
	c.flusher.stopped = true
	c.unlock()
	c.whenIdle(done)
}

// Idle reports whether nothing is in flight: no read-ahead, discard or
// write-back (a check for the end of a run).
func (c *Cache) Idle() bool {
	c.lock()
	defer c.unlock()
	return c.raInFlight == 0 && c.nrDiscards == 0 && c.nrWB == 0
}

// whenIdle runs f once no read-ahead, discard or write-back is in flight.
func (c *Cache) whenIdle(f func()) {
	c.lock()
	c.idle = append(c.idle, f)
	c.checkIdle()
	c.unlock()
}

// checkIdle runs what waits for nothing in flight. Called with the cache
// lock held.
func (c *Cache) checkIdle() {
	if c.raInFlight != 0 || c.nrDiscards != 0 || c.nrWB != 0 {
		return
	}
	for _, f := range c.idle {
		c.later(f)
	}
	c.idle = nil
}
