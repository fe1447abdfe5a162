package engine

import (
	"slices"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/bcache"
)

// Buffered writes on simulated devices: a page cache with write-back, in
// virtual time.
//
// Package bcache is blkq's buffer cache, but it blocks (buffer locks,
// waits for I/O) and so runs on goroutines against real files. A simulated
// run is one event loop that must never block, so buffered jobs on sim:*
// devices get this model instead: it keeps no data, only which pages are
// dirty and which are under write-back, and it follows bcache's policy
// with bcache's constants, so that the two agree:
//
//   - A buffered write dirties its pages and completes after the copy into
//     the page cache (CopyNsPerKiB of virtual time per KiB: a job that
//     rewrites a file smaller than the dirty limits never waits for the
//     disk, and its time must still pass). Dirty pages sit on one
//     list in the order they were first dirtied, whoever dirtied them: 20
//     streaming writers' buffers end up mixed together on it, as in the
//     2003 "io stalls" thread.
//   - Above the background threshold the flusher task ("bdflush") writes
//     the oldest dirty pages back, bcache.WriteBatch (32) at a time, sorted
//     and plugged, without waiting for them: like 2.4's bdflush it is held
//     back only by request allocation.
//   - A writer that finds dirty plus under-write-back pages above the hard
//     threshold writes one batch of the oldest dirty pages itself, as its
//     own task (so it sleeps in request allocation like any submitter), and
//     its write completes when that batch has been written: 2.4's
//     balance_dirty (write_some_buffers, then wait_for_some_buffers). If
//     every page is already under write-back it waits for one to finish.
//   - fsync=N, fdatasync=N and end_fsync write the pages that were dirty
//     when they were called (never more: the 2002 /bin/sync fix) and wait
//     until every page dirty or under write-back at the call is clean.
//
// A page redirtied while under write-back is written again after the write
// in flight ends. Clean pages are not kept: a buffered read finds only dirty
// or under-write-back pages in the cache (sequential readers have the
// read-ahead model in readahead.go). Writes are whole pages; a write that
// covers part of a page dirties the whole page without reading it first.

// simCachePID is the flusher's pid in traces (2.4's kupdated was pid 7).
const (
	simCachePID  = 7
	simCacheName = "bdflush"
)

type pageState uint8

const (
	pageDirty pageState = 1 << iota
	pageWriteback
)

// simCache is the page cache of a buffered run on a simulated device.
type simCache struct {
	r        *runner
	pages    map[int64]pageState // dirty or under write-back; clean pages are dropped
	dirtyQ   []int64             // dirty pages, oldest first (never under write-back)
	skip     map[int64]int       // entries of dirtyQ to skip, per page: taken out of turn by a sync
	nrDirty  int
	nrWB     int
	bgThresh int // pages
	hdThresh int // pages

	flusher  *wbSubmitter
	flushing bool
	waiters  []func() // writers waiting for some write-back to end
	syncs    []*simSync
	err      error // first write-back error since the last sync

	stopped bool   // the run is over: no more flushing
	onIdle  func() // called once stopped and nothing is in flight

	submitted, ended int64 // write-back bios, for the exactly-once check
	st               SimCacheStats
}

// SimCacheStats counts a simulated page cache's write-back, in pages.
type SimCacheStats struct {
	WrittenFlusher  int64 // pages written back by the flusher
	WrittenThrottle int64 // pages written back by throttled writers (balance_dirty)
	WrittenSync     int64 // pages written back by fsync/end_fsync
	Throttled       int64 // writes that had to write back a batch themselves
	ReadHits        int64 // pages buffered reads found in the cache (dirty or under write-back); writes are not counted
	MaxDirty        int   // most dirty pages at once
	DirtyAtEnd      int   // pages left dirty when the run ended (fio leaves them without end_fsync)
	Syncs           []SimSync
}

// SimSync is one fsync of a simulated page cache, in pages.
type SimSync struct {
	DirtyAtCall int // dirty pages when it was called
	Written     int // pages it wrote itself (at most DirtyAtCall)
	Waited      int // pages dirty or under write-back at the call that it waited for
}

func newSimCache(r *runner) *simCache {
	pages := r.opt.CachePages
	if pages <= 0 {
		pages = bcache.DefaultPages
	}
	bg, hard := r.opt.DirtyBackgroundRatio, r.opt.DirtyRatio
	if bg <= 0 {
		bg = bcache.DefaultBackgroundRatio
	}
	if hard <= 0 {
		hard = bcache.DefaultDirtyRatio
	}
	c := &simCache{r: r, pages: map[int64]pageState{}, skip: map[int64]int{},
		bgThresh: int(bg * float64(pages)), hdThresh: max(int(hard*float64(pages)), 1)}
	c.flusher = newWBSubmitter(c, blkq.NewTask(simCachePID, simCacheName))
	return c
}

