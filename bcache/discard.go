package bcache

import "fmt"

// Discard drops what the cache holds of the bytes [off, off+n) before a
// discard of them goes to the device, as Linux truncates a block device's
// page cache before BLKDISCARD: otherwise a write-back in flight, or a
// dirty page written back later, could land after the discard and bring
// the old data back. Whole pages in the range are dropped, dirty or not,
// after waiting for any I/O on them; a page the range only partly covers
// keeps its place and has the covered bytes zeroed. The caller issues the
// discard itself once Discard returns.
func (c *Cache) Discard(off, n int64) error {
	if off < 0 || n < 0 {
		return fmt.Errorf("bcache: discard of %d bytes at %d", n, off)
	}
	end := min(off+n, c.npages*PageSize)
	for p := off / PageSize; p*PageSize < end; p++ {
		lo, hi := max(off, p*PageSize), min(end, (p+1)*PageSize)
		c.lock()
		b := c.index[p]
		if b == nil {
			c.unlock()
			continue
		}
		c.lockBuffer(b) // waits for write-back or read-ahead in flight
		if b.hashed {
			if hi-lo == PageSize {
				if b.dirty {
					b.dirty = false
					c.nrDirty--
				}
				c.drop(b)
				c.st.Discarded++
			} else if b.data != nil {
				clear(b.data[lo-p*PageSize : hi-p*PageSize])
			}
		}
		c.unlockBuffer(b)
		c.unlock()
	}
	return nil
}
