package engine

import (
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/bcache"
	"github.com/blkq-dev/blkq/device"
)

// Buffered I/O (direct=0): the page cache of a run.
//
// Every buffered job, on every device, goes through one bcache core: the
// run opens it over the queue (openCache), each fio file of the layout is
// a bcache.File (so fsync is per file, as Linux scopes it), and each job
// is a bcache.Client whose task has the job's pid and name (its fills,
// read-ahead, throttled write-back and fsync writes are its own in the
// trace; the flusher is pid 7, bdflush). On a simulated device the cache
// keeps page states only and charges the copy between the job's buffer
// and the cache on the virtual clock (CopyNsPerKiB); on the null device it
// keeps page states too, on the wall clock; on a file it keeps the data.
// The cache decides the same way on all of them: reads, read-ahead,
// write-back, throttling and Sync are bcache's, whatever the clock.
//
// A run's end: on a file the cache is closed (every dirty page written
// back, as the data check reads the file past the cache); elsewhere the
// flusher stops and what is in flight ends, and what is dirty stays dirty,
// as fio leaves it without end_fsync, unless the run was interrupted,
// when everything is written back first.

// CopyNsPerKiB is the virtual time a buffered read or write that the page
// cache serves takes per KiB on a simulated device: the copy between the
// user's buffer and the cache, 250 ns per KiB (4 GB/s, about 1 µs per
// 4 KiB page).
const CopyNsPerKiB = 250

// openCache opens the run's page cache if a job is buffered: with data on
// a file (withData), page states only elsewhere.
func (r *runner) openCache(lay *layout, withData bool) error {
	need := false
	for _, j := range r.jobs {
		need = need || buffered(j.spec)
	}
	if !need {
		return nil
	}
	cfg := bcache.Config{Clock: r.exec, Pages: r.opt.CachePages, BackgroundRatio: r.opt.DirtyBackgroundRatio,
		DirtyRatio: r.opt.DirtyRatio, NoData: !withData}
	if r.simulated {
		cfg.CopyNsPerKiB = CopyNsPerKiB
		if r.cpus == nil { // with the CPU model the jobs' clients wake on their threads (cpus.go)
			cfg.Schedule = func(f func()) { r.exec.AfterFunc(r.wakeDelay(), f) }
		}
	}
	cfg.OnWriteError = func(we bcache.WriteError) {
		if r.simulated {
			r.pageLost(we) // on the event loop already
			return
		}
		r.exec.Do(func() { r.pageLost(we) })
	}
	c, err := bcache.New(r.q, cfg)
	if err != nil {
		return err
	}
	if f, ok := r.dev.(*device.File); ok && withData {
		r.reserve = newReserver(f) // reserve.go
	}
	r.cache, r.closeCache = c, withData
	r.files = map[int64]*bcache.File{}
	for _, e := range lay.order {
		if e.whole || e.size <= 0 {
			continue
		}
		f, err := c.AddFile(e.name, e.base, e.size)
		if err != nil {
			return err
		}
		r.files[e.base] = f
	}
	return nil
}

// wakeDelay is how long a woken task takes to run: the wake latency plus
// the scheduler's jitter.
func (r *runner) wakeDelay() time.Duration {
	d := r.opt.WakeLatency
	if jit := r.opt.WakeJitter; jit > 0 && r.simulated {
		d += time.Duration(r.wakeRNG.Int64N(int64(jit)))
	}
	return d
}

// cachePath goes through the page cache: reads, writes and trims are the
// cache's calls, fsync its Sync of the job's files.
type cachePath struct {
	j      *job
	c      *bcache.Cache
	cl     *bcache.Client
	files  []*bcache.File // the job's files, for fsync
	inCall bool           // a cache call is starting (a completion inside it is deferred)
	// ownBufs: each of the job's units keeps its call's buffer from one
	// call to the next, as fio's io_u keep theirs, instead of taking a
	// slot and a buffer from the run's pool and giving them back (two
	// holds of a lock every buffered job shares, per I/O). Only when the
	// units of every buffered job together fit in the pool's slots
	// (cacheOwnsBuffers), so that the bound the slots keep still holds.
	ownBufs bool
}

// cacheOwnsBuffers reports whether the buffered jobs' units, all holding a
// buffer at once, fit in the buffer pool's slots (bufpool.go): then each
// unit keeps its own (cachePath.ownBufs). A simulated run keeps no data.
func (r *runner) cacheOwnsBuffers() bool {
	if r.data == nil || r.simulated {
		return false
	}
	units := 0
	for _, j := range r.jobs {
		if buffered(j.spec) {
			units += max(j.depth, 1)
		}
	}
	return units <= r.data.bufs.slots
}

