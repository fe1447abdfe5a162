package bcache

import (
	"fmt"
	"io"
	"slices"

	"github.com/blkq-dev/blkq"
)

// Reads and writes.
//
// A read first makes sure the pages it needs are on their way: in rounds of
// up to max(WalkChunk, the read-ahead window) pages, at most WalkChunk per
// lock hold, it gives each page that is missing (or not uptodate and
// unlocked) a locked buffer and submits one 8-sector read per page under one
// plug, so that the pages of one call merge into one request, as Linux's
// synchronous read-ahead reads the whole request at once. It then takes the
// pages in order: waits for each one's lock (its own fill, another reader's,
// a read-ahead or a write-back), copies it out, notes the read for
// read-ahead and releases it. A write takes its pages in order too: waits
// for the lock, reads a partial page that is not uptodate first (one fill),
// copies in, marks the page dirty; after every WriteBatch pages it dirtied,
// and at its end, it applies the throttle (balanceDirty in writeback.go).
// Either completes after its copy time (Config.CopyNsPerKiB), if any.
//
// The page-cache hit, a read within one page that is cached, uptodate and
// unlocked, is most of what a cache in front of a disk serves, so it has a
// path of its own (readHit) that does what the general one does for it,
// in the same order, without its machinery: one hold of the cache lock
// takes the buffer lock, the copy runs outside it, a second hold touches
// the LRU, notes the read for read-ahead and releases the buffer; no
// operation is allocated and nothing waits. The general path takes four
// holds for the same read and allocates its state and continuations. The
// hit path is not taken where the copy is charged on the clock
// (Config.CopyNsPerKiB, simulated runs): there the completion is a timer,
// and a simulated run keeps the one path it has always taken.

// rwState is where a read or write is.
type rwState uint8

const (
	rwGather   rwState = iota // reads: submit the fills of the next round
	rwPage                    // take the lock of the page at pos
	rwLocked                  // the lock of o.b has been handed to us
	rwThrottle                // writes: the throttle, after dirtying pages
	rwEnd                     // charge the copy and complete
)

// rwOp is one read or write.
type rwOp struct {
	c     *Cache
	cl    *Client
	write bool
	off   int64
	n     int64 // bytes to do (the call's, cut at the cache's end)
	buf   []byte
	tail  error // io.EOF or ErrBeyondEnd when n was cut
	done  func(int, error)
	lp    loop
	state rwState
	kickf func() // o.kick, made once: every wait registers it

	pos     int64   // bytes done
	gather  int64   // reads: the first page not yet gathered
	created []int64 // reads: pages this call created for its fills, ascending
	filled  []int64 // reads: pages this call submitted fills for, ascending
	b       *buffer // the buffer whose lock we wait for or hold
	err     error

	dirtied   int // writes: pages dirtied since the last throttle
	throttled bool
	th        throttle
}

// StartRead reads len(p) bytes at byte offset off through the cache as cl
// and calls done with the count and the error, as ReadAt returns them
// (reading past the cache's end gives the bytes before it and io.EOF). With
// Config.NoData p is not touched and may be nil; its length is still the
// size of the read. done runs on whichever goroutine ends the last wait
// (perhaps inside StartRead).
func (c *Cache) StartRead(cl *Client, p []byte, off int64, done func(n int, err error)) {
	c.startRW(cl, false, p, int64(len(p)), off, done)
}

// StartWrite copies len(p) bytes into the cache at byte offset off as cl,
// marks the pages dirty and calls done, as WriteAt returns (write-back
// happens later: the flusher, throttling, Sync). A partial page not cached
// is read first. A writer that finds the cache above its dirty ratio does
// write-back itself before done is called. With Config.NoData p is not
// read and may be nil.
func (c *Cache) StartWrite(cl *Client, p []byte, off int64, done func(n int, err error)) {
	c.startRW(cl, true, p, int64(len(p)), off, done)
}

// StartReadN and StartWriteN are StartRead and StartWrite of n bytes with
// no buffer, for a cache with Config.NoData.
func (c *Cache) StartReadN(cl *Client, n, off int64, done func(n int, err error)) {
	c.startRW(cl, false, nil, n, off, done)
}

// StartWriteN is StartWrite of n bytes with no buffer (Config.NoData).
func (c *Cache) StartWriteN(cl *Client, n, off int64, done func(n int, err error)) {
	c.startRW(cl, true, nil, n, off, done)
}

