package bcache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/lockstat"
)

// PageSize is the size of a buffer, in bytes.
const PageSize = 4096

// sectorsPerPage is PageSize in 512-byte sectors: one page write is one bio
// of 8 sectors.
const sectorsPerPage = PageSize >> blkq.SectorShift

// WriteBatch is the most buffers one write-back pass submits at a time
// (2.4's write_some_buffers, NRSYNC).
const WriteBatch = 32

// Defaults of Config.
const (
	// DefaultPages is the default capacity: 16384 pages (64 MiB).
	DefaultPages = 16384
	// DefaultBackgroundRatio is the default background ratio: 0.10 of the
	// cache's page capacity (Linux's vm.dirty_background_ratio is 10, in
	// percent of available memory).
	DefaultBackgroundRatio = 0.10
	// DefaultDirtyRatio is the default hard ratio: 0.20 of the cache's page
	// capacity (Linux's vm.dirty_ratio is 20, in percent of available
	// memory).
	DefaultDirtyRatio = 0.20
)

// ErrClosed is returned by ReadAt and WriteAt after Close.
var ErrClosed = errors.New("bcache: cache closed")

// Config sets up a Cache. The zero value of a field means its default.
type Config struct {
	// Pages is the capacity in buffers of PageSize bytes (default
	// DefaultPages). It is a soft limit: when every clean buffer in the
	// eviction window is locked, a new buffer is added anyway (counted in
	// Stats.Overcommit) rather than waiting.
	Pages int
	// BackgroundRatio is the fraction of Pages above which dirty pages
	// wake the background flusher (default 0.10).
	BackgroundRatio float64
	// DirtyRatio is the fraction of Pages above which dirty plus
	// under-write-back pages make writers do write-back themselves
	// (default 0.20).
	DirtyRatio float64
	// ReadAheadKB is how far ahead of a sequential reader the cache reads,
	// in KiB (default 0: the queue's read_ahead_kb when the cache is made,
	// Linux default 128; negative turns read-ahead off). At most
	// MaxReadAheadKB, as Linux's read_ahead_kb; the window used is also
	// capped at half of Pages (readahead.go says why).
	ReadAheadKB int
	// CPUHoldTime also times each hold of the cache lock on the holder
	// thread's CPU clock (two system calls per hold; see
	// package lockstat).
	CPUHoldTime bool
}

// buffer is one cached page.
type buffer struct {
	node
	page int64
	data []byte // PageSize bytes, allocated by the first lock owner; guarded by the buffer lock

	// Guarded by the cache lock.
	uptodate bool   // data holds the device's page (or newer)
	dirty    bool   // data is newer than the device's page
	locked   bool   // the buffer lock is held
	hashed   bool   // in the index; false once dropped
	gen      uint64 // generation when first dirtied (Cache.gen at the time)
	owners   []chan struct{}
	peekers  []chan struct{}
}

// A Cache is a buffer cache of PageSize-byte pages over a queue. All methods
// are safe for concurrent use.
type Cache struct {
	q      *blkq.Queue
	npages int64 // device size in whole pages

	mu       sync.Mutex
	index    map[int64]*buffer
	clean    blist
	dirty    blist
	busy     blist
	io       blist
	nrPages  int // buffers in the index
	nrDirty  int
	nrWB     int // buffers under write-back I/O
	capacity int
	bgRatio  float64
	hdRatio  float64
	bgThresh int // pages
	hdThresh int // pages
	gen      uint64
	errState // write-back errors for Sync (errseq.go)
	closed   bool
	st       Stats // counters; the gauges and lock figures are filled in by Stats

	kick        chan struct{}
	stop        chan struct{}
	stopOnce    sync.Once
	flusherDone chan struct{}

	discards  []*discardRange // discards in progress (discard.go)
	discardWG sync.WaitGroup  // Discard calls running

	hold *lockstat.Timer // cache lock hold times
	ra   raState         // read-ahead streams; guarded by mu
	raWG sync.WaitGroup  // read-ahead bios in flight

	// Test hooks, set before a Sync or Invalidate starts and read when it
	// builds its walks: needResched is asked after every walk step whether
	// to release the lock (need_resched); stepHook runs under the lock
	// before each visit.
	needResched func() bool
	stepHook    func(b *buffer)
	// raHook, if set, runs under the lock at the end of each hold of a
	// read-ahead, with the pages it visited and the buffers it added.
	raHook func(steps, added int)
}