// CopyNsPerKiB is the virtual time a buffered read or write that the page
// cache serves takes per KiB: the copy between the user's buffer and the
// cache, 250 ns per KiB (4 GB/s, about 1 µs per 4 KiB page).
const CopyNsPerKiB = 250

// copyTime is the copy time of b's data.
func copyTime(b *blkq.Bio) time.Duration {
	return time.Duration(b.Bytes() * CopyNsPerKiB >> 10)
}

// copyDone returns how long from now j's copy of b's data ends: a job
// copies one buffer at a time (one thread), so copies of I/Os it has in
// flight at once follow each other.
func (j *job) copyDone(b *blkq.Bio) time.Duration {
	now := j.now()
	start := max(now, j.copyUntil)
	j.copyUntil = start + blkq.Time(copyTime(b))
	return time.Duration(j.copyUntil - now)
}

// pageRange returns the pages a bio covers.
func pageRange(b *blkq.Bio) (first, last int64) {
	const spp = bcache.PageSize >> blkq.SectorShift
	first = int64(b.Sector / spp)
	last = int64((b.Sector + uint64(b.Sectors) - 1) / spp)
	return first, last
}

// write dirties u's pages; u completes at once, or after j has written a
// batch back itself if the cache is over the hard threshold.
func (c *simCache) write(j *job, u *ioUnit) {
	first, last := pageRange(&u.bio)
	for p := first; p <= last; p++ {
		st := c.pages[p]
		if st&pageDirty != 0 {
			continue // already dirty: stays where it is on the list
		}
		c.pages[p] = st | pageDirty
		c.nrDirty++
		if st&pageWriteback == 0 {
			c.dirtyQ = append(c.dirtyQ, p)
		}
	}
	c.st.MaxDirty = max(c.st.MaxDirty, c.nrDirty)
	if c.nrDirty > c.bgThresh {
		c.kickFlusher()
	}
	if c.nrDirty+c.nrWB <= c.hdThresh {
		j.r.exec.AfterFunc(j.copyDone(&u.bio), func() { j.done(u, nil) })
		return
	}
	c.st.Throttled++
	j.state.pauseFor(pauseThrottled)
	c.writeSome(j.writeback(), &c.st.WrittenThrottle, func() {
		j.state.resume()
		j.done(u, nil)
	})
}

// read serves u from the cache if every page it covers is dirty or under
// write-back, and reports whether it did.
func (c *simCache) read(j *job, u *ioUnit) bool {
	first, last := pageRange(&u.bio)
	for p := first; p <= last; p++ {
		if c.pages[p] == 0 {
			return false
		}
	}
	c.st.ReadHits += last - first + 1 // pages, as the rest of the section counts
	j.r.exec.AfterFunc(j.copyDone(&u.bio), func() { j.done(u, nil) })
	return true
}

// takeDirty takes up to n of the oldest dirty pages and marks them under
// write-back. Entries of pages a sync took directly are skipped.
func (c *simCache) takeDirty(n int) []int64 {
	var pages []int64
	i := 0
	for ; i < len(c.dirtyQ) && len(pages) < n; i++ {
		p := c.dirtyQ[i]
		if k := c.skip[p]; k > 0 {
			if k == 1 {
				delete(c.skip, p)
			} else {
				c.skip[p] = k - 1
			}
			continue
		}
		pages = append(pages, p)
		c.pages[p] = pageWriteback
	}
	c.dirtyQ = c.dirtyQ[i:]
	if cap(c.dirtyQ) > 4096 && len(c.dirtyQ) < cap(c.dirtyQ)/4 {
		c.dirtyQ = slices.Clone(c.dirtyQ) // let the consumed head go
	}
	c.nrDirty -= len(pages)
	c.nrWB += len(pages)
	return pages
}

// takePage takes page p, dirty and on dirtyQ, out of turn; its entry on
// dirtyQ becomes one to skip.
func (c *simCache) takePage(p int64) {
	c.pages[p] = pageWriteback
	c.skip[p]++
	c.nrDirty--
	c.nrWB++
}

// writeSome writes a batch of the oldest dirty pages as s's task and calls
// done when the batch has been written; with nothing dirty it waits for
// some write-back in flight to end instead.
func (c *simCache) writeSome(s *wbSubmitter, count *int64, done func()) {
	pages := c.takeDirty(bcache.WriteBatch)
	if len(pages) == 0 {
		c.waiters = append(c.waiters, done)
		return
	}
	*count += int64(len(pages))
	s.start(pages, 0, done, nil)
}

// kickFlusher starts the flusher if it is idle.
func (c *simCache) kickFlusher() {
	if c.flushing || c.stopped {
		return
	}
	c.flushing = true
	c.flushMore()
}

