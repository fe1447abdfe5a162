package engine

import (
	"math"

	"github.com/blkq-dev/blkq/workload/fio"
)

// Submission batching and completion reaping, as fio 3.33's I/O loop
// (backend.c do_io, ioengines.c td_io_queue/td_io_commit/td_io_getevents)
// drives an asynchronous engine, and as Linux plugs the submitting task.
//
// A job takes a unit (fio's get_io_u: from here until it is reaped the
// unit counts in the job's depth) and queues it with its engine. Once
// iodepth_batch_submit units are queued the engine submits them
// (td_io_commit): libaio in io_submit calls that stop at the end of its
// ring of iodepth iocbs, io_uring in one io_uring_enter. Linux plugs the
// task around a call of more than two I/Os (fs/aio.c AIO_PLUG_THRESHOLD;
// io_uring's submit state the same), so a call's bios merge on the plug
// only then: with fio's default batch of 1 every I/O is submitted alone,
// unplugged, and merges, if at all, with requests waiting in the
// elevator. A completed unit waits in the completion ring until the job
// reaps it (io_getevents), and the job reaps only when it must: when its
// queue is full (or after every submission when iodepth_batch_complete_min
// and _max are both 0), when it ends, and when it quiesces (thinktime, a
// rate limit, the latency target, an fsync). A reap waits for
// min(iodepth_batch_complete_min, depth) completions (at least 1) and
// takes at most iodepth_batch_complete_max (at least that minimum); with
// iodepth_low below iodepth a full queue reaps again until the depth is
// down to iodepth_low. Waiting first submits what is queued. A unit's clat
// ends when it is reaped, its slat when its submit call returns, as fio
// measures them.
//
// The sync engines (psync...) submit and complete one I/O per call: a
// batch of 1, reaped at once, never plugged. posixaio has no commit: each
// I/O is submitted as it is queued (glibc's threads do one pread or
// pwrite each, unplugged), and its reaps, like the null engine's, take
// every completion there is. The null engine batches as libaio does, with
// no kernel to plug. A replay (blkq replay) is not fio: it submits each
// record as it comes and handles each completion at once (the zero
// aioState).

// aioPlugThreshold is the most I/Os Linux submits without plugging the
// task: an io_submit (or io_uring_enter) of more is plugged (fs/aio.c
// AIO_PLUG_THRESHOLD, 2).
const aioPlugThreshold = 2

// aioState is a job's engine queue: what is queued and not yet submitted,
// the submit call under way, the completions not yet reaped, and the reap
// the job waits in.
type aioState struct {
	// The engine, fixed when the job is made (setupAIO). batch 0: a replay.
	batch    int  // units per commit: iodepth_batch_submit after fio's fix-up
	cmin     int  // iodepth_batch_complete_min
	cmax     int  // iodepth_batch_complete_max after fio's fix-up
	commits  bool // the engine submits at commit; false: as each unit is queued (posixaio)
	plugs    bool // the kernel plugs a submit call of more than aioPlugThreshold units
	ring     int  // libaio's ring of iodepth iocbs, at whose end an io_submit stops (0: none)
	reapAll  bool // a reap takes every completion there is (posixaio, null)
	polling  bool // complete_min and complete_max both 0: reap after every submission
	unmarked bool // the submit and complete histograms count nothing (the null engine at iodepth=1)

	tail   int       // libaio: the ring slot the next io_submit starts at
	queued []*ioUnit // queued with the engine, not yet submitted (libaio's ld->queued)
	// ioQueued is fio's own count of units queued since its last
	// td_io_commit (io_u_queued): reaching the batch commits them, and
	// they are counted in the depth histogram then, at the job's depth.
	// A reap's wait submits the engine's queue without it (td_io_getevents
	// calls the engine's commit itself), so the two part.
	ioQueued int
	pumped   int   // a replay: records submitted by this pump, counted as one submit call
	bios     int64 // bios handed to the job's path (the CPU model's count of submissions)

	// The commit under way: its units, the next to submit, and the
	// current submit call [callStart, callEnd), plugged or not. It stays
	// under way while the job's task sleeps for a request.
	inCall              []*ioUnit
	next                int
	callStart, callEnd  int
	callOpen, callPlugs bool

	events []*ioUnit // completed, not reaped: events[evHead:], in completion order
	evHead int

	// The reap the job waits in: waitMin > 0 completions, taking at most
	// reapMax; full marks fio's wait for a full queue, which reaps again
	// while the depth is above iodepth_low (minFull is its minimum).
	waitMin, minFull int
	full             bool
	posted           bool // a reap is posted to the executor
	reaping, again   bool // a reap is on the stack; another is due when it returns
}