func (c *Cache) startRW(cl *Client, write bool, p []byte, n, off int64, done func(int, error)) {
	if off < 0 || n < 0 {
		done(0, fmt.Errorf("bcache: %d bytes at offset %d: want non-negative", n, off))
		return
	}
	if p == nil && !c.noData && n > 0 {
		done(0, fmt.Errorf("bcache: %d bytes at offset %d without a buffer on a cache that keeps data", n, off))
		return
	}
	if !write && c.readHit(cl, p, n, off) {
		done(int(n), nil)
		return
	}
	o := &rwOp{c: c, cl: cl, write: write, off: off, n: n, buf: p, done: done}
	o.kickf = o.kick
	size := c.npages * PageSize
	if off+n > size || off+n < off {
		o.n = max(0, size-off)
		o.tail = io.EOF
		if write {
			o.tail = fmt.Errorf("bcache: write of %d bytes at %d: %w (%d bytes)", n, off, blkq.ErrBeyondEnd, size)
		}
	}
	o.gather = off / PageSize
	if write || o.n == 0 {
		o.state = rwPage
	}
	o.lp.kick(o.step)
}

func (o *rwOp) kick() { o.lp.kick(o.step) }

func (o *rwOp) step() bool {
	switch o.state {
	case rwGather:
		return o.gatherRound()
	case rwPage:
		return o.lockPage()
	case rwLocked:
		return o.locked()
	case rwThrottle:
		return o.throttle()
	default:
		o.finish()
		return false
	}
}

// lastPage is the last page the call touches.
func (o *rwOp) lastPage() int64 { return (o.off + o.n - 1) / PageSize }

// gatherRound gives the missing pages of the next round a locked buffer
// each and submits their fills under one plug.
func (o *rwOp) gatherRound() bool {
	c := o.c
	last := min(o.lastPage(), o.gather+max(WalkChunk, c.ra.window)-1)
	var fills []*buffer
	for o.gather <= last {
		c.lock()
		if c.closed {
			c.unlock()
			break
		}
		for steps := 0; steps < WalkChunk && o.gather <= last; steps, o.gather = steps+1, o.gather+1 {
			p := o.gather
			b := c.index[p]
			switch {
			case b == nil:
				if c.discarding(p) != nil {
					continue // the page walk waits for the discard
				}
				b = c.newBuffer(p)
				o.created = append(o.created, p)
			case !b.uptodate && !b.locked && c.discarding(p) == nil:
				b.locked = true // a dropped read-ahead's, or a failed fill's
			default:
				continue
			}
			o.filled = append(o.filled, p)
			fills = append(fills, b)
		}
		c.unlock()
	}
	o.gather = last + 1
	o.state = rwPage
	if len(fills) == 0 {
		return true
	}
	o.cl.submit(c.fillBios(fills), o.kickf)
	return false
}

// lockPage takes the lock of the page at pos (creating its buffer if it
// has none), or waits for it.
func (o *rwOp) lockPage() bool {
	c := o.c
	if o.pos >= o.n {
		o.state = rwEnd
		return true
	}
	pg := (o.off + o.pos) / PageSize
	if !o.write && pg >= o.gather {
		o.state = rwGather
		return true
	}
	c.lock()
	if c.closed {
		c.unlock()
		o.err = ErrClosed
		o.state = rwEnd
		return true
	}
	b := c.index[pg]
	if b == nil {
		if d := c.discarding(pg); d != nil {
			c.st.DiscardWaits++
			d.waiters = append(d.waiters, o.kickf)
			c.unlock()
			return false
		}
		b = c.newBuffer(pg)
		o.b = b
		return o.have(false)
	}
	o.b = b
	if !c.lockBuffer(b, o.kickf) {
		o.state = rwLocked
		c.unlock()
		return false
	}
	return o.have(true)
}

// locked goes on once the lock of o.b has been handed to us.
func (o *rwOp) locked() bool {
	o.c.lock()
	return o.have(true)
}

