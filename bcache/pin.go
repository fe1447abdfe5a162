package bcache

// Pins: page-cache hits that copy without the buffer lock.
//
// A read hit used to take the buffer lock like any other operation: one
// hold of the cache lock to lock the buffer, the copy, and a second hold
// to touch the LRU, note the read and unlock. Under four readers on two
// CPUs the cache lock was where they queued (issue 13). A hit now pins the
// buffer instead, in its single hold of the cache lock, and copies with
// the pin: it needs only that the data does not change or move under the
// copy, and it does not mind other readers (Linux's filemap_read copies
// from an uptodate folio under a reference, without the folio lock, for
// the same reason).
//
// The rules. A pin is taken only under the cache lock, only on an
// uptodate buffer whose lock is free, and a buffer never stops being
// uptodate while it is hashed, so the buffers a hit pins are never being
// filled. Whoever takes the buffer lock to change the data (a write's
// copy, a discard's zeroing) waits until the pins are gone: lockBuffer,
// and unlockBuffer's hand-off to the next owner, defer the owner's
// continuation to the last pin's release (waitPins). Write-back locks the
// buffer directly and only reads the data, so it does not wait. evictOne
// does not take a pinned buffer, whose data it would give to a new page.
// A pin's release takes no lock unless a lock owner is waiting for it.
//
// The count and the "an owner waits" mark share one atomic word, so that
// the last release and an owner's wait cannot miss each other: the owner
// sets the mark (under the cache lock) only while the count is above
// zero, and the release that brings the count to zero with the mark set
// is the one that runs the owner.

import "sync/atomic"

// pinDrain marks a pin count an owner of the buffer lock waits on.
const pinDrain = 1 << 30

// pinCount is a buffer's pins and its drain mark.
type pinCount struct{ v atomic.Int32 }

// held reports whether any hit holds a pin.
func (p *pinCount) held() bool { return p.v.Load()&(pinDrain-1) != 0 }

// pin takes a pin on b for a hit. Called with the cache lock held, on an
// uptodate buffer whose lock is free.
func (c *Cache) pin(b *buffer) { b.pins.v.Add(1) }

// unpin releases a hit's pin on b, without the cache lock; the last pin of
// a buffer whose lock owner waits hands the owner its continuation.
func (c *Cache) unpin(b *buffer) {
	if b.pins.v.Add(-1) != pinDrain {
		return
	}
	c.lock()
	b.pins.v.Store(0)
	f := b.drain
	b.drain = nil
	c.later(f)
	c.unlock()
}

// waitPins is for the new owner of b's lock, b.locked already set (so no
// new pin can come): if hits still hold pins it keeps resume, to be run by
// the last release, and reports true; else it reports false and the owner
// goes on. Called with the cache lock held.
func (c *Cache) waitPins(b *buffer, resume func()) bool {
	for {
		v := b.pins.v.Load()
		if v == 0 {
			return false
		}
		if b.pins.v.CompareAndSwap(v, v|pinDrain) {
			b.drain = resume
			c.st.BufferWaits++
			return true
		}
	}
}