// setupAIO sets the job's engine up from its options, after fio's
// fix-ups (init.c fixup_options). Called by plan.
func (j *job) setupAIO(spec *fio.Job) {
	a := &j.aio
	q := spec.Queue
	a.batch = q.BatchSubmit
	if a.batch == 0 || a.batch > j.depth {
		a.batch = j.depth // fio: 0, or more than iodepth, is iodepth
	}
	a.cmin, a.cmax = q.BatchCompleteMin, q.BatchCompleteMax
	if a.cmin > a.cmax {
		a.cmax = a.cmin
	}
	a.polling = a.cmin == 0 && a.cmax == 0
	a.commits = true
	switch spec.IOEngine {
	case "libaio":
		a.plugs, a.ring = true, j.depth
	case "io_uring":
		a.plugs = true
	case "posixaio":
		a.commits, a.reapAll = false, true
	case "null":
		a.reapAll = true
	}
	if j.syncIO {
		// One I/O per call, completed in it (fio's FIO_SYNCIO).
		*a = aioState{batch: 1, cmin: 1, cmax: 1, commits: true}
		// fio's null engine keeps its commit hook, so fio's td_io_queue
		// counts none of its calls in the submit and complete lines.
		a.unmarked = spec.IOEngine == "null"
	}
}

// immediate reports a replay's queue: no batches, completions at once.
func (a *aioState) immediate() bool { return a.batch == 0 }

// waiting reports whether the job waits in a reap.
func (a *aioState) waiting() bool { return a.waitMin > 0 }

// committing reports whether a commit is under way (its task asleep).
func (a *aioState) committing() bool { return a.next < len(a.inCall) || a.callOpen }

// full reports fio's queue_full: the job's depth is taken, or the
// latency target's depth (latency_target.go).
func (j *job) full() bool {
	if j.lat != nil && j.inflight >= j.lat.qd {
		return true
	}
	return j.inflight >= j.depth
}

// queueIO hands u, counted in the job's depth, to its engine
// (td_io_queue), and commits once a batch is queued.
func (j *job) queueIO(u *ioUnit) {
	a := &j.aio
	j.overlapQueued(u)
	if a.immediate() {
		j.st.submitDepth(j.rampOver(), j.inflight, 1)
		u.queued = j.now()
		a.pumped++
		a.bios++
		if u.sub.asleep {
			// A replay's record whose task sleeps: it waits for it, in order.
			u.sub.waiting = append(u.sub.waiting, u)
			return
		}
		j.path.submit(u)
		return
	}
	a.ioQueued++
	if !a.commits {
		// posixaio: submitted now, one call per I/O; fio counts it as
		// submitted and completed in one (td_io_queue without commit).
		j.st.submitBatch(j.rampOver(), 1)
		j.st.completeBatch(j.rampOver(), 1)
		u.queued = j.now()
		a.bios++
		if !j.path.submit(u) {
			return
		}
	} else {
		a.queued = append(a.queued, u)
	}
	if a.ioQueued >= a.batch {
		j.commit()
	}
}

// commit is fio's td_io_commit: the units queued since the last one are
// counted in the depth histogram at the job's depth, and the engine
// submits what it holds.
func (j *job) commit() {
	a := &j.aio
	if a.ioQueued > 0 && j.inflight > 0 {
		j.st.submitDepth(j.rampOver(), j.inflight, a.ioQueued)
		a.ioQueued = 0
	}
	j.submitQueued()
}

// submitQueued is the engine's commit: what it holds goes out in submit
// calls.
func (j *job) submitQueued() {
	a := &j.aio
	if len(a.queued) == 0 || a.committing() || j.main.asleep {
		return
	}
	a.inCall, a.queued = a.queued, a.inCall[:0]
	a.next = 0
	j.submitCalls()
}

// submitCalls makes the commit's submit calls from a.next on. It returns
// early when the job's task sleeps for a request, still plugged as Linux
// leaves it inside io_submit (the wake-up, job.wake, calls it again), and
// under the CPU model after each bio (the next step goes on: pump).
func (j *job) submitCalls() {
	a := &j.aio
	for {
		if a.callOpen && a.next == a.callEnd {
			j.endCall()
		}
		if a.next == len(a.inCall) {
			break
		}
		if !a.callOpen {
			nr := len(a.inCall) - a.next
			if a.ring > 0 {
				nr = min(nr, a.ring-a.tail)
				a.tail = (a.tail + nr) % a.ring
			}
			a.callStart, a.callEnd, a.callOpen = a.next, a.next+nr, true
			a.callPlugs = a.plugs && nr > aioPlugThreshold
			if a.callPlugs {
				j.r.q.Plug(j.main.task)
			}
		}
		u := a.inCall[a.next]
		a.next++
		a.bios++
		if !j.path.submit(u) || j.cpuStepping() {
			return // asleep; or the CPU model, one bio per step (cpus.go)
		}
	}
	clear(a.inCall)
	a.inCall, a.next = a.inCall[:0], 0
}

// endCall ends a submit call: its plug is finished, and its units' slat
// ends now, when the call returns (fio's issue_time).
func (j *job) endCall() {
	a := &j.aio
	if a.callPlugs {
		j.r.q.Finish(j.main.task)
	}
	if !j.syncIO {
		// (A sync engine's I/O has no slat: its clat runs from
		// u.start, and the clock need not be read.)
		now := j.now()
		for _, u := range a.inCall[a.callStart:a.callEnd] {
			u.queued = now
		}
	}
	if !a.unmarked {
		j.st.submitBatch(j.rampOver(), a.callEnd-a.callStart)
	}
	a.callOpen, a.callPlugs = false, false
}

