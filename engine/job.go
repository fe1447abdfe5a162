package engine

import (
	"errors"
	"io"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/bcache"
	"github.com/blkq-dev/blkq/workload/fio"
)

// A job is one fio job clone: a blkq Task that keeps up to iodepth bios in
// flight (one for the sync engines), chosen by its generator, paced by
// rate, rate_iops and thinktime, for size/io_size bytes (times loops) or
// for runtime when time_based.
type job struct {
	r     *runner
	spec  *fio.Job
	name  string
	clone int
	pid   int
	task  *blkq.Task
	gen   *generator
	sync  bool // one I/O at a time (psync and friends)
	depth int
	low   int  // iodepth_low: refill once in-flight I/O drains to this
	drain bool // iodepth reached: waiting to drain to low

	deps    int    // jobs that must finish before this one starts
	waiters []*job // jobs waiting for this one
	after   *gate  // the next stonewall's gate, which waits for this job
	index   int    // position in the run
	segment int    // stonewall segment: jobs between two stonewalls, for exit_what

	started, stopping, finished bool
	asleep                      bool
	throttled                   bool      // writing back a batch for the page cache (balance_dirty)
	copyUntil                   blkq.Time // when the job's last page-cache copy ends
	pumpTimer                   bool      // a timer will call pump
	inflight                    int
	parked                      *ioUnit // the unit whose submit slept
	held                        *nextIO // the next I/O, held back by a rate limit
	start, end, rampEnd         blkq.Time
	limit                       int64 // bytes to issue; 0: until runtime
	issued                      int64 // bytes issued
	issuedIOs                   int64
	rateBytes                   [3]int64 // bytes issued per direction, for rate
	rateIOs                     [3]int64
	thinkCount                  int
	writesSinceSync             int
	syncWanted, syncInFlight    bool
	endSyncDone                 bool
	err                         error  // the job's first error
	errFunc                     string // what failed, for the report ("io_u error")

	free []*ioUnit
	st   *jobStats

	submitted, ended int64 // bios, for the exactly-once check

	ra *readahead   // buffered sequential readers on simulated devices
	wb *wbSubmitter // the job's own write-back (throttling, fsync) on simulated devices
}

// writeback returns the submitter of the job's own write-back.
func (j *job) writeback() *wbSubmitter {
	if j.wb == nil {
		j.wb = newWBSubmitter(j.r.sc, j.task)
	}
	return j.wb
}

// ioUnit is one I/O of a job: its bio and its times (fio's io_u).
type ioUnit struct {
	bio    blkq.Bio
	j      *job
	dir    ioDir
	sync   bool      // a flush for fsync/fdatasync
	start  blkq.Time // submission began
	queued blkq.Time // submission returned (after any sleep for a request)
}

func (j *job) now() blkq.Time { return j.r.exec.Now() }

// begin starts the job's I/O.
func (j *job) begin() {
	j.r.stopDue() // an interruption cancels j
	if j.finished {
		return // cancelled by exitall before it started
	}
	j.started = true
	j.start = j.now()
	j.rampEnd = j.start + blkq.Time(j.spec.RampTime)
	j.st.begin(j.start, j.rampEnd)
	if rt := j.runtime(); rt > 0 {
		// fio: ramp_time runs before runtime starts counting.
		j.r.exec.AfterFunc(j.spec.RampTime+rt, j.stop)
	}
	j.pump()
}

// runtime is the job's time limit after caps (0: none).
func (j *job) runtime() time.Duration {
	rt := j.spec.Runtime
	if c := j.r.opt.RuntimeCap; c > 0 && (rt == 0 || rt > c) {
		rt = c
	}
	return rt
}

func (j *job) timeBased() bool { return j.spec.TimeBased && j.runtime() > 0 }

// stop ends the job's issuing; it finishes when its I/O drains.
func (j *job) stop() {
	if j.finished || !j.started {
		return
	}
	j.stopping = true
	j.maybeFinish()
}

func (j *job) limitReached() bool {
	if j.spec.NumberIOs > 0 && j.issuedIOs >= j.spec.NumberIOs {
		return true
	}
	return !j.timeBased() && j.issued >= j.limit
}