// New makes a cache over q and starts its background flusher; Close stops
// it. Only whole pages of the device are cached: a trailing part page is
// beyond the cache's end.
func New(q *blkq.Queue, cfg Config) (*Cache, error) {
	if cfg.Pages < 0 {
		return nil, fmt.Errorf("bcache: negative capacity %d pages", cfg.Pages)
	}
	if cfg.Pages == 0 {
		cfg.Pages = DefaultPages
	}
	if cfg.BackgroundRatio == 0 {
		cfg.BackgroundRatio = DefaultBackgroundRatio
	}
	if cfg.DirtyRatio == 0 {
		cfg.DirtyRatio = DefaultDirtyRatio
	}
	c := &Cache{
		q:           q,
		npages:      int64(q.Device().Capacity() / sectorsPerPage),
		index:       make(map[int64]*buffer),
		capacity:    cfg.Pages,
		gen:         1,
		kick:        make(chan struct{}, 1),
		stop:        make(chan struct{}),
		flusherDone: make(chan struct{}),
		hold:        lockstat.New(cfg.CPUHoldTime),
	}
	window, err := readAheadWindow(q, cfg.ReadAheadKB, cfg.Pages)
	if err != nil {
		return nil, err
	}
	c.ra.init(window)
	for _, l := range []*blist{&c.clean, &c.dirty, &c.busy, &c.io} {
		l.init()
	}
	if err := c.SetDirtyRatios(cfg.BackgroundRatio, cfg.DirtyRatio); err != nil {
		return nil, err
	}
	go c.flusher()
	return c, nil
}

// SetDirtyRatios sets the background and hard dirty ratios, as fractions
// of the cache's page capacity: 0 < background ≤ hard ≤ 1.
func (c *Cache) SetDirtyRatios(background, hard float64) error {
	if !(background > 0 && background <= hard && hard <= 1) {
		return fmt.Errorf("bcache: dirty ratios %g, %g: want 0 < background <= hard <= 1", background, hard)
	}
	c.lock()
	c.bgRatio, c.hdRatio = background, hard
	c.bgThresh = max(1, int(background*float64(c.capacity)))
	c.hdThresh = max(c.bgThresh, int(hard*float64(c.capacity)))
	c.unlock()
	c.kickFlusher()
	return nil
}

// lock takes the cache lock and starts timing the hold.
func (c *Cache) lock() {
	c.mu.Lock()
	c.hold.Acquired()
}

// unlock releases the cache lock and records the hold time.
func (c *Cache) unlock() {
	c.hold.Released()
	c.mu.Unlock()
}

// Buffer lock. Called with the cache lock held.

// lockBuffer takes b's lock, sleeping (with the cache lock released) in
// FIFO order behind earlier waiters. The caller must then check b.hashed.
func (c *Cache) lockBuffer(b *buffer) {
	if !b.locked {
		b.locked = true
		return
	}
	ch := make(chan struct{}, 1)
	b.owners = append(b.owners, ch)
	c.st.BufferWaits++
	c.unlock()
	<-ch // the lock was handed to us
	c.lock()
}

// unlockBuffer releases b's lock: it wakes everyone waiting for the unlock
// and hands the lock to the oldest waiter for it, if any.
func (c *Cache) unlockBuffer(b *buffer) {
	for _, ch := range b.peekers {
		ch <- struct{}{}
	}
	b.peekers = nil
	if len(b.owners) > 0 {
		ch := b.owners[0]
		b.owners = b.owners[1:]
		if len(b.owners) == 0 {
			b.owners = nil
		}
		ch <- struct{}{}
		return
	}
	b.locked = false
}

