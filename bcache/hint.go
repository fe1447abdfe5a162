package bcache

// Hints: where the hit path finds its buffer before it takes the lock.
//
// The index is a Go map under the cache lock, and a random read's lookup
// in it, and then the first read of the buffer it finds, are cache misses:
// under four readers they were most of what a hit does while holding the
// lock, so the others waited on them. The hint table is a direct-mapped
// array of atomic pointers, one slot per page number modulo its size (the
// cache's capacity, rounded up to a power of two): newBuffer stores each
// buffer it indexes in its slot, drop clears the slot if it still holds
// the buffer. A hit loads its page's slot without the lock; a buffer there
// whose page (set before it was published, never changed) is the one
// asked for is the candidate, and its first cache lines are then fetched
// before the lock is taken. Under the lock the hit checks that the
// candidate is still hashed (then it is the index's buffer for the page:
// a page has at most one hashed buffer) and falls back to the map
// otherwise. A hint is only ever a shortcut: a collision or a stale slot
// costs the map lookup the hit made before.
//
// The table is made only where the hit path is taken (no copy cost on the
// clock: a real file or the null device), at 8 bytes per page of capacity
// (128 KiB for the default 16384 pages), at most maxHints slots.

import (
	"math/bits"
	"sync/atomic"
)

// maxHints caps the hint table at 1<<20 slots (8 MiB).
const maxHints = 1 << 20

// makeHints makes the hint table for a capacity of pages, unless the hit
// path is never taken (c.copyNs set).
func (c *Cache) makeHints(pages int) {
	if c.copyNs != 0 || pages <= 0 {
		return
	}
	n := min(1<<bits.Len(uint(pages-1)), maxHints)
	c.hint = make([]atomicBuffer, n)
}

// hintSlot is page p's slot.
func (c *Cache) hintSlot(p int64) *atomicBuffer { return &c.hint[uint64(p)&uint64(len(c.hint)-1)] }

// setHint points b's slot at b, newly indexed. Called with the cache lock
// held.
func (c *Cache) setHint(b *buffer) {
	if c.hint != nil {
		c.hintSlot(b.page).Store(b)
	}
}

// clearHint empties b's slot if it holds b, dropped from the index.
// Called with the cache lock held.
func (c *Cache) clearHint(b *buffer) {
	if c.hint != nil {
		c.hintSlot(b.page).CompareAndSwap(b, nil)
	}
}

// hinted returns the buffer page p's slot holds if it is p's, else nil:
// a candidate, to be checked under the lock (b.hashed). Without the lock.
func (c *Cache) hinted(p int64) *buffer {
	if c.hint == nil {
		return nil
	}
	if b := c.hintSlot(p).Load(); b != nil && b.page == p {
		return b
	}
	return nil
}

// atomicBuffer is a hint slot.
type atomicBuffer = atomic.Pointer[buffer]