// reapWait waits for completions as fio's wait_for_completions does after
// a submission: full says the queue is full, so it reaps again while the
// depth is above iodepth_low.
func (j *job) reapWait(full bool) {
	a := &j.aio
	m := min(a.cmin, j.inflight)
	if full && m == 0 || a.cmin == 0 {
		m = 1
	}
	a.full, a.minFull = full, m
	j.getevents(m)
}

// quiesce waits for the job's I/O in flight (fio's io_u_quiesce: commit,
// then reap until nothing is in flight). It reports whether the job must
// wait: the last reap pumps it again.
func (j *job) quiesce() bool {
	j.commit()
	if j.main.asleep || j.aio.committing() {
		return true
	}
	if j.inflight == 0 {
		return false
	}
	if !j.aio.waiting() {
		j.aio.full = false
		j.getevents(1)
	}
	return true
}

// drain reaps everything the job has in flight at once, as fio does when
// its loop ends (io_u_queued_complete with the whole depth), and finishes
// it once nothing is left.
func (j *job) drain() {
	j.unplugAll()
	j.submitQueued()
	if j.main.asleep || j.aio.committing() || j.aio.waiting() {
		return
	}
	if j.inflight > 0 {
		j.aio.full = false
		j.getevents(j.inflight)
		return
	}
	j.maybeFinish()
}

// getevents starts a reap of at least m completions (io_u_queued_complete
// and td_io_getevents: what is queued is submitted first).
func (j *job) getevents(m int) {
	a := &j.aio
	if a.immediate() {
		j.flushPlugs() // a replay handles each completion as it comes, which its plugs must not hold back
		return
	}
	j.submitQueued()
	if j.main.asleep || a.committing() {
		return // the wake-up pumps the job, which waits again
	}
	a.waitMin = max(min(m, j.inflight), 1)
	j.maybeReap()
}

// reapMax is the most completions the reap under way takes
// (td_io_getevents' bounds).
func (j *job) reapMax() int {
	a := &j.aio
	if a.reapAll {
		return math.MaxInt
	}
	return max(min(a.cmax, j.inflight), a.waitMin)
}

// completed is where a unit's completion arrives, on the executor: a
// replay's, or an fsync's (done in its system call), is handled at once;
// others wait to be reaped.
func (j *job) completed(u *ioUnit, err error) {
	if u.aside != nil {
		j.asideEnded(u, err) // outside the job's figures (close.go)
		return
	}
	a := &j.aio
	if a.immediate() || u.sync {
		if !u.sync {
			j.st.completeBatch(j.rampOver(), 1)
		}
		j.done(u, err, j.reapTime())
		j.pump()
		return
	}
	u.err = err
	a.events = append(a.events, u)
	j.maybeReap()
}

// unreaped is the number of completions waiting to be reaped.
func (a *aioState) unreaped() int { return len(a.events) - a.evHead }

// maybeReap reaps once the reap the job waits in has its completions: at
// once if no more could join them, else after the other completions of
// this instant (the waiting task runs after the interrupt that woke it).
func (j *job) maybeReap() {
	a := &j.aio
	if !a.waiting() || a.unreaped() < a.waitMin || a.posted {
		return
	}
	if a.unreaped() < j.reapMax() {
		a.posted = true
		j.exec.Post(j.reapFunc)
		return
	}
	if a.reaping {
		a.again = true // the reap on the stack goes on with it: no recursion per completion
		return
	}
	j.reapLoop()
}

// reapLoop reaps until no reap is due at once. j.reapFunc, posted by
// maybeReap, is this.
func (j *job) reapLoop() {
	a := &j.aio
	a.posted = false
	a.reaping = true
	for {
		a.again = false
		j.reap()
		if !a.again {
			break
		}
	}
	a.reaping = false
}

// reap takes the reap's completions, accounts them in completion order
// and goes on: another reap while a full queue is above iodepth_low, else
// the job's loop.
func (j *job) reap() {
	a := &j.aio
	if !a.waiting() || a.unreaped() < a.waitMin {
		return
	}
	n := min(a.unreaped(), j.reapMax())
	a.waitMin = 0
	batch := a.events[a.evHead : a.evHead+n]
	a.evHead += n
	now := j.reapTime()
	for i, u := range batch {
		batch[i] = nil
		j.done(u, u.err, now)
	}
	if a.evHead == len(a.events) {
		a.events, a.evHead = a.events[:0], 0
	}
	if !a.unmarked {
		j.st.completeBatch(j.rampOver(), n)
	}
	if a.full && j.inflight > j.low && !j.state.stopping() && (j.lat == nil || !j.lat.quiesce) {
		j.getevents(a.minFull) // wait_for_completions' loop
		return
	}
	a.full = false
	j.pump()
}
