package engine

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/workload/fio"
)

// A job is one fio job clone, or a replay: a blkq Task that keeps up to
// iodepth bios in flight (one for the sync engines), chosen by its source
// (source.go) and taken to the device by its path (path.go), paced by
// rate, rate_iops and thinktime, for size/io_size bytes (times loops), for
// runtime when time_based, or to the trace's end. Its state and every
// change of it are in jobstate.go.
type job struct {
	r      *runner
	exec   executor // where its callbacks run: the run's executor, or its own (parallel.go)
	spec   *fio.Job // a replay's is made up (replay.go): no options set
	name   string
	clone  int
	pid    int
	main   submitter    // the job's own task
	others []*submitter // a replay's tasks, one per trace pid
	src    source       // what it issues
	path   ioPath       // how it reaches the device
	gen    *generator   // fio's offsets (nil for a replay)
	vfy    *verifier    // verify= (verify.go), nil without
	ss     *ssWindow    // steady state (steadystate.go), nil without
	prio   prioState    // each I/O's priority (prio.go)
	wdata  *writeData   // what its writes hold on a file (bufdata.go), nil for the data check's pattern
	sync   bool         // one I/O at a time (psync and friends)
	// syncIO is fio's FIO_SYNCIO: each I/O done in its submission, with
	// no slat; the sync engines, and the null engine at iodepth=1, which
	// fio 3.33 makes synchronous (engines/null.c).
	syncIO bool
	depth  int
	low    int // iodepth_low: a full queue reaps down to this before refilling
	state  jobState
	aio    aioState      // its engine's queue: batches, completions to reap (batch.go)
	lat    *latTarget    // latency_target's search (latency_target.go), nil without
	ovl    *overlapState // serialize_overlap (overlap.go), nil without

	reapFunc func() // j.reapLoop, made once: posted for each reap that waits for this instant's completions

	deps    int    // jobs that must finish before this one starts
	waiters []*job // jobs waiting for this one
	after   *gate  // the next stonewall's gate, which waits for this job
	index   int    // position in the run
	segment int    // stonewall segment: jobs between two stonewalls, for exit_what

	filesOpen bool     // its files are open: invalidated, as fio does when it opens them (filesetup.go)
	names     []string // its files' names, in the order of gen.files (filenames.go)

	schedSwitched bool // ioscheduler= done (iosched.go)
	preReadDone   bool // pre_read done (preread.go)

	// The fsyncs of a pass's end and of closing files, and the I/O aside
	// from the job's figures (close.go).
	endSyncs    []*fileRegion // pass-end fsyncs still to issue, one per file
	closeSyncs  []*fileRegion // fsync_on_close's close fsyncs still to issue
	closeHeld   nextIO        // the I/O that waits for them
	hasHeld     bool
	asideBusy   int  // I/Os aside in flight
	lastWasSync bool // the last I/O to complete was an fsync (fio's last_was_sync)
	// wbErr is the first write-back error of a page it wrote (buffered,
	// writeback.go), reported at its close unless an fsync did.
	wbErr error

	// endsOnExec: its bios complete on the executor, so endIO hands a
	// completion to the job at once, without posting it (setPath).
	endsOnExec bool
	// shareClock: endsOnExec on the real clock (the null device), where
	// the queue's holds and the job share clock readings instead of
	// reading their own (a read is a tenth of such an I/O's cost): the
	// queue's submission hold takes a sync engine's start of the I/O
	// (Bio.Start), and a reap on the stack of a completion takes the
	// completion's time (Bio.Ended, kept in endedAt). Off in simulation,
	// where a read costs nothing and the loop's time is the only one.
	shareClock bool
	// endedAt is the time of the completion whose endIO is on the stack
	// (shareClock), for the reap it causes; 0 once that reap has taken it.
	endedAt blkq.Time

	inflight            int // units taken and not yet reaped (fio's cur_depth)
	start, end, rampEnd blkq.Time
	rampPassed          bool  // rampOver has seen the ramp over (the executor's)
	limit               int64 // bytes to issue; 0: until runtime
	issued              int64 // bytes issued
	issuedIOs           int64
	rateBytes           [3]int64 // bytes issued per direction, for rate
	rateIOs             [3]int64
	lastDir             int // direction of the last I/O issued (rate_ignore_thinktime)
	think               thinker
	rateDelay           time.Duration // a rate limit's sleep after its quiesce
	flow                jobFlow       // flow=, flow_id (flow.go)
	writesSinceSync     int
	err                 error  // the job's first error
	errFunc             string // what failed, for the report ("io_u error")
	// continue_on_error's count (total_err), its first errno and, for
	// the sync engines, that error's text (ioerror.go: goesOn).
	errCount     uint64
	errFirst     unix.Errno
	errFirstText string

	free []*ioUnit
	st   *jobStats
	cpu  *jobCPU // its task's thread under the CPU model (cpus.go); nil without

	submitted, ended int64 // bios, for the exactly-once check
}