func (r *runner) newCachePath(j *job) *cachePath {
	t := blkq.NewTask(j.pid, j.name)
	p := &cachePath{j: j, c: r.cache, cl: r.cache.NewClient(t), ownBufs: r.cacheOwnsBuffers()}
	if r.cacheJobs == nil {
		r.cacheJobs = map[*bcache.Client]*job{}
	}
	r.cacheJobs[p.cl] = j
	j.cpuClient(t)
	if j.gen != nil {
		seen := map[*bcache.File]bool{}
		for _, f := range j.gen.files {
			if bf := r.files[f.fileBase]; bf != nil && !seen[bf] {
				seen[bf] = true
				p.files = append(p.files, bf)
			}
		}
	}
	return p
}

// bioBuffers: on a file the path takes a buffer for each call, under the
// bound of the buffer pool's slots (bufpool.go).
func (p *cachePath) bioBuffers() bool { return false }

// ended completes u with err on the executor, as a bio's EndIO does, after
// the cache call that started it has returned.
func (p *cachePath) ended(u *ioUnit, err error) {
	if p.j.r.simulated && p.inCall { // (inCall is the executor's: read it on the loop only)
		p.j.exec.AfterFunc(0, func() { endIO(&u.bio, err) })
		return
	}
	endIO(&u.bio, err)
}

func (p *cachePath) submit(u *ioUnit) bool {
	off := int64(u.bio.Sector) << blkq.SectorShift
	n := u.bio.Bytes()
	p.inCall = true
	defer func() { p.inCall = false }()
	if u.bio.Op == blkq.OpWrite {
		if err := p.j.r.reserve.reserve(off, n); err != nil {
			p.ended(u, err) // the file system is full: the write fails as write(2) would (reserve.go)
			return true
		}
	}
	switch d := p.j.r.data; {
	case u.bio.Op == blkq.OpDiscard:
		// The cache drops the range and discards it on the device itself,
		// keeping fills of the range out until the device is done (as
		// BLKDISCARD does), so no old data comes back.
		p.c.StartDiscard(p.cl, off, n, func(err error) { p.ended(u, err) })
	case d == nil && u.bio.Op == blkq.OpWrite && p.j.osync():
		p.c.StartWriteN(p.cl, n, off, p.osyncDone(off, p.call(u).donef)) // sync= (osync.go)
	case d == nil && u.bio.Op == blkq.OpWrite:
		p.c.StartWriteN(p.cl, n, off, p.call(u).donef)
	case d == nil:
		p.c.StartReadN(p.cl, n, off, p.call(u).donef)
	default:
		cc := p.call(u)
		if p.j.r.simulated {
			d.bufs.withSlot(int(n), cc.startf)
			break
		}
		cc.early.Store(callStarting)
		if p.ownBufs {
			cc.start(cc.ownBuf(d.bufs, int(n)))
		} else {
			d.bufs.withSlot(int(n), cc.startf)
		}
		if !cc.early.CompareAndSwap(callStarting, callIdle) {
			// Done while it started (a page-cache hit, on this
			// goroutine, the executor's): posted to the executor
			// without a lock.
			cc.early.Store(callIdle)
			u.err = cc.earlyErr
			p.j.exec.Post(u.complete)
		}
	}
	return true
}

// A cacheCall is a unit's read or write through the cache, made once per
// unit (units are reused) with its continuations bound, so that a call
// allocates nothing.
type cacheCall struct {
	p      *cachePath
	u      *ioUnit
	buf    []byte           // the slot's buffer while the call holds one
	own    []byte           // the unit's own buffer, whole (cachePath.ownBufs)
	startf func([]byte)     // start, bound
	donef  func(int, error) // done, bound
	// early is callStarting while submit starts the call on the real
	// clock; a done that comes meanwhile (a hit, inside the call) leaves
	// its error in earlyErr and sets callDoneEarly, and submit posts the
	// completion to the executor itself, with Post (no lock, no
	// signal) rather than endIO's Do: a hit's completion is always on
	// the executor's goroutine, a later one may not be.
	early    atomic.Int32
	earlyErr error
}

// The states of cacheCall.early.
const (
	callIdle      = iota // no call starting: done completes through endIO
	callStarting         // submit is starting the call
	callDoneEarly        // done came while it started: submit completes it
)