// waitUnlocked waits, with the cache lock released, until b's lock is next
// released (wait_on_buffer). It does not take the lock.
func (c *Cache) waitUnlocked(b *buffer) {
	if !b.locked {
		return
	}
	ch := make(chan struct{}, 1)
	b.peekers = append(b.peekers, ch)
	c.st.BufferWaits++
	c.unlock()
	<-ch
	c.lock()
}

// getLocked returns page p's buffer, hashed and locked by the caller, and
// whether it found it (false: created); creating one waits for a discard
// of p in progress (discard.go). Called and returns with the cache lock
// held.
func (c *Cache) getLocked(p int64) (*buffer, bool) {
	for {
		b := c.index[p]
		if b == nil {
			if d := c.discarding(p); d != nil {
				c.st.DiscardWaits++
				c.unlock()
				<-d.done
				c.lock()
				continue
			}
			return c.newBuffer(p), false
		}
		c.lockBuffer(b)
		if b.hashed {
			return b, true
		}
		c.unlockBuffer(b) // dropped while we waited: look again
	}
}

// newBuffer adds a locked, not uptodate buffer for page p, evicting a clean
// one first if the cache is full. Its data is allocated by the caller,
// outside the cache lock.
func (c *Cache) newBuffer(p int64) *buffer {
	if c.nrPages >= c.capacity && !c.evictOne() {
		c.st.Overcommit++
	}
	b := &buffer{page: p, hashed: true, locked: true}
	b.buf = b
	c.index[p] = b
	c.clean.pushBack(&b.node)
	c.nrPages++
	return b
}

// evictOne drops the least recently used unlocked clean buffer among the
// first WalkChunk nodes of the clean list.
func (c *Cache) evictOne() bool {
	for n, i := c.clean.front(), 0; n != nil && i < WalkChunk; n, i = c.clean.next(n), i+1 {
		if n.buf != nil && !n.buf.locked {
			c.drop(n.buf)
			c.st.Evictions++
			return true
		}
	}
	return false
}

// drop takes a clean buffer out of the cache. b must be unlocked, or locked
// by the caller (who then unlocks it: waiters find it unhashed).
func (c *Cache) drop(b *buffer) {
	delete(c.index, b.page)
	b.hashed = false
	b.node.unlink()
	c.nrPages--
}

// markDirty marks b, locked by the caller, dirty. A buffer that was clean
// goes to the tail of the dirty list with the current generation; one that
// was dirty keeps its place (the list is in order of first dirtying).
func (c *Cache) markDirty(b *buffer) {
	b.uptodate = true
	if b.dirty {
		return
	}
	b.dirty = true
	b.gen = c.gen
	c.nrDirty++
	c.st.MaxDirty = max(c.st.MaxDirty, c.nrDirty)
	b.node.moveTo(&c.dirty)
}

// touch moves a clean buffer to the tail of the LRU.
func (c *Cache) touch(b *buffer) {
	if b.list == &c.clean {
		b.node.moveTo(&c.clean)
	}
}

// readPage fills b, locked by the caller, from the device.
func (c *Cache) readPage(b *buffer) error {
	done := make(chan error, 1)
	bio := &blkq.Bio{Op: blkq.OpRead, Flags: blkq.FlagSync, Sector: uint64(b.page) * sectorsPerPage,
		Sectors: sectorsPerPage, Buf: b.data, EndIO: func(_ *blkq.Bio, err error) { done <- err }}
	if err := c.q.Submit(context.Background(), bio); err != nil {
		return err
	}
	err := <-done
	if err == nil {
		c.lock()
		c.st.PagesRead++
		c.unlock()
	}
	return err
}

