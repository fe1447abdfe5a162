package bcache

import (
	"context"
	"slices"
	"sync"

	"github.com/blkq-dev/blkq"
)

// Who writes a page back, for the counters.
type wbSource uint8

const (
	srcFlusher wbSource = iota
	srcThrottle
	srcSync
)

// startWriteback takes b, dirty and locked by the caller, under write-back:
// clean, on the io list. Called with the cache lock held.
func (c *Cache) startWriteback(b *buffer) {
	b.dirty = false
	c.nrDirty--
	c.nrWB++
	b.node.moveTo(&c.io)
}

// submit writes batch (buffers under write-back, locked) as one 8-sector
// write bio per page, sorted by page, under one plug so contiguous pages
// merge. If wg is not nil it is done once per completed page. Called
// without the cache lock.
func (c *Cache) submit(batch []*buffer, src wbSource, wg *sync.WaitGroup) {
	if len(batch) == 0 {
		return
	}
	slices.SortFunc(batch, func(a, b *buffer) int {
		switch {
		case a.page < b.page:
			return -1
		case a.page > b.page:
			return 1
		}
		return 0
	})
	var flags blkq.Flags
	if src == srcSync {
		flags = blkq.FlagSync // WB_SYNC_ALL write-back is REQ_SYNC; background is not
	}
	t := blkq.NewGoroutineTask("bcache-wb")
	ctx := blkq.WithTask(context.Background(), t)
	c.q.Plug(t)
	for _, b := range batch {
		bio := &blkq.Bio{Op: blkq.OpWrite, Flags: flags, Sector: uint64(b.page) * sectorsPerPage,
			Sectors: sectorsPerPage, Buf: b.data, Private: b,
			EndIO: func(bio *blkq.Bio, err error) {
				c.endWrite(bio.Private.(*buffer), err)
				if wg != nil {
					wg.Done()
				}
			}}
		c.q.Submit(ctx, bio) // a background context: never fails; errors come through EndIO
	}
	c.q.Finish(t)
	c.lock()
	switch src {
	case srcFlusher:
		c.st.WrittenFlusher += int64(len(batch))
	case srcThrottle:
		c.st.WrittenThrottle += int64(len(batch))
	case srcSync:
		c.st.WrittenSync += int64(len(batch))
	}
	c.unlock()
}

// endWrite completes the write-back of b: it becomes clean (even on an
// error, which is recorded for Sync, as Linux's mapping error is) and is
// unlocked.
func (c *Cache) endWrite(b *buffer, err error) {
	c.lock()
	c.nrWB--
	if err != nil {
		c.st.WriteErrors++
		c.noteWriteError(err)
	}
	if b.dirty { // cannot happen: the lock kept writers out during the I/O
		b.node.moveTo(&c.dirty)
	} else {
		b.node.moveTo(&c.clean)
	}
	c.unlockBuffer(b)
	c.unlock()
}

// writeSome writes back up to WriteBatch buffers in one hold of the cache
// lock of at most WalkChunk steps (write_some_buffers): first unlocked
// buffers of the busy list, then the dirty list from its oldest end, moving
// locked ones aside to the busy list. With wait it also waits for the
// writes to complete. It returns the pages submitted.
func (c *Cache) writeSome(src wbSource, wait bool) int {
	batch := make([]*buffer, 0, WriteBatch)
	steps := 0
	c.lock()
	for n := c.busy.front(); n != nil && steps < WalkChunk && len(batch) < WriteBatch; {
		next := c.busy.next(n)
		steps++
		if b := n.buf; b != nil && !b.locked {
			if b.dirty {
				b.locked = true
				c.startWriteback(b)
				batch = append(batch, b)
			} else {
				b.node.moveTo(&c.clean) // not expected: the busy list holds dirty buffers
			}
		}
		n = next
	}
	for n := c.dirty.front(); n != nil && steps < WalkChunk && len(batch) < WriteBatch; {
		next := c.dirty.next(n)
		steps++
		if b := n.buf; b != nil {
			if b.locked {
				b.node.moveTo(&c.busy)
				c.st.MovedAside++
			} else {
				b.locked = true
				c.startWriteback(b)
				batch = append(batch, b)
			}
		}
		n = next
	}
	c.unlock()
	var wg *sync.WaitGroup
	if wait {
		wg = new(sync.WaitGroup)
		wg.Add(len(batch))
	}
	c.submit(batch, src, wg)
	if wg != nil {
		wg.Wait()
	}
	return len(batch)
}