// flushMore submits the next batch while dirty pages are above the
// background threshold; the flusher does not wait for its writes.
func (c *simCache) flushMore() {
	if c.stopped || c.nrDirty <= c.bgThresh {
		c.flushing = false
		c.maybeIdle()
		return
	}
	pages := c.takeDirty(bcache.WriteBatch)
	if len(pages) == 0 {
		// Every dirty page is being written back (and was redirtied
		// meanwhile): nothing to take until one of those writes ends,
		// which kicks the flusher again.
		c.flushing = false
		c.maybeIdle()
		return
	}
	c.st.WrittenFlusher += int64(len(pages))
	c.flusher.start(pages, 0, nil, func() {
		// The flusher yields between batches.
		c.r.exec.AfterFunc(0, c.flushMore)
	})
}

// simSync is one fsync: the pages it must write and wait for.
type simSync struct {
	j       *job
	todo    []int64        // pages of j's files dirty at the call, to write
	rewrite map[int64]bool // pages redirtied under write-back at the call: written again when that ends
	pending []int64        // such pages, now dirty again, to write
	wait    map[int64]bool // pages to see written back
	busy    bool           // its submitter is in use
	done    func(error)
	fig     SimSync
}

// sync is fsync on j's files: it writes, as j's task, the pages of those
// files dirty at the call (a page then under write-back and redirtied is
// written again once that write ends) and waits until every page of them
// that was dirty or under write-back at the call has been written, then
// flushes the device. It never writes a page that was clean at the call.
func (c *simCache) sync(j *job, done func(error)) {
	s := &simSync{j: j, rewrite: map[int64]bool{}, wait: map[int64]bool{}, done: done}
	for p, st := range c.pages {
		if !j.ownsPage(p) {
			continue
		}
		s.wait[p] = true
		switch st {
		case pageDirty:
			s.todo = append(s.todo, p)
		case pageDirty | pageWriteback:
			s.rewrite[p] = true
		}
	}
	slices.Sort(s.todo)
	s.fig = SimSync{DirtyAtCall: len(s.todo) + len(s.rewrite), Waited: len(s.wait)}
	c.syncs = append(c.syncs, s)
	c.syncMore(s)
}

// syncMore writes the sync's next batch of pages, or, with nothing left
// to write, checks whether it is done.
func (c *simCache) syncMore(s *simSync) {
	if s.busy {
		return
	}
	var batch []int64
	for len(batch) < bcache.WriteBatch && (len(s.todo) > 0 || len(s.pending) > 0) {
		var p int64
		if len(s.todo) > 0 {
			p, s.todo = s.todo[0], s.todo[1:]
		} else {
			p, s.pending = s.pending[0], s.pending[1:]
		}
		if c.pages[p] == pageDirty { // else someone else is writing it: wait covers it
			c.takePage(p)
			batch = append(batch, p)
		}
	}
	if len(batch) > 0 {
		c.st.WrittenSync += int64(len(batch))
		s.fig.Written += len(batch)
		s.busy = true
		s.j.writeback().start(batch, blkq.FlagSync, nil, func() {
			s.busy = false
			c.syncMore(s)
		})
		return
	}
	c.syncCheck(s)
}

// syncCheck ends s once its pages are written: it flushes the device
// (fsync's cache flush) and reports the first write-back error since the
// last sync.
func (c *simCache) syncCheck(s *simSync) {
	if s.busy || len(s.todo) > 0 || len(s.pending) > 0 || len(s.rewrite) > 0 || len(s.wait) > 0 {
		return
	}
	c.syncs = slices.DeleteFunc(c.syncs, func(x *simSync) bool { return x == s })
	c.st.Syncs = append(c.st.Syncs, s.fig)
	s.busy = true
	s.j.writeback().flush(func(ferr error) {
		err := c.err
		c.err = nil
		if err == nil {
			err = ferr
		}
		s.done(err)
	})
}

// endWrite handles the end of page p's write-back.
func (c *simCache) endWrite(p int64, err error) {
	if err != nil && c.err == nil {
		c.err = err
	}
	c.nrWB--
	if c.pages[p]&pageDirty != 0 {
		c.pages[p] = pageDirty // redirtied meanwhile: written again later
		c.dirtyQ = append(c.dirtyQ, p)
	} else {
		delete(c.pages, p)
	}
	for _, s := range slices.Clone(c.syncs) {
		switch {
		case s.rewrite[p]:
			// The write that ended began before the sync: the page's
			// newer data, dirty at the call, is still to be written.
			delete(s.rewrite, p)
			s.pending = append(s.pending, p)
			c.r.exec.AfterFunc(0, func() { c.syncMore(s) })
		case s.wait[p]:
			delete(s.wait, p)
			c.syncCheck(s)
		}
	}
	if w := c.waiters; len(w) > 0 {
		c.waiters = nil
		for _, done := range w {
			done()
		}
	}
	if c.nrDirty > c.bgThresh {
		c.kickFlusher()
	}
	c.maybeIdle()
}

