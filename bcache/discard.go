package bcache

import (
	"context"
	"fmt"
	"sync"

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

// discardRange is a discard in progress: pages [first, last], and a
// channel closed when its device discard has completed.
type discardRange struct {
	first, last int64
	done        chan struct{}
}

// discarding returns a discard in progress whose range holds page p, or
// nil. Called with the cache lock held; the list is as long as the
// number of Discard calls running at once.
func (c *Cache) discarding(p int64) *discardRange {
	for _, d := range c.discards {
		if d.first <= p && p <= d.last {
			return d
		}
	}
	return nil
}

// Discard discards the bytes [off, off+n) of the device through the cache,
// as the BLKDISCARD ioctl does: it drops what the cache holds of the range,
// sends the discard to the queue and returns once the device has done it,
// with the device's error. Whole pages in the range are dropped, dirty or
// not, after waiting for any I/O on them; a page the range only partly
// covers keeps its place with the covered bytes zeroed (if it holds data).
// Until the device discard completes, reads and writes that need a page
// of the range from the device wait, and read-ahead skips it; afterwards
// reads of the range return what the device returns for a discarded range
// (zeros for a file device, whose discard punches a hole). Nothing from
// before the discard is written back.
//
// off and n must be multiples of 512 bytes, and the range within the
// device (BLKDISCARD's EINVAL cases); n = 0 does nothing. After Close it
// returns ErrClosed.
func (c *Cache) Discard(off, n int64) error {
	size := int64(c.q.Device().Capacity()) << blkq.SectorShift
	switch {
	case off < 0 || n < 0 || off%512 != 0 || n%512 != 0:
		return fmt.Errorf("bcache: discard of %d bytes at %d: want non-negative multiples of 512", n, off)
	case off > size || n > size-off:
		return fmt.Errorf("bcache: discard of %d bytes at %d: %w (%d bytes)", n, off, blkq.ErrBeyondEnd, size)
	case n == 0:
		return nil
	}
	d := &discardRange{first: off / PageSize, last: (off + n - 1) / PageSize, done: make(chan struct{})}
	c.lock()
	if c.closed {
		c.unlock()
		return ErrClosed
	}
	c.discards = append(c.discards, d)
	c.discardWG.Add(1) // under the lock that saw !closed: before Close waits
	c.unlock()
	defer c.discardWG.Done()
	c.dropRange(off, off+n)
	err := c.issueDiscard(off, n)
	c.lock()
	for i, e := range c.discards {
		if e == d {
			c.discards = append(c.discards[:i], c.discards[i+1:]...)
			break
		}
	}
	close(d.done)
	c.unlock()
	return err
}

// dropRange drops the cached pages of bytes [off, end) and zeroes the
// covered part of a page at either end that the range only partly covers,
// visiting at most WalkChunk pages per hold of the cache lock. Every page
// is visited once: none can be added behind the walk, as the range is on
// the list of discards in progress. It looks every page of the range up,
// cached or not, which keeps each hold bounded: about 3 ms per GiB on an
// empty cache (BenchmarkDiscard1GiBEmptyCache), on top of the device's
// discard.
func (c *Cache) dropRange(off, end int64) {
	p, last := off/PageSize, (end-1)/PageSize
	for p <= last {
		c.lock()
		for steps := 0; steps < WalkChunk && p <= last; steps, p = steps+1, p+1 {
			b := c.index[p]
			if b == nil {
				continue
			}
			c.lockBuffer(b) // waits for write-back, a read or read-ahead in flight
			if b.hashed {
				lo, hi := max(off, p*PageSize), min(end, (p+1)*PageSize)
				if hi-lo == PageSize || !b.uptodate {
					// A page that holds no data is dropped too: filling
					// it now would read the old data.
					if b.dirty {
						b.dirty = false
						c.nrDirty--
					}
					c.drop(b)
					c.st.Discarded++
				} else {
					clear(b.data[lo-p*PageSize : hi-p*PageSize])
				}
			}
			c.unlockBuffer(b)
		}
		c.unlock()
		gosched()
	}
}

// issueDiscard sends discard bios for bytes [off, off+n) under one plug and
// waits for them; it returns the first error.
func (c *Cache) issueDiscard(off, n int64) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	t := blkq.NewGoroutineTask("bcache-discard")
	ctx := blkq.WithTask(context.Background(), t)
	c.q.Plug(t)
	for sector, left := uint64(off)>>blkq.SectorShift, uint64(n)>>blkq.SectorShift; left > 0; {
		k := min(left, discardMaxSectors)
		wg.Add(1)
		bio := &blkq.Bio{Op: blkq.OpDiscard, Sector: sector, Sectors: uint32(k), EndIO: func(_ *blkq.Bio, err error) {
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
			wg.Done()
		}}
		c.q.Submit(ctx, bio) // a background context: never fails; errors come through EndIO
		sector, left = sector+k, left-k
	}
	c.q.Finish(t)
	wg.Wait()
	return first
}