func (j *job) getUnit() *ioUnit {
	if n := len(j.free); n > 0 {
		u := j.free[n-1]
		j.free = j.free[:n-1]
		return u
	}
	u := &ioUnit{j: j}
	u.bio.Private = u
	u.bio.EndIO = endIO
	return u
}

// endIO is every job bio's completion callback.
func endIO(b *blkq.Bio, err error) {
	u := b.Private.(*ioUnit)
	if d := u.j.r.data; d != nil && b.Buf != nil {
		d.bufs.put(b.Buf) // the data has moved: free the buffer now (bufpool.go)
		b.Buf = nil
	}
	if u.j.r.simulated {
		u.j.done(u, err) // already on the event loop
		return
	}
	u.j.r.exec.Do(func() { u.j.done(u, err) })
}

// pump issues I/O while the job may.
func (j *job) pump() {
	j.r.stopDue() // an interruption stops j: it issues nothing more
	if j.finished || j.asleep || j.throttled || j.pumpTimer || !j.started {
		return
	}
	q := j.r.q
	plugged := false
	submitted := 0
issue:
	for j.inflight < j.depth && !j.stopping && !j.drain {
		if j.syncWanted {
			if j.inflight > 0 {
				break // fsync waits for the writes before it
			}
			j.issueSync()
			break
		}
		if j.limitReached() {
			break
		}
		io, ok := j.nextIO()
		if !ok {
			break // rate limits hold everything back; a timer will pump
		}
		if io.length <= 0 {
			j.stopping = true
			break
		}
		if !j.sync && !plugged {
			q.Plug(j.task)
			plugged = true
		}
		u := j.getUnit()
		j.prepare(u, io)
		if !(j.gen.trimWrite && io.dir == dirTrim) {
			// trimwrite's size counts each block once, for its write.
			j.issued += io.length
		}
		j.issuedIOs++
		j.rateBytes[io.dir] += io.length
		j.rateIOs[io.dir]++
		j.inflight++
		submitted++
		j.st.submitDepth(j.inflight)
		j.submitted++
		// Served without a bio of its own (read-ahead, the page cache;
		// done() follows once), or submitted to the queue.
		u.queued = j.now()
		switch {
		case j.ra != nil && j.ra.read(u):
		case j.cached():
			j.cachedIO(j.r.cache, u)
		case j.r.sc != nil && !j.spec.Direct && io.dir == dirWrite:
			j.r.sc.write(j, u)
		case j.r.sc != nil && !j.spec.Direct && io.dir == dirRead && j.r.sc.read(j, u):
		default:
			if !q.Enqueue(j.task, &u.bio) {
				j.asleep = true
				j.parked = u
				j.countForSync(io.dir) // as on wake-up; its queued time is set then
				break issue
			}
			if j.ra != nil {
				j.ra.topUp(int64(u.bio.Sector)<<blkq.SectorShift + u.bio.Bytes())
			}
			u.queued = j.now()
		}
		j.countForSync(io.dir)
		if j.throttled {
			break // writing back for the page cache (balance_dirty)
		}
		if j.inflight >= j.depth && j.low < j.depth {
			j.drain = true
		}
		if !j.sync && j.spec.ThinkTime > 0 && j.thinkDue() {
			j.sleepThen(j.spec.ThinkTime)
			break
		}
	}
	if plugged {
		q.Finish(j.task)
	}
	if submitted > 0 {
		j.st.submitBatch(submitted)
	}
	j.maybeFinish()
}

// countForSync counts a write toward fsync=N / fdatasync=N.
func (j *job) countForSync(d ioDir) {
	if d != dirWrite || (j.spec.Fsync == 0 && j.spec.Fdatasync == 0) {
		return
	}
	j.writesSinceSync++
	if n := max(j.spec.Fsync, j.spec.Fdatasync); j.writesSinceSync >= n {
		j.writesSinceSync = 0
		j.syncWanted = true
	}
}

// thinkDue counts an I/O toward thinktime_blocks.
func (j *job) thinkDue() bool {
	j.thinkCount++
	if j.thinkCount >= max(j.spec.ThinkTimeBlocks, 1) {
		j.thinkCount = 0
		return true
	}
	return false
}

