package bcache

// The cache core: a state machine driven by the queue's Clock.
//
// The core has the shape of the request queue (package blkq, queue.go and
// alloc.go): one mutex guards every state; nothing under it blocks or walks
// more than WalkChunk items; waiting is a continuation, never a sleeping
// goroutine. An operation (a read, a write, a Sync, an Invalidate, a
// Discard, the flusher) is a small state machine (a loop, client.go) that
// runs until it must wait, registers one continuation and returns: a
// buffer's lock handed to it, a write-back it waits for, its bios handed to
// the queue, a discard ending, a timer. Continuations queued under the lock
// run after it is released, as the queue runs EndIO and Wake after its own.
// The core never blocks and never reads the wall clock: time is the queue's
// Clock (the copy cost of Config.CopyNsPerKiB, the flusher's turns between
// batches are timers on it), so the same code runs in virtual time on a
// simulated disk (the event loop of package sim, one goroutine) and on real
// goroutines over a file. The blocking API (api.go: ReadAt, WriteAt, Sync,
// ...) wraps each operation with a channel, as the queue's api.go does.
//
// Why the buffer lock stays, as a state: a buffer under I/O (a fill, a
// write-back) is locked, and whoever needs it queues behind in FIFO order
// and is handed the lock (the 2002 rule for requests applied to buffers:
// FIFO, wake-one, no stealing), so every wait for a buffer is bounded. A
// writer of a page under write-back waits for that write (stable pages), so
// a bio's data never changes under the device; with Config.NoData nothing
// is copied, and the rule is kept so that a simulated run and a run on a
// file make the same decisions.
//
// Why one flusher task and not a goroutine: the flusher is a loop started
// by a timer when dirty pages pass the background threshold; it submits one
// batch as its own task (Config.FlusherPID, pid 7 "bdflush" by default),
// yields through a timer once the batch is handed to the queue and goes on
// while the cache is above the threshold. In virtual time it is an event
// like any other; on the real clock its turns run on timer goroutines.

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

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
	// DefaultFlusherPID and DefaultFlusherName name the flusher's task in
	// traces (2.4's bdflush ran as pid 7 on many systems).
	DefaultFlusherPID  = 7
	DefaultFlusherName = "bdflush"
)

// ErrClosed is returned by reads, writes and discards after Close.
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
	// Clock drives the cache: its timers (the flusher's turns, the copy
	// time) and its reading of the time. It must be the queue's (as given
	// to blkq.New): a simulation's event loop, or the real clock. Nil is a
	// real clock (blkq.NewRealClock).
	Clock blkq.Clock
	// NoData keeps page states only: buffers hold no data and the cache's
	// bios carry none (Bio.Buf nil), for simulated and null devices. The
	// buffers passed to reads and writes are ignored (they may be nil).
	NoData bool
	// CopyNsPerKiB is the time a read or write spends copying between the
	// caller's buffer and the cache, in ns per KiB of the call, charged on
	// the queue's clock before the call completes, one copy at a time per
	// client (default 0: none; a real copy takes its real time). Simulated
	// runs set it (engine: 250 ns per KiB, 4 GB/s).
	CopyNsPerKiB int64
	// Schedule runs a client's continuation once the queue has woken it
	// from a sleep in request allocation (a simulator adds the scheduler's
	// wake-up latency here). Nil runs it at once, on the goroutine that
	// woke it. Waits for I/O (a buffer's fill or write-back) go on as the
	// I/O ends, as the engine completes a direct bio in its EndIO.
	Schedule func(run func())
	// FlusherPID and FlusherName name the flusher's task (default
	// DefaultFlusherPID, DefaultFlusherName).
	FlusherPID  int
	FlusherName string
	// LockTiming times every hold of the cache lock into Stats.Lock
	// (default off: Stats.Lock stays empty). The timing reads the wall
	// clock twice per hold and records into a histogram under a mutex of
	// its own, which costs about as much as a page-cache hit's bookkeeping
	// itself (issue 13), so, like the queue's Config.LockHook, it is there
	// for whoever measures the lock (blkq latency); it never drives the
	// cache.
	LockTiming bool
	// CPUHoldTime also times each hold of the cache lock on the holder
	// thread's CPU clock (two system calls per hold; see package
	// lockstat). It implies LockTiming.
	CPUHoldTime bool
	// OnWriteError, if set, is told of each page whose write-back failed,
	// once per failure, without the cache lock, on the goroutine that
	// completed the write (the device's, or the event loop). The error is
	// recorded for Sync and Close as always (errseq.go); this tells the
	// caller whose data was lost.
	OnWriteError func(WriteError)
}