// A submitter is a task of a job: the job's own, or one per pid of a
// replayed trace, whose tasks sleep and wake apart.
type submitter struct {
	task    *blkq.Task
	asleep  bool      // its last submission slept for a request
	parked  *ioUnit   // the unit whose submission slept
	waiting []*ioUnit // I/Os that came while it slept (a replay's arrivals), in order
	plugged bool      // a replay's task between a trace's PlugFirst and PlugLast (replayplug.go)
}

// submitters returns the job's tasks.
func (j *job) submitters() []*submitter {
	return append([]*submitter{&j.main}, j.others...)
}

// newSubmitter makes s a task of the job, pid and name as given.
func (j *job) newSubmitter(s *submitter, pid int, name string) {
	s.task = blkq.NewTask(pid, name)
	s.task.Wake = func(resume func() bool) { j.wake(s, resume) }
}

// ioUnit is one I/O of a job: its bio and its times (fio's io_u).
type ioUnit struct {
	bio    blkq.Bio
	j      *job
	sub    *submitter    // the task that submits it
	rec    *ReplayRecord // the trace record of a replay's I/O
	cache  *cacheCall    // its calls through the page cache (cache.go), made on its first
	sync   bool          // a flush for fsync/fdatasync
	start  blkq.Time     // submission began
	queued blkq.Time     // submission returned (after any sleep for a request)
	vp     *vpiece       // the verify block it writes or reads back (verify.go): nil or &vbuf
	vbuf   vpiece        // vp's piece, the unit's own (the history keeps copies)
	plan   fillPlan      // what its write holds, with wdata (bufdata.go)
	verr   error         // its verify read's bad block, found where it completed
	err    error         // how it completed, while it waits to be reaped or to reach the executor
	flight int           // its slot among the units in flight (serialize_overlap)
	// syncOne is the file an fsync is for (nil: all the job's files).
	syncOne *fileRegion
	// aside, if set, makes the unit an I/O outside the job's figures and
	// is called with its outcome (close.go).
	aside func(error)
	// complete hands u's completion (err) to its job: endIO posts it to
	// the executor when the completion arrives off it (a file's workers),
	// made once per unit so that a completion allocates nothing.
	complete func()
}

func (j *job) now() blkq.Time { return j.exec.Now() }

// rampOver reports whether the job's ramp_time is over (its figures are
// kept): without a ramp time it is from the start, and the clock is not
// read (on the real clock a read costs as much as a small I/O); once the
// ramp is seen over it stays over (rampPassed), as the clock never goes
// back, so a job reads the clock for it only while ramping, not three
// times per I/O for the rest of the run.
func (j *job) rampOver() bool {
	if j.rampPassed || j.rampEnd <= j.start {
		return true
	}
	j.rampPassed = j.now() >= j.rampEnd
	return j.rampPassed
}