// sleepThen pauses issuing for d.
func (j *job) sleepThen(d time.Duration) {
	j.pumpTimer = true
	j.r.exec.AfterFunc(d, func() {
		j.pumpTimer = false
		j.pump()
	})
}

// nextIO returns the next I/O that rate and rate_iops allow now. An I/O
// whose direction must wait is held and issued when its time comes; as
// with fio's rate_ddir, a mixed job meanwhile goes on in the direction
// that is not limited (a further draw of the limited direction while one
// is held is dropped). ok is false when nothing may be issued now; a timer
// then calls pump again.
func (j *job) nextIO() (nextIO, bool) {
	if h := j.held; h != nil {
		wait := j.rateWait(h.dir)
		if wait <= 0 {
			j.held = nil
			return *h, true
		}
		if !j.gen.mixed {
			j.sleepThen(wait)
			return nextIO{}, false
		}
	}
	for range 8 {
		io, _ := j.gen.next()
		wait := j.rateWait(io.dir)
		if wait <= 0 {
			return io, true
		}
		if j.held == nil {
			j.held = &io
			if !j.gen.mixed {
				j.sleepThen(wait)
				return nextIO{}, false
			}
		}
	}
	j.sleepThen(j.rateWait(j.held.dir))
	return nextIO{}, false
}

// rateWait returns how long an I/O in direction d must wait to respect
// rate and rate_iops for that direction (fio limits each direction on its
// own: a limit on writes does not slow reads).
func (j *job) rateWait(d ioDir) time.Duration {
	elapsed := j.now() - j.start
	var wait blkq.Time
	if r := j.spec.Rate[d]; r > 0 {
		due := blkq.Time(float64(j.rateBytes[d]) / float64(r) * 1e9)
		wait = max(wait, due-elapsed)
	}
	if r := j.spec.RateIOPS[d]; r > 0 {
		due := blkq.Time(float64(j.rateIOs[d]) / float64(r) * 1e9)
		wait = max(wait, due-elapsed)
	}
	return time.Duration(wait)
}

// prepare fills u's bio for io.
func (j *job) prepare(u *ioUnit, io nextIO) {
	u.dir, u.sync = io.dir, false
	b := &u.bio
	switch io.dir {
	case dirRead:
		b.Op = blkq.OpRead
		b.Flags = 0
	case dirWrite:
		b.Op = blkq.OpWrite
		b.Flags = 0
	case dirTrim:
		b.Op = blkq.OpDiscard
		b.Flags = 0
	}
	if j.sync && io.dir != dirTrim {
		b.Flags |= blkq.FlagSync
	}
	b.Sector = uint64(io.offset) >> blkq.SectorShift
	b.Sectors = uint32(io.length >> blkq.SectorShift)
	b.Buf = nil
	if d := j.r.data; d != nil {
		// The buffer is the bio's until its EndIO (bufpool.go); through
		// the buffer cache, cachedIO's goroutine takes it.
		if io.dir != dirTrim && !j.cached() {
			b.Buf = d.bufs.get(int(io.length))
			if io.dir == dirWrite {
				d.fill(b.Buf, io.offset)
			}
		}
		if io.dir == dirWrite {
			d.started(u)
		}
	}
	u.start = j.now()
}

// cachedIO does u's read, write or trim through the buffer cache, which
// blocks, on a goroutine of its own; the completion comes back on the
// executor.
func (j *job) cachedIO(c *bcache.Cache, u *ioUnit) {
	u.queued = j.now()
	off := int64(u.bio.Sector) << blkq.SectorShift
	write := u.dir == dirWrite
	if u.dir == dirTrim {
		// The cache drops the range and discards it on the device itself,
		// keeping fills of the range out until the device is done (as
		// BLKDISCARD does), so no old data comes back.
		go func() {
			err := c.Discard(off, u.bio.Bytes())
			j.r.exec.Do(func() { j.done(u, err) })
		}()
		return
	}
	d, n := j.r.data, int(u.bio.Bytes())
	go func() {
		var err error
		buf := d.bufs.getSlot(n) // bounded: bufpool.go
		if write {
			d.fill(buf, off)
			_, err = c.WriteAt(buf, off)
		} else if _, err = c.ReadAt(buf, off); errors.Is(err, io.EOF) {
			err = nil
		}
		d.bufs.putSlot(buf)
		j.r.exec.Do(func() { j.done(u, err) })
	}()
}