// call returns u's cacheCall.
func (p *cachePath) call(u *ioUnit) *cacheCall {
	if u.cache == nil {
		cc := &cacheCall{p: p, u: u}
		cc.startf, cc.donef = cc.start, cc.done
		u.cache = cc
	}
	return u.cache
}

// ownBuf returns n bytes of the unit's own buffer, from pool the first
// time and whenever a call needs more than it has.
func (cc *cacheCall) ownBuf(pool *bufPool, n int) []byte {
	if cap(cc.own) < n {
		cc.own = pool.get(n)
		cc.own = cc.own[:cap(cc.own)]
	}
	return cc.own[:n]
}

// start makes the call with buf, the slot's buffer (a file run).
func (cc *cacheCall) start(buf []byte) {
	p, u := cc.p, cc.u
	cc.buf = buf
	off := int64(u.bio.Sector) << blkq.SectorShift
	if u.bio.Op == blkq.OpWrite {
		p.j.fillWrite(buf, off, u)
		done := cc.donef
		if p.j.osync() {
			done = p.osyncDone(off, done) // sync= (osync.go)
		}
		p.c.StartWrite(p.cl, buf, off, done)
	} else {
		p.c.StartRead(p.cl, buf, off, cc.donef)
	}
}

// done is the completion of the call: its buffer (if any) goes back to
// the pool, a short read at the device's end is not an error.
func (cc *cacheCall) done(_ int, err error) {
	p, u, buf := cc.p, cc.u, cc.buf
	cc.buf = nil
	if buf != nil {
		p.j.checkRead(u, buf, err)
		if !p.ownBufs {
			p.j.r.data.bufs.putSlot(buf)
		}
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	if cc.early.Load() == callStarting {
		cc.earlyErr = err
		if cc.early.CompareAndSwap(callStarting, callDoneEarly) {
			return // submit completes it
		}
	}
	p.ended(u, err)
}

// sync is fsync of the job's files: a Sync of each in turn (of the whole
// cache for a job on a whole device), recorded for the report; the first
// error is the fsync's.
func (p *cachePath) sync(u *ioUnit) bool {
	u.queued = p.j.now()
	files := p.files
	if f := u.syncOne; f != nil {
		files = []*bcache.File{p.j.r.files[f.fileBase]} // one file's (close.go); nil for a whole device: all
	}
	if len(files) == 0 {
		files = []*bcache.File{nil}
	}
	var total bcache.SyncResult
	var first error
	var next func(i int)
	next = func(i int) {
		if i == len(files) {
			st := SyncStats{DirtyAtCall: total.DirtyAtStart, Written: total.Written, Waited: total.Waited}
			r := p.j.r
			r.exec.Do(func() { r.syncs = append(r.syncs, st) }) // before u's completion, which endIO posts
			p.ended(u, first)
			return
		}
		p.c.StartSync(p.cl, files[i], func(r bcache.SyncResult, err error) {
			total.DirtyAtStart += r.DirtyAtStart
			total.Written += r.Written
			total.Waited += r.Waited
			if first == nil {
				first = err
			}
			next(i + 1)
		})
	}
	p.inCall = true
	next(0)
	p.inCall = false
	return true
}

// CacheStats is the page cache's work over a run, in 4 KiB pages.
type CacheStats struct {
	bcache.Stats
	DirtyAtEnd int         // pages left dirty when the run ended (fio leaves them without end_fsync)
	Syncs      []SyncStats // the jobs' fsyncs, in the order they ended
}

// SyncStats is one fsync of a job, in pages.
type SyncStats struct {
	DirtyAtCall int // dirty pages of the job's files when it was called
	Written     int // pages it wrote itself (at most DirtyAtCall)
	Waited      int // pages it waited for: locked busy ones, writes in flight
}

// endCache ends the page cache's part of a run once the last job has
// finished, then calls done (on the executor): see the top of the file.
func (r *runner) endCache(done func()) {
	c := r.cache
	onExec := func() { r.exec.Do(done) }
	switch {
	case r.closeCache:
		done() // closed after the executor (execute)
	case r.interrupted:
		cl := c.NewClient(blkq.NewTask(bcache.DefaultFlusherPID, bcache.DefaultFlusherName))
		c.StartSync(cl, nil, func(_ bcache.SyncResult, err error) {
			r.exec.Do(func() { r.cacheErr = err }) // reported with the run's (execute)
			c.StartQuiesce(onExec)
		})
	default:
		c.StartQuiesce(onExec)
	}
}
