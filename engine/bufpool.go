package engine

// The data buffers of a real-file run. A bio needs its buffer from the
// moment it is prepared until it ends; once it has ended the job keeps
// only the bio's address and times. So a buffer is taken when the bio is
// prepared and given back in the bio's EndIO, on the device's goroutine,
// not when the job gets round to the completion on the executor: a job at
// iodepth=1000 refilling from a busy executor would otherwise hold a
// thousand buffers while at most nr_requests requests are out. Bios
// between prepare and EndIO each hold a request or are merged into one
// (or are the one bio a sleeping job has parked), so the buffers in use
// are bounded by the request pool times the largest request, whatever
// iodepth says.
//
// Buffered I/O on a file goes through the page cache, whose calls hold no
// request: there a call takes its buffer when it starts, and at most
// cacheSlots calls hold one at a time (the others wait their turn, without
// blocking anyone: withSlot).
//
// Freed buffers are kept for reuse, by power-of-two size class, up to a
// limit in bytes set from the queue's pool (setLimit); beyond it they are
// left to the garbage collector.

import (
	"math/bits"
	"sync"

	"github.com/blkq-dev/blkq/device"
)

// minBufClass is the smallest size class: a 512-byte sector.
const minBufClass = 9

type bufPool struct {
	mu        sync.Mutex
	free      [64][][]byte // by class: buffers of 1<<class bytes
	retained  int64        // bytes in free
	limit     int64        // most bytes kept in free
	allocated int64        // bytes ever allocated (for tests)

	slots     int          // most page cache calls holding a buffer at once
	slotsUsed int          // calls holding one
	slotWait  []slotWaiter // calls waiting for one, in order
}

func newBufPool(limit int64, cacheSlots int) *bufPool {
	return &bufPool{limit: limit, slots: max(cacheSlots, 1)}
}

func bufClass(n int) int { return max(bits.Len(uint(n-1)), minBufClass) }

// get returns a buffer of n bytes aligned for O_DIRECT (nil for n <= 0).
// Its content is what it last held.
func (p *bufPool) get(n int) []byte {
	if n <= 0 {
		return nil
	}
	p.mu.Lock()
	b := p.take(n)
	p.mu.Unlock()
	if b == nil {
		b = device.AlignedBuffer(1 << bufClass(n))[:n]
	}
	return b
}

// take returns a kept buffer of n > 0 bytes, or nil if there is none (the
// caller allocates one: it has been counted in allocated). Called with
// p.mu held.
func (p *bufPool) take(n int) []byte {
	c := bufClass(n)
	if l := p.free[c]; len(l) > 0 {
		b := l[len(l)-1]
		l[len(l)-1] = nil
		p.free[c] = l[:len(l)-1]
		p.retained -= int64(cap(b))
		return b[:n]
	}
	p.allocated += 1 << c
	return nil
}

// put gives back a buffer from get. It may be called on any goroutine.
func (p *bufPool) put(b []byte) {
	if !ours(b) {
		return
	}
	p.mu.Lock()
	p.keep(b)
	p.mu.Unlock()
}

// ours reports whether b came from get.
func ours(b []byte) bool {
	n := cap(b)
	return n != 0 && n&(n-1) == 0 && n >= 1<<minBufClass
}

// keep keeps b, one of ours, for reuse if the limit allows. Called with
// p.mu held.
func (p *bufPool) keep(b []byte) {
	n := cap(b)
	if p.retained+int64(n) <= p.limit {
		c := bufClass(n)
		p.free[c] = append(p.free[c], b[:n])
		p.retained += int64(n)
	}
}

// setLimit sets how many bytes of freed buffers are kept.
func (p *bufPool) setLimit(limit int64) {
	p.mu.Lock()
	p.limit = limit
	p.mu.Unlock()
}

// withSlot calls f with a buffer of n bytes once one of the cache slots
// is free: at once, or on the goroutine that frees one (putSlot), in the
// order the calls came. It never blocks. The slot and the buffer are
// taken in one hold of the pool's lock (a page-cache hit is a few hundred
// ns, and every hold counts).
func (p *bufPool) withSlot(n int, f func(buf []byte)) {
	p.mu.Lock()
	if p.slotsUsed < p.slots {
		p.slotsUsed++
		var b []byte
		if n > 0 {
			b = p.take(n)
		}
		p.mu.Unlock()
		if b == nil && n > 0 {
			b = device.AlignedBuffer(1 << bufClass(n))[:n]
		}
		f(b)
		return
	}
	p.slotWait = append(p.slotWait, slotWaiter{n, f})
	p.mu.Unlock()
}

// putSlot gives back a buffer from withSlot and its slot, which passes to
// the oldest call waiting for one, in one hold of the pool's lock.
func (p *bufPool) putSlot(b []byte) {
	p.mu.Lock()
	if ours(b) {
		p.keep(b)
	}
	if len(p.slotWait) == 0 {
		p.slotsUsed--
		p.mu.Unlock()
		return
	}
	w := p.slotWait[0]
	p.slotWait = p.slotWait[1:]
	p.mu.Unlock()
	w.f(p.get(w.n))
}

// slotWaiter is a cache call waiting for a slot.
type slotWaiter struct {
	n int
	f func([]byte)
}