// waitSome waits for the oldest write in flight, or else for the oldest
// busy buffer to be unlocked (wait_for_some_buffers). It reports whether
// there was anything to wait for.
func (c *Cache) waitSome() bool {
	c.lock()
	defer c.unlock()
	b := c.io.firstBuffer(WalkChunk)
	if b == nil {
		b = c.busy.firstBuffer(WalkChunk)
	}
	if b == nil {
		return false
	}
	c.waitUnlocked(b)
	return true
}

// kickFlusher wakes the background flusher if it sleeps.
func (c *Cache) kickFlusher() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// flusher is the background write-back goroutine (bdflush): when kicked, it
// writes batches while dirty pages exceed the background threshold. Its
// writes are asynchronous; the request pool throttles them.
func (c *Cache) flusher() {
	defer close(c.flusherDone)
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
		}
		for {
			select {
			case <-c.stop:
				return
			default:
			}
			c.lock()
			over := c.nrDirty > c.bgThresh
			c.unlock()
			if !over {
				break
			}
			if c.writeSome(srcFlusher, false) == 0 && !c.waitSome() {
				break
			}
		}
	}
}

// balanceDirty is called by a writer after it dirtied pages (balance_dirty):
// above the background threshold it wakes the flusher; above the hard
// threshold (dirty plus under write-back) it writes back synchronously
// itself until under the threshold or until it has written or waited for
// max(WriteBatch, 2 × dirtied) pages. It reports whether it wrote or
// waited.
func (c *Cache) balanceDirty(dirtied int) (throttled bool) {
	c.lock()
	if c.nrDirty > c.bgThresh {
		c.kickFlusher()
	}
	c.unlock()
	budget := max(WriteBatch, 2*dirtied)
	for done := 0; done < budget; {
		c.lock()
		over := c.nrDirty+c.nrWB > c.hdThresh
		dirty := c.nrDirty
		c.unlock()
		if !over {
			break
		}
		n := 0
		if dirty > 0 {
			n = c.writeSome(srcThrottle, true)
		}
		if n == 0 {
			if !c.waitSome() {
				break
			}
			n = 1
		}
		throttled = true
		done += n
	}
	return throttled
}

// SyncResult describes one Sync, in pages.
type SyncResult struct {
	DirtyAtStart int // dirty buffers when Sync was called
	Written      int // pages Sync wrote itself (at most DirtyAtStart)
	Waited       int // buffers it waited for (locked busy ones, writes in flight)
	Steps        int // walk steps
	Holds        int // cache lock holds of its walks
	MaxPerHold   int // most walk steps in one hold
}

// Sync writes back every buffer that was dirty when it was called, waits
// for those writes and for any write-back already in flight, flushes the
// device. If a write-back failed since the last error a Sync returned
// before this one began, it returns that error as the device reported it
// (errors.Is finds its errno, e.g. syscall.ENOSPC; errseq.go); otherwise
// the flush's error.
// It terminates while other goroutines keep dirtying buffers: buffers
// dirtied after it started are left to the flusher, and it never writes
// more than twice the dirty count at call time.
func (c *Cache) Sync() error {
	_, err := c.sync()
	return err
}

