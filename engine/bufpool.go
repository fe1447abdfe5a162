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
// Buffered I/O on a file goes through the buffer cache on goroutines of
// its own, which hold no request: there a buffer is taken by the
// goroutine, and at most cacheSlots of them hold one at a time.
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

	slots chan struct{} // cache I/Os holding a buffer
}

func newBufPool(limit int64, cacheSlots int) *bufPool {
	return &bufPool{limit: limit, slots: make(chan struct{}, max(cacheSlots, 1))}
}

func bufClass(n int) int { return max(bits.Len(uint(n-1)), minBufClass) }

// get returns a buffer of n bytes aligned for O_DIRECT (nil for n <= 0).
// Its content is what it last held.
func (p *bufPool) get(n int) []byte {
	if n <= 0 {
		return nil
	}
	c := bufClass(n)
	p.mu.Lock()
	if l := p.free[c]; len(l) > 0 {
		b := l[len(l)-1]
		l[len(l)-1] = nil
		p.free[c] = l[:len(l)-1]
		p.retained -= int64(cap(b))
		p.mu.Unlock()
		return b[:n]
	}
	p.allocated += 1 << c
	p.mu.Unlock()
	return device.AlignedBuffer(1 << c)[:n]
}

// put gives back a buffer from get. It may be called on any goroutine.
func (p *bufPool) put(b []byte) {
	n := cap(b)
	if n == 0 || n&(n-1) != 0 || n < 1<<minBufClass {
		return // not one of ours
	}
	p.mu.Lock()
	if p.retained+int64(n) <= p.limit {
		c := bufClass(n)
		p.free[c] = append(p.free[c], b[:n])
		p.retained += int64(n)
	}
	p.mu.Unlock()
}

// setLimit sets how many bytes of freed buffers are kept.
func (p *bufPool) setLimit(limit int64) {
	p.mu.Lock()
	p.limit = limit
	p.mu.Unlock()
}

// getSlot waits for one of the cache slots, then returns get(n). It
// blocks: call it off the executor.
func (p *bufPool) getSlot(n int) []byte {
	p.slots <- struct{}{}
	return p.get(n)
}

// putSlot gives back a buffer from getSlot and its slot.
func (p *bufPool) putSlot(b []byte) {
	p.put(b)
	<-p.slots
}