// have goes on with o.b locked by us and the cache lock held (released on
// return). found reports whether the buffer was there.
func (o *rwOp) have(found bool) bool {
	c, b := o.c, o.b
	if !b.hashed { // dropped while we waited: look again
		c.unlockBuffer(b)
		c.unlock()
		o.state = rwPage
		return true
	}
	pg := b.page
	in := (o.off + o.pos) % PageSize
	k := min(PageSize-in, o.n-o.pos)
	fill := !b.uptodate && !(o.write && k == PageSize)
	if fill {
		if d := c.discarding(pg); d != nil {
			// A buffer with no data yet (a failed read-ahead's, or one
			// found while a discard of it began): filling it now could
			// read the old data.
			c.unlockBuffer(b)
			c.st.DiscardWaits++
			d.waiters = append(d.waiters, o.kickf)
			o.state = rwPage
			c.unlock()
			return false
		}
		if has(o.filled, pg) && b.fillErr != nil {
			o.err = b.fillErr // our own fill failed
			c.unlockBuffer(b)
			c.unlock()
			o.state = rwEnd
			return true
		}
		// Fill it ourselves: the fill's end unlocks it and hands the lock
		// back to us, first in line.
		o.filled = insertSorted(o.filled, pg)
		if !found {
			o.created = insertSorted(o.created, pg)
		}
		b.owners = slices.Insert(b.owners, 0, o.kickf)
		o.state = rwLocked
		c.unlock()
		o.cl.submit(c.fillBios([]*buffer{b}), nil)
		return false
	}
	if has(o.created, pg) {
		found = false
	}
	if found {
		c.st.Hits++
	} else {
		c.st.Misses++
	}
	c.unlock()
	c.ensureData(b) // a whole-page write to a new buffer
	if !c.noData {
		if o.write {
			copy(b.data[in:], o.buf[o.pos:o.pos+k])
		} else {
			copy(o.buf[o.pos:o.pos+k], b.data[in:])
		}
	}
	c.lock()
	var raFrom, raTo int64
	if o.write {
		c.markDirty(b)
		b.writer = o.cl
		o.dirtied++
	} else {
		if has(o.filled, pg) {
			c.st.ReadMisses++
		} else {
			c.st.ReadHits++
		}
		b.uptodate = true
		c.touch(b)
		raFrom, raTo = c.noteRead(o.cl.ra, pg)
	}
	c.unlockBuffer(b)
	c.unlock()
	o.b = nil
	c.readAhead(o.cl, raFrom, raTo)
	o.pos += k
	o.state = rwPage
	if o.write && (o.dirtied%WriteBatch == 0 || o.pos == o.n) {
		next := rwPage
		if o.pos == o.n {
			next = rwEnd
		}
		o.startThrottle(next)
	}
	return true
}

// finish charges the copy time and completes the call.
func (o *rwOp) finish() {
	c := o.c
	c.lock()
	if o.throttled {
		c.st.Throttled++
	}
	d := c.chargeCopy(o.cl, o.pos)
	c.unlock()
	n, err := int(o.pos), o.err
	if err == nil && o.pos == o.n {
		err = o.tail
	}
	if d <= 0 {
		o.done(n, err)
		return
	}
	c.clk.AfterFunc(d, func() { o.done(n, err) })
}

// readHit serves a read of n bytes at off as cl if they lie in one page
// that is cached, uptodate and unlocked, and reports whether it did; if
// not, it has changed nothing and the caller takes the general path. In
// one hold of the cache lock it counts the hit, marks the buffer
// referenced (the LRU's touch, evictOne), notes the
// read for read-ahead and pins the buffer (pin.go); it copies under the
// pin, outside the lock, then starts any read-ahead. cl may be nil (the
// blocking API): the read is noted in the shared streams, and a client is
// made only if it starts a read-ahead. Never with Config.CopyNsPerKiB (see
// the top of the file).
func (c *Cache) readHit(cl *Client, p []byte, n, off int64) bool {
	in := off % PageSize
	if n == 0 || in+n > PageSize || c.copyNs != 0 || off+n > c.npages*PageSize {
		return false
	}
	pg := off / PageSize
	b := c.hinted(pg) // hint.go: the lookup and the buffer's cache miss, before the lock
	c.lock()
	if b == nil || !b.hashed {
		b = c.index[pg]
	}
	if c.closed || b == nil || !b.uptodate || b.locked {
		c.unlock()
		return false
	}
	c.pin(b)
	c.st.Hits++
	c.st.ReadHits++
	if !b.referenced {
		b.referenced = true // the LRU's touch, in evictOne's second turn (cache.go)
	}
	var t *raTable
	if cl != nil {
		t = cl.ra
	}
	raFrom, raTo := c.noteRead(t, pg)
	c.unlock()
	if !c.noData {
		copy(p[:n], b.data[in:])
	}
	c.unpin(b)
	if raFrom < raTo {
		if cl == nil {
			cl = c.goClient()
		}
		c.readAhead(cl, raFrom, raTo)
	}
	return true
}

// has reports whether sorted s holds p.
func has(s []int64, p int64) bool {
	_, ok := slices.BinarySearch(s, p)
	return ok
}

// insertSorted adds p to sorted s if it is not there.
func insertSorted(s []int64, p int64) []int64 {
	i, ok := slices.BinarySearch(s, p)
	if ok {
		return s
	}
	return slices.Insert(s, i, p)
}