func (c *Cache) sync() (SyncResult, error) {
	var r SyncResult
	c.lock()
	c.gen++
	gen := c.gen // buffers dirtied from now on carry gen; Sync owns those below it
	errSince := c.reportedSeq
	r.DirtyAtStart = c.nrDirty
	budget := 2 * c.nrDirty // Morton's nr_to_write cap; the generation test keeps below half of it
	c.st.Syncs++
	c.unlock()

	var batch []*buffer
	var pending *buffer
	owed := func(b *buffer) bool { return b.dirty && b.gen < gen }
	flush := func() {
		c.submit(batch, srcSync, nil)
		r.Written += len(batch)
		batch = batch[:0]
	}
	take := func(b *buffer) verdict {
		if r.Written+len(batch) >= budget {
			return vStop
		}
		b.locked = true
		c.startWriteback(b)
		batch = append(batch, b)
		return vTake
	}
	newWalk := func(src, aside *blist, visit func(*buffer) verdict, between func()) *walk {
		return &walk{src: src, aside: aside, lock: c.lock, unlock: c.unlock,
			before: c.stepHook, yield: c.needResched, visit: visit, between: between}
	}
	var walks []*walk

	// 1. The dirty list: write unlocked buffers, move locked ones aside.
	walks = append(walks, newWalk(&c.dirty, &c.busy, func(b *buffer) verdict {
		if !owed(b) {
			return vKeep
		}
		if b.locked {
			c.st.MovedAside++
			return vAside
		}
		return take(b)
	}, func() { flush(); gosched() }))

	// 2. The busy list: wait for each owed buffer's lock, then write it.
	walks = append(walks, newWalk(&c.busy, nil, func(b *buffer) verdict {
		if !owed(b) {
			return vKeep
		}
		if b.locked {
			pending = b
			return vWait
		}
		return take(b)
	}, func() {
		flush() // never sleep on a buffer while holding unsubmitted ones
		if b := pending; b != nil {
			pending = nil
			r.Waited++
			c.lock()
			c.lockBuffer(b)
			if b.hashed && owed(b) && r.Written < budget {
				c.startWriteback(b)
				batch = append(batch, b)
			} else {
				c.unlockBuffer(b)
			}
			c.unlock()
			flush()
		}
		gosched()
	}))

	// 3. The io list: wait for every write in flight (ours and others').
	walks = append(walks, newWalk(&c.io, nil, func(b *buffer) verdict {
		pending = b
		return vWait
	}, func() {
		if b := pending; b != nil {
			pending = nil
			r.Waited++
			c.lock()
			c.waitUnlocked(b)
			c.unlock()
		}
	}))

	for _, w := range walks {
		w.run()
		r.Steps += w.steps
		r.Holds += w.holds
		r.MaxPerHold = max(r.MaxPerHold, w.maxPerHold)
	}
	ferr := c.q.Flush(context.Background())

	c.lock()
	c.st.WalkSteps += int64(r.Steps)
	c.st.WalkHolds += int64(r.Holds)
	err := c.takeWriteError(errSince)
	c.unlock()
	if err == nil {
		err = ferr
	}
	return r, err
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

// Invalidate drops the clean buffers (invalidate_bdev, the second half of
// BLKFLSBUF; call Sync first for the whole ioctl). Unlocked clean buffers
// are dropped as its walk meets them; locked ones are moved to a list of
// its own, waited for once each (in FIFO order behind earlier waiters), and
// dropped if still clean. Dirty buffers and buffers under write-back are
// kept. It terminates while others keep reading and writing: it visits only
// the buffers present when it started.
func (c *Cache) Invalidate() {
	c.invalidate()
}

func (c *Cache) invalidate() InvalidateResult {
	var r InvalidateResult
	var aside blist
	aside.init()
	var pending *buffer
	c.lock()
	r.PagesAtStart = c.nrPages
	c.unlock()
	drop := func(b *buffer) verdict {
		c.drop(b)
		c.st.Invalidated++
		r.Dropped++
		return vTake
	}
	walks := []*walk{
		// 1. The clean list: drop unlocked buffers, move locked ones aside.
		{src: &c.clean, aside: &aside, visit: func(b *buffer) verdict {
			if b.locked {
				c.st.MovedAside++
				return vAside
			}
			return drop(b)
		}, between: gosched},
		// 2. The locked ones: wait for each, drop it if still clean.
		{src: &aside, visit: func(b *buffer) verdict {
			if b.locked {
				pending = b
				return vWait
			}
			return drop(b)
		}, between: func() {
			if b := pending; b != nil {
				pending = nil
				r.Waited++
				c.lock()
				c.lockBuffer(b)
				if b.hashed && b.list == &aside {
					drop(b) // still clean: dirtying would have moved it to the dirty list
				}
				c.unlockBuffer(b)
				c.unlock()
			}
			gosched()
		}},
	}
	for _, w := range walks {
		w.lock, w.unlock, w.before, w.yield = c.lock, c.unlock, c.stepHook, c.needResched
		w.run()
		r.Steps += w.steps
		r.Holds += w.holds
		r.MaxPerHold = max(r.MaxPerHold, w.maxPerHold)
	}
	// Whatever is left on the private list (nothing, unless a visit kept
	// it) goes back to the LRU, a chunk per hold.
	for done := false; !done; {
		c.lock()
		for i := 0; i < WalkChunk; i++ {
			n := aside.front()
			if n == nil {
				done = true
				break
			}
			n.moveTo(&c.clean)
		}
		c.unlock()
	}
	c.lock()
	c.st.WalkSteps += int64(r.Steps)
	c.st.WalkHolds += int64(r.Holds)
	c.unlock()
	return r
}