// begin starts the job's I/O.
func (j *job) begin() {
	if j.interruptDue() && j.r.parallel {
		j.cancel() // (on a shared executor stopDue has cancelled it)
	}
	if j.state.ended() {
		return // cancelled by exitall before it started
	}
	j.switchScheduler() // before its files, as fio does (iosched.go)
	if j.gen != nil && j.gen.fs.onClose == nil {
		j.gen.fs.onClose = j.fileClosed // fsync_on_close (close.go)
	}
	if !j.filesOpen {
		j.filesOpen = true
		j.openFiles(j.begin) // invalidate (filesetup.go)
		return
	}
	if j.spec.Files.PreRead && !j.preReadDone && j.gen != nil {
		j.preReadDone = true
		j.preRead(j.begin) // preread.go
		return
	}
	j.state.begin()
	j.start = j.now()
	j.rampEnd = j.start + blkq.Time(j.spec.RampTime)
	j.rampPassed = false
	j.st.begin(j.start, j.rampEnd)
	if rt := j.runtime(); rt > 0 {
		// fio: ramp_time runs before runtime starts counting.
		j.exec.AfterFunc(j.spec.RampTime+rt, j.stop)
	}
	if j.lat != nil {
		j.lat.begin(j.start)
	}
	j.src.begin()
	j.ssBegin()
	if j.spec.Files.CreateOnly || j.err != nil {
		j.state.stop() // create_only, or pre_read failed (preread.go)
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
	if j.state.phase != phaseRunning && j.state.phase != phaseStopping {
		return
	}
	j.state.stop()
	j.pump() // it drains what it has in flight, then finishes
}

// cancel ends a job that never started (exitall).
func (j *job) cancel() {
	if j.state.ended() {
		return
	}
	j.state.cancel()
	j.start = j.now()
	j.end = j.start
	r := j.r
	r.onRun(func() { r.running++ }) // balanced by jobFinished
	r.jobFinished(j)
}

func (j *job) limitReached() bool {
	if n := j.spec.NumberIOs; n > 0 {
		// fio's number_ios holds for each loop (source.go ends a pass
		// there); time_based runs stop at the first number_ios.
		if !j.timeBased() {
			n *= int64(max(j.spec.Loops, 1))
		}
		if j.issuedIOs >= n {
			return true
		}
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
	u.complete = func() { u.j.completed(u, u.err) }
	return u
}

// endIO is every job bio's completion callback.
func endIO(b *blkq.Bio, err error) {
	u := b.Private.(*ioUnit)
	u.j.checkRead(u, b.Buf, err)
	if d := u.j.r.data; d != nil && b.Buf != nil {
		d.bufs.put(b.Buf) // the data has moved: free the buffer now (bufpool.go)
		b.Buf = nil
	}
	if j := u.j; j.endsOnExec {
		prev := j.endedAt
		if j.shareClock {
			j.endedAt = b.Ended
		}
		j.completed(u, err) // already on the executor
		j.endedAt = prev
		return
	}
	u.err = err
	u.j.exec.Do(u.complete)
}

// pump is fio's I/O loop (backend.c do_io) for the job, run until the job
// must wait: it takes I/O from its source and queues it with its engine
// (batch.go) while its depth has room, reaps when the queue is full, and
// quiesces (waits for everything in flight) before a thinktime stall, a
// rate limit's sleep, a change of the latency target's depth and an
// fsync. A reap, a wake-up or a timer calls it again.
func (j *job) pump() {
	if j.cpuPump() {
		return // the CPU model: the task pumps on its CPU (cpus.go)
	}
	if j.interruptDue() && j.r.parallel && j.state.phase == phaseRunning {
		j.state.stop() // (on a shared executor stopDue has stopped it)
	}
	if !j.state.started() || j.state.ended() || j.main.asleep || j.aio.waiting() || j.state.syncBusy() {
		return
	}
	j.loop()
	if a := &j.aio; a.pumped > 0 {
		j.st.submitBatch(j.rampOver(), a.pumped) // a replay: what one pass submitted
		a.pumped = 0
	}
}

// loop is pump's loop.
func (j *job) loop() {
	if j.aio.committing() {
		j.submitCalls() // a commit the CPU model spreads over steps (cpus.go)
		if j.main.asleep || j.aio.committing() {
			return
		}
	}
	for {
		if j.state.ended() {
			// An I/O served within its own submission (the null device's
			// inline service) pumped the job again from inside issue, and
			// that pump, finding its source at its end, finished the job.
			return
		}
		if j.state.stopping() {
			j.drain()
			return
		}
		if j.closeSyncPending() {
			return // fsync_on_close's fsyncs come before the next I/O (close.go)
		}
		if len(j.endSyncs) > 0 {
			if !j.quiesce() {
				j.issueEndSync() // a pass's end: each file's fsync, in turn
			}
			return
		}
		if j.lat != nil {
			j.latCheck()
			if j.lat.quiesce {
				if j.quiesce() {
					return
				}
				j.latQuiesced()
				continue
			}
			if j.state.stopping() {
				continue // the search is over
			}
		}
		if j.think.waiting {
			j.thinkStall()
			return
		}
		if j.state.pause == pauseQuiesce {
			if !j.quiesce() {
				j.sleepThen(j.rateDelay)
			}
			return
		}
		if j.state.paused() {
			return // a timer pumps
		}
		if j.state.syncDue() {
			if !j.quiesce() && j.flowLets() {
				j.issueSync(false, nil) // fsync waits for the writes before it
				j.flow.granted = false
			}
			return
		}
		if j.full() {
			j.reapWait(true)
			return
		}
		io, held := j.overlapHeld()
		if !held && j.hasHeld {
			io, held, j.hasHeld = j.closeHeld, true, false // it waited for close fsyncs
		}
		if !held {
			if j.limitReached() && !j.verifyPending() {
				j.drain()
				return
			}
			if !j.flowLets() {
				return
			}
			var st srcStatus
			io, st = j.src.next()
			if st == srcWait {
				if j.state.paused() || len(j.endSyncs) > 0 {
					continue // a rate limit: quiesce, then sleep; or a pass's end: its fsyncs
				}
				return // a trace's time or a sleeping task holds it back: a timer or a wake-up pumps
			}
			if st == srcDrain && j.inflight > 0 {
				if j.quiesce() {
					return
				}
				continue
			}
			if st == srcEnd {
				j.state.stop()
				continue
			}
			if st != srcReady {
				return
			}
			if len(j.closeSyncs) > 0 {
				j.closeHeld, j.hasHeld = io, true // a file closed on the way: its fsync first
				continue
			}
		}
		if j.overlapBlocks(io) {
			// serialize_overlap: submit what is queued, reap, try again.
			j.reapWait(j.full())
			return
		}
		j.flow.granted = false
		j.issue(io)
		if j.main.asleep {
			return // its submit call sleeps for a request: the wake-up goes on
		}
		if j.thinkIssued() {
			continue // thinktime_blocks_type=issue (think.go)
		}
		if full := j.full(); full || j.aio.polling {
			j.reapWait(full)
			return
		}
		if j.cpuStepDone() {
			return // the CPU model: one I/O per step of the task's thread
		}
	}
}

// flowLets reports whether the job's flow lets it issue now
// (flowAllows); a flow that holds it back until its I/O in flight is
// done quiesces it (fio's flow_threshold_exceeded), and the last reap
// pumps it again.
func (j *job) flowLets() bool {
	if j.flowAllows() {
		return true
	}
	if j.flow.quiesce && j.inflight > 0 {
		j.quiesce()
	}
	return false
}

// issue takes a unit for io, counts it and queues it with the engine.
func (j *job) issue(io nextIO) {
	u := j.getUnit()
	j.prepare(u, io)
	j.st.logIssue(u, u.start, j.spec.Fdatasync > 0)
	if !io.uncounted {
		j.issued += io.length
	}
	j.issuedIOs++
	j.rateBytes[rwt(io.op)] += io.length
	j.rateIOs[rwt(io.op)]++
	j.lastDir = int(rwt(io.op))
	j.inflight++
	j.submitted++
	j.countForSync(io.op) // counted as issued: a write that sleeps counts now, as on wake-up
	j.queueIO(u)
}

// enqueue submits u's bio to the queue through its task; false: the task
// sleeps for a request, and u is parked until it wakes.
func (j *job) enqueue(u *ioUnit) bool {
	s := u.sub
	j.plugBefore(s, u.rec)
	u.bio.Start = 0
	if j.shareClock && j.syncIO && !u.sync {
		// The submission's hold takes the I/O's start, read in prepare
		// just before (a sync engine submits at once): one read less.
		u.bio.Start = u.start
	}
	if !j.r.q.Enqueue(s.task, &u.bio) {
		s.asleep = true
		s.parked = u
		return false
	}
	if !j.aio.callOpen {
		// (In a commit's submit call the call's end stamps its units:
		// endCall.)
		u.queued = j.now()
	}
	j.plugAfter(s, u.rec)
	return true
}

// countForSync counts a write toward fsync=N / fdatasync=N.
func (j *job) countForSync(op blkq.Op) {
	if op != blkq.OpWrite || (j.spec.Fsync == 0 && j.spec.Fdatasync == 0) {
		return
	}
	j.writesSinceSync++
	if n := max(j.spec.Fsync, j.spec.Fdatasync); j.writesSinceSync >= n {
		j.writesSinceSync = 0
		j.state.wantSync()
	}
}

// rateSleep pauses issuing for d once the job's I/O in flight is reaped,
// as fio's rate_ddir quiesces before it sleeps (pump does both).
func (j *job) rateSleep(d time.Duration) {
	j.rateDelay = d
	j.state.pauseFor(pauseQuiesce)
}

// sleepThen pauses issuing for d.
func (j *job) sleepThen(d time.Duration) {
	j.state.pauseFor(pauseTimer)
	j.exec.AfterFunc(d, func() {
		j.state.resume()
		j.pump()
	})
}

// prepare fills u's bio for io.
func (j *job) prepare(u *ioUnit, io nextIO) {
	u.sync, u.rec, u.sub, u.vp = false, io.rec, io.sub, nil
	if u.sub == nil {
		u.sub = &j.main
	}
	b := &u.bio
	b.Prio = j.prio.of(io.op, io.length)
	if r := io.rec; r != nil {
		j.prepareRecord(u, r)
		if d := j.r.data; d != nil && r.Op == blkq.OpWrite {
			// A fio job's replayed iolog on a file: its writes are
			// checked as the job's own are.
			if u.bio.Buf != nil {
				d.fill(u.bio.Buf, int64(r.Sector)<<blkq.SectorShift)
			}
			d.started(u)
		}
		u.start = j.now()
		return
	}
	b.Op, b.Flags = io.op, j.osyncFlags(io.op) // sync= (osync.go)
	if j.sync && io.op != blkq.OpDiscard {
		b.Flags |= blkq.FlagSync
	}
	b.Sector = uint64(io.offset) >> blkq.SectorShift
	b.Sectors = uint32(io.length >> blkq.SectorShift)
	b.Buf = nil
	if j.vfy != nil {
		j.vfy.prepare(u, io)
	}
	if d := j.r.data; d != nil {
		if io.op == blkq.OpWrite && j.wdata != nil {
			u.plan = j.wdata.next(j.r, io.length, j.now())
		}
		// The buffer is the bio's until its EndIO (bufpool.go); through
		// the page cache, the path takes one of its own for the call.
		if io.op != blkq.OpDiscard && j.path.bioBuffers() {
			b.Buf = d.bufs.get(int(io.length))
			if io.op == blkq.OpWrite {
				j.fillWrite(b.Buf, io.offset, u)
			}
		}
		if io.op == blkq.OpWrite {
			d.started(u)
		}
	}
	u.start = j.now()
}

// issueSync sends an fsync for fsync=N / fdatasync=N, or a pass's end
// fsync of file f (end: end_fsync, fsync_on_close; always a full fsync),
// once the job's earlier I/O has completed, through the job's path.
func (j *job) issueSync(end bool, f *fileRegion) {
	j.state.issueSync(false)
	u := j.getUnit()
	u.sync, u.sub, u.rec, u.syncOne = true, &j.main, nil, f
	u.bio.Op, u.bio.Flags, u.bio.Sector, u.bio.Sectors, u.bio.Buf = blkq.OpFlush, blkq.FlagSync, 0, 0, nil
	u.start = j.now()
	j.st.logIssue(u, u.start, !end && j.spec.Fdatasync > 0)
	j.inflight++
	j.submitted++
	j.path.sync(u)
}

// wake is the Wake hook of s's task: the woken task runs after the
// scheduler latency, retries its allocation and, once it has a request,
// submits what waited for it and goes on.
func (j *job) wake(s *submitter, resume func() bool) {
	j.afterWake(func() {
		if !resume() {
			return
		}
		s.asleep = false
		if u := s.parked; u != nil {
			s.parked = nil
			u.queued = j.now()
			if r := u.rec; r != nil && r.PlugLast {
				j.unplug(s) // (a sleep's flush, PlugSlept, it had)
			}
		}
		for len(s.waiting) > 0 && !s.asleep {
			u := s.waiting[0]
			s.waiting = s.waiting[1:]
			j.enqueue(u)
		}
		if !s.asleep && j.state.stopping() {
			j.unplug(s)
		}
		if s == &j.main && j.aio.committing() && j.cpu == nil {
			j.submitCalls() // the rest of the commit it slept in (under the CPU model, pump's steps go on with it)
			if j.main.asleep {
				return
			}
		}
		j.pump()
	})
}

// reapTime is the time of a reap: the time of the completion on whose
// stack it runs, where the job shares the queue's reading (shareClock),
// else the clock's. A reap's units share it, as fio's reap reads the
// time once for what it takes (io_u.c ios_completed).
func (j *job) reapTime() blkq.Time {
	if t := j.endedAt; t != 0 {
		j.endedAt = 0
		return t
	}
	return j.now()
}

// done accounts a reaped unit (fio's io_completed) at now, the time it is
// reaped (reapTime); the caller goes on with the job (reap, completed).
func (j *job) done(u *ioUnit, err error, now blkq.Time) {
	j.inflight--
	j.ended++
	j.overlapReaped(u)
	switch {
	case u.sync:
		j.state.syncEnded()
		if err == nil {
			j.st.recordSync(u, now)
		} else if !j.goesOn(u, err) {
			j.r.ioFailed(j, u, err) // fsync reports the write-back errors since the last one
			j.state.stop()
		}
	case err == nil:
		j.st.record(u, now)
		if j.lat != nil {
			j.latCompleted(u, now, now >= j.rampEnd)
		}
		j.maxLatencyCheck(u, now)
		if j.r.data != nil {
			switch u.bio.Op {
			case blkq.OpWrite:
				j.r.data.wrote(u)
				if j.wdata != nil {
					j.r.data.trimmed(u.bio.Sector, u.bio.Sectors) // its own content, not the check's pattern
				}
			case blkq.OpDiscard:
				j.r.data.discarded(u)
			}
		}
	case errors.Is(err, blkq.ErrReadAheadDropped):
		j.st.dropped(u.bio.Op)
	case j.src.failed(u, err):
	default:
		j.st.failed(u) // issued: fio's total_ios counts it, its bytes are not done
		if !j.goesOn(u, err) {
			j.r.ioFailed(j, u, err)
			j.state.stop()
		}
		if j.r.data != nil && u.bio.Op == blkq.OpWrite {
			j.r.data.abandoned(u)
		}
	}
	j.lastWasSync = u.sync
	j.verifyDone(u, err)
	u.err, u.syncOne = nil, nil
	j.free = append(j.free, u)
	j.thinkCompleted()
}

// maybeFinish ends the job when it has nothing more to do.
func (j *job) maybeFinish() {
	if j.state.ended() || j.inflight > 0 || j.main.asleep || j.state.syncBusy() || j.asideBusy > 0 {
		return
	}
	if !j.state.stopping() && (!j.limitReached() || j.verifyPending()) && !j.state.syncDue() {
		return
	}
	if j.state.pause == pauseTimer && !j.state.stopping() {
		return
	}
	if !j.state.endSynced {
		j.state.endSyncsQueued()
		j.queueEndSyncs() // end_fsync, fsync_on_close (close.go)
	}
	if len(j.endSyncs) > 0 {
		j.issueEndSync()
		return
	}
	j.closeWithWriteback()
	j.state.finish()
	j.end = j.now()
	if v := j.vfy; v != nil && v.writes && j.spec.Verification.DoVerify && !v.verifying {
		j.st.phase(j.end, true) // fio verifies after its I/O loop, with nothing left to read back
	}
	j.st.finish(j.end)
	if j.spec.Files.Unlink {
		j.unlinkFiles() // unlink.go
	}
	j.saveVerifyState()
	j.r.jobFinished(j)
}