// WriteError is a page whose write-back failed (Config.OnWriteError).
type WriteError struct {
	Off    int64   // the page's device byte offset
	Writer *Client // the client whose write last dirtied the page; nil if none did (a test's direct mark)
	Err    error   // the device's error, unchanged
}

// buffer is one cached page. The fields a read hit touches (the list
// node, page, data, the state and the lock's waiters) come first, in the
// first two cache lines (128 bytes, which CPUs fetch in pairs), so that a
// hit on a cold buffer costs one miss there rather than three.
type buffer struct {
	node
	page int64
	data []byte // PageSize bytes, allocated by the first lock owner; guarded by the buffer lock; nil with NoData

	// Guarded by the cache lock.
	uptodate bool // data holds the device's page (or newer)
	dirty    bool // data is newer than the device's page
	locked   bool // the buffer lock is held
	hashed   bool // in the index; false once dropped
	// referenced: a hit used the buffer since it was last passed over by
	// evictOne, which gives it a second turn on the LRU (evictOne).
	referenced bool
	pins       pinCount // page-cache hits copying from data without the buffer lock (pin.go)
	owners     []func() // waiting for the buffer lock, in order: handed it one at a time
	drain      func()   // the lock owner waiting for the pins to go (pin.go), or nil
	peekers    []func() // waiting for the next unlock, without the lock
	gen        uint64   // generation when last dirtied (Cache.gen at the time)
	fillErr    error    // the error of the last fill, which left it not uptodate
	wait       *wbBatch // the batch whose completion a writer waits for, or nil

	file *File // the file the page belongs to (set when dirtied), or nil; guarded by the cache lock
	bio  blkq.Bio
	// writer is the client whose write last dirtied the page (for
	// Config.OnWriteError); guarded by the cache lock.
	writer *Client
}