// ReadAt reads len(p) bytes at byte offset off through the cache
// (io.ReaderAt). Pages not cached are read from the device, one 8-sector
// bio each. Reading past the cache's end (the device's last whole page)
// returns the bytes before it and io.EOF.
func (c *Cache) ReadAt(p []byte, off int64) (int, error) {
	return c.rw(p, off, false)
}

// WriteAt copies len(p) bytes into the cache at byte offset off and marks
// the pages dirty (io.WriterAt); write-back happens later (background
// flusher, throttling, Sync). A partial page not cached is read first. A
// writer that finds the cache above its dirty ratio does write-back itself
// before returning. Writing past the cache's end writes the bytes before
// it and returns an error wrapping blkq.ErrBeyondEnd.
func (c *Cache) WriteAt(p []byte, off int64) (int, error) {
	return c.rw(p, off, true)
}

func (c *Cache) rw(p []byte, off int64, write bool) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("bcache: negative offset %d", off)
	}
	size := c.npages * PageSize
	var tail error
	n := int64(len(p))
	if off+n > size || off+n < off {
		n = max(0, size-off)
		tail = io.EOF
		if write {
			tail = fmt.Errorf("bcache: write of %d bytes at %d: %w (%d bytes)", len(p), off, blkq.ErrBeyondEnd, size)
		}
	}
	done := int64(0)
	dirtied := 0
	throttled := false
	for done < n {
		pos := off + done
		pg, in := pos/PageSize, int(pos%PageSize)
		k := min(int64(PageSize-in), n-done)
		c.lock()
		if c.closed {
			c.unlock()
			return int(done), ErrClosed
		}
		b, found := c.getLocked(pg)
		fill := !b.uptodate && !(write && k == PageSize)
		if d := c.discarding(pg); fill && d != nil {
			// A buffer with no data yet (a failed read-ahead's, or one
			// found while a discard of it began): filling it now could
			// read the old data.
			c.unlockBuffer(b)
			c.st.DiscardWaits++
			c.unlock()
			<-d.done
			continue
		}
		if found {
			c.st.Hits++
		} else {
			c.st.Misses++
		}
		c.unlock()
		if b.data == nil {
			b.data = make([]byte, PageSize)
		}
		if fill {
			if err := c.readPage(b); err != nil {
				c.lock()
				c.unlockBuffer(b)
				c.unlock()
				return int(done), err
			}
		}
		if write {
			copy(b.data[in:], p[done:done+k])
		} else {
			copy(p[done:done+k], b.data[in:])
		}
		c.lock()
		var raFrom, raTo int64
		if write {
			c.markDirty(b)
			dirtied++
		} else {
			if fill {
				c.st.ReadMisses++
			} else {
				c.st.ReadHits++
			}
			b.uptodate = true
			c.touch(b)
			raFrom, raTo = c.noteRead(pg)
		}
		c.unlockBuffer(b)
		c.unlock()
		c.readAhead(raFrom, raTo)
		done += k
		if write && (dirtied%WriteBatch == 0 || done == n) {
			throttled = c.balanceDirty(dirtied) || throttled
			dirtied = 0
		}
	}
	if throttled {
		c.lock()
		c.st.Throttled++
		c.unlock()
	}
	if n == 0 && tail == nil {
		return 0, nil
	}
	return int(n), tail
}

// Close stops the background flusher, writes back every dirty buffer (as
// the last close of a block device does) and waits for read-ahead and
// Discard calls in progress, returning Sync's error.
// Later ReadAt and WriteAt calls fail with ErrClosed. Neither the queue nor
// the device is closed.
func (c *Cache) Close() error {
	c.lock()
	already := c.closed
	c.closed = true
	c.unlock()
	c.stopFlusher()
	if already {
		return nil
	}
	_, err := c.sync()
	c.raWG.Wait()      // read-ahead in flight ends before the cache does
	c.discardWG.Wait() // and so do discards
	return err
}

