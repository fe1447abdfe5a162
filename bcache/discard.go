package bcache

import (
	"fmt"

	"github.com/blkq-dev/blkq"
)

// Discard and the fills that must wait for it.
//
// A discard has to leave nothing of the old data anywhere: not in the
// cache, and not on the device through a later write-back. Dropping the
// range's pages before the device discard is not enough on its own: until
// the device has discarded, a read miss, a partial write's fill or a
// read-ahead started by a neighbouring page would read the old data back
// into the cache, where reads return it and a write-back puts it on the
// device again. Linux closes that window by holding the mapping's
// invalidate lock across BLKDISCARD, which page-cache fills take shared.
// Here the equivalent is a list of the discards in progress, each a page
// range: from the moment a discard is on it until its device discard has
// completed, no buffer is created for a page in its range (a read or write
// that needs one waits for the discard; read-ahead skips the page), and
// the discard drops every buffer already there, after waiting for the I/O
// on it. So no read of the range reaches the device between the drop and
// the device discard, and every read that started before ended before the
// device discard began.
//
// A fill waits once for each discard of its page that is in progress when
// it looks; overlapping discards that keep starting can make it wait
// again, as Linux's writers on the invalidate lock hold off its readers.

// discardMaxSectors is the most sectors one discard bio carries: the
// largest multiple of a page below Bio.Sectors' limit.
const discardMaxSectors = (1<<32 - 1) &^ (sectorsPerPage - 1)

// discardRange is a discard in progress: pages [first, last], and the
// continuations to run when its device discard has completed.
type discardRange struct {
	first, last int64
	waiters     []func()
}

// discarding returns a discard in progress whose range holds page p, or
// nil. Called with the cache lock held; the list is as long as the
// number of discards running at once.
func (c *Cache) discarding(p int64) *discardRange {
	for _, d := range c.discards {
		if d.first <= p && p <= d.last {
			return d
		}
	}
	return nil
}

// discardOp is one Discard.
type discardOp struct {
	c      *Cache
	cl     *Client
	off, n int64
	d      *discardRange
	p      int64   // next page to drop
	b      *buffer // whose lock was handed to us
	issued bool
	left   int // discard bios not yet ended
	first  error
	done   func(error)
	lp     loop
}

// StartDiscard discards the bytes [off, off+n) of the device through the
// cache as cl, as the BLKDISCARD ioctl does, and calls done with the
// device's error once the device has done it: it drops what the cache holds
// of the range and sends the discard to the queue. Whole pages in the range
// are dropped, dirty or not, after waiting for any I/O on them; a page the
// range only partly covers keeps its place with the covered bytes zeroed
// (if it holds data). Until the device discard completes, reads and writes
// that need a page of the range from the device wait, and read-ahead skips
// it; afterwards reads of the range return what the device returns for a
// discarded range (zeros for a file device, whose discard punches a hole).
// Nothing from before the discard is written back.
//
// off and n must be multiples of 512 bytes, and the range within the
// device (BLKDISCARD's EINVAL cases); n = 0 does nothing. After Close it
// fails with ErrClosed.
func (c *Cache) StartDiscard(cl *Client, off, n int64, done func(error)) {
	size := int64(c.q.Device().Capacity()) << blkq.SectorShift
	switch {
	case off < 0 || n < 0 || off%512 != 0 || n%512 != 0:
		done(fmt.Errorf("bcache: discard of %d bytes at %d: want non-negative multiples of 512", n, off))
		return
	case off > size || n > size-off:
		done(fmt.Errorf("bcache: discard of %d bytes at %d: %w (%d bytes)", n, off, blkq.ErrBeyondEnd, size))
		return
	case n == 0:
		done(nil)
		return
	}
	o := &discardOp{c: c, cl: cl, off: off, n: n, done: done,
		d: &discardRange{first: off / PageSize, last: (off + n - 1) / PageSize}}
	o.p = o.d.first
	c.lock()
	if c.closed {
		c.unlock()
		done(ErrClosed)
		return
	}
	c.discards = append(c.discards, o.d)
	c.nrDiscards++ // under the lock that saw !closed: before Close waits
	c.unlock()
	o.lp.kick(o.step)
}

func (o *discardOp) kick() { o.lp.kick(o.step) }

// step drops the cached pages of the range and zeroes the covered part of
// a page at either end that the range only partly covers, visiting at most
// WalkChunk pages per hold of the cache lock, then issues the discard.
// Every page is visited once: none can be added behind the walk, as the
// range is on the list of discards in progress. It looks every page of the
// range up, cached or not, which keeps each hold bounded: about 3 ms per
// GiB on an empty cache (BenchmarkDiscard1GiBEmptyCache), on top of the
// device's discard.
func (o *discardOp) step() bool {
	if o.issued {
		return false
	}
	c := o.c
	c.lock()
	if b := o.b; b != nil { // its lock was handed to us
		o.b = nil
		o.dropPage(b)
	}
	for steps := 0; steps < WalkChunk && o.p <= o.d.last; steps++ {
		b := c.index[o.p]
		if b == nil {
			o.p++
			continue
		}
		if !c.lockBuffer(b, o.kick) { // write-back, a read or read-ahead in flight
			o.b = b
			c.unlock()
			return false
		}
		o.dropPage(b)
	}
	c.unlock()
	if o.p <= o.d.last {
		gosched()
		return true
	}
	o.issue()
	return false
}

// dropPage drops b (locked by us) if the range covers it wholly or it holds
// no data, else zeroes the covered part; it unlocks b and moves on. Called
// with the cache lock held.
func (o *discardOp) dropPage(b *buffer) {
	c, p := o.c, o.p
	o.p++
	if b.hashed {
		end := o.off + o.n
		lo, hi := max(o.off, p*PageSize), min(end, (p+1)*PageSize)
		if hi-lo == PageSize || !b.uptodate {
			// A page that holds no data is dropped too: filling it now
			// would read the old data.
			if b.dirty {
				c.clearDirty(b)
			}
			c.drop(b)
			c.st.Discarded++
		} else if b.data != nil {
			clear(b.data[lo-p*PageSize : hi-p*PageSize])
		}
	}
	c.unlockBuffer(b)
}

// issue sends discard bios for the range as the client; the last one's end
// finishes the discard.
func (o *discardOp) issue() {
	o.issued = true
	var bios []*blkq.Bio
	for sector, left := uint64(o.off)>>blkq.SectorShift, uint64(o.n)>>blkq.SectorShift; left > 0; {
		k := min(left, discardMaxSectors)
		bios = append(bios, &blkq.Bio{Op: blkq.OpDiscard, Sector: sector, Sectors: uint32(k), EndIO: o.ended})
		sector, left = sector+k, left-k
	}
	o.c.lock()
	o.left = len(bios)
	o.c.unlock()
	o.cl.submit(bios, nil)
}

// ended counts a discard bio's end; the last one takes the range off the
// list of discards in progress and lets the fills waiting for it go on.
func (o *discardOp) ended(_ *blkq.Bio, err error) {
	c := o.c
	c.lock()
	if err != nil && o.first == nil {
		o.first = err
	}
	if o.left--; o.left > 0 {
		c.unlock()
		return
	}
	for i, e := range c.discards {
		if e == o.d {
			c.discards = append(c.discards[:i], c.discards[i+1:]...)
			break
		}
	}
	for _, f := range o.d.waiters {
		c.later(f)
	}
	o.d.waiters = nil
	c.nrDiscards--
	c.checkIdle()
	err = o.first
	c.unlock()
	o.done(err)
}
