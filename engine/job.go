package engine

import (
	"errors"
	"io"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/bcache"
	"github.com/blkq-dev/blkq/workload/fio"
)

// A job is one fio job clone, or a replay: a blkq Task that keeps up to
// iodepth bios in flight (one for the sync engines), chosen by its source
// (source.go), paced by rate, rate_iops and thinktime, for size/io_size
// bytes (times loops), for runtime when time_based, or to the trace's end.
type job struct {
	r      *runner
	spec   *fio.Job // a replay's is made up (replay.go): no options set
	name   string
	clone  int
	pid    int
	main   submitter    // the job's own task
	others []*submitter // a replay's tasks, one per trace pid
	src    source       // what it issues
	gen    *generator   // fio's offsets (nil for a replay)
	sync   bool         // one I/O at a time (psync and friends)
	plug   bool         // plug the queue around each batch it issues
	depth  int
	low    int  // iodepth_low: refill once in-flight I/O drains to this
	drain  bool // iodepth reached: waiting to drain to low

	deps    int    // jobs that must finish before this one starts
	waiters []*job // jobs waiting for this one
	after   *gate  // the next stonewall's gate, which waits for this job
	index   int    // position in the run
	segment int    // stonewall segment: jobs between two stonewalls, for exit_what

	started, stopping, finished bool
	throttled                   bool      // writing back a batch for the page cache (balance_dirty)
	copyUntil                   blkq.Time // when the job's last page-cache copy ends
	pumpTimer                   bool      // a timer will call pump
	inflight                    int
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
		j.wb = newWBSubmitter(j.r.sc, j.main.task)
	}
	return j.wb
}

// A submitter is a task of a job: the job's own, or one per pid of a
// replayed trace, whose tasks sleep and wake apart.
type submitter struct {
	task    *blkq.Task
	asleep  bool      // its last submission slept for a request
	parked  *ioUnit   // the unit whose submission slept
	waiting []*ioUnit // I/Os that came while it slept (a replay's arrivals), in order
}

// submitters returns the job's tasks.
func (j *job) submitters() []*submitter {
	return append([]*submitter{&j.main}, j.others...)
}

// ioUnit is one I/O of a job: its bio and its times (fio's io_u).
type ioUnit struct {
	bio    blkq.Bio
	j      *job
	sub    *submitter // the task that submits it
	rec    *ReplayRecord
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
	j.src.begin()
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
	if j.finished || j.main.asleep || j.throttled || j.pumpTimer || !j.started {
		return
	}
	q := j.r.q
	plugged := false
	submitted := 0
issue:
	for j.inflight < j.depth && !j.stopping && !j.drain && !j.main.asleep {
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
		io, st := j.src.next()
		if st == srcWait {
			break // rate limits or a sleeping task hold it back; a timer or a wake-up will pump
		}
		if st == srcEnd {
			j.stopping = true
			break
		}
		if j.plug && !plugged {
			q.Plug(j.main.task)
			plugged = true
		}
		u := j.getUnit()
		j.prepare(u, io)
		if !io.uncounted {
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
		case u.sub.asleep:
			// A replay's record whose task sleeps: it waits for it, in order.
			u.sub.waiting = append(u.sub.waiting, u)
			continue
		case j.ra != nil && j.ra.read(u):
		case j.cached():
			j.cachedIO(j.r.cache, u)
		case j.r.sc != nil && !j.spec.Direct && io.dir == dirWrite:
			j.r.sc.write(j, u)
		case j.r.sc != nil && !j.spec.Direct && io.dir == dirRead && j.r.sc.read(j, u):
		default:
			if !j.enqueue(u) {
				j.countForSync(io.dir) // as on wake-up; its queued time is set then
				continue issue         // the loop ends if it was the job's own task
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
		q.Finish(j.main.task)
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

// prepare fills u's bio for io.
func (j *job) prepare(u *ioUnit, io nextIO) {
	u.dir, u.sync, u.rec, u.sub = io.dir, false, io.rec, io.sub
	if u.sub == nil {
		u.sub = &j.main
	}
	b := &u.bio
	if r := io.rec; r != nil {
		j.prepareRecord(u, r)
		u.start = j.now()
		return
	}
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
	u.dir, u.sync, u.sub, u.rec = dirWrite, true, &j.main, nil
	u.bio.Op, u.bio.Flags, u.bio.Sector, u.bio.Sectors, u.bio.Buf = blkq.OpFlush, blkq.FlagSync, 0, 0, nil
	u.start = j.now()
	j.inflight++
	j.submitted++
	j.enqueue(u)
}

// enqueue submits u's bio to the queue through its task; false: the task
// sleeps for a request, and u is parked until it wakes.
func (j *job) enqueue(u *ioUnit) bool {
	s := u.sub
	if !j.r.q.Enqueue(s.task, &u.bio) {
		s.asleep = true
		s.parked = u
		return false
	}
	u.queued = j.now()
	return true
}

// newSubmitter makes a task of the job, pid as name, waking as wake does.
func (j *job) newSubmitter(s *submitter, pid int, name string) {
	s.task = blkq.NewTask(pid, name)
	s.task.Wake = func(resume func() bool) { j.wake(s, resume) }
}

// wake is the Wake hook of s's task: the woken task runs after the
// scheduler latency, retries its allocation and, once it has a request,
// submits what waited for it and goes on.
func (j *job) wake(s *submitter, resume func() bool) {
	j.r.exec.AfterFunc(j.r.wakeDelay(), func() {
		if !resume() {
			return
		}
		if wb := j.wb; wb != nil && wb.asleep {
			wb.resumed() // it slept writing back for the page cache
			return
		}
		s.asleep = false
		if u := s.parked; u != nil {
			s.parked = nil
			u.queued = j.now()
		}
		for len(s.waiting) > 0 && !s.asleep {
			u := s.waiting[0]
			s.waiting = s.waiting[1:]
			j.enqueue(u)
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
	case j.src.failed(u, err):
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
	if j.finished || j.inflight > 0 || j.main.asleep || j.syncInFlight || (j.ra != nil && j.ra.inflight > 0) {
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