// stopFlusher stops the background flusher and waits for it to exit.
func (c *Cache) stopFlusher() {
	c.stopOnce.Do(func() { close(c.stop) })
	<-c.flusherDone
}

// Stats counts the cache's work. Pages are PageSize bytes; durations are
// wall-clock time. A snapshot is taken under the cache lock, so it may be
// read while I/O runs.
type Stats struct {
	// Gauges, in pages.
	Pages      int // buffers cached
	Capacity   int // Config.Pages
	Dirty      int // dirty buffers
	Writeback  int // buffers under write-back I/O
	Busy       int // dirty buffers moved aside to the busy list
	Background int // background threshold, pages (BackgroundRatio × Capacity)
	Hard       int // hard threshold, pages (DirtyRatio × Capacity)

	// Counters.
	Hits, Misses int64 // page lookups by ReadAt and WriteAt that found / did not find a buffer
	// ReadHits counts the pages ReadAt served from the cache: found
	// uptodate, possibly after waiting for a read-ahead in flight to fill
	// them. Writes to cached pages are not counted.
	ReadHits int64
	// ReadMisses counts the pages ReadAt read from the device itself.
	ReadMisses       int64
	MaxDirty         int   // most dirty buffers at once
	ReadAheadPages   int64 // pages read ahead (read-ahead bios submitted)
	ReadAheadDropped int64 // read-ahead bios the queue dropped under request pressure (normal, not an error)
	ReadAheadErrors  int64 // read-ahead bios that failed otherwise
	ReadAheadSkipped int64 // pages of read-ahead windows left out: no room without passing Capacity, or a discard of them in progress
	PagesRead        int64 // pages read from the device by ReadAt and WriteAt's partial-page fills (not read-ahead), successfully
	WrittenFlusher   int64 // page writes submitted by the background flusher (failed ones included; see WriteErrors)
	WrittenThrottle  int64 // page writes submitted by throttled writers
	WrittenSync      int64 // page writes submitted by Sync (and Close)
	WriteErrors      int64 // page writes that failed
	Throttled        int64 // WriteAt calls that did write-back themselves (or waited for it)
	Evictions        int64 // clean buffers dropped to make room
	Overcommit       int64 // buffers ReadAt and WriteAt added above Capacity for lack of an evictable one (read-ahead never does)
	Invalidated      int64 // clean buffers dropped by Invalidate
	Discarded        int64 // buffers dropped by Discard
	DiscardWaits     int64 // page fills (and creations) that waited for a discard of their page in progress
	Syncs            int64 // Sync calls (including Close's)
	BufferWaits      int64 // sleeps on a buffer lock (to take it, or until it is released)
	MovedAside       int64 // locked buffers walks moved aside (write-back and Sync: dirty ones to the busy list; Invalidate: clean ones to its own)
	WalkSteps        int64 // items visited by Sync's and Invalidate's walks
	WalkHolds        int64 // cache lock holds of Sync's and Invalidate's walks

	// Lock is the cache lock's hold times: on the wall clock always, on
	// the holder's CPU clock if Config.CPUHoldTime is set.
	Lock lockstat.Stats
}

// Stats returns a snapshot of the counters and of the lock hold-time
// distribution.
func (c *Cache) Stats() Stats {
	c.lock()
	s := c.st
	s.Pages, s.Capacity, s.Dirty, s.Writeback, s.Busy = c.nrPages, c.capacity, c.nrDirty, c.nrWB, c.busy.n
	s.Background, s.Hard = c.bgThresh, c.hdThresh
	c.unlock()
	s.Lock = c.hold.Stats()
	return s
}

// ResetLockStats clears the lock hold-time histogram.
func (c *Cache) ResetLockStats() {
	c.hold.Reset()
}

// gosched gives other goroutines a chance at the cache lock between the
// chunks of a walk (cond_resched): Go's mutex does not hand itself over on
// Unlock, so a walker that relocked at once could keep it.
func gosched() { runtime.Gosched() }
