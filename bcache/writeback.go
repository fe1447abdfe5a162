package bcache

import (
	"slices"

	"github.com/blkq-dev/blkq"
)

// Write-back: batches, the flusher and the throttle.

// Who writes a page back, for the counters.
type wbSource uint8

const (
	srcFlusher wbSource = iota
	srcThrottle
	srcSync
)

// wbBatch is write-back someone waits for: done is queued once left pages
// have been written.
type wbBatch struct {
	left int
	done func()
}

// startWriteback takes b, dirty and locked by the caller, under write-back:
// clean, on the io list. Called with the cache lock held.
func (c *Cache) startWriteback(b *buffer) {
	c.clearDirty(b)
	c.nrWB++
	b.node.moveTo(&c.io)
}

// count adds n page writes to src's counter. Called with the cache lock
// held.
func (c *Cache) count(src wbSource, n int) {
	switch src {
	case srcFlusher:
		c.st.WrittenFlusher += int64(n)
	case srcThrottle:
		c.st.WrittenThrottle += int64(n)
	case srcSync:
		c.st.WrittenSync += int64(n)
	}
}

// takeSome takes up to WriteBatch buffers under write-back in one hold of
// the cache lock of at most WalkChunk steps (write_some_buffers): first
// unlocked buffers of the busy list, then the dirty list from its oldest
// end, moving locked ones aside to the busy list. Called with the cache
// lock held.
func (c *Cache) takeSome() []*buffer {
	batch := make([]*buffer, 0, WriteBatch)
	steps := 0
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
	return batch
}

// oldestBusy returns what a writer with nothing to take waits for: the
// oldest write in flight, or else the oldest busy buffer
// (wait_for_some_buffers), or nil. Called with the cache lock held.
func (c *Cache) oldestBusy() *buffer {
	if b := c.io.firstBuffer(WalkChunk); b != nil {
		return b
	}
	return c.busy.firstBuffer(WalkChunk)
}

// submitWrites writes batch (buffers under write-back, locked) as cl: one
// 8-sector write bio per page, sorted by page so that contiguous pages
// merge under the plug. queued, if set, is called once they are all handed
// to the queue. Called without the cache lock.
func (c *Cache) submitWrites(cl *Client, batch []*buffer, src wbSource, queued func()) {
	if len(batch) == 0 {
		if queued != nil {
			queued()
		}
		return
	}
	slices.SortFunc(batch, func(a, b *buffer) int { return cmpInt(a.page, b.page) })
	var flags blkq.Flags
	if src == srcSync {
		flags = blkq.FlagSync // WB_SYNC_ALL write-back is REQ_SYNC; background is not
	}
	bios := make([]*blkq.Bio, len(batch))
	for i, b := range batch {
		bios[i] = c.pageBio(b, blkq.OpWrite, flags, c.endWrite)
	}
	cl.submit(bios, queued)
}

// endWrite completes the write-back of a page: it becomes clean (even on an
// error, which is recorded for Sync, as Linux's mapping error is) and is
// unlocked.
func (c *Cache) endWrite(bio *blkq.Bio, err error) {
	b := bio.Private.(*buffer)
	c.lock()
	c.nrWB--
	if err != nil {
		c.st.WriteErrors++
		c.noteWriteError(err)
		if f := c.onWErr; f != nil {
			we := WriteError{Off: b.page * PageSize, Writer: b.writer, Err: err}
			c.later(func() { f(we) })
		}
	}
	if b.dirty { // cannot happen: the lock kept writers out during the I/O
		b.node.moveTo(&c.dirty)
	} else {
		b.node.moveTo(&c.clean)
	}
	if w := b.wait; w != nil {
		b.wait = nil
		if w.left--; w.left == 0 {
			c.later(w.done)
		}
	}
	c.unlockBuffer(b)
	if c.nrWB == 0 && len(c.idle) > 0 {
		c.checkIdle()
	}
	c.unlock()
}

// The flusher (2.4's bdflush): a loop on the clock, kicked when dirty pages
// pass the background threshold, that writes the oldest batch while they
// are above it. Its writes are asynchronous: it goes on once a batch is
// handed to the queue, so only request allocation holds it back. It yields
// between batches through a timer of 0.
type flusher struct {
	c       *Cache
	cl      *Client
	lp      loop
	running bool // guarded by the cache lock
	stopped bool // guarded by the cache lock: Close (or a test) stopped it
}

// kickFlusher starts the flusher if it is idle. Called with the cache lock
// held.
func (c *Cache) kickFlusher() {
	f := c.flusher
	if f.running || f.stopped {
		return
	}
	f.running = true
	c.later(func() { c.clk.AfterFunc(0, f.kick) })
}

func (f *flusher) kick() { f.lp.kick(f.step) }

func (f *flusher) step() bool {
	c := f.c
	c.lock()
	if f.stopped || c.nrDirty <= c.bgThresh {
		f.running = false
		c.unlock()
		return false
	}
	batch := c.takeSome()
	if len(batch) == 0 {
		// Every dirty page is locked: wait for some write or busy buffer.
		b := c.oldestBusy()
		if b == nil {
			f.running = false
			c.unlock()
			return false
		}
		free := c.waitUnlocked(b, f.kick)
		c.unlock()
		return free // an unlocked busy buffer: the next pass takes it
	}
	c.count(srcFlusher, len(batch))
	c.unlock()
	c.submitWrites(f.cl, batch, srcFlusher, func() { c.clk.AfterFunc(0, f.kick) })
	return false
}

// stopFlusher stops the flusher; a batch it has taken still goes out.
func (c *Cache) stopFlusher() {
	c.lock()
	c.flusher.stopped = true
	c.unlock()
}

// The throttle (balance_dirty): after a writer dirtied pages it wakes the
// flusher above the background threshold; above the hard threshold (dirty
// plus under write-back) it writes back itself, as its own client, one
// batch at a time and waiting for each, until the cache is under the
// threshold or it has written or waited for max(WriteBatch, 2 × the pages
// it dirtied), which bounds its stall.
type throttle struct {
	budget, done int
	next         rwState
}

// startThrottle begins the throttle of the pages dirtied so far; the op
// then goes to next.
func (o *rwOp) startThrottle(next rwState) {
	o.th = throttle{budget: max(WriteBatch, 2*o.dirtied), next: next}
	o.dirtied = 0
	o.state = rwThrottle
	c := o.c
	c.lock()
	if c.nrDirty > c.bgThresh {
		c.kickFlusher()
	}
	c.unlock()
}

// throttle writes back (or waits for) one batch, or ends the throttle.
func (o *rwOp) throttle() bool {
	c, th := o.c, &o.th
	c.lock()
	if th.done >= th.budget || c.nrDirty+c.nrWB <= c.hdThresh {
		c.unlock()
		o.state = th.next
		return true
	}
	o.throttled = true
	if c.nrDirty > 0 {
		if batch := c.takeSome(); len(batch) > 0 {
			w := &wbBatch{left: len(batch), done: o.kick}
			for _, b := range batch {
				b.wait = w
			}
			th.done += len(batch)
			c.count(srcThrottle, len(batch))
			c.unlock()
			c.submitWrites(o.cl, batch, srcThrottle, nil)
			return false
		}
	}
	b := c.oldestBusy()
	if b == nil {
		c.unlock()
		o.state = th.next
		return true
	}
	th.done++
	if c.waitUnlocked(b, o.kick) {
		c.unlock()
		return true
	}
	c.unlock()
	return false
}