// A Cache is a buffer cache of PageSize-byte pages over a queue. All methods
// are safe for concurrent use.
type Cache struct {
	q       *blkq.Queue
	clk     blkq.Clock
	npages  int64 // device size in whole pages
	noData  bool
	copyNs  int64
	sched   func(func())
	flusher *flusher
	onWErr  func(WriteError) // Config.OnWriteError

	mu       sync.Mutex
	deferred []func() // continuations to run once the lock is released
	index    map[int64]*buffer
	hint     []atomicBuffer // index's lock-free hints for the hit path (hint.go); nil when it takes none
	clean    blist
	dirty    blist
	busy     blist
	io       blist
	files    []*File // sorted by first page; no two overlap
	nrPages  int     // buffers in the index
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

	discards   []*discardRange // discards in progress (discard.go)
	nrDiscards int             // Discard operations running
	raInFlight int             // read-ahead bios not yet ended
	idle       []func()        // waiting for nothing in flight (Close, StartQuiesce)
	// cleanWalks counts the Invalidate walks of the clean list in
	// progress: meanwhile evictOne gives a referenced buffer its second
	// turn in place, not at the tail, behind a walk's end marker, where
	// the walk would not visit it (evictOne).
	cleanWalks int

	hold  *lockstat.Timer // cache lock hold times; nil without Config.LockTiming
	spare []byte          // the data of the buffer evictOne dropped last, for newBuffer
	ra    raState         // read-ahead streams; guarded by mu

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

// New makes a cache over q, driven by cfg.Clock (the queue's). Only whole
// pages of the device are cached: a trailing part page is beyond the
// cache's end. Close writes back what is dirty. A nil q is an error.
func New(q *blkq.Queue, cfg Config) (*Cache, error) {
	if q == nil {
		return nil, errors.New("bcache: New: nil queue")
	}
	if cfg.Pages < 0 {
		return nil, fmt.Errorf("bcache: negative capacity %d pages", cfg.Pages)
	}
	if cfg.CopyNsPerKiB < 0 {
		return nil, fmt.Errorf("bcache: negative copy cost %d ns per KiB", cfg.CopyNsPerKiB)
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
	if cfg.FlusherPID == 0 {
		cfg.FlusherPID = DefaultFlusherPID
	}
	if cfg.FlusherName == "" {
		cfg.FlusherName = DefaultFlusherName
	}
	c := &Cache{
		q:        q,
		clk:      cfg.Clock,
		npages:   int64(q.Device().Capacity() / sectorsPerPage),
		noData:   cfg.NoData,
		copyNs:   cfg.CopyNsPerKiB,
		sched:    cfg.Schedule,
		onWErr:   cfg.OnWriteError,
		index:    make(map[int64]*buffer),
		capacity: cfg.Pages,
		gen:      1,
	}
	if c.clk == nil {
		c.clk = blkq.NewRealClock()
	}
	c.makeHints(cfg.Pages)
	if c.sched == nil {
		c.sched = func(f func()) { f() }
	}
	if cfg.LockTiming || cfg.CPUHoldTime {
		c.hold = lockstat.New(cfg.CPUHoldTime)
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
	c.flusher = &flusher{c: c, cl: c.NewClient(blkq.NewTask(cfg.FlusherPID, cfg.FlusherName))}
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
	if c.flusher != nil && c.nrDirty > c.bgThresh {
		c.kickFlusher()
	}
	c.unlock()
	return nil
}

// lock takes the cache lock and starts timing the hold.
func (c *Cache) lock() {
	c.mu.Lock()
	if c.hold != nil {
		c.hold.Acquired()
	}
}

// unlock releases the cache lock, then runs the continuations queued under
// it, in order.
func (c *Cache) unlock() {
	run := c.deferred
	c.deferred = nil
	if c.hold != nil {
		c.hold.Released()
	}
	c.mu.Unlock()
	for _, f := range run {
		f()
	}
}

// later queues f to run once the cache lock is released. Called with the
// lock held.
func (c *Cache) later(f func()) { c.deferred = append(c.deferred, f) }

// Buffer lock. Called with the cache lock held.

// lockBuffer takes b's lock for the caller and reports true, or queues
// resume behind earlier waiters (or, with the lock free, behind the hits
// still copying from b: pin.go) and reports false: resume is called once
// the lock has been handed to the caller. The caller must then check
// b.hashed.
func (c *Cache) lockBuffer(b *buffer, resume func()) bool {
	if !b.locked {
		b.locked = true
		return !c.waitPins(b, resume)
	}
	b.owners = append(b.owners, resume)
	c.st.BufferWaits++
	return false
}

// unlockBuffer releases b's lock: everyone waiting for the unlock goes on,
// and the oldest waiter for the lock is handed it, if any.
func (c *Cache) unlockBuffer(b *buffer) {
	for _, f := range b.peekers {
		c.later(f)
	}
	b.peekers = nil
	if len(b.owners) > 0 {
		f := b.owners[0]
		b.owners = b.owners[1:]
		if len(b.owners) == 0 {
			b.owners = nil
		}
		if !c.waitPins(b, f) {
			c.later(f)
		}
		return
	}
	b.locked = false
}

// waitUnlocked reports true if b is unlocked; else resume is called when
// b's lock is next released (wait_on_buffer), and it reports false. It does
// not take the lock.
func (c *Cache) waitUnlocked(b *buffer, resume func()) bool {
	if !b.locked {
		return true
	}
	b.peekers = append(b.peekers, resume)
	c.st.BufferWaits++
	return false
}

// newBuffer adds a locked, not uptodate buffer for page p, evicting a clean
// one first if the cache is full. It takes over the evicted buffer's data
// (stale until the new owner fills or overwrites it); otherwise its data is
// allocated by the caller, outside the cache lock.
func (c *Cache) newBuffer(p int64) *buffer {
	if c.nrPages >= c.capacity && !c.evictOne() {
		c.st.Overcommit++
	}
	b := &buffer{page: p, hashed: true, locked: true, data: c.spare}
	c.spare = nil
	b.buf = b
	c.index[p] = b
	c.setHint(b)
	c.clean.pushBack(&b.node)
	c.nrPages++
	return b
}

// ensureData allocates b's data, if the cache keeps data. Called by b's
// lock owner, without the cache lock.
func (c *Cache) ensureData(b *buffer) {
	if !c.noData && b.data == nil {
		b.data = make([]byte, PageSize)
	}
}

// evictOne drops the least recently used unlocked, unpinned clean buffer
// among the first WalkChunk nodes of the clean list, keeping its data for
// the next newBuffer (c.spare): nobody reads the data of an unlocked buffer
// that no hit holds once it is out of the index, and a miss then costs no
// page allocation.
//
// A page-cache hit does not move its buffer on the LRU (that is two more
// cache misses, on its neighbours, under the cache lock, which four
// readers queue on): it marks it referenced, and evictOne gives a marked
// buffer a second turn, as Linux's reclaim does for a referenced page:
// unmarked and moved to the tail, where a touch would have put it. If the
// window holds nothing else, the first buffer so passed over goes. Only
// the hit path marks buffers, and it is not taken on a simulated device, so
// simulated runs evict in strict LRU order as before.
//
// While an Invalidate walks the clean list (c.cleanWalks), the second turn
// leaves the buffer where it is, only unmarked: the tail is behind the
// walk's end marker, and a buffer moved there would survive the
// Invalidate although nobody read it since it began (a hit that moved its
// buffer itself did so only for a read made after). The next eviction
// may then take it: recency is coarser for the length of the walk.
func (c *Cache) evictOne() bool {
	var passed *buffer // the first evictable buffer given a second turn
	for n, i := c.clean.front(), 0; n != nil && i < WalkChunk; i++ {
		next := c.clean.next(n)
		if b := n.buf; b != nil && !b.locked && !b.pins.held() {
			if !b.referenced {
				c.evict(b)
				return true
			}
			b.referenced = false
			if c.cleanWalks == 0 {
				b.node.moveTo(&c.clean)
			}
			if passed == nil {
				passed = b
			}
		}
		n = next
	}
	if passed != nil {
		c.evict(passed)
		return true
	}
	return false
}

// evict drops b, an unlocked, unpinned clean buffer, for evictOne.
func (c *Cache) evict(b *buffer) {
	c.drop(b)
	c.spare, b.data = b.data, nil
	c.st.Evictions++
}

// drop takes a clean buffer out of the cache. b must be unlocked, or locked
// by the caller (who then unlocks it: waiters find it unhashed).
func (c *Cache) drop(b *buffer) {
	delete(c.index, b.page)
	c.clearHint(b)
	b.hashed = false
	b.node.unlink()
	c.nrPages--
}

// markDirty marks b, locked by the caller, dirty. A buffer that was clean
// goes to the tail of the dirty list with the current generation and its
// file; one that was dirty keeps its place (the list is in order of first
// dirtying).
func (c *Cache) markDirty(b *buffer) {
	b.uptodate = true
	if b.dirty {
		return
	}
	b.dirty = true
	b.gen = c.gen
	b.file = c.fileOf(b.page)
	c.nrDirty++
	if b.file != nil {
		b.file.nrDirty++
	}
	c.st.MaxDirty = max(c.st.MaxDirty, c.nrDirty)
	b.node.moveTo(&c.dirty)
}

// clearDirty marks b clean, for write-back or a discard.
func (c *Cache) clearDirty(b *buffer) {
	b.dirty = false
	c.nrDirty--
	if b.file != nil {
		b.file.nrDirty--
	}
}

// touch moves a clean buffer to the tail of the LRU.
func (c *Cache) touch(b *buffer) {
	if b.list == &c.clean {
		b.node.moveTo(&c.clean)
	}
}

// pageBio points b's bio at its page, with op and flags.
func (c *Cache) pageBio(b *buffer, op blkq.Op, flags blkq.Flags, end func(*blkq.Bio, error)) *blkq.Bio {
	c.ensureData(b)
	b.bio = blkq.Bio{Op: op, Flags: flags, Sector: uint64(b.page) * sectorsPerPage, Sectors: sectorsPerPage,
		Buf: b.data, Private: b, EndIO: end}
	return &b.bio
}

// fillBios returns read bios for bufs, locked by the caller and not
// uptodate; each fill's end makes its buffer uptodate (or records the
// error) and unlocks it. They carry no REQ_SYNC, as Linux's page cache
// reads do not (blkparse shows them as R; read-ahead as RA).
func (c *Cache) fillBios(bufs []*buffer) []*blkq.Bio {
	bios := make([]*blkq.Bio, len(bufs))
	for i, b := range bufs {
		bios[i] = c.pageBio(b, blkq.OpRead, 0, c.endFill)
	}
	return bios
}

// endFill completes a page read for a reader or a partial write.
func (c *Cache) endFill(bio *blkq.Bio, err error) {
	b := bio.Private.(*buffer)
	c.lock()
	b.fillErr = err
	if err == nil {
		b.uptodate = true
		c.st.PagesRead++
	}
	c.unlockBuffer(b)
	c.unlock()
}

// chargeCopy returns how long from now cl's copy of n bytes ends: a client
// copies one buffer at a time, so its copies follow each other. Called with
// the cache lock held.
func (c *Cache) chargeCopy(cl *Client, n int64) time.Duration {
	if c.copyNs == 0 || n <= 0 {
		return 0
	}
	now := c.clk.Now()
	start := max(now, cl.copyUntil)
	cl.copyUntil = start + blkq.Time(n*c.copyNs>>10)
	return time.Duration(cl.copyUntil - now)
}

// after runs f d from now on the clock, or at once if d is 0.
func (c *Cache) after(d time.Duration, f func()) {
	if d <= 0 {
		f()
		return
	}
	c.clk.AfterFunc(d, f)
}

// Files.

// A File is a byte range of the device that a Sync can be limited to, as
// fsync is limited to one inode: Sync(f) writes back and waits for the
// pages of f that were dirty when it was called, and leaves the others'.
// Make one with AddFile.
type File struct {
	Name        string
	first, last int64 // pages
	nrDirty     int   // dirty pages of the file; guarded by the cache lock
}

// AddFile registers the bytes [off, off+n) as a file named name (for
// messages). Files are whole pages (a page the range only partly covers
// belongs to it) and must not overlap. Pages dirtied before the file was
// added belong to no file until they are next dirtied.
func (c *Cache) AddFile(name string, off, n int64) (*File, error) {
	if off < 0 || n <= 0 || off+n < off {
		return nil, fmt.Errorf("bcache: file %q of %d bytes at %d: want a non-empty range at a non-negative offset", name, n, off)
	}
	f := &File{Name: name, first: off / PageSize, last: (off + n - 1) / PageSize}
	c.lock()
	defer c.unlock()
	i, _ := slices.BinarySearchFunc(c.files, f.first, func(e *File, p int64) int { return cmpInt(e.first, p) })
	if i > 0 && c.files[i-1].last >= f.first || i < len(c.files) && c.files[i].first <= f.last {
		return nil, fmt.Errorf("bcache: file %q (pages %d-%d) overlaps another file", name, f.first, f.last)
	}
	c.files = slices.Insert(c.files, i, f)
	return f, nil
}

// fileOf returns the file page p belongs to, or nil. Called with the cache
// lock held; O(log files).
func (c *Cache) fileOf(p int64) *File {
	i, found := slices.BinarySearchFunc(c.files, p, func(e *File, p int64) int { return cmpInt(e.first, p) })
	if found {
		return c.files[i]
	}
	if i > 0 && c.files[i-1].last >= p {
		return c.files[i-1]
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Stats counts the cache's work. Pages are PageSize bytes; lock hold times
// are wall-clock time. A snapshot is taken under the cache lock, so it may
// be read while I/O runs.
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
	Hits, Misses int64 // page lookups by reads and writes that found / did not find a buffer
	// ReadHits counts the pages reads served from the cache: found
	// uptodate, possibly after waiting for a read-ahead in flight to fill
	// them. Writes to cached pages are not counted.
	ReadHits int64
	// ReadMisses counts the pages reads read from the device themselves.
	ReadMisses       int64
	MaxDirty         int   // most dirty buffers at once
	ReadAheadPages   int64 // pages read ahead (read-ahead bios submitted)
	ReadAheadDropped int64 // read-ahead bios the queue dropped under request pressure (normal, not an error)
	ReadAheadErrors  int64 // read-ahead bios that failed otherwise
	ReadAheadSkipped int64 // pages of read-ahead windows left out: no room without passing Capacity, or a discard of them in progress
	PagesRead        int64 // pages read from the device by reads and partial-page writes' fills (not read-ahead), successfully
	WrittenFlusher   int64 // page writes submitted by the background flusher (failed ones included; see WriteErrors)
	WrittenThrottle  int64 // page writes submitted by throttled writers
	WrittenSync      int64 // page writes submitted by Sync (and Close)
	WriteErrors      int64 // page writes that failed
	Throttled        int64 // writes that did write-back themselves (or waited for it)
	Evictions        int64 // clean buffers dropped to make room
	Overcommit       int64 // buffers reads and writes added above Capacity for lack of an evictable one (read-ahead never does)
	Invalidated      int64 // clean buffers dropped by Invalidate
	Discarded        int64 // buffers dropped by Discard
	DiscardWaits     int64 // page fills (and creations) that waited for a discard of their page in progress
	Syncs            int64 // Sync calls (including Close's)
	BufferWaits      int64 // waits for a buffer lock (to take it, or until it is released)
	MovedAside       int64 // locked buffers walks moved aside (write-back and Sync: dirty ones to the busy list; Invalidate: clean ones to its own)
	WalkSteps        int64 // items visited by Sync's and Invalidate's walks
	WalkHolds        int64 // cache lock holds of Sync's and Invalidate's walks

	// Lock is the cache lock's hold times, with Config.LockTiming: on
	// the wall clock, and on the holder's CPU clock too if
	// Config.CPUHoldTime is set.
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
	if c.hold != nil {
		s.Lock = c.hold.Stats()
	}
	return s
}

// ResetLockStats clears the lock hold-time histogram.
func (c *Cache) ResetLockStats() {
	if c.hold != nil {
		c.hold.Reset()
	}
}

// gosched gives other goroutines a chance at the cache lock between the
// chunks of a walk (cond_resched): Go's mutex does not hand itself over on
// Unlock, so a walker that relocked at once could keep it. In a simulation
// (one goroutine) it returns at once.
func gosched() { runtime.Gosched() }