// cached reports whether j's reads and writes go through the buffer cache.
func (j *job) cached() bool { return j.r.cache != nil && !j.spec.Direct }

// issueSync sends a flush for fsync=N / fdatasync=N / end_fsync once the
// job's earlier I/O has completed (through the buffer cache, a Sync).
func (j *job) issueSync() {
	j.syncWanted = false
	j.syncInFlight = true
	cachedSync := func() *ioUnit { // a sync the page cache does, without a bio
		u := j.getUnit()
		u.dir, u.sync = dirWrite, true
		u.start, u.queued = j.now(), j.now()
		j.inflight++
		j.submitted++
		return u
	}
	if c := j.r.sc; c != nil && !j.spec.Direct {
		u := cachedSync()
		c.sync(j, func(err error) { j.done(u, err) })
		return
	}
	if c := j.r.cache; c != nil && !j.spec.Direct {
		u := cachedSync()
		go func() {
			err := c.Sync()
			j.r.exec.Do(func() { j.done(u, err) })
		}()
		return
	}
	u := j.getUnit()
	u.dir, u.sync = dirWrite, true
	u.bio.Op, u.bio.Flags, u.bio.Sector, u.bio.Sectors, u.bio.Buf = blkq.OpFlush, blkq.FlagSync, 0, 0, nil
	u.start = j.now()
	j.inflight++
	j.submitted++
	if !j.r.q.Enqueue(j.task, &u.bio) {
		j.asleep = true
		j.parked = u
		return
	}
	u.queued = j.now()
}

// wake is the task's Wake hook: the woken task runs after the scheduler
// latency, retries its allocation and, once it has a request, goes on.
func (j *job) wake(resume func() bool) {
	j.r.exec.AfterFunc(j.r.wakeDelay(), func() {
		if !resume() {
			return
		}
		if wb := j.wb; wb != nil && wb.asleep {
			wb.resumed() // it slept writing back for the page cache
			return
		}
		j.asleep = false
		if u := j.parked; u != nil {
			j.parked = nil
			u.queued = j.now()
		}
		j.pump()
	})
}

// done handles a completed I/O.
func (j *job) done(u *ioUnit, err error) {
	j.inflight--
	j.ended++
	j.r.clockNow.Store(int64(j.now()))
	if j.drain && j.inflight <= j.low {
		j.drain = false
	}
	now := j.now()
	switch {
	case u.sync:
		j.syncInFlight = false
		if err == nil {
			j.st.recordSync(u, now)
		} else {
			j.r.ioFailed(j, u, err) // fsync reports the write-back errors since the last one
			j.stopping = true
		}
	case err == nil:
		j.st.record(u, now)
		if j.r.data != nil {
			switch u.dir {
			case dirWrite:
				j.r.data.wrote(u)
			case dirTrim:
				j.r.data.discarded(u)
			}
		}
	case errors.Is(err, blkq.ErrReadAheadDropped):
		j.st.dropped(u.dir)
	default:
		j.r.ioFailed(j, u, err)
		j.stopping = true
		if j.r.data != nil && u.dir == dirWrite {
			j.r.data.abandoned(u)
		}
	}
	j.free = append(j.free, u)
	if j.sync && j.spec.ThinkTime > 0 && !j.stopping && j.thinkDue() {
		j.sleepThen(j.spec.ThinkTime)
		return
	}
	j.pump()
}

// maybeFinish ends the job when it has nothing more to do.
func (j *job) maybeFinish() {
	if j.finished || j.inflight > 0 || j.asleep || j.syncInFlight || (j.ra != nil && j.ra.inflight > 0) {
		return
	}
	if !j.stopping && !j.limitReached() && !j.syncWanted {
		return
	}
	if j.pumpTimer && !j.stopping {
		return
	}
	if j.spec.EndFsync && !j.endSyncDone && j.err == nil && j.st.wrote() {
		j.endSyncDone = true
		j.issueSync()
		return
	}
	j.finished = true
	j.end = j.now()
	j.st.finish(j.end)
	j.r.jobFinished(j)
}