// stop ends flushing for the end of the run and calls idle once no
// write-back is in flight.
func (c *simCache) stop(idle func()) {
	c.stopped = true
	c.onIdle = idle
	c.maybeIdle()
}

func (c *simCache) maybeIdle() {
	if c.stopped && c.onIdle != nil && c.nrWB == 0 && !c.flushing {
		f := c.onIdle
		c.onIdle = nil
		f()
	}
}

// A wbSubmitter submits write-back batches as one task, sleeping in
// request allocation when it must and going on when woken.
type wbSubmitter struct {
	c         *simCache
	task      *blkq.Task
	batch     []*wbBio
	next      int
	asleep    bool
	submitted func() // called once the batch is all submitted
}

// wbBio is one page's write-back bio.
type wbBio struct {
	bio     blkq.Bio
	page    int64 // -1 for a flush
	c       *simCache
	batch   *wbBatch
	flushed func(error) // a flush's completion
}

// wbBatch calls done when all its bios have ended.
type wbBatch struct {
	left int
	done func()
}

func newWBSubmitter(c *simCache, t *blkq.Task) *wbSubmitter {
	s := &wbSubmitter{c: c, task: t}
	if t.Wake == nil {
		t.Wake = func(resume func() bool) {
			c.r.exec.AfterFunc(c.r.wakeDelay(), func() {
				if resume() {
					s.resumed()
				}
			})
		}
	}
	return s
}

// start submits one page write per page with flags, sorted so that
// neighbours merge under the plug; done (if set) runs when they have all
// been written, submitted (if set) once they have all been submitted. A
// last page that the device's end cuts short is written up to the end.
func (s *wbSubmitter) start(pages []int64, flags blkq.Flags, done, submitted func()) {
	const spp = bcache.PageSize >> blkq.SectorShift
	slices.Sort(pages)
	b := &wbBatch{left: len(pages), done: done}
	s.batch = s.batch[:0]
	capacity := s.c.r.dev.Capacity()
	for _, p := range pages {
		wb := &wbBio{page: p, c: s.c, batch: b}
		sector := uint64(p) * spp
		n := uint32(min(spp, capacity-min(sector, capacity)))
		wb.bio = blkq.Bio{Op: blkq.OpWrite, Flags: flags, Sector: sector, Sectors: n, Private: wb, EndIO: wbEndIO}
		s.batch = append(s.batch, wb)
	}
	s.next = 0
	s.submitted = submitted
	s.push()
}

// flush sends a cache flush (fsync's) as s's task and calls done with its
// result.
func (s *wbSubmitter) flush(done func(error)) {
	b := &wbBatch{left: 1}
	wb := &wbBio{page: -1, c: s.c, batch: b}
	wb.bio = blkq.Bio{Op: blkq.OpFlush, Flags: blkq.FlagSync, Private: wb, EndIO: wbEndIO}
	wb.flushed = done
	s.batch = append(s.batch[:0], wb)
	s.next = 0
	s.submitted = nil
	s.push()
}

// push submits the rest of the batch until done or the task must sleep.
func (s *wbSubmitter) push() {
	q := s.c.r.q
	q.Plug(s.task)
	for s.next < len(s.batch) {
		wb := s.batch[s.next]
		s.next++
		s.c.submitted++
		if !q.Enqueue(s.task, &wb.bio) {
			s.asleep = true // the bio is parked; it is queued when we are resumed
			q.Finish(s.task)
			return
		}
	}
	q.Finish(s.task)
	s.batch = s.batch[:0]
	if f := s.submitted; f != nil {
		s.submitted = nil
		f()
	}
}

// resumed goes on after the task got the request it slept for.
func (s *wbSubmitter) resumed() {
	s.asleep = false
	s.push()
}

func wbEndIO(b *blkq.Bio, err error) {
	wb := b.Private.(*wbBio)
	c := wb.c
	c.ended++
	if wb.page < 0 {
		wb.flushed(err)
		return
	}
	wb.batch.left--
	c.endWrite(wb.page, err)
	if wb.batch.left == 0 && wb.batch.done != nil {
		wb.batch.done()
	}
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

// ownsPage reports whether page p lies in one of j's files (the whole
// file, not only the job's region of it).
func (j *job) ownsPage(p int64) bool {
	lo := p * bcache.PageSize
	for _, f := range j.gen.files {
		if lo < f.fileBase+f.fileSize && lo+bcache.PageSize > f.fileBase {
			return true
		}
	}
	return false
}
